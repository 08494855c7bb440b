package server

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/netloop"
	"github.com/corvid-kv/corvid/internal/tlsconf"
	"github.com/corvid-kv/corvid/internal/tlsrec"
)

// TLS (Valkey's tls-* directives; package tlsconf builds the
// configurations). crypto/tls runs every handshake; then, with the event
// loops on (net-engine loops, the default), a TLS 1.3 connection with an
// AES-GCM suite is served on a loop like a plaintext one, its records
// opened and sealed by package tlsrec as the loop reads and writes
// (netloop.Conn's codec). TLS 1.2, ChaCha20-Poly1305, and every TLS
// connection under net-engine goroutine stay on crypto/tls and the
// goroutine-per-connection path. docs/architecture.md, "TLS".
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
	// loop is the handshake configuration of connections the loops take
	// over: the bundle's server configuration with its key log going to
	// tlsrec, made once per bundle.
	loop atomic.Pointer[tlsLoopConfig]
	// bus is the cluster bus's configurations, made once per bundle
	// (cluster_tls.go).
	bus atomic.Pointer[busTLSConfig]
}

// tlsLoopConfig is a bundle's configuration for tlsrec handshakes.
type tlsLoopConfig struct {
	bundle *tlsconf.Bundle
	cfg    *tls.Config
	keys   *tlsrec.Keys
}

// loopConfig returns b's tlsrec configuration, making it the first time.
func (t *tlsState) loopConfig(b *tlsconf.Bundle) *tlsLoopConfig {
	if lc := t.loop.Load(); lc != nil && lc.bundle == b {
		return lc
	}
	cfg, keys := tlsrec.Configure(b.Server)
	lc := &tlsLoopConfig{bundle: b, cfg: cfg, keys: keys}
	t.loop.Store(lc)
	return lc
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
	if tcp, ok := raw.(*net.TCPConn); ok && s.loops != nil {
		lc := s.tls.loopConfig(b)
		sess, tc, err := tlsrec.Handshake(context.Background(), raw, lc.cfg, lc.keys)
		if err != nil {
			s.log.warn("Error accepting a client connection: %v (addr=%s)", err, raw.RemoteAddr())
			raw.Close()
			return
		}
		raw.SetDeadline(time.Time{})
		if sess != nil {
			s.accept(&loopTLSConn{TCPConn: tcp, sess: sess})
		} else {
			s.accept(&tlsConn{Conn: tc})
		}
		return
	}
	tc := tls.Server(raw, b.Server)
	if err := tc.Handshake(); err != nil {
		s.log.warn("Error accepting a client connection: %v (addr=%s)", err, raw.RemoteAddr())
		raw.Close()
		return
	}
	raw.SetDeadline(time.Time{})
	s.accept(&tlsConn{Conn: tc})
}

// loopTLSConn is a TLS 1.3 connection after its handshake, on its way to
// an event loop, which then reads and writes its records through the
// Session (netloop.Conn.SetCodec). Before that (a refusal written by
// accept) Write seals here.
type loopTLSConn struct {
	*net.TCPConn
	sess *tlsrec.Session
}

func (c *loopTLSConn) Write(p []byte) (int, error) {
	if _, err := c.TCPConn.Write(c.sess.Seal(nil, p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// loopSocket is the socket under conn an event loop can serve, with the
// codec it needs and the bytes the codec must open first: a plain TCP
// connection, or a TLS one tlsrec took over; nil for anything else.
func loopSocket(conn net.Conn) (*net.TCPConn, netloop.Codec, []byte) {
	switch c := conn.(type) {
	case *net.TCPConn:
		return c, nil, nil
	case *loopTLSConn:
		return c.TCPConn, c.sess, c.sess.Buffered
	}
	return nil, nil, nil
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

// sessConn is a TLS connection tlsrec took over, as a net.Conn for
// goroutines that use it off the loops: a replica's stream writer and
// its acknowledgement reader, on a duplicate of the loop connection's
// socket. One mutex orders the Session's two halves: Write seals and
// writes under it, and Read opens under it and writes there any answer
// the Session owes (a KeyUpdate's), so that answer always precedes the
// records sealed with the key it announces.
type sessConn struct {
	net.Conn
	mu    sync.Mutex
	sess  *tlsrec.Session
	in    []byte // read from the socket, not opened yet (reader only)
	plain []byte // opened, not yet returned (reader only)
	off   int
	rerr  error
	out   []byte // Write's sealing buffer, under mu
}

func newSessConn(conn net.Conn, sess *tlsrec.Session, plain, raw []byte) *sessConn {
	return &sessConn{Conn: conn, sess: sess, plain: plain, in: raw}
}

func (c *sessConn) Read(p []byte) (int, error) {
	for c.off == len(c.plain) {
		c.plain, c.off = c.plain[:0], 0
		if c.rerr != nil {
			return 0, c.rerr
		}
		if len(c.in) > 0 {
			c.mu.Lock()
			var used int
			c.plain, used, c.rerr = c.sess.Open(c.plain, c.in)
			var werr error
			if c.sess.HasPending() {
				_, werr = c.Conn.Write(c.sess.Seal(nil, nil))
			}
			c.mu.Unlock()
			c.in = c.in[:copy(c.in, c.in[used:])]
			if werr != nil && c.rerr == nil {
				c.rerr = werr
			}
			if len(c.plain) > 0 || c.rerr != nil || used > 0 {
				continue
			}
		}
		if cap(c.in)-len(c.in) < 4096 {
			c.in = append(c.in, make([]byte, 16<<10)...)[:len(c.in)]
		}
		n, err := c.Conn.Read(c.in[len(c.in):cap(c.in)])
		c.in = c.in[:len(c.in)+n]
		if n == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, c.plain[c.off:])
	c.off += n
	return n, nil
}

func (c *sessConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = c.sess.Seal(c.out[:0], p)
	if _, err := c.Conn.Write(c.out); err != nil {
		return 0, err
	}
	if cap(c.out) > 64<<10 {
		c.out = nil
	}
	return len(p), nil
}
