//go:build race

package netloop

import "syscall"

// Under the race detector, package syscall's read and write, whose race
// annotations give data handed over through a socket the same
// happens-before edges as net.Conn (see sysio.go and Conn.Read).
func sysRead(fd int, p []byte) (int, error)  { return syscall.Read(fd, p) }
func sysWrite(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }
