package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
)

// Bundle is one built configuration: Server for accepted connections,
// Client for outgoing ones (a replica's link, the cluster bus's, MIGRATE's). Both are immutable once
// built; a reload builds a new Bundle, which new connections use.
type Bundle struct {
	Server *tls.Config
	Client *tls.Config
}

// ErrNoCA is returned when client certificates are asked for (or
// replication or cluster links use TLS) without a CA to verify them.
var ErrNoCA = errors.New("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!")

// Needed reports whether the settings call for a TLS configuration at
// all: a TLS listener, or TLS replication or cluster links (Valkey's
// isTlsConfigured condition).
func Needed(tlsPort int, s config.TLSSettings) bool {
	return tlsPort != 0 || s.Replication || s.Cluster
}

// Build reads the files s names and returns the configurations, or the
// first problem, worded as Valkey logs it.
func Build(s config.TLSSettings) (*Bundle, error) {
	if s.CertFile == "" {
		return nil, errors.New("No tls-cert-file configured!")
	}
	if s.KeyFile == "" {
		return nil, errors.New("No tls-key-file configured!")
	}
	cert, err := LoadKeyPair(s.CertFile, s.KeyFile, s.KeyFilePass)
	if err != nil {
		return nil, err
	}
	clientCert := cert
	if s.ClientCertFile != "" {
		if s.ClientKeyFile == "" {
			return nil, errors.New("No tls-client-key-file configured!")
		}
		if clientCert, err = LoadKeyPair(s.ClientCertFile, s.ClientKeyFile, s.ClientKeyFilePass); err != nil {
			return nil, err
		}
	}
	auth := s.AuthClients != "no"
	if (auth || s.Replication || s.Cluster) && s.CACertFile == "" && s.CACertDir == "" {
		return nil, ErrNoCA
	}
	var pool *x509.CertPool
	if s.CACertFile != "" || s.CACertDir != "" {
		if pool, err = loadCAs(s.CACertFile, s.CACertDir); err != nil {
			return nil, err
		}
	}
	if s.DHParamsFile != "" {
		if _, err := os.ReadFile(s.DHParamsFile); err != nil {
			return nil, fmt.Errorf("Failed to load %s: %v", s.DHParamsFile, err)
		}
	}
	minV, maxV, err := ParseProtocols(s.Protocols)
	if err != nil {
		return nil, err
	}
	suites, err := ParseCiphers(s.Ciphers)
	if err != nil {
		return nil, err
	}
	if err := ParseCiphersuites(s.Ciphersuites); err != nil {
		return nil, err
	}

	srv := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   minV,
		MaxVersion:   maxV,
		CipherSuites: suites,
		ClientCAs:    pool,
	}
	switch s.AuthClients {
	case "yes":
		srv.ClientAuth = tls.RequireAndVerifyClientCert
	case "optional":
		srv.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		srv.ClientAuth = tls.NoClientCert
	}
	if !s.SessionCaching {
		srv.SessionTicketsDisabled = true
	} else {
		limitSessionAge(srv, time.Duration(s.SessionCacheTimeout)*time.Second)
	}

	cli := &tls.Config{
		Certificates: []tls.Certificate{clientCert},
		MinVersion:   minV,
		MaxVersion:   maxV,
		CipherSuites: suites,
		// The chain is verified below against the CA, the host name is
		// not (Valkey sets SSL_VERIFY_PEER without a host check).
		InsecureSkipVerify: true,
		VerifyConnection:   verifyChain(pool),
	}
	return &Bundle{Server: srv, Client: cli}, nil
}

// verifyChain checks the peer's certificate chain against pool, without
// a host name. A nil pool verifies against the system's roots.
func verifyChain(pool *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("tls: the peer presented no certificate")
		}
		opts := x509.VerifyOptions{Roots: pool, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
}

// loadCAs reads the CA file and every certificate file in the CA
// directory (OpenSSL looks certificates up there by subject hash; reading
// them all trusts the same set).
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	fail := func(err error) (*x509.CertPool, error) {
		return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: %v", err)
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return fail(err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return fail(fmt.Errorf("%s: no certificate found", file))
		}
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return fail(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				pool.AppendCertsFromPEM(b)
			}
		}
	}
	return pool, nil
}

// limitSessionAge makes the server resume a session only within ttl of
// the full handshake that created it: the ticket carries that time (in
// the session state's Extra), and an older ticket is ignored, so the
// client does a full handshake.
func limitSessionAge(c *tls.Config, ttl time.Duration) {
	const tag = "corvid-created:"
	c.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
		stamped := false
		for _, e := range ss.Extra {
			if len(e) == len(tag)+8 && string(e[:len(tag)]) == tag {
				stamped = true
			}
		}
		if !stamped {
			e := binary.BigEndian.AppendUint64([]byte(tag), uint64(time.Now().Unix()))
			ss.Extra = append(ss.Extra, e)
		}
		return c.EncryptTicket(cs, ss)
	}
	c.UnwrapSession = func(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
		ss, err := c.DecryptTicket(identity, cs)
		if ss == nil || err != nil {
			return nil, nil // not ours or unreadable: a full handshake
		}
		for _, e := range ss.Extra {
			if len(e) == len(tag)+8 && string(e[:len(tag)]) == tag {
				created := time.Unix(int64(binary.BigEndian.Uint64(e[len(tag):])), 0)
				if time.Since(created) > ttl {
					return nil, nil
				}
				return ss, nil
			}
		}
		return nil, nil
	}
}
