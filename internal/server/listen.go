package server

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/netloop"
	"golang.org/x/sys/unix"
)

// Listeners: one per bind address, on the configured port. CONFIG SET
// port and bind replace them at run time as Valkey's changeListener does:
// the old ones are closed (their accept loops end; connections already
// accepted stay) and the new ones opened; when one cannot be, CONFIG SET
// fails with Valkey's text and its rollback reopens the old ones. CONFIG SET dir changes the working directory
// (it is a protected config: enable-protected-configs must allow it).

// Listen opens the configured listeners. Port 0 picks a free port
// (tests), unless tls-port is set: then, as in Valkey, it means no
// plaintext listener (tls.go opens the TLS ones).
func (s *Server) Listen() error {
	if err := s.configureTLS(); err != nil {
		return err
	}
	var lns []net.Listener
	port := 0
	if s.plaintext() {
		var err error
		if lns, port, err = s.openPlaintext(); err != nil {
			return err
		}
	}
	s.lnMu.Lock()
	s.listeners = lns
	s.lnMu.Unlock()
	s.port.Store(int64(port))
	if err := s.listenTLS(); err != nil {
		s.closeListeners()
		return err
	}
	if err := s.listenMetrics(); err != nil {
		s.closeListeners()
		return err
	}
	if err := s.startNetloop(); err != nil {
		s.closeListeners()
		s.closeMetrics()
		return err
	}
	s.cfg.OnChange("port", func(*config.Config) error { return s.relisten("Unable to listen on this port. Check server logs.") })
	s.cfg.OnChange("bind", func(*config.Config) error {
		if err := s.relisten("Failed to bind to specified addresses."); err != nil {
			return err
		}
		return s.relistenTLS()
	})
	s.cfg.OnChange("dir", func(c *config.Config) error { return chdir(c.Dir()) })
	return nil
}

// plaintext reports whether the server listens in plaintext: port 0 is
// "no plaintext listener" when tls-port is set, a free port otherwise.
func (s *Server) plaintext() bool { return s.cfg.Port() != 0 || s.cfg.TLSPort() == 0 }

// openPlaintext opens the plaintext listeners (openListeners), as
// loopListeners when the event loops serve the connections.
func (s *Server) openPlaintext() ([]net.Listener, int, error) {
	lns, port, err := openListeners(s.cfg.Bind(), s.cfg.Port())
	if err == nil && netLoops(s.cfg) > 0 {
		lns, err = loopListeners(lns)
	}
	return lns, port, err
}

// openListeners listens on every bind address (a leading '-' marks one
// that may be missing, "*" is every IPv4 address) on port; port 0 picks
// a free one, then used for every address.
func openListeners(binds []string, port int) ([]net.Listener, int, error) {
	if len(binds) == 0 {
		binds = []string{"127.0.0.1"}
	}
	var lns []net.Listener
	for _, b := range binds {
		optional := len(b) > 0 && b[0] == '-'
		if optional {
			b = b[1:]
		}
		if b == "*" {
			b = "0.0.0.0"
		}
		addr := net.JoinHostPort(b, strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			if optional {
				continue
			}
			for _, l := range lns {
				l.Close()
			}
			return nil, 0, fmt.Errorf("Warning: Could not create server TCP listening socket %s: %w", addr, err)
		}
		if port == 0 {
			port = ln.Addr().(*net.TCPAddr).Port
		}
		lns = append(lns, ln)
	}
	return lns, port, nil
}

// loopListener is a plaintext listener whose connections the event loops
// serve (acceptRaw): the socket net.Listen opened, held as an *os.File,
// which Go's netpoller watches, so that acceptRaw can wait for it with
// RawConn.Read (a net.Listener's RawConn cannot read). Close closes it
// and ends acceptRaw's wait.
type loopListener struct {
	f    *os.File
	rc   syscall.RawConn
	addr net.Addr
}

// loopListeners converts plaintext listeners for the event loops; the
// net.Listeners are closed (the sockets live on in the loopListeners).
func loopListeners(lns []net.Listener) ([]net.Listener, error) {
	out := make([]net.Listener, 0, len(lns))
	var err error
	for _, ln := range lns {
		var f *os.File
		if err == nil {
			f, err = ln.(*net.TCPListener).File()
		}
		var rc syscall.RawConn
		if err == nil {
			if rc, err = f.SyscallConn(); err != nil {
				f.Close()
			}
		}
		addr := ln.Addr()
		ln.Close()
		if err == nil {
			out = append(out, &loopListener{f: f, rc: rc, addr: addr})
		}
	}
	if err != nil {
		for _, ln := range out {
			ln.Close()
		}
		return nil, err
	}
	return out, nil
}

// Accept is net.Listener's, for completeness: the server accepts with
// acceptRaw.
func (l *loopListener) Accept() (net.Conn, error) {
	fd, aerr := -1, error(nil)
	err := l.rc.Read(func(lfd uintptr) bool {
		fd, _, aerr = netloop.Accept(int(lfd))
		return aerr != unix.EAGAIN
	})
	if err == nil {
		err = aerr
	}
	if err != nil {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: err}
	}
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	return net.FileConn(f)
}

func (l *loopListener) Close() error   { return l.f.Close() }
func (l *loopListener) Addr() net.Addr { return l.addr }

// relisten replaces the listeners after CONFIG SET port or bind; msg is
// the error CONFIG SET reports when a new listener cannot be opened. As
// Valkey's changeListener it closes the old listeners first (the new
// ones may want the same address); when the new ones fail, CONFIG SET
// restores the old values and runs this again, which reopens them.
func (s *Server) relisten(msg string) error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	for _, ln := range s.listeners {
		ln.Close()
	}
	s.listeners = nil
	s.port.Store(0)
	if !s.plaintext() {
		return nil
	}
	lns, port, err := s.openPlaintext()
	if err != nil {
		s.log.warn("%v", err)
		return errors.New(msg)
	}
	s.listeners = lns
	if s.serving {
		s.acceptOn(lns)
	}
	s.port.Store(int64(port))
	return nil
}

// startAccepting starts an accept loop per listener (Serve).
func (s *Server) startAccepting() {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	s.serving = true
	s.acceptOn(s.listeners)
	s.acceptOn(s.tls.listeners)
}

// acceptOn starts the accept loops of lns. s.lnMu is held. A plaintext
// listener whose connections go to the event loops (a loopListener)
// accepts with acceptRaw; TLS listeners and the goroutine path's use
// net.Listener.Accept (acceptLoop).
func (s *Server) acceptOn(lns []net.Listener) {
	for _, ln := range lns {
		s.acceptWG.Add(1)
		go func() {
			defer s.acceptWG.Done()
			if ll, ok := ln.(*loopListener); ok {
				s.acceptRaw(ll.rc)
				return
			}
			s.acceptLoop(ln)
		}()
	}
}

// acceptRaw is acceptLoop for a plaintext listener on the event loops:
// it accepts with accept4 on the listener's descriptor (netloop.Accept)
// inside rc.Read, which waits in Go's netpoller while there is nothing
// to accept, and hands each socket to accept as a loopConn. Nothing is
// allocated per connection but what the client keeps (Go's Accept made
// ~420 B of garbage each: netloop/accept.go). It ends when the listener
// is closed.
func (s *Server) acceptRaw(rc syscall.RawConn) {
	var (
		fd    int
		raddr netip.AddrPort
		aerr  error
	)
	accept := func(lfd uintptr) bool {
		fd, raddr, aerr = netloop.Accept(int(lfd))
		return aerr != unix.EAGAIN
	}
	var delay time.Duration
	for {
		if err := rc.Read(accept); err != nil {
			return // the listener was closed
		}
		switch aerr {
		case nil:
		case unix.EINTR, unix.ECONNABORTED:
			continue // as Go's Accept: the next one
		default:
			delay = s.acceptBackoff(delay, aerr)
			continue
		}
		delay = 0
		s.stats.connsReceived.Add(1)
		laddr, err := netloop.SockName(fd)
		if err == nil {
			err = netloop.SetTCPOptions(fd, s.cfg.TCPKeepalive())
		}
		if err != nil {
			unix.Close(fd) // reset or gone already
			continue
		}
		s.accept(newLoopConn(laddr, raddr, fd))
	}
}

func (s *Server) closeListeners() {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	for _, ln := range s.listeners {
		ln.Close()
	}
	for _, ln := range s.tls.listeners {
		ln.Close()
	}
}

// Addr is the first listener's address.
func (s *Server) Addr() string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if len(s.listeners) == 0 {
		return ""
	}
	return s.listeners[0].Addr().String()
}

// chdir is CONFIG SET dir: the error is strerror's text, as Valkey's.
func chdir(dir string) error {
	err := os.Chdir(dir)
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg := errno.Error()
		return errors.New(strings.ToUpper(msg[:1]) + msg[1:])
	}
	return err
}
