package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TLSFiles is a test PKI written to a temporary directory at run time (no
// private key is committed): a CA, a server certificate for 127.0.0.1 and
// localhost (also usable as a client certificate, as Valkey's replicas
// use theirs), and a client certificate, all signed by the CA.
type TLSFiles struct {
	Dir                   string
	CACert, CAKey         string // PEM files
	ServerCert, ServerKey string
	ClientCert, ClientKey string
	Pool                  *x509.CertPool // the CA, for clients' RootCAs
	ca                    *x509.Certificate
	caKey                 *ecdsa.PrivateKey
	serial                int64
}

// NewTLSFiles generates a CA and a server and a client certificate in a
// fresh temporary directory.
func NewTLSFiles(t testing.TB) *TLSFiles {
	t.Helper()
	f := &TLSFiles{Dir: t.TempDir(), serial: 1}
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Corvid Test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	f.ca, _ = x509.ParseCertificate(der)
	f.caKey = key
	f.CACert, f.CAKey = f.write(t, "ca", der, key)
	f.Pool = x509.NewCertPool()
	f.Pool.AddCert(f.ca)
	f.ServerCert, f.ServerKey = f.Issue(t, "server", "localhost", x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	f.ClientCert, f.ClientKey = f.Issue(t, "client", "client", x509.ExtKeyUsageClientAuth)
	return f
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// Issue signs a new certificate for cn (valid for 127.0.0.1 and
// localhost) with the given extended key usages and writes name.crt and
// name.key; it returns their paths.
func (f *TLSFiles) Issue(t testing.TB, name, cn string, usage ...x509.ExtKeyUsage) (certFile, keyFile string) {
	t.Helper()
	key := newKey(t)
	f.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(f.serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  usage,
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, f.ca, &key.PublicKey, f.caKey)
	if err != nil {
		t.Fatal(err)
	}
	return f.write(t, name, der, key)
}

func (f *TLSFiles) write(t testing.TB, name string, der []byte, key *ecdsa.PrivateKey) (string, string) {
	t.Helper()
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cf, kf := filepath.Join(f.Dir, name+".crt"), filepath.Join(f.Dir, name+".key")
	if err := os.WriteFile(cf, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kf, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cf, kf
}

// ServerArgs are corvid-server (or valkey/redis-server) arguments for a
// TLS listener on tlsPort with these files.
func (f *TLSFiles) ServerArgs(tlsPort int) []string {
	return []string{"--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", f.ServerCert, "--tls-key-file", f.ServerKey,
		"--tls-ca-cert-file", f.CACert}
}

// ClientConfig is a client's configuration trusting the CA; withCert adds
// the client certificate.
func (f *TLSFiles) ClientConfig(t testing.TB, withCert bool) *tls.Config {
	t.Helper()
	c := &tls.Config{RootCAs: f.Pool, ServerName: "localhost"}
	if withCert {
		cert, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c
}

// StartCorvidTLS runs corvid-server with a TLS listener on a free port
// (tls-auth-clients as args set it; yes by default) and waits until it
// answers PING over TLS with the client certificate. With plaintext
// false it runs with port 0: TLS only. Proc.Port and Proc.Addr are the
// plaintext listener's (0 and "" without one); the TLS address is
// returned.
func StartCorvidTLS(t testing.TB, f *TLSFiles, plaintext bool, args ...string) (p *Proc, tlsAddr string) {
	t.Helper()
	bin := ServerBinary(t)
	args = WithNetEngine(args)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		dir := t.TempDir()
		port, tport := 0, FreePort(t)
		if plaintext {
			port = FreePort(t)
		}
		full := append(append([]string{}, args...), f.ServerArgs(tport)...)
		full = append(full, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir)
		p = spawn(t, exec.Command(bin, full...), dir, port)
		if !plaintext {
			p.Port, p.Addr = 0, ""
		}
		tlsAddr = "127.0.0.1:" + strconv.Itoa(tport)
		if err := waitReadyTLS(p, tlsAddr, f.ClientConfig(t, true), 10*time.Second); err != nil {
			p.Stop()
			lastErr = fmt.Errorf("%v\n%s", err, p.Output())
			continue
		}
		t.Cleanup(func() { p.Stop() })
		return p, tlsAddr
	}
	t.Fatalf("server did not start: %v", lastErr)
	return nil, ""
}

// waitReadyTLS is waitReady over TLS.
func waitReadyTLS(p *Proc, addr string, cfg *tls.Config, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if p.Exited() {
			return fmt.Errorf("process exited before answering PING: %v", p.exitErr)
		}
		d := &net.Dialer{Timeout: 500 * time.Millisecond}
		conn, err := tls.DialWithDialer(d, "tcp", addr, cfg)
		if err == nil {
			conn.SetDeadline(time.Now().Add(2 * time.Second))
			conn.Write([]byte("PING\r\n"))
			buf := make([]byte, 64)
			n, _ := conn.Read(buf)
			conn.Close()
			if n > 0 && (strings.HasPrefix(string(buf[:n]), "+PONG") || strings.HasPrefix(string(buf[:n]), "-NOAUTH")) {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no PONG over TLS from %s within %v", addr, timeout)
}
