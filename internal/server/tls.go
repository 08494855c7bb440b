package server

import (
	"crypto/tls"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/tlsconf"
)

// TLS (Valkey's tls-* directives; package tlsconf builds the
// configurations). Connections accepted on tls-port take the
// goroutine-per-connection path whatever net-engine says: crypto/tls
// needs a net.Conn to own, and the event loops read raw sockets. The
// plaintext listeners and their loops are untouched, so plaintext costs
// nothing more with TLS on. docs/architecture.md, "TLS".
//
// The handshake runs on the connection's own goroutine (not the accept
// loop's), within tlsHandshakeTimeout; protected mode and maxclients are
// checked after it, as Valkey's clientAcceptHandler does. A CONFIG SET of
// any tls-* directive rebuilds the configuration: new connections use
// the new one, established ones keep theirs; a configuration that cannot
// be built refuses the CONFIG SET with Valkey's text and keeps the old.

// tlsHandshakeTimeout bounds a handshake, so a peer that connects and
// says nothing does not hold a goroutine forever.
const tlsHandshakeTimeout = 10 * time.Second

// tlsState is the server's TLS side.
type tlsState struct {
	bundle    atomic.Pointer[tlsconf.Bundle] // nil while TLS is not configured
	listeners []net.Listener                 // tls-port's, guarded by Server.lnMu
	port      atomic.Int64                   // their port, 0 without
	// handshaking counts connections in their handshake: they count
	// against maxclients, as Valkey's client exists before its handshake.
	handshaking atomic.Int64
}

// tlsListener marks a tls-port listener for acceptLoop.
type tlsListener struct{ net.Listener }

// errTLSUpdate is Valkey's CONFIG SET text for a TLS configuration that
// cannot be applied (the reason goes to the log).
var errTLSUpdate = errors.New("Unable to update TLS configuration. Check server logs.")

// configureTLS builds the TLS configuration at start-up when the settings
// call for it (tls-port, tls-replication or tls-cluster).
func (s *Server) configureTLS() error {
	set := s.cfg.TLS()
	if !tlsconf.Needed(s.cfg.TLSPort(), set) {
		return nil
	}
	b, err := tlsconf.Build(set)
	if err != nil {
		s.log.warn("%v", err)
		return errors.New("Failed to configure TLS. Check logs for more info.")
	}
	s.tls.bundle.Store(b)
	return nil
}

// reconfigureTLS is the OnChange hook of every tls-* directive.
func (s *Server) reconfigureTLS(c *config.Config) error {
	set := c.TLS()
	if !tlsconf.Needed(c.TLSPort(), set) {
		return nil
	}
	b, err := tlsconf.Build(set)
	if err != nil {
		s.log.warn("%v", err)
		return errTLSUpdate
	}
	s.tls.bundle.Store(b)
	return nil
}

// listenTLS opens the tls-port listeners (none when it is 0) and
// registers the CONFIG SET hooks. From Listen.
func (s *Server) listenTLS() error {
	if p := s.cfg.TLSPort(); p != 0 {
		lns, port, err := openListeners(s.cfg.Bind(), p)
		if err != nil {
			return err
		}
		s.lnMu.Lock()
		s.tls.listeners = wrapTLS(lns)
		s.lnMu.Unlock()
		s.tls.port.Store(int64(port))
	}
	for _, name := range config.TLSDirectives {
		s.cfg.OnChange(name, s.reconfigureTLS)
	}
	s.cfg.OnChange("tls-port", func(c *config.Config) error {
		if err := s.reconfigureTLS(c); err != nil {
			return err
		}
		return s.relistenTLS()
	})
	return nil
}

func wrapTLS(lns []net.Listener) []net.Listener {
	out := make([]net.Listener, len(lns))
	for i, ln := range lns {
		out[i] = tlsListener{ln}
	}
	return out
}

// relistenTLS replaces the tls-port listeners after CONFIG SET tls-port
// (or bind), as relisten does the plaintext ones.
func (s *Server) relistenTLS() error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	for _, ln := range s.tls.listeners {
		ln.Close()
	}
	s.tls.listeners = nil
	s.tls.port.Store(0)
	p := s.cfg.TLSPort()
	if p == 0 {
		return nil
	}
	lns, port, err := openListeners(s.cfg.Bind(), p)
	if err != nil {
		s.log.warn("%v", err)
		return errors.New("Unable to listen on this port. Check server logs.")
	}
	s.tls.listeners = wrapTLS(lns)
	if s.serving {
		s.acceptOn(s.tls.listeners)
	}
	s.tls.port.Store(int64(port))
	return nil
}

// TLSAddr is the first tls-port listener's address, "" without one.
func (s *Server) TLSAddr() string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if len(s.tls.listeners) == 0 {
		return ""
	}
	return s.tls.listeners[0].Addr().String()
}

// acceptTLS runs the server side of the handshake on a connection
// accepted on tls-port, then hands it to accept. On its own goroutine.
func (s *Server) acceptTLS(raw net.Conn) {
	b := s.tls.bundle.Load()
	if b == nil {
		raw.Close()
		return
	}
	// maxclients before the handshake, so a flood of silent connections
	// cannot hold more than maxclients goroutines; there is no TLS yet
	// to say why, so the connection is just closed.
	n := s.tls.handshaking.Add(1)
	defer s.tls.handshaking.Add(-1)
	if s.nclients.Load()+n > int64(s.cfg.MaxClients()) {
		raw.Close()
		s.stats.rejectedConns.Add(1)
		return
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
		if ka := int64(s.cfg.TCPKeepalive()); ka > 0 {
			tc.SetKeepAlive(true)
			tc.SetKeepAlivePeriod(time.Duration(ka) * time.Second)
		}
	}
	raw.SetDeadline(time.Now().Add(tlsHandshakeTimeout))
	tc := tls.Server(raw, b.Server)
	if err := tc.Handshake(); err != nil {
		s.log.warn("Error accepting a client connection: %v (addr=%s)", err, raw.RemoteAddr())
		raw.Close()
		return
	}
	raw.SetDeadline(time.Time{})
	s.accept(&tlsConn{Conn: tc})
}

// tlsConn is an established TLS connection as the server holds it.
// Close closes the socket at once, without a close_notify alert:
// crypto/tls would send one under a five-second write deadline, and
// Close is called from other goroutines (CLIENT KILL, client eviction,
// output limits) that must not wait on a peer that does not read.
type tlsConn struct {
	*tls.Conn
	closed atomic.Bool
}

func (c *tlsConn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return net.ErrClosed
	}
	return c.NetConn().Close()
}

// dialTLS wraps a replica's connection to its primary in TLS
// (tls-replication), with the client certificate (tls-client-cert-file,
// else the server's) and the primary's chain checked against the CA.
func (s *Server) dialTLS(conn net.Conn, timeout time.Duration) (net.Conn, error) {
	b := s.tls.bundle.Load()
	if b == nil {
		return nil, errors.New("TLS is not configured")
	}
	tc := tls.Client(conn, b.Client)
	conn.SetDeadline(time.Now().Add(timeout))
	if err := tc.Handshake(); err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return &tlsConn{Conn: tc}, nil
}

// tlsListenerInfo is INFO's listener line for TLS (Valkey numbers it 2,
// after tcp and unix), "" without a TLS listener.
func (s *Server) tlsListenerInfo() string {
	p := s.tls.port.Load()
	if p == 0 {
		return ""
	}
	return s.listenerLine("tls", p)
}
