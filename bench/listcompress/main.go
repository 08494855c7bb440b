// Command listcompress measures what list-compress-depth saves: used
// memory per element of one long list of compressible values under
// list-compress-depth 0 and 1 (or -depths), corvid-server against
// valkey-server 8.0.1 in the same run.
//
//	bench/list-compress.sh                    # 1M 100-byte values, depths 0 and 1
//	bench/list-compress.sh -n 20000           # a smoke run
//
// Method. corvid-server is built from this checkout into a temporary
// directory; valkey-server is -valkey, else $CORVID_VALKEY_SERVER, else
// ../shared/bin/valkey-server next to the checkout, else the one on PATH.
// For each depth and server (alternating which goes first), a fresh
// server listens on a free 127.0.0.1 port with --save "" --appendonly no
// --list-compress-depth <depth>, so the list takes the depth when it
// becomes a quicklist. Then: MEMORY PURGE and a used_memory/VmRSS sample;
// RPUSH of -n values in commands of -per values, -batch commands per
// pipelined write; wait -settle, MEMORY PURGE, sample again; check LLEN
// and one element in the middle; record MEMORY USAGE (SAMPLES 0) and
// DEBUG OBJECT's ql_nodes and ql_compressed. Bytes per element is the
// used_memory (or RSS) difference divided by -n.
//
// Values are -size bytes: "<index>:" and then words drawn from a
// 32-word vocabulary by a seeded generator (the same bytes for both
// servers), like log or event records, which LZF compresses about 2x.
// The table goes to standard output and to PREFIX.md (-out).
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

type options struct {
	n, size, per, batch int
	depths              string
	seed                uint64
	settle              time.Duration
	corvidBin, valkey   string
	out                 string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 1_000_000, "elements in the list")
	flag.IntVar(&o.size, "size", 100, "value size in bytes")
	flag.IntVar(&o.per, "per", 100, "values per RPUSH")
	flag.IntVar(&o.batch, "batch", 100, "RPUSH commands per pipelined write")
	flag.StringVar(&o.depths, "depths", "0,1", "list-compress-depth values to measure, comma-separated")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed of the values")
	flag.DurationVar(&o.settle, "settle", time.Second, "wait before each memory sample")
	flag.StringVar(&o.corvidBin, "corvid", "", "corvid-server binary (default: build ./cmd/corvid-server)")
	flag.StringVar(&o.valkey, "valkey", "", "valkey-server binary (default: $CORVID_VALKEY_SERVER, ../shared/bin, PATH)")
	flag.StringVar(&o.out, "out", "/tmp/list-compress", "write the report to PREFIX.md")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "listcompress: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "listcompress:", err)
		benchproc.StopAll()
		os.Exit(1)
	}
}

// result is one server's measurement at one depth.
type result struct {
	server            string
	depth             int
	usedBefore, used  int64
	rssBefore, rss    int64
	usage             int64 // MEMORY USAGE
	nodes, compressed string
	encoding          string
	load              time.Duration
}

func run(o options) error {
	if o.n < 1 || o.size < 8 || o.per < 1 || o.batch < 1 {
		return fmt.Errorf("-n, -per and -batch must be positive, -size at least 8")
	}
	var depths []int
	for f := range strings.SplitSeq(o.depths, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return fmt.Errorf("bad -depths %q", o.depths)
		}
		depths = append(depths, d)
	}
	tmp, err := os.MkdirTemp("", "listcompress-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root, err := benchproc.ModuleRoot()
	if err != nil {
		return err
	}
	if o.corvidBin == "" {
		o.corvidBin = filepath.Join(tmp, "corvid-server")
		logf("building corvid-server in %s", tmp)
		if err := benchproc.Build(context.Background(), root, o.corvidBin, "./cmd/corvid-server", os.Stderr); err != nil {
			return err
		}
	}
	if o.valkey, err = benchproc.FindValkey(o.valkey, root); err != nil {
		return err
	}
	bins := map[string]string{"corvid": o.corvidBin, "valkey": o.valkey}
	var res []result
	for k, d := range depths {
		order := []string{"corvid", "valkey"}
		if k%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, name := range order {
			logf("depth %d: %s", d, name)
			r, err := measure(o, name, bins[name], tmp, d)
			if err != nil {
				return fmt.Errorf("%s, depth %d: %w", name, d, err)
			}
			logf("  used_memory %+d B, RSS %+d B, MEMORY USAGE %d, ql_nodes %s, ql_compressed %s, load %.1fs",
				r.used-r.usedBefore, r.rss-r.rssBefore, r.usage, r.nodes, r.compressed, r.load.Seconds())
			res = append(res, r)
		}
	}
	header := []string{
		"command: `bench/list-compress.sh " + benchproc.ShellJoin(os.Args[1:]) + "`",
		"date: " + time.Now().UTC().Format(time.RFC3339),
		"load average: " + benchproc.LoadAvg(),
		fmt.Sprintf("corvid: %s, built with %s", version(o.corvidBin), runtime.Version()),
		"valkey: " + version(o.valkey),
		fmt.Sprintf("data: one list of %d values of %d bytes (compressible: words from a 32-word vocabulary), RPUSH %d per command, seed %d",
			o.n, o.size, o.per, o.seed),
	}
	md := report(header, res, o.n)
	fmt.Print("\n" + md)
	return os.WriteFile(o.out+".md", []byte(md), 0o644)
}

// measure starts a fresh server with the depth, loads the list and
// samples its memory.
func measure(o options, name, bin, dir string, depth int) (r result, err error) {
	r.server, r.depth = name, depth
	port, err := benchproc.FreePort()
	if err != nil {
		return r, err
	}
	srv, err := benchproc.Start(benchproc.Spec{Name: name, Port: port, Dir: dir,
		Log: filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, depth)),
		Argv: []string{bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--list-compress-depth", strconv.Itoa(depth), "--enable-debug-command", "yes"}})
	if err != nil {
		return r, err
	}
	defer srv.Stop()
	if err := srv.WaitReady(context.Background(), 20*time.Second); err != nil {
		return r, err
	}
	c, err := wire.Dial("tcp", srv.Addr, 2*time.Second)
	if err != nil {
		return r, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Minute))
	sample := func() (used, rss int64, err error) {
		time.Sleep(o.settle)
		_, _ = benchproc.Do(c, "MEMORY", "PURGE")
		info, err := benchproc.Do(c, "INFO", "memory")
		if err != nil {
			return 0, 0, err
		}
		used, err = benchproc.InfoInt(benchproc.ParseInfo(info.Str), "used_memory")
		if err != nil {
			return 0, 0, err
		}
		kib, err := srv.RSSKiB()
		return used, kib * 1024, err
	}
	if r.usedBefore, r.rssBefore, err = sample(); err != nil {
		return r, err
	}
	start := time.Now()
	mid, err := load(c, o)
	if err != nil {
		return r, err
	}
	r.load = time.Since(start)
	if r.used, r.rss, err = sample(); err != nil {
		return r, err
	}
	if n, err := benchproc.DoInt(c, "LLEN", "list"); err != nil || n != int64(o.n) {
		return r, fmt.Errorf("LLEN list = %d (%v), want %d", n, err, o.n)
	}
	if v, err := benchproc.Do(c, "LINDEX", "list", strconv.Itoa(o.n/2)); err != nil || v.Str != mid {
		return r, fmt.Errorf("LINDEX list %d: %q (%v), want %q", o.n/2, v.Str, err, mid)
	}
	if r.usage, err = benchproc.DoInt(c, "MEMORY", "USAGE", "list", "SAMPLES", "0"); err != nil {
		return r, err
	}
	enc, err := benchproc.Do(c, "OBJECT", "ENCODING", "list")
	if err != nil {
		return r, err
	}
	r.encoding = enc.Str
	dbg, err := benchproc.Do(c, "DEBUG", "OBJECT", "list")
	if err != nil {
		return r, err
	}
	r.nodes, r.compressed = field(dbg.Str, "ql_nodes"), field(dbg.Str, "ql_compressed")
	return r, nil
}

// load RPUSHes the values and returns the one at index n/2.
func load(c *wire.Conn, o options) (mid string, err error) {
	g := newValues(o.seed, o.size)
	for i := 0; i < o.n; {
		cmds := 0
		for ; cmds < o.batch && i < o.n; cmds++ {
			k := min(o.per, o.n-i)
			c.Out = appendArray(c.Out, 2+k)
			c.Out = appendBulk(c.Out, "RPUSH")
			c.Out = appendBulk(c.Out, "list")
			for range k {
				v := g.next(i)
				if i == o.n/2 {
					mid = string(v)
				}
				c.Out = appendBulk(c.Out, string(v))
				i++
			}
		}
		if err := c.Flush(); err != nil {
			return "", err
		}
		for range cmds {
			v, err := c.ReadValue()
			if err != nil {
				return "", err
			}
			if v.Type != ':' {
				return "", fmt.Errorf("RPUSH: %s", v.Text())
			}
		}
	}
	return mid, nil
}

// words is the vocabulary of the values.
var words = strings.Fields(`user session event click view order cart item price
	total status ok error retry region eu us asia device mobile desktop page home
	search query result latency ms count id ts level info`)

// values generates the list's values, the same for the same seed.
type values struct {
	rng  *rand.Rand
	size int
	buf  []byte
}

func newValues(seed uint64, size int) *values {
	return &values{rng: rand.New(rand.NewPCG(seed, 0x6c697374)), size: size}
}

// next returns value i: "<i>:" and words up to size bytes.
func (g *values) next(i int) []byte {
	b := strconv.AppendInt(g.buf[:0], int64(i), 10)
	b = append(b, ':')
	for len(b) < g.size {
		b = append(b, words[g.rng.IntN(len(words))]...)
		b = append(b, ' ')
	}
	g.buf = b[:0]
	return b[:g.size]
}

func appendArray(b []byte, n int) []byte {
	return append(strconv.AppendInt(append(b, '*'), int64(n), 10), '\r', '\n')
}

func appendBulk(b []byte, s string) []byte {
	b = strconv.AppendInt(append(b, '$'), int64(len(s)), 10)
	b = append(append(b, '\r', '\n'), s...)
	return append(b, '\r', '\n')
}

// field returns name's value in a DEBUG OBJECT line, or "?".
func field(line, name string) string {
	for f := range strings.FieldsSeq(line) {
		if v, ok := strings.CutPrefix(f, name+":"); ok {
			return v
		}
	}
	return "?"
}

// report renders the results as Markdown: one row per depth and server,
// with corvid/valkey ratios on corvid's rows.
func report(header []string, res []result, n int) string {
	var b strings.Builder
	b.WriteString("# List memory with list-compress-depth: corvid-server vs valkey-server\n\n")
	for _, h := range header {
		b.WriteString("- " + h + "\n")
	}
	b.WriteString("\n| depth | server | used B/elem | RSS B/elem | MEMORY USAGE B/elem | used vs valkey | used vs depth 0 | ql_nodes | ql_compressed | encoding | load s |\n")
	b.WriteString("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n")
	per := func(x int64) float64 { return float64(x) / float64(n) }
	find := func(server string, depth int) *result {
		for i := range res {
			if res[i].server == server && res[i].depth == depth {
				return &res[i]
			}
		}
		return nil
	}
	for _, r := range res {
		used := per(r.used - r.usedBefore)
		vsValkey, vsZero := "", ""
		if v := find("valkey", r.depth); r.server == "corvid" && v != nil && v.used > v.usedBefore {
			vsValkey = fmt.Sprintf("%.2f", used/per(v.used-v.usedBefore))
		}
		if z := find(r.server, 0); z != nil && r.depth != 0 && z.used > z.usedBefore {
			vsZero = fmt.Sprintf("%.2f", used/per(z.used-z.usedBefore))
		}
		fmt.Fprintf(&b, "| %d | %s | %.1f | %.1f | %.1f | %s | %s | %s | %s | %s | %.1f |\n",
			r.depth, r.server, used, per(r.rss-r.rssBefore), per(r.usage), vsValkey, vsZero,
			r.nodes, r.compressed, r.encoding, r.load.Seconds())
	}
	b.WriteString("\nB/elem = (after - before) / elements, each sample after MEMORY PURGE on a fresh server; " +
		"used = INFO used_memory, RSS = VmRSS; MEMORY USAGE with SAMPLES 0 (every node). " +
		"Ratios compare used B/elem.\n")
	return b.String()
}

func version(bin string) string {
	out, err := benchproc.Output("", bin, "--version")
	if err != nil {
		return "?"
	}
	return out
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}
