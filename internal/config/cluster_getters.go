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
	idxClusterNoFailover      = mustIdx("cluster-replica-no-failover")
	idxClusterPubsubWhenDown  = mustIdx("cluster-allow-pubsubshard-when-down")
	idxClusterReplMigration   = mustIdx("cluster-allow-replica-migration")
	idxClusterMigBarrier      = mustIdx("cluster-migration-barrier")
	idxClusterClientIPv4      = mustIdx("cluster-announce-client-ipv4")
	idxClusterClientIPv6      = mustIdx("cluster-announce-client-ipv6")
	idxClusterHumanNodename   = mustIdx("cluster-announce-human-nodename")
	idxClusterEndpointType    = mustIdx("cluster-preferred-endpoint-type")
	idxClusterBlacklistTTL    = mustIdx("cluster-blacklist-ttl")
	idxClusterPingInterval    = mustIdx("cluster-ping-interval")
	idxClusterSendBufLimit    = mustIdx("cluster-link-sendbuf-limit")
)

// cluster-preferred-endpoint-type's values.
const (
	EndpointIP       = 0
	EndpointHostname = 1
	EndpointUnknown  = 2
)

func (c *Config) ClusterConfigFile() string             { return c.s(idxClusterConfigFile) }
func (c *Config) ClusterPort() int                      { return int(c.n(idxClusterPort)) }
func (c *Config) ClusterNodeTimeout() int64             { return c.n(idxClusterNodeTimeout) }
func (c *Config) ClusterAnnounceIP() string             { return c.s(idxClusterAnnounceIP) }
func (c *Config) ClusterAnnouncePort() int              { return int(c.n(idxClusterAnnouncePort)) }
func (c *Config) ClusterAnnounceBusPort() int           { return int(c.n(idxClusterAnnounceBusPort)) }
func (c *Config) ClusterAnnounceHostname() string       { return c.s(idxClusterAnnounceHost) }
func (c *Config) ClusterRequireFullCoverage() bool      { return c.b(idxClusterFullCoverage) }
func (c *Config) ClusterAllowReadsWhenDown() bool       { return c.b(idxClusterReadsWhenDown) }
func (c *Config) ClusterReplicaNoFailover() bool        { return c.b(idxClusterNoFailover) }
func (c *Config) ClusterAllowPubsubshardWhenDown() bool { return c.b(idxClusterPubsubWhenDown) }
func (c *Config) ClusterAllowReplicaMigration() bool    { return c.b(idxClusterReplMigration) }
func (c *Config) ClusterMigrationBarrier() int          { return int(c.n(idxClusterMigBarrier)) }
func (c *Config) ClusterAnnounceClientIPv4() string     { return c.s(idxClusterClientIPv4) }
func (c *Config) ClusterAnnounceClientIPv6() string     { return c.s(idxClusterClientIPv6) }
func (c *Config) ClusterAnnounceHumanNodename() string  { return c.s(idxClusterHumanNodename) }

// ClusterPreferredEndpointType is EndpointIP, EndpointHostname or
// EndpointUnknown.
func (c *Config) ClusterPreferredEndpointType() int { return int(c.n(idxClusterEndpointType)) }
func (c *Config) ClusterBlacklistTTL() int64        { return c.n(idxClusterBlacklistTTL) }
func (c *Config) ClusterPingInterval() int64        { return c.n(idxClusterPingInterval) }
func (c *Config) ClusterLinkSendbufLimit() int64    { return c.n(idxClusterSendBufLimit) }

var idxClusterSlotStats = mustIdx("cluster-slot-stats-enabled")

// ClusterSlotStatsEnabled is cluster-slot-stats-enabled: CLUSTER
// SLOT-STATS's CPU and network counters.
func (c *Config) ClusterSlotStatsEnabled() bool { return c.b(idxClusterSlotStats) }

var idxClusterValidityFactor = mustIdx("cluster-replica-validity-factor")

// ClusterReplicaValidityFactor is cluster-replica-validity-factor (0:
// a replica stands for election however old its data).
func (c *Config) ClusterReplicaValidityFactor() int { return int(c.n(idxClusterValidityFactor)) }
