package loadgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/corvid-kv/corvid/internal/bench/keygen"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// workload is the compiled, read-only description shared by all clients.
type workload struct {
	cfg      *options.Config
	cmds     []cmdSpec
	rows     []rowSpec
	schedule []int // command indices, each repeated by its ratio
	sizes    keygen.Sizes
	value    []byte // template value bytes ('x' or random), Largest() long
}

type cmdSpec struct {
	tmpl    *wire.Template
	pattern keygen.Pattern
	row     int
}

type rowSpec struct {
	name      string
	trackHits bool
}

func compile(cfg *options.Config) (*workload, error) {
	w := &workload{cfg: cfg, sizes: keygen.Sizes{
		Fixed: cfg.DataSize, Min: cfg.DataSizeRange[0], Max: cfg.DataSizeRange[1],
		Pattern: cfg.DataSizePattern, KeyMin: cfg.KeyMin, KeyMax: cfg.KeyMax,
	}}
	if err := w.sizes.Validate(); err != nil {
		return nil, err
	}
	rowIdx := map[string]int{}
	for i, c := range cfg.Effective() {
		args, err := options.SplitCommand(c.Text)
		if err != nil || len(args) == 0 {
			return nil, fmt.Errorf("bad --command %q", c.Text)
		}
		t := wire.Compile(args)
		name := stats.RowName(t.Name)
		r, ok := rowIdx[name]
		if !ok {
			r = len(w.rows)
			rowIdx[name] = r
			w.rows = append(w.rows, rowSpec{name: name, trackHits: stats.TracksHits(t.Name)})
		}
		w.cmds = append(w.cmds, cmdSpec{tmpl: t, pattern: c.KeyPattern, row: r})
		for j := 0; j < c.Ratio; j++ {
			w.schedule = append(w.schedule, i)
		}
	}
	if len(w.schedule) == 0 {
		return nil, fmt.Errorf("nothing to send: the ratio is 0:0")
	}
	w.value = make([]byte, w.sizes.Largest())
	if cfg.RandomData {
		r := keygen.NewRand(cfg.Seed ^ 0x5eed)
		for i := range w.value {
			w.value[i] = byte('!' + r.IntN(94)) // printable, so values are readable in MONITOR
		}
	} else {
		for i := range w.value {
			w.value[i] = 'x'
		}
	}
	return w, nil
}

// recorder holds one --threads group's histograms for one server.
type recorder struct {
	mu    sync.Mutex
	hists []*hdrhistogram.Histogram // per row
}

func newRecorder(rows int) *recorder {
	r := &recorder{hists: make([]*hdrhistogram.Histogram, rows)}
	for i := range r.hists {
		r.hists[i] = stats.NewHist()
	}
	return r
}

type sample struct {
	row int32
	ns  int64
}

// gen is the per-client request generator: the client's random source,
// key generators (one per command, as memtier keeps one iterator per
// command), the key scratch buffer and a private copy of the value bytes.
type gen struct {
	w      *workload
	rng    *rand.Rand
	keys   []*keygen.Gen
	pos    int
	keyBuf []byte
	value  []byte
	mut    int
}

func newGen(w *workload, seed uint64, client, clients int) (*gen, error) {
	g := &gen{w: w, rng: keygen.NewRand(seed), keyBuf: make([]byte, 0, len(w.cfg.KeyPrefix)+24)}
	g.value = append([]byte(nil), w.value...)
	for _, c := range w.cmds {
		k, err := keygen.New(keygen.Spec{
			Min: w.cfg.KeyMin, Max: w.cfg.KeyMax, Pattern: c.pattern,
			Stddev: w.cfg.KeyStddev, Median: w.cfg.KeyMedian, ZipfExp: w.cfg.KeyZipfExp,
			Client: client, Clients: clients,
		}, g.rng)
		if err != nil {
			return nil, err
		}
		g.keys = append(g.keys, k)
	}
	return g, nil
}

// next picks the next command and key, returning the command index, the
// key index, and the key and data to send (valid until the next call).
func (g *gen) next() (cmd int, keyIdx uint64, key, data []byte) {
	cmd = g.w.schedule[g.pos]
	g.pos++
	if g.pos == len(g.w.schedule) {
		g.pos = 0
	}
	keyIdx = g.keys[cmd].Next()
	g.keyBuf = append(g.keyBuf[:0], g.w.cfg.KeyPrefix...)
	g.keyBuf = strconv.AppendUint(g.keyBuf, keyIdx, 10)
	if g.w.cmds[cmd].tmpl.HasData {
		n := g.w.sizes.Pick(g.rng, keyIdx)
		if g.w.cfg.RandomData && len(g.value) > 0 {
			// memtier mutates one byte per object so values differ cheaply.
			g.value[g.mut]++
			g.mut++
			if g.mut == len(g.value) {
				g.mut = 0
			}
		}
		data = g.value[:n]
	}
	return cmd, keyIdx, g.keyBuf, data
}

// keyFor rebuilds a key (for a cluster redirect) into a scratch buffer.
func (g *gen) keyFor(dst []byte, keyIdx uint64) []byte {
	dst = append(dst[:0], g.w.cfg.KeyPrefix...)
	return strconv.AppendUint(dst, keyIdx, 10)
}
