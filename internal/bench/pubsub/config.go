package pubsub

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/options"
)

// Mode is how subscribers subscribe and publishers publish.
type Mode string

// Modes.
const (
	ModeChannel Mode = "channel" // SUBSCRIBE / PUBLISH
	ModePattern Mode = "pattern" // PSUBSCRIBE (the channel's name as the pattern) / PUBLISH
	ModeSharded Mode = "sharded" // SSUBSCRIBE / SPUBLISH
)

// Config is one run. Field comments give the flag.
type Config struct {
	Server     string // -s/--server (default: the embedded corvid-server)
	Port       int    // -p/--port (6379 when -s is given alone)
	UnixSocket string // -S/--unix-socket
	Auth       string // -a/--authenticate: PASSWORD or USER:PASSWORD
	Protocol   string // -P/--protocol: redis (no HELLO), resp2, resp3

	Subscribers int           // --subscribers (1)
	Channels    int           // --channels (1)
	Publishers  int           // --publishers (1)
	Pipeline    int           // --pipeline: PUBLISHes in flight per publisher (1)
	DataSize    int           // -d/--data-size: message bytes, >= HeaderSize (128, the seed's value size)
	TestTime    time.Duration // --test-time (10s)
	Mode        Mode          // --mode (channel)
	Prefix      string        // --channel-prefix ("corvid-bench:ch:")

	// MaxLag is --max-lag: a publisher waits, before its next batch, while
	// more than MaxLag messages counted by PUBLISH replies have not reached
	// their subscribers yet (0: never waits). It keeps a client machine
	// that reads slower than the server writes from filling the server's
	// output buffers until it drops subscribers; stalled or slow
	// subscribers make it stall the publishers, so it is off with them.
	MaxLag int64

	// SlowSubscribers read at most SlowReadRate bytes/s each and
	// StalledSubscribers never read until the end (--slow-subscribers,
	// --slow-read-rate, --stalled-subscribers): for the output-buffer
	// limit test. They are the last subscribers; their latency is not
	// recorded.
	SlowSubscribers    int
	SlowReadRate       int
	StalledSubscribers int

	// ServerPID is --server-pid: a server on this machine whose CPU time
	// (utime+stime from /proc/PID/stat) Run reads when the publishers
	// start and when the last message has been read, to report the
	// server's CPU per delivered message without the connection set-up.
	ServerPID int

	JSON    bool   // --json: print JSON instead of text
	JSONOut string // --json-out-file
	Help    bool
}

// Defaults returns the configuration before parsing.
func Defaults() *Config {
	return &Config{Protocol: "redis", Subscribers: 1, Channels: 1, Publishers: 1, Pipeline: 1, DataSize: 128,
		TestTime: 10 * time.Second, Mode: ModeChannel, Prefix: "corvid-bench:ch:", SlowReadRate: 64 << 10}
}

// Addr is the dial target: the socket path with -S, host:port with -s or
// -p, "" for the embedded server.
func (c *Config) Addr() string {
	switch {
	case c.UnixSocket != "":
		return c.UnixSocket
	case c.Server == "" && c.Port == 0:
		return ""
	}
	host := c.Server
	if host == "" {
		host = "localhost"
	}
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host // an explicit host:port wins over -p, as in memtier
	}
	port := c.Port
	if port == 0 {
		port = 6379
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port))
}

// Network is "unix" with -S, else "tcp".
func (c *Config) Network() string {
	if c.UnixSocket != "" {
		return "unix"
	}
	return "tcp"
}

// Parse reads the pubsub subcommand's arguments into a checked Config.
func Parse(args []string) (*Config, error) {
	c := Defaults()
	rest, err := options.ParseOnly(args, Opts(c)...)
	if err != nil {
		return nil, err
	}
	if c.Help {
		return c, nil
	}
	if len(rest) > 0 {
		return nil, usagef("unexpected argument '%s'", rest[0])
	}
	return c, c.Validate()
}

// Validate checks the cross-flag rules.
func (c *Config) Validate() error {
	switch {
	case c.DataSize < HeaderSize:
		return usagef("data-size must be at least %d (the message header).", HeaderSize)
	case c.SlowSubscribers+c.StalledSubscribers > c.Subscribers:
		return usagef("slow-subscribers + stalled-subscribers must not exceed subscribers.")
	case c.MaxLag > 0 && c.SlowSubscribers+c.StalledSubscribers > 0:
		return usagef("max-lag would stall the publishers behind slow or stalled subscribers; use --max-lag 0.")
	}
	return nil
}

func usagef(format string, a ...any) error {
	return &options.UsageError{Msg: fmt.Sprintf(format, a...)}
}

func intArg(long, help string, min, max int64, set func(*Config, int64)) func(*Config) options.Opt {
	return func(c *Config) options.Opt {
		return options.Opt{Long: long, Arg: true, Help: help, Set: func(_ *options.Config, v string) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < min || n > max {
				return usagef("%s must be an integer in [%d, %d], got '%s'.", long, min, max, v)
			}
			set(c, n)
			return nil
		}}
	}
}

// Opts is the option table; Set functions write into c.
func Opts(c *Config) []options.Opt {
	str := func(long string, short byte, help string, dst *string) options.Opt {
		return options.Opt{Long: long, Short: short, Arg: true, Help: help, Set: func(_ *options.Config, v string) error {
			*dst = v
			return nil
		}}
	}
	ints := []func(*Config) options.Opt{
		intArg("subscribers", "Subscriber connections (default 1)", 1, 1_000_000, func(c *Config, n int64) { c.Subscribers = int(n) }),
		intArg("channels", "Channels; subscriber i takes every channel j with j = i mod min(subscribers, channels) (default 1)", 1, 1_000_000, func(c *Config, n int64) { c.Channels = int(n) }),
		intArg("publishers", "Publisher connections, each publishing to the channels in turn (default 1)", 1, 10_000, func(c *Config, n int64) { c.Publishers = int(n) }),
		intArg("pipeline", "PUBLISHes in flight per publisher (default 1)", 1, 1024, func(c *Config, n int64) { c.Pipeline = int(n) }),
		intArg("max-lag", "Publishers wait while more than this many published messages are undelivered (default 0: never)", 0, math.MaxInt64, func(c *Config, n int64) { c.MaxLag = n }),
		intArg("slow-subscribers", "How many subscribers read at most --slow-read-rate (default 0)", 0, 1_000_000, func(c *Config, n int64) { c.SlowSubscribers = int(n) }),
		intArg("slow-read-rate", "Bytes/s each slow subscriber reads (default 65536)", 1, math.MaxInt32, func(c *Config, n int64) { c.SlowReadRate = int(n) }),
		intArg("server-pid", "PID of the server when it runs on this machine: report its CPU per delivered message (Linux /proc)", 1, math.MaxInt32, func(c *Config, n int64) { c.ServerPID = int(n) }),
		intArg("stalled-subscribers", "How many subscribers never read until the end (default 0)", 0, 1_000_000, func(c *Config, n int64) { c.StalledSubscribers = int(n) }),
	}
	opts := []options.Opt{
		str("server", 's', "Server host, or host:port (default: the embedded corvid-server)", &c.Server),
		{Long: "port", Short: 'p', Arg: true, Help: "Server port (default 6379)", Set: func(_ *options.Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				return usagef("port must be a number in the range [1-65535].")
			}
			c.Port = n
			return nil
		}},
		str("unix-socket", 'S', "UNIX domain socket", &c.UnixSocket),
		str("authenticate", 'a', "PASSWORD or USER:PASSWORD", &c.Auth),
		{Long: "protocol", Short: 'P', Arg: true, Help: "redis (default), resp2 or resp3 (messages arrive as pushes)", Set: func(_ *options.Config, v string) error {
			if v != "redis" && v != "resp2" && v != "resp3" {
				return usagef("supported protocols are 'redis', 'resp2' and 'resp3'.")
			}
			c.Protocol = v
			return nil
		}},
		{Long: "data-size", Short: 'd', Arg: true, Help: fmt.Sprintf("Message bytes, at least %d (default 128)", HeaderSize), Set: func(_ *options.Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 512<<20 {
				return usagef("data-size must be greater than zero.")
			}
			c.DataSize = n
			return nil
		}},
		{Long: "test-time", Arg: true, Help: "Seconds to publish, or a Go duration (default 10)", Set: func(_ *options.Config, v string) error {
			d, ok := parseTestTime(v)
			if !ok {
				return usagef("test time must be greater than zero.")
			}
			c.TestTime = d
			return nil
		}},
		{Long: "mode", Arg: true, Help: "channel (SUBSCRIBE/PUBLISH, default), pattern (PSUBSCRIBE/PUBLISH) or sharded (SSUBSCRIBE/SPUBLISH)", Set: func(_ *options.Config, v string) error {
			switch m := Mode(v); m {
			case ModeChannel, ModePattern, ModeSharded:
				c.Mode = m
				return nil
			}
			return usagef("mode must be 'channel', 'pattern' or 'sharded'.")
		}},
		str("channel-prefix", 0, "Channel names are PREFIX0, PREFIX1, ... (default corvid-bench:ch:)", &c.Prefix),
		{Long: "json", Help: "Print the result as JSON instead of text", Set: func(_ *options.Config, _ string) error {
			c.JSON = true
			return nil
		}},
		str("json-out-file", 0, "Also write the JSON result to this file", &c.JSONOut),
		{Long: "tls", Help: "Not supported: pubsub runs in plaintext (its subscribers are raw-socket event loops); see corvid-bench --tls", Set: func(_ *options.Config, _ string) error {
			return usagef("pubsub does not support --tls: its subscribers run on raw-socket event loops, which cannot carry TLS.")
		}},
		{Long: "help", Help: "Display this help", Set: func(_ *options.Config, _ string) error {
			c.Help = true
			return nil
		}},
	}
	for _, f := range ints {
		opts = append(opts, f(c))
	}
	return opts
}

// parseTestTime accepts integer seconds or a Go duration.
func parseTestTime(v string) (time.Duration, bool) {
	if n, err := strconv.ParseUint(v, 10, 31); err == nil {
		return time.Duration(n) * time.Second, n > 0
	}
	d, err := time.ParseDuration(v)
	return d, err == nil && d > 0
}
