package tlsrec

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// Keys captures the traffic secrets crypto/tls logs for each handshake
// of a configuration. One Keys serves any number of concurrent
// handshakes; install it with Configure.
type Keys struct {
	mu      sync.Mutex
	secrets map[[32]byte]*secrets
	// next is the KeyLogWriter that was on the configuration before
	// (SSLKEYLOGFILE-style logging keeps working).
	next io.Writer
}

type secrets struct {
	client, server []byte
}

// Configure returns a clone of cfg whose KeyLogWriter feeds a new Keys
// (and still writes to cfg's own KeyLogWriter, if any), for the
// handshakes of connections a Session will take over.
func Configure(cfg *tls.Config) (*tls.Config, *Keys) {
	c := cfg.Clone()
	k := &Keys{secrets: map[[32]byte]*secrets{}, next: cfg.KeyLogWriter}
	c.KeyLogWriter = k
	return c, k
}

// Write takes one NSS key log line ("LABEL <client random> <secret>").
func (k *Keys) Write(line []byte) (int, error) {
	if k.next != nil {
		k.next.Write(line)
	}
	f := strings.Fields(string(line))
	if len(f) != 3 {
		return len(line), nil
	}
	var which int
	switch f[0] {
	case "CLIENT_TRAFFIC_SECRET_0":
		which = 1
	case "SERVER_TRAFFIC_SECRET_0":
		which = 2
	default:
		return len(line), nil
	}
	rnd, err1 := hex.DecodeString(f[1])
	secret, err2 := hex.DecodeString(f[2])
	if err1 != nil || err2 != nil || len(rnd) != 32 {
		return len(line), nil
	}
	var r [32]byte
	copy(r[:], rnd)
	k.mu.Lock()
	s := k.secrets[r]
	if s == nil {
		s = &secrets{}
		k.secrets[r] = s
	}
	if which == 1 {
		s.client = secret
	} else {
		s.server = secret
	}
	k.mu.Unlock()
	return len(line), nil
}

// take removes and returns the secrets of one handshake.
func (k *Keys) take(r [32]byte) *secrets {
	k.mu.Lock()
	s := k.secrets[r]
	delete(k.secrets, r)
	k.mu.Unlock()
	return s
}

// pending is the number of handshakes whose secrets are held (tests).
func (k *Keys) pending() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.secrets)
}

// recordConn is the raw connection as crypto/tls sees it during the
// handshake: reads end at record boundaries, so nothing past the
// handshake's last record is consumed, and what the server writes is
// kept to count the records already sealed with the application key.
type recordConn struct {
	net.Conn
	buf []byte // read from the socket, not yet given to crypto/tls
	// left is how much of the current record crypto/tls has not read.
	left int
	// random is the ClientHello's random, once seen.
	random     [32]byte
	haveRandom bool
	written    bytes.Buffer
	// done stops the recording of writes once the handshake returned (a
	// TLS 1.2 connection keeps using this conn under crypto/tls).
	done bool
}

func (c *recordConn) fill(n int) error {
	for len(c.buf) < n {
		if cap(c.buf)-len(c.buf) < 4096 {
			nb := make([]byte, len(c.buf), 2*cap(c.buf)+4096)
			copy(nb, c.buf)
			c.buf = nb
		}
		m, err := c.Conn.Read(c.buf[len(c.buf):cap(c.buf)])
		c.buf = c.buf[:len(c.buf)+m]
		if err != nil && len(c.buf) < n {
			return err
		}
	}
	return nil
}

func (c *recordConn) Read(p []byte) (int, error) {
	if c.left == 0 {
		if err := c.fill(headerLen); err != nil {
			return 0, err
		}
		c.left = headerLen + int(binary.BigEndian.Uint16(c.buf[3:5]))
		if !c.haveRandom && c.buf[0] == recordHandshake && c.left >= headerLen+4+2+32 {
			// ClientHello: record header, handshake type and length (4),
			// legacy_version (2), then the random.
			if err := c.fill(headerLen + 4 + 2 + 32); err == nil && c.buf[5] == 1 {
				copy(c.random[:], c.buf[11:43])
				c.haveRandom = true
			}
		}
	}
	if len(c.buf) == 0 {
		if err := c.fill(1); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.buf[:min(len(c.buf), c.left)])
	c.buf = c.buf[n:]
	c.left -= n
	return n, nil
}

func (c *recordConn) Write(p []byte) (int, error) {
	if !c.done {
		c.written.Write(p)
	}
	return c.Conn.Write(p)
}

// Handshake runs the server side of a TLS handshake on raw with cfg (a
// configuration from Configure, whose Keys is k) and, when the
// connection is TLS 1.3 with a suite this package implements, returns a
// Session for its records; crypto/tls then must not be used for it
// again (tc is returned only for ConnectionState). Otherwise sess is nil
// and tc is the connection to use, as tls.Server would give it.
func Handshake(ctx context.Context, raw net.Conn, cfg *tls.Config, k *Keys) (sess *Session, tc *tls.Conn, err error) {
	rc := &recordConn{Conn: raw}
	tc = tls.Server(rc, cfg)
	err = tc.HandshakeContext(ctx)
	written := rc.written.Bytes()
	rc.done = true
	rc.written = bytes.Buffer{}
	var sec *secrets
	if rc.haveRandom {
		sec = k.take(rc.random)
	}
	if err != nil {
		return nil, nil, err
	}
	st := tc.ConnectionState()
	if _, ok := suiteFor(st.CipherSuite); st.Version != tls.VersionTLS13 || !ok {
		return nil, tc, nil
	}
	if sec == nil || sec.client == nil || sec.server == nil {
		return nil, nil, fmt.Errorf("tlsrec: the handshake's traffic secrets were not logged")
	}
	sess, err = newSession(st.CipherSuite, sec.client, sec.server)
	if err != nil {
		return nil, nil, err
	}
	if err := sess.skipWritten(written); err != nil {
		return nil, nil, err
	}
	sess.Buffered = rc.buf
	return sess, tc, nil
}

// skipWritten sets the write sequence number past the records the
// handshake already sealed with the application key: the last records of
// what it wrote that open under that key in sequence from 0.
func (s *Session) skipWritten(w []byte) error {
	var recs [][]byte
	for len(w) >= headerLen {
		n := headerLen + int(binary.BigEndian.Uint16(w[3:5]))
		if n > len(w) {
			return fmt.Errorf("tlsrec: the handshake wrote a partial record")
		}
		recs = append(recs, w[:n])
		w = w[n:]
	}
	for first := range recs {
		if recs[first][0] != recordApplication {
			continue
		}
		var seq uint64
		ok := true
		for _, r := range recs[first:] {
			if !s.opensAt(r, seq) {
				ok = false
				break
			}
			seq++
		}
		if ok {
			s.out.seq = seq
			return nil
		}
	}
	s.out.seq = 0
	return nil
}

// opensAt reports whether the record r authenticates under the write key
// at sequence number seq.
func (s *Session) opensAt(r []byte, seq uint64) bool {
	if r[0] != recordApplication || len(r) < headerLen+tagLen {
		return false
	}
	saved := s.out.seq
	s.out.seq = seq
	nonce := s.out.nonce()
	s.out.seq = saved
	_, err := s.out.aead.Open(nil, nonce, r[headerLen:], r[:headerLen])
	return err == nil
}
