package options

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/keygen"
)

// Ratio is memtier's Set:Get ratio.
type Ratio struct{ Set, Get int }

func (r Ratio) String() string { return fmt.Sprintf("%d:%d", r.Set, r.Get) }

// Command is one --command with its --command-ratio and --command-key-pattern.
type Command struct {
	Text       string
	Ratio      int
	KeyPattern keygen.Pattern
}

// Config is everything the load generator needs. Field comments give the
// memtier flag; defaults are memtier's.
type Config struct {
	Servers    []string // -s/--server/-h/--host, list or repeated; host or host:port
	Port       int      // -p/--port (6379)
	PortSet    bool
	UnixSocket string // -S/--unix-socket
	Auth       string // -a/--authenticate: PASSWORD or USER:PASSWORD
	Protocol   string // -P/--protocol: redis (no HELLO), resp2, resp3
	Embedded   bool   // no server named at all: run against an in-process server
	TLS        TLS    // --tls and its flags (tls.go)

	Threads   int           // -t/--threads (4)
	Clients   int           // -c/--clients per thread (50)
	Requests  uint64        // -n/--requests per client (10000 unless --test-time)
	AllKeys   bool          // -n allkeys
	TestTime  time.Duration // --test-time
	Ratio     Ratio         // --ratio (1:10)
	ratioSet  bool          //
	Pipeline  int           // --pipeline (1)
	RateLimit int           // --rate-limiting: requests/second per connection (0 = unlimited)

	ReconnectInterval  int  // --reconnect-interval: requests per connection before reconnecting
	DistinctClientSeed bool // --distinct-client-seed
	Randomize          bool // --randomize
	Seed               uint64

	DataSize        int    // -d/--data-size (32)
	DataSizeRange   [2]int // --data-size-range min-max
	DataSizePattern byte   // --data-size-pattern R|S (R)
	RandomData      bool   // -R/--random-data

	KeyPrefix     string            // --key-prefix ("memtier-")
	KeyMin        uint64            // --key-minimum (0)
	KeyMax        uint64            // --key-maximum (10000000)
	KeyPattern    [2]keygen.Pattern // --key-pattern SET:GET (R:R)
	keyPatternSet bool
	KeyStddev     float64 // --key-stddev (range/6)
	KeyMedian     float64 // --key-median (centre)
	KeyZipfExp    float64 // --key-zipf-exp (1)

	Commands []Command // --command, --command-ratio, --command-key-pattern

	// ClientIO is corvid-bench's own --client-io: "uring" (one event loop
	// per --threads on io_uring), "epoll" (the same loops on epoll,
	// memtier's design) or "goroutines" (one goroutine per connection);
	// "" (the default) is uring where the kernel allows, else epoll.
	// Cluster mode, --reconnect-interval, unix sockets and --tls always
	// use goroutines (--tls with "epoll" or "uring" is refused).
	ClientIO string

	ClusterMode bool // --cluster-mode
	SelectDB    int  // --select-db

	// Tracking is corvid-bench's own --tracking: CLIENT TRACKING ON on
	// every connection, so the server remembers every key read. It needs
	// RESP3 (invalidations arrive as pushes on the same connection):
	// --protocol resp3, which --tracking selects when -P is not given.
	Tracking bool

	RunCount      int       // -x/--run-count (1)
	Percentiles   []float64 // --print-percentiles (50,99,99.9)
	HideHistogram bool      // --hide-histogram
	PrintAllRuns  bool      // --print-all-runs
	JSONOut       string    // --json-out-file
	HDRPrefix     string    // --hdr-file-prefix
	OutFile       string    // -o/--out-file
	ShowConfig    bool      // --show-config
	Debug         bool      // -D/--debug

	Help    bool
	Version bool
}

// Addrs returns the dial targets: host:port for TCP, the socket path for
// -S, nil for the embedded server.
func (c *Config) Addrs() []string {
	if c.UnixSocket != "" {
		return []string{c.UnixSocket}
	}
	if c.Embedded {
		return nil
	}
	servers := c.Servers
	if len(servers) == 0 {
		servers = []string{"localhost"}
	}
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		out = append(out, withPort(s, c.Port))
	}
	return out
}

// Network is "unix" with -S, else "tcp".
func (c *Config) Network() string {
	if c.UnixSocket != "" {
		return "unix"
	}
	return "tcp"
}

// TotalClients is the number of connections per server (threads × clients).
func (c *Config) TotalClients() int { return c.Threads * c.Clients }

// withPort adds the default port unless the entry carries one.
func withPort(s string, port int) string {
	if _, _, err := net.SplitHostPort(s); err == nil {
		return s
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return net.JoinHostPort(s, strconv.Itoa(port))
}

// Defaults returns a Config holding memtier's defaults before parsing.
func Defaults() *Config {
	return &Config{
		Port:            6379,
		Protocol:        "redis",
		Threads:         4,
		Clients:         50,
		Ratio:           Ratio{1, 10},
		Pipeline:        1,
		DataSize:        0, // filled in finalize unless a range is given
		DataSizePattern: 'R',
		KeyPrefix:       "memtier-",
		KeyMin:          0,
		KeyMax:          10000000,
		KeyPattern:      [2]keygen.Pattern{keygen.Random, keygen.Random},
		RunCount:        1,
		Percentiles:     []float64{50, 99, 99.9},
	}
}

// finalize fills dependent defaults and checks cross-flag rules, in the
// order memtier's config_init_defaults and verify_* functions do.
func (c *Config) finalize() error {
	if len(c.Commands) > 0 {
		if c.keyPatternSet {
			return usagef("when using arbitrary command, key pattern is configured with --command-key-pattern option.")
		}
		if c.ratioSet {
			return usagef("when using arbitrary command, ratio is configured with --command-ratio option.")
		}
		par := 0
		for _, cmd := range c.Commands {
			if cmd.KeyPattern == keygen.Parallel {
				par++
			}
		}
		if par > 0 && par != len(c.Commands) {
			return usagef("parallel key-pattern must be configured to all commands.")
		}
	}
	if c.ClusterMode {
		switch {
		case c.ReconnectInterval > 0:
			return usagef("cluster mode dose not support reconnect-interval option.")
		case c.UnixSocket != "":
			return usagef("cluster mode dose not support unix-socket option.")
		}
	}
	if err := c.TLS.check(); err != nil {
		return err
	}
	if c.TLS.Enabled && (c.ClientIO == "epoll" || c.ClientIO == "uring") {
		return usagef("--tls needs the goroutine client: TLS connections cannot go through the raw-socket event loops (drop --client-io %s).", c.ClientIO)
	}
	if c.Tracking {
		switch c.Protocol {
		case "redis":
			c.Protocol = "resp3"
		case "resp2":
			return usagef("--tracking needs --protocol resp3 (invalidations are RESP3 pushes on the same connection).")
		}
	}
	if c.DataSizeRange[1] == 0 && c.DataSize == 0 {
		c.DataSize = 32
	}
	if c.DataSizeRange[1] != 0 && c.DataSize != 0 {
		return usagef("data-size and data-size-range are mutually exclusive.")
	}
	if c.KeyMax < c.KeyMin {
		return usagef("key-maximum must be greater than or equal to key-minimum.")
	}
	if c.KeyMedian != 0 && (c.KeyMedian < float64(c.KeyMin) || c.KeyMedian > float64(c.KeyMax)) {
		return usagef("key-median must be within the key range.")
	}
	if c.AllKeys && c.TestTime > 0 {
		return usagef("--test-time and --requests are mutually exclusive.")
	}
	if c.AllKeys {
		c.Requests = c.KeyMax - c.KeyMin
		if c.KeyPattern == [2]keygen.Pattern{keygen.Parallel, keygen.Parallel} || c.allCommandsParallel() {
			c.Requests = c.Requests/uint64(c.TotalClients()) + 1
		}
	}
	if c.Requests == 0 && c.TestTime == 0 {
		c.Requests = 10000
	}
	if c.UnixSocket == "" && len(c.Servers) == 0 && !c.PortSet {
		c.Embedded = true
	}
	if c.Embedded && c.TLS.Enabled {
		return usagef("--tls needs a server (-s/--server, -p/--port): the embedded corvid-server listens in plaintext.")
	}
	return nil
}

func (c *Config) allCommandsParallel() bool {
	if len(c.Commands) == 0 {
		return false
	}
	for _, cmd := range c.Commands {
		if cmd.KeyPattern != keygen.Parallel {
			return false
		}
	}
	return true
}

// Effective returns the commands to run: the --command list, or memtier's
// default SET/GET pair built from --ratio and --key-pattern.
func (c *Config) Effective() []Command {
	if len(c.Commands) > 0 {
		return c.Commands
	}
	var out []Command
	if c.Ratio.Set > 0 {
		out = append(out, Command{Text: "SET __key__ __data__", Ratio: c.Ratio.Set, KeyPattern: c.KeyPattern[0]})
	}
	if c.Ratio.Get > 0 {
		out = append(out, Command{Text: "GET __key__", Ratio: c.Ratio.Get, KeyPattern: c.KeyPattern[1]})
	}
	return out
}

// Describe renders the configuration (for --show-config and the JSON file).
func (c *Config) Describe() map[string]any {
	cmds := make([]string, 0, len(c.Commands))
	for _, cmd := range c.Commands {
		cmds = append(cmds, cmd.Text)
	}
	return map[string]any{
		"server":               strings.Join(c.Addrs(), ","),
		"embedded":             c.Embedded,
		"unix socket":          c.UnixSocket,
		"protocol":             c.Protocol,
		"tls":                  c.TLS.Enabled,
		"cert":                 c.TLS.Cert,
		"key":                  c.TLS.Key,
		"cacert":               c.TLS.CACert,
		"tls_skip_verify":      c.TLS.SkipVerify,
		"sni":                  c.TLS.SNI,
		"run_count":            c.RunCount,
		"requests":             c.Requests,
		"rate_limit":           c.RateLimit,
		"clients":              c.Clients,
		"threads":              c.Threads,
		"test_time":            c.TestTime.Seconds(),
		"ratio":                c.Ratio.String(),
		"pipeline":             c.Pipeline,
		"data_size":            c.DataSize,
		"random_data":          c.RandomData,
		"data_size_range":      fmt.Sprintf("%d:%d", c.DataSizeRange[0], c.DataSizeRange[1]),
		"data_size_pattern":    string(c.DataSizePattern),
		"key_prefix":           c.KeyPrefix,
		"key_minimum":          c.KeyMin,
		"key_maximum":          c.KeyMax,
		"key_pattern":          fmt.Sprintf("%c:%c", c.KeyPattern[0], c.KeyPattern[1]),
		"key_stddev":           c.KeyStddev,
		"key_median":           c.KeyMedian,
		"key_zipf_exp":         c.KeyZipfExp,
		"reconnect_interval":   c.ReconnectInterval,
		"select-db":            c.SelectDB,
		"cluster_mode":         c.ClusterMode,
		"tracking":             c.Tracking,
		"distinct_client_seed": c.DistinctClientSeed,
		"commands":             cmds,
	}
}
