package netloop

import (
	"net"
	"net/netip"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Accepting without Go's net package. net.Listener.Accept makes, for each
// connection, a netFD, a TCPConn, two *net.TCPAddr and the sockaddrs
// behind them, and registers the socket with Go's netpoller; TakeConn
// then duplicates the descriptor and closes all that. For a connection an
// event loop serves, that is ~420 B of garbage per connection, which
// stays resident after a burst of connections until a collection (issue
// 32: the memory of an idle client). Accept and the calls below do the
// same with raw syscalls and values: nothing is allocated.
//
// Accept runs inside the listener's syscall.RawConn.Read, which waits in
// Go's netpoller while there is nothing to accept.

// Accept accepts a connection on the non-blocking listening socket lfd
// (accept4(2)): the new socket is non-blocking and close-on-exec, ready
// for Register. It returns the peer's address as a value. The errors are
// accept4's (unix.EAGAIN: nothing to accept now).
func Accept(lfd int) (int, netip.AddrPort, error) {
	var rsa unix.RawSockaddrAny
	n := uint32(unsafe.Sizeof(rsa))
	fd, _, e := unix.RawSyscall6(unix.SYS_ACCEPT4, uintptr(lfd), uintptr(unsafe.Pointer(&rsa)),
		uintptr(unsafe.Pointer(&n)), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
	if e != 0 {
		return -1, netip.AddrPort{}, e
	}
	return int(fd), sockaddrPort(&rsa), nil
}

// SockName is the local address of socket fd (getsockname(2)).
func SockName(fd int) (netip.AddrPort, error) {
	var rsa unix.RawSockaddrAny
	n := uint32(unsafe.Sizeof(rsa))
	_, _, e := unix.RawSyscall(unix.SYS_GETSOCKNAME, uintptr(fd), uintptr(unsafe.Pointer(&rsa)), uintptr(unsafe.Pointer(&n)))
	if e != 0 {
		return netip.AddrPort{}, e
	}
	return sockaddrPort(&rsa), nil
}

// sockaddrPort converts an AF_INET or AF_INET6 address (the zero
// AddrPort for another family). An IPv6 scope becomes the zone as Go's
// net package names it: the interface's name, else the index.
func sockaddrPort(rsa *unix.RawSockaddrAny) netip.AddrPort {
	switch rsa.Addr.Family {
	case unix.AF_INET:
		sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(rsa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), port(&sa.Port))
	case unix.AF_INET6:
		sa := (*unix.RawSockaddrInet6)(unsafe.Pointer(rsa))
		a := netip.AddrFrom16(sa.Addr)
		if sa.Scope_id != 0 {
			zone := strconv.Itoa(int(sa.Scope_id))
			if ifi, err := net.InterfaceByIndex(int(sa.Scope_id)); err == nil {
				zone = ifi.Name
			}
			a = a.WithZone(zone)
		}
		return netip.AddrPortFrom(a, port(&sa.Port))
	}
	return netip.AddrPort{}
}

// port reads a sockaddr's port (network byte order).
func port(p *uint16) uint16 {
	b := (*[2]byte)(unsafe.Pointer(p))
	return uint16(b[0])<<8 | uint16(b[1])
}

// SetTCPOptions gives an accepted socket the options Go's net package
// gives the connections net.Listener.Accept returns, so that a socket
// accepted with Accept behaves as one taken with TakeConn: TCP_NODELAY,
// and keep-alive probes after keepIdle seconds idle (0: Go's default, 15
// s), every 15 s, 9 of them (net's defaults; TCPConn.SetKeepAlivePeriod
// sets only the idle time).
func SetTCPOptions(fd, keepIdle int) error {
	if keepIdle <= 0 {
		keepIdle = 15
	}
	for _, o := range [...]struct{ level, opt, v int }{
		{unix.IPPROTO_TCP, unix.TCP_NODELAY, 1},
		{unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
		{unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, keepIdle},
		{unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 15},
		{unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 9},
	} {
		v := int32(o.v)
		_, _, e := unix.RawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), uintptr(o.level), uintptr(o.opt),
			uintptr(unsafe.Pointer(&v)), 4, 0)
		if e != 0 {
			return e
		}
	}
	return nil
}
