package matrix

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/keygen"
	"github.com/corvid-kv/corvid/internal/bench/loadgen"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// SeedCommand is one line of the article's memtier commands.
type SeedCommand struct {
	Name      string // row label in the seed's table
	Command   string // --command
	KeyPrefix string // --key-prefix
	Data      bool   // the article passes --random-data --data-size=128
}

// SeedCommands are the article's seven memtier invocations, verbatim.
var SeedCommands = []SeedCommand{
	{"set", "set __key__ __data__", "kv_", true},
	{"get", "get __key__", "kv_", false},
	{"incr", "incr __key__", "int_", false},
	{"lpush", "lpush __key__ __data__", "list_", true},
	{"sadd", "sadd __key__ __data__", "set_", true},
	{"zadd", "zadd __key__ __key__ __data__", "", true},
	{"hset", "hset __key__ __data__ __data__", "hash_", true},
}

// Target is a named server.
type Target struct{ Name, Addr string }

// ParseTarget reads "name=host:port" (or just "host:port").
func ParseTarget(s string) (Target, error) {
	name, addr, ok := strings.Cut(s, "=")
	if !ok {
		name, addr = s, s
	}
	if name == "" || addr == "" || !strings.Contains(addr, ":") {
		return Target{}, fmt.Errorf("--target must be name=host:port, got %q", s)
	}
	return Target{Name: name, Addr: addr}, nil
}

// Config is one matrix run.
type Config struct {
	Base      *options.Config // memtier flags: -t, -c, --test-time, --pipeline, ...
	Targets   []Target
	IOThreads []string // one scenario each; empty: one scenario without a setting
	Commands  []string // subset of SeedCommands by name; empty: all seven
	Progress  io.Writer
	Log       io.Writer
}

// Run measures every target × io-threads × command and returns the table.
func Run(ctx context.Context, c Config) (*report.Table, error) {
	if len(c.Targets) == 0 {
		return nil, fmt.Errorf("no targets")
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	cmds, err := pick(c.Commands)
	if err != nil {
		return nil, err
	}
	t := report.NewTable()
	for _, tg := range c.Targets {
		t.AddTarget(tg.Name)
	}
	scen := c.IOThreads
	if len(scen) == 0 {
		scen = []string{""}
	}
	runNo := 0
	for si, io := range scen {
		s := t.Scenario(strconv.Itoa(si+1), io)
		for _, tg := range c.Targets {
			if io != "" {
				if note := applyIOThreads(tg, io, c.Base); note != "" {
					t.Notes = append(t.Notes, note)
					fmt.Fprintf(c.Log, "%s\n", note)
				}
			}
			for _, sc := range cmds {
				runNo++
				cfg := SeedConfig(c.Base, sc)
				fmt.Fprintf(c.Log, "[%s io-threads=%s] %s: %s\n", tg.Name, orDash(io), sc.Name, strings.Join(CommandLine(cfg, tg.Addr), " "))
				res, err := loadgen.Run(ctx, cfg, []string{tg.Addr}, loadgen.Progress{Out: c.Progress, Run: runNo})
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", tg.Name, sc.Name, err)
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				ops := stats.TotalOps(res[0])
				if e := res[0].Totals().Errors; e > 0 {
					t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %d error replies (first: %s)", tg.Name, sc.Name, e, res[0].FirstError))
				}
				t.Set(s, sc.Name, tg.Name, ops)
			}
		}
	}
	for _, s := range t.Scenarios {
		s.SortCommands()
	}
	return t, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func pick(names []string) ([]SeedCommand, error) {
	if len(names) == 0 {
		return SeedCommands, nil
	}
	var out []SeedCommand
	for _, n := range names {
		found := false
		for _, sc := range SeedCommands {
			if strings.EqualFold(sc.Name, n) {
				out = append(out, sc)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown seed command %q (have set, get, incr, lpush, sadd, zadd, hset)", n)
		}
	}
	return out, nil
}

// SeedConfig is the base configuration with one seed command's flags:
// --distinct-client-seed --command=... --key-prefix=... --key-minimum=1
// --key-maximum=500 [--random-data --data-size=128].
func SeedConfig(base *options.Config, sc SeedCommand) *options.Config {
	cfg := *base
	cfg.Commands = []options.Command{{Text: sc.Command, Ratio: 1, KeyPattern: keygen.Random}}
	cfg.KeyPrefix = sc.KeyPrefix
	cfg.KeyMin, cfg.KeyMax = 1, 500
	cfg.DistinctClientSeed = true
	cfg.RandomData = sc.Data
	cfg.DataSize, cfg.DataSizeRange = 128, [2]int{}
	cfg.Embedded = false
	return &cfg
}

// CommandLine renders the equivalent memtier_benchmark invocation, so a
// run can be repeated with memtier itself.
func CommandLine(cfg *options.Config, addr string) []string {
	host, port := addr, "6379"
	if i := strings.LastIndexByte(addr, ':'); i > 0 {
		host, port = addr[:i], addr[i+1:]
	}
	args := []string{"memtier_benchmark", "-t", strconv.Itoa(cfg.Threads), "-c", strconv.Itoa(cfg.Clients), "-s", host, "-p", port}
	if cfg.DistinctClientSeed {
		args = append(args, "--distinct-client-seed")
	}
	for _, c := range cfg.Commands {
		args = append(args, fmt.Sprintf("--command=%q", c.Text))
	}
	if cfg.ClusterMode {
		args = append(args, "--cluster-mode")
	}
	if len(cfg.Commands) == 0 {
		args = append(args, "--ratio="+cfg.Ratio.String())
		if kp := cfg.KeyPattern; kp != [2]keygen.Pattern{keygen.Random, keygen.Random} && kp[0] != 0 {
			args = append(args, fmt.Sprintf("--key-pattern=%c:%c", kp[0], kp[1]))
		}
	}
	args = append(args, fmt.Sprintf("--key-prefix=%q", cfg.KeyPrefix))
	if d := options.Defaults(); cfg.KeyMin != d.KeyMin || cfg.KeyMax != d.KeyMax {
		// memtier's defaults are left out: it refuses an explicit --key-minimum=0.
		args = append(args, "--key-minimum="+strconv.FormatUint(cfg.KeyMin, 10), "--key-maximum="+strconv.FormatUint(cfg.KeyMax, 10))
	}
	switch {
	case cfg.DataSizeRange[1] != 0:
		if cfg.RandomData {
			args = append(args, "--random-data")
		}
		args = append(args, fmt.Sprintf("--data-size-range=%d-%d", cfg.DataSizeRange[0], cfg.DataSizeRange[1]),
			fmt.Sprintf("--data-size-pattern=%c", cfg.DataSizePattern))
	case cfg.RandomData:
		args = append(args, "--random-data", "--data-size="+strconv.Itoa(cfg.DataSize))
	}
	if cfg.Pipeline > 1 {
		args = append(args, "--pipeline="+strconv.Itoa(cfg.Pipeline))
	}
	if cfg.TestTime > 0 {
		secs := cfg.TestTime.Seconds()
		if secs == float64(int(secs)) {
			args = append(args, "--test-time="+strconv.Itoa(int(secs)))
		} else {
			args = append(args, "--test-time="+cfg.TestTime.String())
		}
	} else {
		args = append(args, "-n", strconv.FormatUint(cfg.Requests, 10))
	}
	return args
}

// applyIOThreads tries CONFIG SET io-threads; it returns a note when the
// setting could only be recorded as a label.
func applyIOThreads(tg Target, n string, base *options.Config) string {
	conn, err := wire.Dial("tcp", tg.Addr, 5*time.Second)
	if err != nil {
		return fmt.Sprintf("%s: io-threads %s recorded as a label only (cannot connect: %v)", tg.Name, n, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if err := conn.Handshake(base.Auth, "redis", 0); err != nil {
		return fmt.Sprintf("%s: io-threads %s recorded as a label only (%v)", tg.Name, n, err)
	}
	v, err := conn.Do("CONFIG", "SET", "io-threads", n)
	if err == nil {
		err = v.Err()
	}
	if err != nil {
		return fmt.Sprintf("%s: io-threads %s recorded as a label only (CONFIG SET refused: %v; set it in the server's config file and restart)", tg.Name, n, err)
	}
	return ""
}
