package config

// The TLS directives (internal/tlsconf builds crypto/tls configurations
// from them; internal/server applies them at start-up and on every CONFIG
// SET of one of them).

var (
	idxTLSCertFile          = mustIdx("tls-cert-file")
	idxTLSKeyFile           = mustIdx("tls-key-file")
	idxTLSKeyFilePass       = mustIdx("tls-key-file-pass")
	idxTLSClientCertFile    = mustIdx("tls-client-cert-file")
	idxTLSClientKeyFile     = mustIdx("tls-client-key-file")
	idxTLSClientKeyFilePass = mustIdx("tls-client-key-file-pass")
	idxTLSCACertFile        = mustIdx("tls-ca-cert-file")
	idxTLSCACertDir         = mustIdx("tls-ca-cert-dir")
	idxTLSDHParamsFile      = mustIdx("tls-dh-params-file")
	idxTLSAuthClients       = mustIdx("tls-auth-clients")
	idxTLSProtocols         = mustIdx("tls-protocols")
	idxTLSCiphers           = mustIdx("tls-ciphers")
	idxTLSCiphersuites      = mustIdx("tls-ciphersuites")
	idxTLSPreferServer      = mustIdx("tls-prefer-server-ciphers")
	idxTLSSessionCaching    = mustIdx("tls-session-caching")
	idxTLSSessionCacheSize  = mustIdx("tls-session-cache-size")
	idxTLSSessionCacheTTL   = mustIdx("tls-session-cache-timeout")
	idxTLSReplication       = mustIdx("tls-replication")
	idxTLSCluster           = mustIdx("tls-cluster")
)

// TLSDirectives names every directive TLSSettings reads, plus tls-port
// and tls-cluster: a CONFIG SET of any of them rebuilds the TLS
// configuration (internal/server).
var TLSDirectives = []string{
	"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-client-cert-file", "tls-client-key-file",
	"tls-client-key-file-pass", "tls-ca-cert-file", "tls-ca-cert-dir", "tls-dh-params-file",
	"tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites", "tls-prefer-server-ciphers",
	"tls-session-caching", "tls-session-cache-size", "tls-session-cache-timeout", "tls-replication",
	"tls-cluster",
}

// TLSSettings is the TLS part of the configuration, read at once from one
// snapshot.
type TLSSettings struct {
	CertFile, KeyFile, KeyFilePass                   string
	ClientCertFile, ClientKeyFile, ClientKeyFilePass string
	CACertFile, CACertDir, DHParamsFile              string
	AuthClients                                      string // no, yes or optional
	Protocols, Ciphers, Ciphersuites                 string
	PreferServerCiphers, SessionCaching              bool
	SessionCacheSize, SessionCacheTimeout            int
	Replication, Cluster                             bool
}

// TLS returns the TLS settings.
func (c *Config) TLS() TLSSettings {
	st := c.snap()
	s := func(i int) string { return st.v[i].s }
	return TLSSettings{
		CertFile: s(idxTLSCertFile), KeyFile: s(idxTLSKeyFile), KeyFilePass: s(idxTLSKeyFilePass),
		ClientCertFile: s(idxTLSClientCertFile), ClientKeyFile: s(idxTLSClientKeyFile),
		ClientKeyFilePass: s(idxTLSClientKeyFilePass),
		CACertFile:        s(idxTLSCACertFile), CACertDir: s(idxTLSCACertDir), DHParamsFile: s(idxTLSDHParamsFile),
		AuthClients: reg.entries[idxTLSAuthClients].enumName(st.v[idxTLSAuthClients].n),
		Protocols:   s(idxTLSProtocols), Ciphers: s(idxTLSCiphers), Ciphersuites: s(idxTLSCiphersuites),
		PreferServerCiphers: st.v[idxTLSPreferServer].n != 0, SessionCaching: st.v[idxTLSSessionCaching].n != 0,
		SessionCacheSize: int(st.v[idxTLSSessionCacheSize].n), SessionCacheTimeout: int(st.v[idxTLSSessionCacheTTL].n),
		Replication: st.v[idxTLSReplication].n != 0, Cluster: st.v[idxTLSCluster].n != 0,
	}
}

// TLSReplication is tls-replication: the link to the primary uses TLS.
func (c *Config) TLSReplication() bool { return c.b(idxTLSReplication) }

// TLSCluster is tls-cluster: the cluster bus runs over TLS and MIGRATE
// dials its targets with TLS.
func (c *Config) TLSCluster() bool { return c.b(idxTLSCluster) }
