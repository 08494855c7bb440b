package db

import "sync/atomic"

// Encoding thresholds of the collection types, as Valkey's
// list-max-listpack-size, list-compress-depth, hash-max-listpack-*,
// set-max-intset-entries, set-max-listpack-* and zset-max-listpack-*
// directives. The server stores the configured values here at start-up and
// on every CONFIG SET (server/tuning.go); procedures read them with Load on
// every write that may convert an encoding, so a change applies to the next
// command, as in Valkey. The defaults are Valkey 8.0.1's compiled-in ones
// (what CONFIG GET shows without a config file), not valkey.conf's.
//
// They are pointers only so that they can be initialised here without an
// init function; the pointers never change.
var (
	// ListMaxListpackSize is the fill factor of list nodes: negative values
	// -1..-5 cap a node at 4, 8, 16, 32 or 64 KiB; positive values cap its
	// entry count (and its size at 8 KiB).
	ListMaxListpackSize = newTunable(-2)
	// ListCompressDepth is accepted and stored; nodes are not compressed.
	ListCompressDepth = newTunable(0)

	HashMaxListpackEntries = newTunable(512)
	HashMaxListpackValue   = newTunable(64)

	SetMaxIntsetEntries   = newTunable(512)
	SetMaxListpackEntries = newTunable(128)
	SetMaxListpackValue   = newTunable(64)

	ZSetMaxListpackEntries = newTunable(128)
	ZSetMaxListpackValue   = newTunable(64)
)

func newTunable(v int64) *atomic.Int64 {
	a := new(atomic.Int64)
	a.Store(v)
	return a
}

// listFill returns list-max-listpack-size clamped to the int range the
// quicklist works with (Valkey stores it in an int).
func listFill() int {
	v := ListMaxListpackSize.Load()
	switch {
	case v > 1<<31-1:
		return 1<<31 - 1
	case v < -(1 << 31):
		return -(1 << 31)
	}
	return int(v)
}
