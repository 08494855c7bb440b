//go:build !race

package netloop

import (
	"syscall"
	"unsafe"
)

// sysRead and sysWrite are read(2) and write(2) on a non-blocking socket
// as raw syscalls: they never block, so there is no need to tell the
// scheduler (entersyscall/exitsyscall cost tens of nanoseconds each, and a
// loopback write that runs the peer's receive path for 10-20 us looks to
// sysmon like a blocked syscall whose P it may hand to another thread,
// which costs thread wake-ups). Signals restart them (SA_RESTART).
//
// Under the race detector sysio_race.go uses package syscall instead, for
// the happens-before edges its read and write carry (see Conn.Read).
func sysRead(fd int, p []byte) (int, error)  { return rawIO(syscall.SYS_READ, fd, p) }
func sysWrite(fd int, p []byte) (int, error) { return rawIO(syscall.SYS_WRITE, fd, p) }

func rawIO(trap uintptr, fd int, p []byte) (int, error) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	r, _, e := syscall.RawSyscall(trap, uintptr(fd), uintptr(ptr), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// uringBuild allows the io_uring backend (uring.go).
const uringBuild = true
