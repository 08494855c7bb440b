package config

// The TLS port cluster mode announces (internal/server/cluster_tls.go).

var idxClusterAnnounceTLSPort = mustIdx("cluster-announce-tls-port")

// ClusterAnnounceTLSPort is cluster-announce-tls-port (0: announce
// tls-port).
func (c *Config) ClusterAnnounceTLSPort() int { return int(c.n(idxClusterAnnounceTLSPort)) }
