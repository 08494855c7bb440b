package tlsrec

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"net"
	"testing"
	"time"
)

// testCert is a self-signed certificate for 127.0.0.1, its own CA.
func testCert(t testing.TB, name string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// pair is a Go TLS client connected over loopback to a server whose
// handshake ran through Handshake.
type pair struct {
	client *tls.Conn
	raw    net.Conn // the server's socket
	sess   *Session
	tc     *tls.Conn
	keys   *Keys
	in     []byte // ciphertext read, not yet opened
}

type setup struct {
	noTickets  bool
	clientAuth bool
	maxVersion uint16
	// early is written by the client right after its handshake, before
	// the server's Handshake returns is observed.
	early []byte
}

func newPair(t *testing.T, s setup) *pair {
	t.Helper()
	srvCert, srvPool := testCert(t, "server")
	cliCert, cliPool := testCert(t, "client")
	scfg := &tls.Config{Certificates: []tls.Certificate{srvCert}, SessionTicketsDisabled: s.noTickets}
	if s.clientAuth {
		scfg.ClientAuth = tls.RequireAndVerifyClientCert
		scfg.ClientCAs = cliPool
	}
	cfg, keys := Configure(scfg)
	ccfg := &tls.Config{RootCAs: srvPool, ServerName: "127.0.0.1", MaxVersion: s.maxVersion}
	if s.clientAuth {
		ccfg.Certificates = []tls.Certificate{cliCert}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type result struct {
		p   *pair
		err error
	}
	done := make(chan result, 1)
	go func() {
		raw, err := ln.Accept()
		if err != nil {
			done <- result{err: err}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sess, tc, err := Handshake(ctx, raw, cfg, keys)
		done <- result{&pair{raw: raw, sess: sess, tc: tc, keys: keys}, err}
	}()
	cc, err := tls.Dial("tcp", ln.Addr().String(), ccfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.early) > 0 {
		if _, err := cc.Write(s.early); err != nil {
			t.Fatal(err)
		}
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	r.p.client = cc
	r.p.in = append(r.p.in, r.p.sess.bufferedOrNil()...)
	t.Cleanup(func() { cc.Close(); r.p.raw.Close() })
	return r.p
}

func (s *Session) bufferedOrNil() []byte {
	if s == nil {
		return nil
	}
	return s.Buffered
}

// readPlain reads from the server's socket until n bytes of application
// data were opened.
func (p *pair) readPlain(t *testing.T, n int) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, 8192)
	p.raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		var used int
		var err error
		out, used, err = p.sess.Open(out, p.in)
		p.in = p.in[used:]
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if len(out) >= n {
			return out
		}
		m, err := p.raw.Read(buf)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		p.in = append(p.in, buf[:m]...)
	}
}

// openErr reads until Open fails and returns that error.
func (p *pair) openErr(t *testing.T) error {
	t.Helper()
	buf := make([]byte, 8192)
	p.raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, used, err := p.sess.Open(nil, p.in)
		p.in = p.in[used:]
		if err != nil {
			return err
		}
		m, err := p.raw.Read(buf)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		p.in = append(p.in, buf[:m]...)
	}
}

func (p *pair) send(t *testing.T, data []byte) {
	t.Helper()
	if _, err := p.raw.Write(p.sess.Seal(nil, data)); err != nil {
		t.Fatal(err)
	}
}

func clientRead(t *testing.T, c *tls.Conn, n int) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, n)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatalf("client read: %v", err)
	}
	return b
}

func payload(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// TestEcho: a Go client and a server whose records are this package's,
// in every handshake shape that changes what crypto/tls leaves behind
// (a session ticket sealed with the application key or not, tickets sent
// after a client certificate, requests pipelined behind the client's
// Finished), with messages across record boundaries.
func TestEcho(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    setup
	}{
		{"tickets", setup{}},
		{"no-tickets", setup{noTickets: true}},
		{"client-certificate", setup{clientAuth: true}},
		{"client-certificate-no-tickets", setup{clientAuth: true, noTickets: true}},
		{"pipelined-after-finished", setup{early: []byte("*1\r\n$4\r\nPING\r\n")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, tc.s)
			if p.sess == nil {
				t.Fatal("no Session for a TLS 1.3 connection")
			}
			if len(tc.s.early) > 0 {
				if got := p.readPlain(t, len(tc.s.early)); !bytes.Equal(got, tc.s.early) {
					t.Fatalf("early data %q, want %q", got, tc.s.early)
				}
			}
			for i, n := range []int{1, 100, MaxPlaintext - 1, MaxPlaintext, MaxPlaintext + 1, 70000} {
				msg := payload(n, byte(i))
				go func() { p.client.Write(msg) }()
				if got := p.readPlain(t, n); !bytes.Equal(got, msg) {
					t.Fatalf("message %d (%d bytes) opened differently", i, n)
				}
				p.send(t, msg)
				if got := clientRead(t, p.client, n); !bytes.Equal(got, msg) {
					t.Fatalf("reply %d (%d bytes) read differently", i, n)
				}
			}
			if n := p.keys.pending(); n != 0 {
				t.Fatalf("%d handshakes' secrets still held", n)
			}
		})
	}
}

// TestKeyUpdate: the server updates its key and asks the client to
// update; the client's KeyUpdate answer arrives before its next data,
// which opens under the client's next key. Twice, to see the chain.
func TestKeyUpdate(t *testing.T) {
	p := newPair(t, setup{})
	for round := range 2 {
		if err := p.sess.UpdateKeys(true); err != nil {
			t.Fatal(err)
		}
		if !p.sess.HasPending() {
			t.Fatal("UpdateKeys left nothing pending")
		}
		msg := payload(300, byte(round))
		p.send(t, msg)
		if got := clientRead(t, p.client, len(msg)); !bytes.Equal(got, msg) {
			t.Fatalf("round %d: reply after KeyUpdate read differently", round)
		}
		// The client answered with its own KeyUpdate when it read ours.
		msg2 := payload(500, byte(round+9))
		if _, err := p.client.Write(msg2); err != nil {
			t.Fatal(err)
		}
		if got := p.readPlain(t, len(msg2)); !bytes.Equal(got, msg2) {
			t.Fatalf("round %d: client data after its KeyUpdate opened differently", round)
		}
	}
}

// TestPeerKeyUpdateRequest: a client KeyUpdate that asks for one back is
// answered (pending, written before the next data) and both directions
// move on.
func TestPeerKeyUpdateRequest(t *testing.T) {
	p := newPair(t, setup{})
	// Play the client: seal a KeyUpdate(update_requested) with a second
	// Session holding the mirrored keys.
	mirror := &Session{suite: p.sess.suite, in: p.sess.out, out: p.sess.in}
	ku := mirror.seal(nil, recordHandshake, []byte{msgKeyUpdate, 0, 0, 1, 1})
	if err := mirror.out.next(mirror.suite); err != nil {
		t.Fatal(err)
	}
	data := mirror.Seal(nil, []byte("after"))
	out, n, err := p.sess.Open(nil, append(ku, data...))
	if err != nil || n != len(ku)+len(data) || string(out) != "after" {
		t.Fatalf("Open = %q, %d, %v", out, n, err)
	}
	if !p.sess.HasPending() {
		t.Fatal("no KeyUpdate answer pending")
	}
	// Our answer, under the key before the update, then data under the
	// next one: the mirror reads both, moving its read key on the way.
	sealed := p.sess.Seal(nil, []byte("reply"))
	if p.sess.HasPending() {
		t.Fatal("Seal left the answer pending")
	}
	out, n, err = mirror.Open(nil, sealed)
	if err != nil || n != len(sealed) || string(out) != "reply" {
		t.Fatalf("mirror Open = %q, %d, %v", out, n, err)
	}
	if mirror.HasPending() {
		t.Fatal("an update_not_requested KeyUpdate was answered")
	}
}

// TestCloseNotify: the client's close_notify is io.EOF.
func TestCloseNotify(t *testing.T) {
	p := newPair(t, setup{})
	p.client.Close()
	if err := p.openErr(t); !errors.Is(err, io.EOF) {
		t.Fatalf("after close_notify: %v, want io.EOF", err)
	}
	// And ours reaches a Go client as a clean EOF.
	p2 := newPair(t, setup{})
	if _, err := p2.raw.Write(p2.sess.CloseNotify(nil)); err != nil {
		t.Fatal(err)
	}
	p2.client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := p2.client.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("client read after our close_notify: %v, want io.EOF", err)
	}
}

// TestTampered: a changed byte fails authentication.
func TestTampered(t *testing.T) {
	p := newPair(t, setup{})
	mirror := &Session{suite: p.sess.suite, out: p.sess.in}
	rec := mirror.Seal(nil, []byte("GET k"))
	rec[len(rec)-3] ^= 1
	if _, _, err := p.sess.Open(nil, rec); !errors.Is(err, ErrRecord) {
		t.Fatalf("tampered record: %v, want ErrRecord", err)
	}
}

// TestTLS12: a TLS 1.2 connection is left to crypto/tls.
func TestTLS12(t *testing.T) {
	p := newPair(t, setup{maxVersion: tls.VersionTLS12})
	if p.sess != nil {
		t.Fatal("a Session for TLS 1.2")
	}
	go p.client.Write([]byte("ping"))
	b := make([]byte, 4)
	p.tc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(p.tc, b); err != nil || string(b) != "ping" {
		t.Fatalf("tls.Conn read %q, %v", b, err)
	}
	if _, err := p.tc.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if got := clientRead(t, p.client, 4); string(got) != "pong" {
		t.Fatalf("client read %q", got)
	}
}

// TestFailedHandshakeForgetsKeys: a client that rejects the server's
// certificate leaves no secrets behind.
func TestFailedHandshakeForgetsKeys(t *testing.T) {
	srvCert, _ := testCert(t, "server")
	_, otherPool := testCert(t, "other")
	cfg, keys := Configure(&tls.Config{Certificates: []tls.Certificate{srvCert}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		raw, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer raw.Close()
		_, _, err = Handshake(context.Background(), raw, cfg, keys)
		done <- err
	}()
	if c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: otherPool, ServerName: "127.0.0.1"}); err == nil {
		c.Close()
		t.Fatal("the client accepted an unknown certificate")
	}
	if err := <-done; err == nil {
		t.Fatal("the server's handshake succeeded")
	}
	if n := keys.pending(); n != 0 {
		t.Fatalf("%d handshakes' secrets held after a failed one", n)
	}
}

// TestExpandLabel checks the key schedule against RFC 8448's simple
// 1-RTT handshake (section 3): the server's application traffic secret
// and the write key and IV derived from it.
func TestExpandLabel(t *testing.T) {
	h := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	s, _ := suiteFor(tls.TLS_AES_128_GCM_SHA256)
	secret := h("a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643")
	key, err := expandLabel(s, secret, "key", 16)
	if err != nil {
		t.Fatal(err)
	}
	iv, _ := expandLabel(s, secret, "iv", 12)
	if want := h("9f02283b6c9c07efc26bb9f2ac92e356"); !bytes.Equal(key, want) {
		t.Fatalf("key %x, want %x", key, want)
	}
	if want := h("cf782b88dd83549aadf1e984"); !bytes.Equal(iv, want) {
		t.Fatalf("iv %x, want %x", iv, want)
	}
}
