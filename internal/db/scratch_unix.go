//go:build unix

package db

import (
	"syscall"
	"unsafe"
)

// scratchMapMin is the size from which a command's scratch table is
// mapped from the operating system rather than taken from the Go heap.
const scratchMapMin = 1 << 20

// scratchU32 returns a zeroed table of n uint32s that a command uses and
// drops before it returns, and the function that releases it. A large one
// is an anonymous mapping, given back to the operating system by release
// at once (as Valkey's zfree of a table this size returns it): from the Go
// heap it would stay in RSS until the next collection and the
// scavenger, which an idle server may not reach for minutes (two LCS
// calls on 10,000-byte strings left 800 MB resident). Nothing may keep a
// reference to the table after release.
func scratchU32(n uint64) ([]uint32, func()) {
	size := n * 4
	if size < scratchMapMin || size > 1<<40 {
		return make([]uint32, n), func() {}
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]uint32, n), func() {}
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&mem[0])), n), func() { syscall.Munmap(mem) }
}
