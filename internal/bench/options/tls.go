package options

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
)

// TLS is memtier's TLS group: --tls, --cert, --key, --cacert,
// --tls-skip-verify, --tls-protocols and --sni.
type TLS struct {
	Enabled    bool   // --tls
	Cert       string // --cert: client certificate (PEM; may hold the key too)
	Key        string // --key: its private key ("" with --cert: read from the --cert file, as memtier does)
	CACert     string // --cacert: CA bundle the server's chain is verified against ("": the system's)
	SkipVerify bool   // --tls-skip-verify
	SNI        string // --sni: server name sent in the ClientHello ("": none, as memtier)

	// MinVersion and MaxVersion are --tls-protocols as a range of
	// tls.VersionTLS1x; zero means memtier's default, TLSv1.2 and TLSv1.3.
	MinVersion, MaxVersion uint16

	protocolsSet bool
}

// tlsVersions maps --tls-protocols names (matched case-insensitively, as
// memtier's strcasecmp) to versions, in ascending order.
var tlsVersions = []struct {
	name string
	v    uint16
}{
	{"TLSv1", tls.VersionTLS10},
	{"TLSv1.1", tls.VersionTLS11},
	{"TLSv1.2", tls.VersionTLS12},
	{"TLSv1.3", tls.VersionTLS13},
}

const badProtocols = "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'."

// parseTLSProtocols reads memtier's comma-separated list. crypto/tls takes
// a range of versions, not a set, so the list must name consecutive
// versions (memtier's OpenSSL accepts gaps).
func parseTLSProtocols(v string) (lo, hi uint16, err error) {
	var have [4]bool
	n := 0
	for _, tok := range strings.Split(v, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		i := 0
		for i < len(tlsVersions) && !strings.EqualFold(tok, tlsVersions[i].name) {
			i++
		}
		if i == len(tlsVersions) {
			return 0, 0, usagef("%s", badProtocols)
		}
		have[i] = true
		n++
	}
	if n == 0 {
		return 0, 0, usagef("%s", badProtocols)
	}
	first, last := -1, -1
	for i, ok := range have {
		if ok {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for i := first; i <= last; i++ {
		if !have[i] {
			return 0, 0, usagef("tls-protocols must name consecutive versions (Go's crypto/tls takes a range): '%s' skips %s.", v, tlsVersions[i].name)
		}
	}
	return tlsVersions[first].v, tlsVersions[last].v, nil
}

func tlsOpts() []Opt {
	str := func(long, help string, dst func(*TLS) *string) Opt {
		return Opt{Long: long, Arg: true, Help: help, Set: func(c *Config, v string) error {
			*dst(&c.TLS) = v
			return nil
		}}
	}
	return []Opt{
		{Long: "tls", Help: "Enable SSL/TLS transport security (runs on the goroutine-per-connection client)", Set: func(c *Config, _ string) error {
			c.TLS.Enabled = true
			return nil
		}},
		str("cert", "Use specified client certificate for TLS", func(t *TLS) *string { return &t.Cert }),
		str("key", "Use specified private key for TLS (default: read from the --cert file)", func(t *TLS) *string { return &t.Key }),
		str("cacert", "Use specified CA certs bundle for TLS (default: the system's)", func(t *TLS) *string { return &t.CACert }),
		{Long: "tls-skip-verify", Help: "Skip verification of server certificate", Set: func(c *Config, _ string) error {
			c.TLS.SkipVerify = true
			return nil
		}},
		{Long: "tls-protocols", Arg: true, Help: "TLS versions to allow, comma-separated and consecutive: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (default: TLSv1.2,TLSv1.3)", Set: func(c *Config, v string) error {
			lo, hi, err := parseTLSProtocols(v)
			if err != nil {
				return err
			}
			c.TLS.MinVersion, c.TLS.MaxVersion, c.TLS.protocolsSet = lo, hi, true
			return nil
		}},
		str("sni", "Add an SNI header", func(t *TLS) *string { return &t.SNI }),
	}
}

// check applies the TLS cross-flag rules (finalize).
func (t *TLS) check() error {
	if !t.Enabled {
		for _, f := range []struct {
			name string
			set  bool
		}{{"--cert", t.Cert != ""}, {"--key", t.Key != ""}, {"--cacert", t.CACert != ""},
			{"--tls-skip-verify", t.SkipVerify}, {"--tls-protocols", t.protocolsSet}, {"--sni", t.SNI != ""}} {
			if f.set {
				return usagef("%s needs --tls.", f.name)
			}
		}
		return nil
	}
	if t.Key != "" && t.Cert == "" {
		return usagef("--key needs --cert (the client certificate the key belongs to).")
	}
	if t.MinVersion == 0 {
		t.MinVersion, t.MaxVersion = tls.VersionTLS12, tls.VersionTLS13
	}
	return nil
}

// ClientConfig loads the files the TLS flags name and returns the client
// configuration every connection of a run shares (nil when --tls is off).
// Like memtier (OpenSSL's SSL_VERIFY_PEER), it verifies the server's
// certificate chain against --cacert, or the system roots, but not the
// host name, so "-s localhost" reaches a server whose certificate names
// 127.0.0.1; --tls-skip-verify verifies nothing. Dynamic record sizing is
// off, so each Write of a batch is one TLS record (up to 16 KB).
func (t *TLS) ClientConfig() (*tls.Config, error) {
	if !t.Enabled {
		return nil, nil
	}
	cfg := &tls.Config{
		MinVersion: t.MinVersion, MaxVersion: t.MaxVersion, ServerName: t.SNI,
		DynamicRecordSizingDisabled: true,
		// Verification is VerifyConnection's (no host name check).
		InsecureSkipVerify: true,
	}
	if t.Cert != "" {
		key := t.Key
		if key == "" {
			key = t.Cert
		}
		pair, err := tls.LoadX509KeyPair(t.Cert, key)
		if err != nil {
			return nil, fmt.Errorf("--cert %s, --key %s: failed to load the client certificate: %w", t.Cert, key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if t.SkipVerify {
		return cfg, nil
	}
	var roots *x509.CertPool // nil: the system's
	if t.CACert != "" {
		pem, err := os.ReadFile(t.CACert)
		if err != nil {
			return nil, fmt.Errorf("--cacert: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s: no PEM certificate found", t.CACert)
		}
	}
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool(),
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
			return fmt.Errorf("server certificate not trusted: %w", err)
		}
		return nil
	}
	return cfg, nil
}
