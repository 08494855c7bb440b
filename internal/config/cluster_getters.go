package config

// Getters of the cluster directives (internal/server/cluster.go).

var (
	idxClusterConfigFile      = mustIdx("cluster-config-file")
	idxClusterPort            = mustIdx("cluster-port")
	idxClusterNodeTimeout     = mustIdx("cluster-node-timeout")
	idxClusterAnnounceIP      = mustIdx("cluster-announce-ip")
	idxClusterAnnouncePort    = mustIdx("cluster-announce-port")
	idxClusterAnnounceBusPort = mustIdx("cluster-announce-bus-port")
	idxClusterAnnounceHost    = mustIdx("cluster-announce-hostname")
	idxClusterFullCoverage    = mustIdx("cluster-require-full-coverage")
	idxClusterReadsWhenDown   = mustIdx("cluster-allow-reads-when-down")
)

func (c *Config) ClusterConfigFile() string        { return c.s(idxClusterConfigFile) }
func (c *Config) ClusterPort() int                 { return int(c.n(idxClusterPort)) }
func (c *Config) ClusterNodeTimeout() int64        { return c.n(idxClusterNodeTimeout) }
func (c *Config) ClusterAnnounceIP() string        { return c.s(idxClusterAnnounceIP) }
func (c *Config) ClusterAnnouncePort() int         { return int(c.n(idxClusterAnnouncePort)) }
func (c *Config) ClusterAnnounceBusPort() int      { return int(c.n(idxClusterAnnounceBusPort)) }
func (c *Config) ClusterAnnounceHostname() string  { return c.s(idxClusterAnnounceHost) }
func (c *Config) ClusterRequireFullCoverage() bool { return c.b(idxClusterFullCoverage) }
func (c *Config) ClusterAllowReadsWhenDown() bool  { return c.b(idxClusterReadsWhenDown) }

var idxClusterSlotStats = mustIdx("cluster-slot-stats-enabled")

// ClusterSlotStatsEnabled is cluster-slot-stats-enabled: CLUSTER
// SLOT-STATS's CPU and network counters.
func (c *Config) ClusterSlotStatsEnabled() bool { return c.b(idxClusterSlotStats) }
