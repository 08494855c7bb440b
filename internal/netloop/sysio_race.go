//go:build race

package netloop

import "syscall"

// Under the race detector, package syscall's read and write, whose race
// annotations give data handed over through a socket the same
// happens-before edges as net.Conn (see sysio.go and Conn.Read).
func sysRead(fd int, p []byte) (int, error)  { return syscall.Read(fd, p) }
func sysWrite(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }

// uringBuild: no io_uring backend under the race detector. The kernel's
// writes into receive buffers carry no race annotations, so data handed
// over through a socket would look unsynchronized; the loops use epoll.
const uringBuild = false
