package options

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// handshake runs a TLS handshake between a server presenting f's server
// certificate (and requiring f's client certificate when it has one) and
// a client with cfg, over an in-memory pipe; it returns the client's error.
func handshake(t *testing.T, f *testutil.TLSFiles, cfg *tls.Config) error {
	t.Helper()
	srvPair, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	srv := tls.Server(a, &tls.Config{Certificates: []tls.Certificate{srvPair}, ClientCAs: f.Pool,
		ClientAuth: tls.VerifyClientCertIfGiven})
	done := make(chan error, 1)
	go func() { done <- srv.Handshake(); _ = a.Close() }()
	err = tls.Client(b, cfg).Handshake()
	_ = b.Close()
	<-done
	return err
}

func tlsConfig(t *testing.T, args string) (*tls.Config, error) {
	t.Helper()
	c, _, err := Parse(strings.Fields("-s 127.0.0.1 --tls " + args))
	if err != nil {
		t.Fatal(err)
	}
	return c.TLS.ClientConfig()
}

func TestTLSClientConfig(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	other := testutil.NewTLSFiles(t) // another CA
	dir := t.TempDir()
	// --cert without --key: the key is read from the --cert file (memtier).
	both := filepath.Join(dir, "both.pem")
	crt, _ := os.ReadFile(f.ClientCert)
	key, _ := os.ReadFile(f.ClientKey)
	if err := os.WriteFile(both, append(crt, key...), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.pem")
	_ = os.WriteFile(garbage, []byte("not PEM\n"), 0o600)

	// Trusted chain; the host name is not checked (no --sni, no name).
	cfg, err := tlsConfig(t, "--cacert "+f.CACert+" --cert "+f.ClientCert+" --key "+f.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Certificates) != 1 || !cfg.DynamicRecordSizingDisabled || cfg.MinVersion != tls.VersionTLS12 ||
		cfg.MaxVersion != tls.VersionTLS13 || cfg.ServerName != "" {
		t.Fatalf("config %+v", cfg)
	}
	if err := handshake(t, f, cfg); err != nil {
		t.Fatalf("trusted server: %v", err)
	}
	cfg, err = tlsConfig(t, "--cacert "+f.CACert+" --cert "+both)
	if err != nil || len(cfg.Certificates) != 1 {
		t.Fatalf("--cert holding the key: %v", err)
	}
	if err := handshake(t, f, cfg); err != nil {
		t.Fatalf("--cert holding the key: %v", err)
	}
	// --sni only names the server in the ClientHello.
	if cfg, _ = tlsConfig(t, "--cacert "+f.CACert+" --sni db.example"); cfg.ServerName != "db.example" {
		t.Fatalf("sni %q", cfg.ServerName)
	}
	// Another CA: refused, with the reason.
	cfg, err = tlsConfig(t, "--cacert "+other.CACert)
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, f, cfg); err == nil || !strings.Contains(err.Error(), "server certificate not trusted") ||
		!strings.Contains(err.Error(), "unknown authority") {
		t.Fatalf("untrusted server: %v", err)
	}
	// --tls-skip-verify accepts it.
	cfg, err = tlsConfig(t, "--cacert "+other.CACert+" --tls-skip-verify")
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, f, cfg); err != nil {
		t.Fatalf("--tls-skip-verify: %v", err)
	}

	// Files that cannot be loaded: a clear error naming the flag.
	for _, tc := range []struct{ args, want string }{
		{"--cert " + f.ClientCert, "--cert " + f.ClientCert + ", --key " + f.ClientCert + ": failed to load the client certificate"},
		{"--cert " + f.ClientCert + " --key " + f.ServerKey, "failed to load the client certificate"},
		{"--cert /nonexistent.crt --key " + f.ClientKey, "no such file"},
		{"--cacert /nonexistent.crt", "--cacert: open /nonexistent.crt"},
		{"--cacert " + garbage, "--cacert " + garbage + ": no PEM certificate found"},
	} {
		if _, err := tlsConfig(t, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.args, err, tc.want)
		}
	}
	// Without --tls there is no configuration.
	c, _, _ := Parse([]string{"-s", "h"})
	if cfg, err := c.TLS.ClientConfig(); cfg != nil || err != nil {
		t.Fatalf("%v %v", cfg, err)
	}
}
