package server

import (
	"slices"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
)

// applyTuning pushes the collection encoding thresholds (list-max-listpack-size,
// hash-max-listpack-*, set-max-*, zset-max-listpack-*) into package db. It is
// idempotent: applyConfig runs it at start-up and after every CONFIG SET.
func applyTuning(cfg *config.Config) {
	for _, t := range []struct {
		name string
		v    interface{ Store(int64) }
	}{
		{"list-max-listpack-size", db.ListMaxListpackSize},
		{"list-compress-depth", db.ListCompressDepth},
		{"hash-max-listpack-entries", db.HashMaxListpackEntries},
		{"hash-max-listpack-value", db.HashMaxListpackValue},
		{"set-max-intset-entries", db.SetMaxIntsetEntries},
		{"set-max-listpack-entries", db.SetMaxListpackEntries},
		{"set-max-listpack-value", db.SetMaxListpackValue},
		{"zset-max-listpack-entries", db.ZSetMaxListpackEntries},
		{"zset-max-listpack-value", db.ZSetMaxListpackValue},
	} {
		t.v.Store(cfg.Int(t.name))
	}
}

// collectionHandlers lists the list/hash/set/zset/sort command groups.
func collectionHandlers() []db.Handler {
	return slices.Concat(db.ListCommands, db.HashCommands, db.SetCommands, db.ZSetCommands, db.SortCommands)
}
