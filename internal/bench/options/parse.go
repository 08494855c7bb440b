package options

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/keygen"
)

// UsageError is a bad command line; its text is memtier's "error: ..." line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return "error: " + e.Msg }

func usagef(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...)}
}

// Opt is one command-line option. Set receives the argument ("" for flags
// without one). Subcommands add their own Opts to memtier's table.
type Opt struct {
	Long  string
	Short byte // 0: none
	Arg   bool
	Help  string
	Set   func(c *Config, v string) error
}

// Parse reads args (without the program name) into a finished Config.
// Arguments that are not options are returned in order; "--" ends options.
func Parse(args []string, extra ...Opt) (*Config, []string, error) {
	c := Defaults()
	rest, err := ParseInto(c, args, extra...)
	if err != nil {
		return nil, nil, err
	}
	if c.Help || c.Version {
		return c, rest, nil
	}
	if err := c.finalize(); err != nil {
		return nil, nil, err
	}
	return c, rest, nil
}

// ParseInto applies args to c without finalizing (matrix and sla adjust the
// config before Finalize).
func ParseInto(c *Config, args []string, extra ...Opt) ([]string, error) {
	return parseTable(c, args, append(memtierOpts(), extra...))
}

// ParseOnly applies args using only opts (no memtier flags); for
// subcommands such as report that do not drive servers.
func ParseOnly(args []string, opts ...Opt) ([]string, error) {
	return parseTable(Defaults(), args, opts)
}

func parseTable(c *Config, args []string, table []Opt) ([]string, error) {
	byLong := map[string]*Opt{}
	byShort := map[byte]*Opt{}
	for i := range table {
		o := &table[i]
		byLong[o.Long] = o
		if o.Short != 0 {
			byShort[o.Short] = o
		}
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(rest, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o := byLong[name]
			if o == nil {
				return nil, usagef("unrecognized option '--%s'", name)
			}
			if o.Arg && !hasVal {
				if i+1 >= len(args) {
					return nil, usagef("option '--%s' requires an argument", name)
				}
				i++
				val = args[i]
			} else if !o.Arg && hasVal {
				return nil, usagef("option '--%s' doesn't allow an argument", name)
			}
			if err := o.Set(c, val); err != nil {
				return nil, err
			}
		case len(a) > 1 && a[0] == '-':
			// getopt short options: "-t4", "-t 4", "-RD".
			for j := 1; j < len(a); j++ {
				o := byShort[a[j]]
				if o == nil {
					return nil, usagef("invalid option -- '%c'", a[j])
				}
				if !o.Arg {
					if err := o.Set(c, ""); err != nil {
						return nil, err
					}
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, usagef("option requires an argument -- '%c'", a[j])
					}
					i++
					val = args[i]
				}
				if err := o.Set(c, val); err != nil {
					return nil, err
				}
				break
			}
		default:
			rest = append(rest, a)
		}
	}
	return rest, nil
}

// Finalize fills defaults and checks cross-flag rules (for callers of ParseInto).
func (c *Config) Finalize() error { return c.finalize() }

// positive parses a decimal integer > 0 (memtier rejects 0, signs and junk).
func positive(v string, max uint64) (uint64, bool) {
	v = strings.TrimSpace(v)
	if v == "" || v[0] == '-' || v[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 || n > max {
		return 0, false
	}
	return n, true
}

func intOpt(long string, short byte, help, msg string, max uint64, dst func(*Config) *int) Opt {
	return Opt{Long: long, Short: short, Arg: true, Help: help, Set: func(c *Config, v string) error {
		n, ok := positive(v, max)
		if !ok {
			return usagef("%s", msg)
		}
		*dst(c) = int(n)
		return nil
	}}
}

func flagOpt(long string, short byte, help string, dst func(*Config) *bool) Opt {
	return Opt{Long: long, Short: short, Help: help, Set: func(c *Config, _ string) error {
		*dst(c) = true
		return nil
	}}
}

func parseRatio(v string) (Ratio, bool) {
	a, b, ok := strings.Cut(v, ":")
	if !ok {
		return Ratio{}, false
	}
	x, e1 := strconv.ParseUint(a, 10, 31)
	y, e2 := strconv.ParseUint(b, 10, 31)
	if e1 != nil || e2 != nil || x+y == 0 {
		return Ratio{}, false
	}
	return Ratio{int(x), int(y)}, true
}

// parseTestTime accepts memtier's integer seconds or a Go duration.
func parseTestTime(v string) (time.Duration, bool) {
	if n, ok := positive(v, math.MaxInt32); ok {
		return time.Duration(n) * time.Second, true
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, false
	}
	return d, true
}

func memtierOpts() []Opt {
	opts := []Opt{
		{Long: "server", Short: 's', Arg: true, Help: "Server address; a comma-separated list or repeated (default: embedded corvid-server)", Set: addServers},
		{Long: "host", Short: 'h', Arg: true, Help: "Same as --server", Set: addServers},
		{Long: "port", Short: 'p', Arg: true, Help: "Server port (default: 6379)", Set: func(c *Config, v string) error {
			n, ok := positive(v, 65535)
			if !ok {
				return usagef("port must be a number in the range [1-65535].")
			}
			c.Port, c.PortSet = int(n), true
			return nil
		}},
		{Long: "unix-socket", Short: 'S', Arg: true, Help: "UNIX Domain socket name", Set: func(c *Config, v string) error {
			c.UnixSocket = v
			return nil
		}},
		{Long: "protocol", Short: 'P', Arg: true, Help: "redis (default), resp2 or resp3 (set with HELLO)", Set: func(c *Config, v string) error {
			switch v {
			case "redis", "resp2", "resp3":
				c.Protocol = v
				return nil
			case "memcache_text", "memcache_binary":
				return usagef("protocol '%s' is not supported by corvid-bench; use 'redis', 'resp2' or 'resp3'.", v)
			}
			return usagef("supported protocols are 'redis', 'resp2' and 'resp3'.")
		}},
		{Long: "authenticate", Short: 'a', Arg: true, Help: "PASSWORD or USER:PASSWORD", Set: func(c *Config, v string) error {
			c.Auth = v
			return nil
		}},
	}
	opts = append(opts, tlsOpts()...)
	return append(opts, []Opt{
		{Long: "out-file", Short: 'o', Arg: true, Help: "Name of output file (default: stdout)", Set: func(c *Config, v string) error {
			c.OutFile = v
			return nil
		}},
		{Long: "json-out-file", Arg: true, Help: "Name of JSON output file", Set: func(c *Config, v string) error {
			c.JSONOut = v
			return nil
		}},
		{Long: "hdr-file-prefix", Arg: true, Help: "Prefix of HDR latency histogram output files", Set: func(c *Config, v string) error {
			c.HDRPrefix = v
			return nil
		}},
		{Long: "run-count", Short: 'x', Arg: true, Help: "Number of full-test iterations to perform", Set: func(c *Config, v string) error {
			n, ok := positive(v, 1000)
			if !ok {
				return usagef("run count must be greater than zero.")
			}
			c.RunCount = int(n)
			return nil
		}},
		flagOpt("debug", 'D', "Print debug output", func(c *Config) *bool { return &c.Debug }),
		flagOpt("show-config", 0, "Print detailed configuration before running", func(c *Config) *bool { return &c.ShowConfig }),
		flagOpt("hide-histogram", 0, "Don't print detailed latency histogram", func(c *Config) *bool { return &c.HideHistogram }),
		flagOpt("print-all-runs", 0, "Print results of every iteration", func(c *Config) *bool { return &c.PrintAllRuns }),
		{Long: "print-percentiles", Arg: true, Help: "Percentiles to print (default: 50,99,99.9)", Set: func(c *Config, v string) error {
			var ps []float64
			for _, f := range strings.Split(v, ",") {
				p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil || p < 0 || p > 100 {
					return usagef("quantiles must be expressed as [0.0-100.0],[0.0-100.0](,...) .")
				}
				ps = append(ps, p)
			}
			c.Percentiles = ps
			return nil
		}},
		{Long: "client-io", Arg: true, Help: "uring (an event loop per thread on io_uring; the default where the kernel allows), epoll (the same loops on epoll, like memtier; the default elsewhere) or goroutines (one per connection)", Set: func(c *Config, v string) error {
			switch v {
			case "epoll", "uring", "goroutines":
				c.ClientIO = v
				return nil
			}
			return usagef("client-io must be 'epoll', 'uring' or 'goroutines'.")
		}},
		flagOpt("tracking", 0, "CLIENT TRACKING ON on every connection (corvid-bench's own; implies --protocol resp3)", func(c *Config) *bool { return &c.Tracking }),
		flagOpt("cluster-mode", 0, "Run client in cluster mode", func(c *Config) *bool { return &c.ClusterMode }),
		flagOpt("distinct-client-seed", 0, "Use a different random seed for each client", func(c *Config) *bool { return &c.DistinctClientSeed }),
		{Long: "randomize", Help: "Random seed based on the clock (default is constant)", Set: func(c *Config, _ string) error {
			c.Randomize = true
			c.Seed = uint64(time.Now().UnixNano())
			return nil
		}},
		{Long: "requests", Short: 'n', Arg: true, Help: "Number of total requests per client (default: 10000), or 'allkeys'", Set: func(c *Config, v string) error {
			if v == "allkeys" {
				c.AllKeys = true
				return nil
			}
			n, ok := positive(v, math.MaxInt64)
			if !ok {
				return usagef("requests must be greater than zero.")
			}
			if c.TestTime > 0 {
				return usagef("--test-time and --requests are mutually exclusive.")
			}
			c.Requests = n
			return nil
		}},
		intOpt("clients", 'c', "Number of clients per thread (default: 50)", "clients must be greater than zero.", 100000, func(c *Config) *int { return &c.Clients }),
		intOpt("threads", 't', "Number of threads (default: 4)", "threads must be greater than zero.", 4096, func(c *Config) *int { return &c.Threads }),
		{Long: "test-time", Arg: true, Help: "Number of seconds to run the test", Set: func(c *Config, v string) error {
			d, ok := parseTestTime(v)
			if !ok {
				return usagef("test time must be greater than zero.")
			}
			if c.Requests > 0 || c.AllKeys {
				return usagef("--test-time and --requests are mutually exclusive.")
			}
			c.TestTime = d
			return nil
		}},
		{Long: "ratio", Arg: true, Help: "Set:Get ratio (default: 1:10)", Set: func(c *Config, v string) error {
			r, ok := parseRatio(v)
			if !ok {
				return usagef("ratio must be expressed as [0-n]:[0-n].")
			}
			c.Ratio, c.ratioSet = r, true
			return nil
		}},
		intOpt("pipeline", 0, "Number of concurrent pipelined requests (default: 1)", "pipeline must be greater than zero.", 1024, func(c *Config) *int { return &c.Pipeline }),
		intOpt("rate-limiting", 0, "Max requests per second per connection (default: unlimited)", "rate must be greater than zero.", math.MaxInt32, func(c *Config) *int { return &c.RateLimit }),
		intOpt("reconnect-interval", 0, "Number of requests after which re-connection is performed", "reconnect-interval must be greater than zero.", math.MaxInt32, func(c *Config) *int { return &c.ReconnectInterval }),
		{Long: "select-db", Arg: true, Help: "DB number to select", Set: func(c *Config, v string) error {
			n, err := strconv.ParseUint(v, 10, 31)
			if err != nil {
				return usagef("select-db must be greater or equal zero.")
			}
			c.SelectDB = int(n)
			return nil
		}},
		intOpt("data-size", 'd', "Object data size in bytes (default: 32)", "data-size must be greater than zero.", 512<<20, func(c *Config) *int { return &c.DataSize }),
		flagOpt("random-data", 'R', "Indicate that data should be randomized", func(c *Config) *bool { return &c.RandomData }),
		{Long: "data-size-range", Arg: true, Help: "Use random-sized items in the specified range (min-max)", Set: func(c *Config, v string) error {
			a, b, ok := strings.Cut(v, "-")
			x, ok1 := positive(a, 512<<20)
			y, ok2 := positive(b, 512<<20)
			if !ok || !ok1 || !ok2 || y < x {
				return usagef("data-size-range must be expressed as [1-n]-[1-n].")
			}
			c.DataSizeRange = [2]int{int(x), int(y)}
			return nil
		}},
		{Long: "data-size-pattern", Arg: true, Help: "R (random size) or S (spread over the key range) (default R)", Set: func(c *Config, v string) error {
			if v != "R" && v != "S" {
				return usagef("data-size-pattern must be either R or S.")
			}
			c.DataSizePattern = v[0]
			return nil
		}},
		{Long: "key-prefix", Arg: true, Help: "Prefix for keys (default: \"memtier-\")", Set: func(c *Config, v string) error {
			c.KeyPrefix = v
			return nil
		}},
		{Long: "key-minimum", Arg: true, Help: "Key ID minimum value (default: 0)", Set: func(c *Config, v string) error {
			n, ok := positive(v, math.MaxInt64)
			if !ok {
				return usagef("key-minimum must be greater than zero.")
			}
			c.KeyMin = n
			return nil
		}},
		{Long: "key-maximum", Arg: true, Help: "Key ID maximum value (default: 10000000)", Set: func(c *Config, v string) error {
			n, ok := positive(v, math.MaxInt64)
			if !ok {
				return usagef("key-maximum must be greater than zero.")
			}
			c.KeyMax = n
			return nil
		}},
		{Long: "key-pattern", Arg: true, Help: "Set:Get pattern, each of R/S/G/P/Z (default: R:R)", Set: func(c *Config, v string) error {
			if len(v) != 3 || v[1] != ':' {
				return usagef("key-pattern must be in the format of [S/R/G/P/Z]:[S/R/G/P/Z].")
			}
			s, e1 := keygen.ParsePattern(v[:1])
			g, e2 := keygen.ParsePattern(v[2:])
			if e1 != nil || e2 != nil {
				return usagef("key-pattern must be in the format of [S/R/G/P/Z]:[S/R/G/P/Z].")
			}
			if (s == keygen.Parallel || g == keygen.Parallel) && s != g {
				return usagef("parallel key-pattern must be configured for both SET and GET commands.")
			}
			c.KeyPattern, c.keyPatternSet = [2]keygen.Pattern{s, g}, true
			return nil
		}},
		{Long: "key-stddev", Arg: true, Help: "Standard deviation of the Gaussian pattern (default: range/6)", Set: func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
				return usagef("key-stddev must be a finite number greater than zero.")
			}
			c.KeyStddev = f
			return nil
		}},
		{Long: "key-median", Arg: true, Help: "Median of the Gaussian pattern (default: centre of the range)", Set: func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || f <= 0 {
				return usagef("key-median must be greater than zero.")
			}
			c.KeyMedian = f
			return nil
		}},
		{Long: "key-zipf-exp", Arg: true, Help: "Exponent of the Zipf pattern, in (0, 5) (default: 1)", Set: func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0 && f < 5) {
				return usagef("key-zipf-exp must be within interval (0, 5).")
			}
			c.KeyZipfExp = f
			return nil
		}},
		{Long: "command", Arg: true, Help: "Command to send, with __key__ and __data__ placeholders (repeatable)", Set: func(c *Config, v string) error {
			args, err := SplitCommand(v)
			if err != nil {
				return usagef("failed to parse arbitrary command.")
			}
			if len(args) == 0 {
				return usagef("--command requires a non-empty command string.")
			}
			if strings.Contains(args[0], "__key__") || strings.Contains(args[0], "__data__") {
				return usagef("--command first token must be a literal command name, not the placeholder '%s'.", args[0])
			}
			c.Commands = append(c.Commands, Command{Text: v, Ratio: 1, KeyPattern: keygen.Random})
			return nil
		}},
		{Long: "command-ratio", Arg: true, Help: "Times the last --command is sent in sequence (default: 1)", Set: func(c *Config, v string) error {
			if len(c.Commands) == 0 {
				return usagef("no arbitrary command found.")
			}
			n, ok := positive(v, math.MaxInt32)
			if !ok {
				return usagef("--command-ratio must be a positive integer (got '%s') for command %s.", v, c.Commands[len(c.Commands)-1].Text)
			}
			c.Commands[len(c.Commands)-1].Ratio = int(n)
			return nil
		}},
		{Long: "command-key-pattern", Arg: true, Help: "Key pattern of the last --command: R/S/G/P/Z (default: R)", Set: func(c *Config, v string) error {
			if len(c.Commands) == 0 {
				return usagef("no arbitrary command found.")
			}
			p, err := keygen.ParsePattern(v)
			if err != nil {
				return usagef("key-pattern for command %s must be in the format of [S/R/Z/G/P].", c.Commands[len(c.Commands)-1].Text)
			}
			c.Commands[len(c.Commands)-1].KeyPattern = p
			return nil
		}},
		flagOpt("help", 0, "Display this help", func(c *Config) *bool { return &c.Help }),
		flagOpt("version", 'v', "Display version information", func(c *Config) *bool { return &c.Version }),
	}...)
}

func addServers(c *Config, v string) error {
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return usagef("empty server address in '%s'.", v)
		}
		c.Servers = append(c.Servers, s)
	}
	return nil
}

// SplitCommand splits a --command string into arguments on blanks, keeping
// double- or single-quoted runs together (with \" and \\ escapes inside
// double quotes), like memtier's arbitrary-command tokenizer.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else if ch == '\\' && quote == '"' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(ch)
			}
		case ch == '"' || ch == '\'':
			quote, in = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// Usage renders memtier's option table plus extra for --help.
func Usage(extra ...Opt) string { return UsageOf(append(memtierOpts(), extra...)) }

// UsageOf renders an option table.
func UsageOf(opts []Opt) string {
	var b strings.Builder
	for _, o := range opts {
		name := "    "
		if o.Short != 0 {
			name = fmt.Sprintf("-%c, ", o.Short)
		}
		name += "--" + o.Long
		if o.Arg {
			name += "=VALUE"
		}
		fmt.Fprintf(&b, "  %-32s %s\n", name, o.Help)
	}
	return b.String()
}
