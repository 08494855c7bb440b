package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// config is the parsed command line.
type config struct {
	n         int           // arguments of the large RPUSH
	value     int           // bytes of the slow reader's value
	gets      int           // GETs the slow reader sends
	hold      time.Duration // how long the slow reader reads nothing
	obufLimit string        // client-output-buffer-limit of "obuflimit"
	conns     int           // idle connections
	pings     int           // PINGs per median outside an attack
	pingEvery time.Duration // the prober's pace; 0: back to back
	settle    time.Duration // wait before a baseline RSS
	timeout   time.Duration // bound of one step
	scenarios []string      // keys of allScenarios, in run order
	servers   []string      // names of allServers, in run order
	corvidBin string        // "": build ./cmd/corvid-server
	valkeyBin string        // "": ../shared/bin/valkey-server beside the module root
	redisBin  string        // looked up in PATH
	argv      []string      // as given, for the report
}

var (
	allScenarios = []string{"multibulk", "slowreader", "obuflimit", "idle"}
	allServers   = []string{"corvid", "valkey", "redis"}
)

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("hostile", flag.ContinueOnError)
	c := &config{argv: args}
	fs.IntVar(&c.n, "n", 3_000_000, "arguments of the large RPUSH")
	fs.IntVar(&c.value, "value", 10<<20, "bytes of the value the slow reader GETs")
	fs.IntVar(&c.gets, "gets", 50, "GETs the slow reader sends in one write")
	fs.DurationVar(&c.hold, "hold", 2*time.Second, "how long the slow reader reads nothing")
	fs.StringVar(&c.obufLimit, "obuf-limit", "normal 64mb 0 0", "client-output-buffer-limit of the obuflimit scenario")
	fs.IntVar(&c.conns, "conns", 3000, "idle connections")
	fs.IntVar(&c.pings, "pings", 200, "PINGs per median taken outside an attack")
	fs.DurationVar(&c.pingEvery, "ping-every", time.Millisecond, "the prober's pace: one PING per interval (0: back to back)")
	fs.DurationVar(&c.settle, "settle", 500*time.Millisecond, "wait before each baseline RSS")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "bound of any one step (a reply, the drain)")
	scen := fs.String("scenarios", strings.Join(allScenarios, ","), "scenarios to run, in this order")
	srvs := fs.String("servers", strings.Join(allServers, ","), "servers to run, in this order")
	fs.StringVar(&c.corvidBin, "corvid", "", "corvid-server binary (default: go build ./cmd/corvid-server)")
	fs.StringVar(&c.valkeyBin, "valkey", "", "valkey-server binary (default: ../shared/bin/valkey-server beside the module root)")
	fs.StringVar(&c.redisBin, "redis", "redis-server", "redis-server binary, looked up in PATH")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run ./bench/hostile [flags]\n\n"+
			"Hostile-client scenarios against corvid-server, valkey-server and redis-server, one at a time. Flags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.n < 1 || c.value < 1 || c.gets < 1 || c.conns < 1 || c.pings < 1 {
		return nil, fmt.Errorf("-n, -value, -gets, -conns and -pings must be >= 1")
	}
	if c.hold < 0 || c.settle < 0 || c.pingEvery < 0 || c.timeout <= 0 {
		return nil, fmt.Errorf("-hold, -settle and -ping-every must be >= 0, -timeout > 0")
	}
	var err error
	if c.scenarios, err = pickList("-scenarios", *scen, allScenarios); err != nil {
		return nil, err
	}
	if c.servers, err = pickList("-servers", *srvs, allServers); err != nil {
		return nil, err
	}
	return c, nil
}

// pickList reads a comma-separated subset of known, in the order given,
// without repeats.
func pickList(flagName, list string, known []string) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(list, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		switch {
		case f == "" || slices.Contains(out, f):
		case slices.Contains(known, f):
			out = append(out, f)
		default:
			return nil, fmt.Errorf("%s: unknown %q (want some of %s)", flagName, f, strings.Join(known, ","))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty", flagName)
	}
	return out, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	// The temporary directory holds the corvid-server build and the
	// servers' logs; it is kept when the run fails.
	tmp, err := os.MkdirTemp("", "hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
	benchproc.DieWithParent()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		logf("interrupted: stopping the servers")
		benchproc.StopAll()
		os.RemoveAll(tmp)
		os.Exit(130)
	}()
	err = run(cfg, tmp)
	benchproc.StopAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		fmt.Fprintln(os.Stderr, "hostile: server logs kept in", tmp)
		os.Exit(1)
	}
	os.RemoveAll(tmp)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}
