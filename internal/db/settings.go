package db

import (
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Settings are the configuration values a keyspace's procedures read:
// Valkey's list-max-listpack-size, list-compress-depth,
// hash-max-listpack-*, set-max-intset-entries, set-max-listpack-*,
// zset-max-listpack-*, proto-max-bulk-len, lfu-log-factor and
// lfu-decay-time. The server applies them with Keyspace.Configure at
// start-up and after every CONFIG SET (server/tuning.go), so a change
// applies to the next command, as in Valkey.
//
// Each Keyspace has its own: two servers in one process, or two tests
// running in parallel, do not share them. (Whether access clocks use the
// LRU or the LFU layout follows the keyspace's maxmemory-policy,
// SetEvictionPolicy, as in Valkey.)
type Settings struct {
	// ListMaxListpackSize is the fill factor of list nodes: negative
	// values -1..-5 cap a node at 4, 8, 16, 32 or 64 KiB; positive values
	// cap its entry count (and its size at 8 KiB).
	ListMaxListpackSize int64
	// ListCompressDepth is how many nodes at each end of a list stay
	// raw, the interior ones being LZF-compressed (0: none). Like the
	// fill, a list takes it when it becomes a quicklist.
	ListCompressDepth int64

	HashMaxListpackEntries int64
	HashMaxListpackValue   int64

	SetMaxIntsetEntries   int64
	SetMaxListpackEntries int64
	SetMaxListpackValue   int64

	ZSetMaxListpackEntries int64
	ZSetMaxListpackValue   int64

	// ProtoMaxBulkLen is the largest string a command may build (APPEND,
	// SETRANGE, SETBIT, BITFIELD).
	ProtoMaxBulkLen int64

	// LFULogFactor and LFUDecayTime tune the LFU access counter.
	LFULogFactor int64
	LFUDecayTime int64

	// HLLSparseMaxBytes is how large a sparse HyperLogLog may grow
	// before it turns dense (hll-sparse-max-bytes).
	HLLSparseMaxBytes int64

	// StreamNodeMaxBytes and StreamNodeMaxEntries bound a stream node
	// (stream-node-max-bytes, stream-node-max-entries; 0: no bound).
	StreamNodeMaxBytes   int64
	StreamNodeMaxEntries int64
}

// DefaultSettings are Valkey 8.0.1's compiled-in values (what CONFIG GET
// shows without a config file), not valkey.conf's. New keyspaces start
// with them.
func DefaultSettings() Settings {
	return Settings{
		ListMaxListpackSize:    -2,
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		SetMaxListpackEntries:  128,
		SetMaxListpackValue:    64,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		ProtoMaxBulkLen:        512 << 20,
		LFULogFactor:           10,
		LFUDecayTime:           1,
		HLLSparseMaxBytes:      3000,
		StreamNodeMaxBytes:     4096,
		StreamNodeMaxEntries:   100,
	}
}

// settings is a keyspace's copy of its Settings, one atomic per value:
// procedures read a value with one atomic load through the Ctx's
// keyspace (c.cfg()) on every write that may convert an encoding or
// build a long string, with no lock and no lookup. Configure stores the
// values one by one; a command running meanwhile may see some old and
// some new ones, each of them valid.
type settings struct {
	listSize, listCompressDepth         atomic.Int64
	hashEntries, hashValue              atomic.Int64
	intsetEntries, setEntries, setValue atomic.Int64
	zsetEntries, zsetValue              atomic.Int64
	maxStringLen                        atomic.Int64
	lfuLogFactor, lfuDecayTime          atomic.Int64
	hllSparseMax                        atomic.Int64
	streamNodeBytes, streamNodeEntries  atomic.Int64
}

// Configure applies s to the keyspace.
func (ks *Keyspace) Configure(s Settings) { ks.cfg.store(s) }

func (c *settings) store(s Settings) {
	c.listSize.Store(s.ListMaxListpackSize)
	c.listCompressDepth.Store(s.ListCompressDepth)
	c.hashEntries.Store(s.HashMaxListpackEntries)
	c.hashValue.Store(s.HashMaxListpackValue)
	c.intsetEntries.Store(s.SetMaxIntsetEntries)
	c.setEntries.Store(s.SetMaxListpackEntries)
	c.setValue.Store(s.SetMaxListpackValue)
	c.zsetEntries.Store(s.ZSetMaxListpackEntries)
	c.zsetValue.Store(s.ZSetMaxListpackValue)
	c.maxStringLen.Store(s.ProtoMaxBulkLen)
	c.lfuLogFactor.Store(s.LFULogFactor)
	c.lfuDecayTime.Store(s.LFUDecayTime)
	c.hllSparseMax.Store(s.HLLSparseMaxBytes)
	c.streamNodeBytes.Store(s.StreamNodeMaxBytes)
	c.streamNodeEntries.Store(s.StreamNodeMaxEntries)
}

// Settings returns the keyspace's current settings.
func (ks *Keyspace) Settings() Settings {
	c := &ks.cfg
	return Settings{
		ListMaxListpackSize:    c.listSize.Load(),
		ListCompressDepth:      c.listCompressDepth.Load(),
		HashMaxListpackEntries: c.hashEntries.Load(),
		HashMaxListpackValue:   c.hashValue.Load(),
		SetMaxIntsetEntries:    c.intsetEntries.Load(),
		SetMaxListpackEntries:  c.setEntries.Load(),
		SetMaxListpackValue:    c.setValue.Load(),
		ZSetMaxListpackEntries: c.zsetEntries.Load(),
		ZSetMaxListpackValue:   c.zsetValue.Load(),
		ProtoMaxBulkLen:        c.maxStringLen.Load(),
		LFULogFactor:           c.lfuLogFactor.Load(),
		HLLSparseMaxBytes:      c.hllSparseMax.Load(),
		LFUDecayTime:           c.lfuDecayTime.Load(),
		StreamNodeMaxBytes:     c.streamNodeBytes.Load(),
		StreamNodeMaxEntries:   c.streamNodeEntries.Load(),
	}
}

// cfg returns the settings of the command's keyspace.
func (c *Ctx) cfg() *settings { return &c.KS.cfg }

// listFill returns list-max-listpack-size clamped to the int range the
// quicklist works with (Valkey stores it in an int).
func (s *settings) listFill() int {
	v := s.listSize.Load()
	switch {
	case v > 1<<31-1:
		return 1<<31 - 1
	case v < -(1 << 31):
		return -(1 << 31)
	}
	return int(v)
}

// listConfig is what a list takes when it becomes a quicklist:
// list-max-listpack-size and list-compress-depth (clamped by the
// quicklist to Valkey's maximum).
func (s *settings) listConfig() ds.ListConfig {
	return ds.ListConfig{Fill: s.listFill(), Compress: int(min(s.listCompressDepth.Load(), ds.QuicklistMaxDepth))}
}

// intsetMaxEntries is Valkey's intsetMaxEntries: set-max-intset-entries,
// capped at 2^30 by the intset's own format.
func (s *settings) intsetMaxEntries() int {
	return int(min(s.intsetEntries.Load(), 1<<30))
}
