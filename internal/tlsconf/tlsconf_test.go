package tlsconf

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/tests/testutil"
)

func settings(f *testutil.TLSFiles) config.TLSSettings {
	return config.TLSSettings{CertFile: f.ServerCert, KeyFile: f.ServerKey, CACertFile: f.CACert,
		AuthClients: "yes", SessionCaching: true, SessionCacheTimeout: 300, SessionCacheSize: 20480}
}

// handshake runs a handshake between srv and cli over loopback TCP and
// returns the client's state and error (or the server's when the client's
// is nil).
func handshake(srv, cli *tls.Config) (tls.ConnectionState, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer ln.Close()
	errc := make(chan error, 1)
	go func() {
		a, err := ln.Accept()
		if err != nil {
			errc <- err
			return
		}
		defer a.Close()
		a.SetDeadline(time.Now().Add(10 * time.Second))
		s := tls.Server(a, srv)
		err = s.Handshake()
		if err == nil {
			// TLS 1.3 client certificates are checked after the
			// client's Finished: read to see the verdict.
			_, err = s.Read(make([]byte, 1))
		}
		if err == nil {
			s.Write([]byte{'y'})
		}
		errc <- err
	}()
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer b.Close()
	b.SetDeadline(time.Now().Add(10 * time.Second))
	c := tls.Client(b, cli)
	err = c.Handshake()
	if err == nil {
		c.Write([]byte{'x'})
		_, err = c.Read(make([]byte, 1)) // also takes TLS 1.3 tickets
	}
	cs := c.ConnectionState()
	if serr := <-errc; err == nil {
		err = serr
	}
	return cs, err
}

func TestAuthClients(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	for _, tc := range []struct {
		auth             string
		withCert, wantOK bool
	}{
		{"yes", true, true}, {"yes", false, false},
		{"optional", true, true}, {"optional", false, true},
		{"no", false, true}, {"no", true, true},
	} {
		s := settings(f)
		s.AuthClients = tc.auth
		b, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		_, err = handshake(b.Server, f.ClientConfig(t, tc.withCert))
		if (err == nil) != tc.wantOK {
			t.Errorf("auth %s, client cert %v: err %v, want ok=%v", tc.auth, tc.withCert, err, tc.wantOK)
		}
	}
	// A certificate from another CA is refused under optional too.
	other := testutil.NewTLSFiles(t)
	s := settings(f)
	s.AuthClients = "optional"
	b, _ := Build(s)
	cli := other.ClientConfig(t, true)
	cli.RootCAs = f.Pool
	if _, err := handshake(b.Server, cli); err == nil {
		t.Error("a client certificate of an unknown CA was accepted")
	}
}

// The replica's client configuration checks the primary's chain but not
// its name, and presents the server certificate unless a client one is
// configured.
func TestClientConfig(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	b, err := Build(settings(f))
	if err != nil {
		t.Fatal(err)
	}
	cli := b.Client.Clone()
	cli.ServerName = "not-the-name-in-the-certificate"
	if _, err := handshake(b.Server, cli); err != nil {
		t.Fatalf("replica's handshake: %v", err)
	}
	other := testutil.NewTLSFiles(t)
	s := settings(other)
	s.AuthClients = "no"
	ob, _ := Build(s)
	if _, err := handshake(ob.Server, b.Client); err == nil {
		t.Error("a primary certified by another CA was accepted")
	}
}

func TestBuildErrors(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	garbage := filepath.Join(t.TempDir(), "garbage")
	os.WriteFile(garbage, []byte("not a certificate\n"), 0o644)
	for _, tc := range []struct {
		name string
		mod  func(*config.TLSSettings)
		want string
	}{
		{"missing cert", func(s *config.TLSSettings) { s.CertFile = "/nonexistent.crt" }, "Failed to load certificate: /nonexistent.crt: "},
		{"garbage cert", func(s *config.TLSSettings) { s.CertFile = garbage }, "Failed to load certificate: " + garbage},
		{"garbage key", func(s *config.TLSSettings) { s.KeyFile = garbage }, "Failed to load private key: " + garbage},
		{"key mismatch", func(s *config.TLSSettings) { s.KeyFile = f.ClientKey }, "Failed to load private key: " + f.ClientKey},
		{"no cert", func(s *config.TLSSettings) { s.CertFile = "" }, "No tls-cert-file configured!"},
		{"no CA", func(s *config.TLSSettings) { s.CACertFile = "" }, ErrNoCA.Error()},
		{"no CA, replication", func(s *config.TLSSettings) { s.CACertFile, s.AuthClients, s.Replication = "", "no", true }, ErrNoCA.Error()},
		{"bad CA", func(s *config.TLSSettings) { s.CACertFile = garbage }, "Failed to configure CA certificate(s) file/directory: "},
		{"protocols", func(s *config.TLSSettings) { s.Protocols = "TLSv1.4" }, "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'."},
		{"ciphers", func(s *config.TLSSettings) { s.Ciphers = "BOGUS" }, "Failed to configure ciphers: BOGUS"},
		{"ciphersuites", func(s *config.TLSSettings) { s.Ciphersuites = "TLS_AES_128_CCM_SHA256" }, "Failed to configure ciphersuites: TLS_AES_128_CCM_SHA256"},
	} {
		s := settings(f)
		tc.mod(&s)
		_, err := Build(s)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want prefix %q", tc.name, err, tc.want)
		}
	}
	// Without client authentication no CA is needed.
	s := settings(f)
	s.CACertFile, s.AuthClients = "", "no"
	if _, err := Build(s); err != nil {
		t.Errorf("auth-clients no without a CA: %v", err)
	}
	// A CA directory.
	dir := t.TempDir()
	ca, _ := os.ReadFile(f.CACert)
	os.WriteFile(filepath.Join(dir, "abcd1234.0"), ca, 0o644)
	os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644)
	s = settings(f)
	s.CACertFile, s.CACertDir = "", dir
	b, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handshake(b.Server, f.ClientConfig(t, true)); err != nil {
		t.Errorf("CA directory: %v", err)
	}
}

func TestProtocolsAndCiphers(t *testing.T) {
	for in, want := range map[string][2]uint16{
		"":                {tls.VersionTLS12, tls.VersionTLS13},
		"TLSv1.2":         {tls.VersionTLS12, tls.VersionTLS12},
		"tlsv1.3":         {tls.VersionTLS13, tls.VersionTLS13},
		"TLSv1 TLSv1.1":   {tls.VersionTLS10, tls.VersionTLS11},
		"TLSv1.3 TLSv1.2": {tls.VersionTLS12, tls.VersionTLS13},
	} {
		lo, hi, err := ParseProtocols(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("ParseProtocols(%q) = %x %x %v", in, lo, hi, err)
		}
	}
	ids, err := ParseCiphers("ECDHE-RSA-AES128-GCM-SHA256:TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:!aNULL:!MD5")
	if err != nil || len(ids) != 2 || ids[0] != tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 {
		t.Errorf("ParseCiphers: %v %v", ids, err)
	}
	ids, err = ParseCiphers("HIGH:!ECDHE-RSA-AES128-GCM-SHA256:@STRENGTH")
	if err != nil || len(ids) == 0 {
		t.Fatalf("HIGH: %v %v", ids, err)
	}
	for _, id := range ids {
		if id == tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 {
			t.Error("an excluded cipher stayed")
		}
	}
	if _, err := ParseCiphers("aNULL"); err == nil {
		t.Error("a class Go lacks was accepted as an inclusion")
	}
	if err := ParseCiphersuites("TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"); err != nil {
		t.Error(err)
	}

	// A TLS 1.2-only server with one cipher: a client gets that one.
	f := testutil.NewTLSFiles(t)
	s := settings(f)
	s.AuthClients, s.Protocols, s.Ciphers = "no", "TLSv1.2", "ECDHE-ECDSA-AES256-GCM-SHA384"
	b, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := handshake(b.Server, f.ClientConfig(t, false))
	if err != nil || cs.Version != tls.VersionTLS12 || cs.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 {
		t.Errorf("negotiated %x %x: %v", cs.Version, cs.CipherSuite, err)
	}
	cli := f.ClientConfig(t, false)
	cli.MinVersion = tls.VersionTLS13
	if _, err := handshake(b.Server, cli); err == nil {
		t.Error("a TLS 1.3-only client was served by a TLS 1.2-only server")
	}
}

// Encrypted keys: legacy PEM encryption (x509.EncryptPEMBlock, as
// "openssl rsa -traditional -aes256" writes) and PKCS#8 PBES2 (OpenSSL 3's
// default, written by the openssl tool when it is installed).
func TestEncryptedKeys(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	pemKey, _ := os.ReadFile(f.ServerKey)
	blk, _ := pem.Decode(pemKey)
	key, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	ecder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := x509.EncryptPEMBlock(rand.Reader, "PRIVATE KEY", ecder, []byte("s3cret"), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	legacyFile := filepath.Join(t.TempDir(), "legacy.key")
	os.WriteFile(legacyFile, pem.EncodeToMemory(legacy), 0o600)
	check := func(name, file string) {
		t.Helper()
		if _, err := LoadKeyPair(f.ServerCert, file, "s3cret"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := LoadKeyPair(f.ServerCert, file, "wrong"); err == nil || !strings.HasPrefix(err.Error(), "Failed to load private key: ") {
			t.Errorf("%s with a wrong password: %v", name, err)
		}
		if _, err := LoadKeyPair(f.ServerCert, file, ""); err == nil {
			t.Errorf("%s without a password: accepted", name)
		}
	}
	check("legacy PEM", legacyFile)

	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Log("openssl not installed: PKCS#8 encrypted keys not tested")
		return
	}
	for _, args := range [][]string{
		{"pkcs8", "-topk8", "-v2", "aes256", "-v2prf", "hmacWithSHA256"},
		{"pkcs8", "-topk8", "-v2", "aes128"},
		{"pkcs8", "-topk8", "-v2", "des3", "-v2prf", "hmacWithSHA1"},
	} {
		out := filepath.Join(t.TempDir(), "p8.key")
		cmd := exec.Command(openssl, append(args, "-in", f.ServerKey, "-out", out, "-passout", "pass:s3cret")...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, b)
		}
		check(strings.Join(args, " "), out)
	}
}

// A ticket older than tls-session-cache-timeout is not resumed (with 0 s
// every ticket is: its creation time is kept in whole seconds, so its age
// is positive); a recent one is; tls-session-caching no issues none.
func TestSessionResumption(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	for _, tc := range []struct {
		caching bool
		timeout int
		want    bool
	}{{true, 300, true}, {true, 0, false}, {false, 300, false}} {
		s := settings(f)
		s.AuthClients, s.SessionCaching, s.SessionCacheTimeout = "no", tc.caching, tc.timeout
		b, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		cli := f.ClientConfig(t, false)
		cli.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			cli.MaxVersion = v
			if _, err := handshake(b.Server, cli); err != nil {
				t.Fatal(err)
			}
			cs, err := handshake(b.Server, cli)
			if err != nil {
				t.Fatal(err)
			}
			if cs.DidResume != tc.want {
				t.Errorf("caching %v timeout %d version %x: resumed %v", tc.caching, tc.timeout, v, cs.DidResume)
			}
		}
	}
}
