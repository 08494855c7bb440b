//go:build !unix

package db

// scratchU32 returns a zeroed table of n uint32s and its (no-op) release;
// see scratch_unix.go.
func scratchU32(n uint64) ([]uint32, func()) { return make([]uint32, n), func() {} }
