package server

import (
	"slices"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
)

// applyTuning pushes the configuration the keyspace's procedures read (the
// collection encoding thresholds list-max-listpack-size,
// hash-max-listpack-*, set-max-*, zset-max-listpack-*, proto-max-bulk-len
// and the LFU tuning) into ks. It is idempotent: applyConfig runs it at
// start-up and after every CONFIG SET.
func applyTuning(ks *db.Keyspace, cfg *config.Config) {
	ks.SetRDBCompression(cfg.RDBCompression())
	ks.Configure(db.Settings{
		ListMaxListpackSize:    int64(cfg.ListMaxListpackSize()),
		ListCompressDepth:      int64(cfg.ListCompressDepth()),
		HashMaxListpackEntries: cfg.HashMaxListpackEntries(),
		HashMaxListpackValue:   cfg.HashMaxListpackValue(),
		SetMaxIntsetEntries:    cfg.SetMaxIntsetEntries(),
		SetMaxListpackEntries:  cfg.SetMaxListpackEntries(),
		SetMaxListpackValue:    cfg.SetMaxListpackValue(),
		ZSetMaxListpackEntries: cfg.ZsetMaxListpackEntries(),
		ZSetMaxListpackValue:   cfg.ZsetMaxListpackValue(),
		ProtoMaxBulkLen:        cfg.ProtoMaxBulkLen(),
		LFULogFactor:           int64(cfg.LFULogFactor()),
		LFUDecayTime:           int64(cfg.LFUDecayTime()),
		HLLSparseMaxBytes:      cfg.HLLSparseMaxBytes(),
		StreamNodeMaxBytes:     cfg.StreamNodeMaxBytes(),
		StreamNodeMaxEntries:   cfg.StreamNodeMaxEntries(),
	})
}

// collectionHandlers lists the list/hash/set/zset/sort/HyperLogLog/geo/stream
// command groups.
func collectionHandlers() []db.Handler {
	return slices.Concat(db.ListCommands, db.HashCommands, db.SetCommands, db.ZSetCommands, db.SortCommands, db.HLLCommands, db.GeoCommands, db.StreamCommands)
}
