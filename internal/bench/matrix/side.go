package matrix

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/loadgen"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/stats"
)

// Instance is one running server: a child process (measurable through
// /proc) or an in-process one (not measurable).
type Instance interface {
	Address() string
	Sample() (peer.Usage, bool)
	Stop()
}

type procInstance struct{ *peer.Proc }

func (p procInstance) Address() string { return p.Addr }
func (p procInstance) Sample() (peer.Usage, bool) {
	u, err := p.Proc.Sample()
	return u, err == nil
}

type funcInstance struct {
	addr string
	stop func()
}

func (f funcInstance) Address() string            { return f.addr }
func (f funcInstance) Sample() (peer.Usage, bool) { return peer.Usage{}, false }
func (f funcInstance) Stop()                      { f.stop() }

// InProcess is a Server Path meaning "start the in-process server with
// SideConfig.Embedded" (used when the executable cannot serve as a child).
const InProcess = "(in-process)"

// Row is one line of a side-by-side table: a name and the load to run.
type Row struct {
	Name string
	Cfg  *options.Config
}

// SeedRows are seed 000's commands (names picks a subset) as rows.
func SeedRows(base *options.Config, names []string) ([]Row, error) {
	cmds, err := pick(names)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, sc := range cmds {
		rows = append(rows, Row{Name: sc.Name, Cfg: SeedConfig(base, sc)})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name }) // the seed's table order
	return rows, nil
}

// Scenario is one server configuration of a side-by-side run.
type Scenario struct {
	ID, Label string // the table's scenario id and io-threads label
	IOThreads int    // passed to every server; 0: the servers' default
}

// SideConfig is a side-by-side run: Side starts every server itself.
type SideConfig struct {
	Servers   []peer.Server // the first is the baseline
	Scenarios []Scenario    // default: one with the servers' defaults
	Rows      []Row
	Rounds    int // each row runs Rounds times per server, alternating servers; the median is kept
	Instances int // servers of each kind started per scenario (seed 001: one per core); default 1
	Extra     []string
	Embedded  func() (addr string, stop func(), err error) // for InProcess servers
	Progress  io.Writer                                    // the live status line (a terminal), or nil
	Log       io.Writer

	// Cluster > 0 runs every server as one cluster of that many primaries
	// (package clusterup) instead of Instances standalone processes; the
	// rows are then --cluster-mode loads, and every run starts from an
	// empty cluster (FLUSHALL on each node before and after it).
	Cluster int
	// OnRun, when set, receives each run's result (summed over the
	// server's instances) as it completes, e.g. to print memtier's tables.
	OnRun func(scenario, server, row string, round int, res *stats.Result)
}

// sample is one run's measurement.
type sample struct {
	ops, p50, p99, p999, cpuPerOp float64
	rss                           uint64
	cpuOK                         bool
	// cluster-mode runs only: the mean latency (ms) and redirections per
	// second, the columns of memtier's cluster-mode table.
	cluster               bool
	avg, movedSec, askSec float64
}

// Side measures every server on every row, alternating servers within
// each round (A B A B ...), and returns the table of medians with the
// latency and cost details.
func Side(ctx context.Context, c SideConfig) (*report.Table, error) {
	if len(c.Servers) == 0 {
		return nil, fmt.Errorf("no servers")
	}
	if len(c.Rows) == 0 {
		return nil, fmt.Errorf("no commands")
	}
	if c.Rounds <= 0 {
		c.Rounds = 1
	}
	if c.Instances <= 0 {
		c.Instances = 1
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	scen := c.Scenarios
	if len(scen) == 0 {
		scen = []Scenario{{ID: "1"}}
	}
	t := report.NewTable()
	for _, s := range c.Servers {
		t.AddTarget(s.Name)
	}
	pr := newProgress(c, len(scen))
	defer pr.stop()
	for si, sc := range scen {
		insts, err := startAll(ctx, c, t, sc, pr)
		if err != nil {
			return nil, err
		}
		err = runScenario(ctx, c, t, sc, si, insts, pr)
		for _, in := range insts {
			for _, x := range in {
				x.Stop()
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// startAll starts every server for a scenario. In cluster mode a peer
// (not the baseline) that cannot run as a cluster is left out of the
// scenario with a note (its slot is nil) rather than ending the run.
func startAll(ctx context.Context, c SideConfig, t *report.Table, sc Scenario, pr *progress) ([][]Instance, error) {
	var all [][]Instance
	stopAll := func() {
		for _, in := range all {
			for _, x := range in {
				x.Stop()
			}
		}
	}
	for k, s := range c.Servers {
		if c.Cluster > 0 {
			in, err := startCluster(ctx, c, s, sc)
			if err != nil && (k == 0 || ctx.Err() != nil) {
				stopAll()
				return nil, err
			}
			if err != nil {
				first, _, _ := strings.Cut(err.Error(), "\n")
				pr.logf(c.Log, "%s left out of scenario %s: cannot run as a cluster: %v\n", s.Name, sc.ID, err)
				t.Notes = append(t.Notes, fmt.Sprintf("%s left out of scenario %s: cannot run as a cluster: %s", s.Name, sc.ID, first))
				all = append(all, nil)
				continue
			}
			all = append(all, in)
			pr.logf(c.Log, "started %s: a cluster of %d primaries at %s\n", s.Name, len(in), strings.Join(addrsOf(in), ", "))
			continue
		}
		var in []Instance
		for i := 0; i < c.Instances; i++ {
			x, err := startOne(ctx, c, s, sc)
			if err != nil {
				for _, y := range in {
					y.Stop()
				}
				stopAll()
				return nil, err
			}
			in = append(in, x)
		}
		all = append(all, in)
		var addrs []string
		for _, x := range in {
			addrs = append(addrs, x.Address())
		}
		pr.logf(c.Log, "started %s at %s\n", s.Name, strings.Join(addrs, ", "))
	}
	return all, nil
}

func startOne(ctx context.Context, c SideConfig, s peer.Server, sc Scenario) (Instance, error) {
	if s.Path == InProcess {
		if c.Embedded == nil {
			return nil, fmt.Errorf("%s: no in-process server available", s.Name)
		}
		addr, stop, err := c.Embedded()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		return funcInstance{addr, stop}, nil
	}
	p, err := peer.Start(ctx, s, peer.Options{IOThreads: sc.IOThreads, Extra: c.Extra})
	if err != nil {
		return nil, err
	}
	return procInstance{p}, nil
}

func runScenario(ctx context.Context, c SideConfig, t *report.Table, sc Scenario, si int, insts [][]Instance, pr *progress) error {
	ts := t.Scenario(sc.ID, sc.Label)
	for _, row := range c.Rows {
		samples := make([][]sample, len(c.Servers))
		for r := 1; r <= c.Rounds; r++ {
			for i, s := range c.Servers {
				if insts[i] == nil { // left out (startAll)
					pr.done()
					continue
				}
				pr.set(si, sc, s.Name, row.Name, r)
				addrs := make([]string, len(insts[i]))
				for k, x := range insts[i] {
					addrs[k] = x.Address()
				}
				pr.logf(c.Log, "[scenario %s io-threads=%s] %s round %d/%d: %s: %s (~%s left)\n", sc.ID, orDash(sc.Label), row.Name, r, c.Rounds, s.Name,
					strings.Join(CommandLine(row.Cfg, addrs[0]), " "), roundDur(pr.left()))
				if c.Cluster > 0 {
					if err := flushAll(addrs); err != nil {
						return fmt.Errorf("%s: before %s: %w", s.Name, row.Name, err)
					}
				}
				smp, notes, res, err := measure(ctx, row.Cfg, insts[i], addrs)
				if err != nil {
					return fmt.Errorf("%s %s: %w", s.Name, row.Name, err)
				}
				if c.Cluster > 0 {
					if err := flushAll(addrs); err != nil {
						return fmt.Errorf("%s: after %s: %w", s.Name, row.Name, err)
					}
				}
				if c.OnRun != nil {
					c.OnRun(sc.ID, s.Name, row.Name, r, res)
				}
				for _, n := range notes {
					t.Notes = append(t.Notes, fmt.Sprintf("%s %s round %d: %s", s.Name, row.Name, r, n))
				}
				samples[i] = append(samples[i], smp)
				pr.done()
				if ctx.Err() != nil {
					return ctx.Err()
				}
			}
		}
		for i, s := range c.Servers {
			if len(samples[i]) == 0 {
				continue
			}
			ops, d := Medians(samples[i])
			t.Set(ts, row.Name, s.Name, ops)
			t.SetDetail(ts, row.Name, s.Name, d)
		}
	}
	return nil
}

// measure runs one load against a server's instances and reads their
// CPU time and RSS around it; it also returns the run's result summed
// over the instances.
func measure(ctx context.Context, cfg *options.Config, in []Instance, addrs []string) (sample, []string, *stats.Result, error) {
	before := make([]peer.Usage, len(in))
	okAll := true
	for k, x := range in {
		u, ok := x.Sample()
		before[k], okAll = u, okAll && ok
	}
	res, err := loadgen.Run(ctx, cfg, addrs, loadgen.Progress{})
	if err != nil {
		return sample{}, nil, nil, err
	}
	var s sample
	var cpu float64
	for k, x := range in {
		u, ok := x.Sample()
		okAll = okAll && ok
		cpu += (u.CPU - before[k].CPU).Seconds()
		s.rss += u.RSS
	}
	sum := stats.Sum("all", res)
	tot := sum.Totals()
	s.ops = stats.TotalOps(sum)
	if tot.Hist.TotalCount() > 0 {
		s.p50 = float64(tot.Hist.ValueAtPercentile(50)) / 1e6
		s.p99 = float64(tot.Hist.ValueAtPercentile(99)) / 1e6
		s.p999 = float64(tot.Hist.ValueAtPercentile(99.9)) / 1e6
	}
	if okAll && tot.Ops > 0 {
		s.cpuPerOp, s.cpuOK = cpu*1e6/float64(tot.Ops), true
	}
	if cfg.ClusterMode {
		s.cluster = true
		if tot.Hist.TotalCount() > 0 {
			s.avg = tot.Hist.Mean() / 1e6
		}
		if secs := sum.Duration().Seconds(); secs > 0 {
			s.movedSec, s.askSec = float64(tot.Moved)/secs, float64(tot.Ask)/secs
		}
	}
	var notes []string
	if tot.Errors > 0 {
		notes = append(notes, fmt.Sprintf("%d error replies (first: %s)", tot.Errors, sum.FirstError))
	}
	return s, notes, sum, nil
}

// Medians reduces a cell's rounds: the median of each measure taken
// separately (so the p99 is the median round's p99, not a merged one).
func Medians(ss []sample) (float64, report.Detail) {
	pick := func(f func(sample) float64) float64 {
		var v []float64
		for _, s := range ss {
			v = append(v, f(s))
		}
		return Median(v)
	}
	d := report.Detail{
		P50Ms:  pick(func(s sample) float64 { return s.p50 }),
		P99Ms:  pick(func(s sample) float64 { return s.p99 }),
		P999Ms: pick(func(s sample) float64 { return s.p999 }),
		RSSBytes: uint64(pick(func(s sample) float64 {
			return float64(s.rss)
		})),
		Rounds: len(ss),
	}
	var cpu []float64
	for _, s := range ss {
		if s.cpuOK {
			cpu = append(cpu, s.cpuPerOp)
		}
	}
	if len(cpu) == len(ss) {
		d.CPUUsPerOp = Median(cpu)
	}
	if len(ss) > 0 && ss[0].cluster {
		d.AvgMs = pick(func(s sample) float64 { return s.avg })
		moved := pick(func(s sample) float64 { return s.movedSec })
		ask := pick(func(s sample) float64 { return s.askSec })
		d.MovedSec, d.AskSec = &moved, &ask
	}
	return pick(func(s sample) float64 { return s.ops }), d
}

// Median of v (the mean of the two middle values for an even count; 0
// for none). v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// CapIOThreads caps each requested io-threads setting at limit and drops
// repeats, returning the scenarios and a note when anything was capped.
// Labels say what the seed asked for: "1 (seed 6/10/14)".
func CapIOThreads(req []int, limit int) ([]Scenario, string) {
	limit = max(limit, 1)
	var out []Scenario
	var capped []string
	seen := map[int]int{} // effective -> index in out
	for _, n := range req {
		eff := min(n, limit)
		if eff != n {
			capped = append(capped, strconv.Itoa(n))
		}
		if i, ok := seen[eff]; ok {
			if eff != n {
				out[i].Label = addSeed(out[i].Label, n)
			}
			continue
		}
		label := strconv.Itoa(eff)
		if eff != n {
			label = addSeed(label, n)
		}
		seen[eff] = len(out)
		out = append(out, Scenario{ID: strconv.Itoa(len(out) + 1), Label: label, IOThreads: eff})
	}
	note := ""
	if len(capped) > 0 {
		note = fmt.Sprintf("io-threads %s capped at %d (IOThreadsLimit: half this machine's CPUs, since the load generator shares them; the seed's 16-vCPU servers had memtier on another instance); repeats after capping run once", strings.Join(capped, ", "), limit)
	}
	return out, note
}

// IOThreadsLimit is the highest io-threads setting worth running on a
// machine with ncpu CPUs that also runs the load generator: half of them
// (at least 1). Valkey's and Redis's I/O threads busy-poll, so more
// threads than the cores left to the server only add contention.
func IOThreadsLimit(ncpu int) int { return max(ncpu/2, 1) }

// addSeed appends n to a label's "(seed a/b)" part.
func addSeed(label string, n int) string {
	if i := strings.Index(label, " (seed "); i >= 0 {
		return strings.TrimSuffix(label, ")") + "/" + strconv.Itoa(n) + ")"
	}
	return label + " (seed " + strconv.Itoa(n) + ")"
}

// ParseIOThreads reads "6,10,14" (entries already split by the caller).
func ParseIOThreads(vals []string) ([]int, error) {
	var out []int
	for _, v := range vals {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 128 {
			return nil, fmt.Errorf("--io-threads takes integers 1..128, got %q", v)
		}
		out = append(out, n)
	}
	return out, nil
}

// progress is the live status line: which scenario, row, round and
// server is running and roughly how long is left (runs left times the
// test time).
type progress struct {
	mu      sync.Mutex
	out     io.Writer
	total   int
	doneN   int
	per     time.Duration // one run's length; 0: unknown (-n mode)
	nScen   int
	line    string
	started time.Time
	quit    chan struct{}
	wg      sync.WaitGroup
}

func newProgress(c SideConfig, nScen int) *progress {
	p := &progress{out: c.Progress, nScen: nScen, quit: make(chan struct{})}
	p.total = nScen * len(c.Rows) * max(c.Rounds, 1) * len(c.Servers)
	if len(c.Rows) > 0 {
		p.per = c.Rows[0].Cfg.TestTime
	}
	if p.out != nil {
		p.wg.Add(1)
		go p.loop()
	}
	return p
}

func (p *progress) set(si int, sc Scenario, server, row string, round int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	io := ""
	if sc.Label != "" {
		io = " io-threads " + sc.Label
	}
	p.line = fmt.Sprintf("[scenario %d/%d%s] %s round %d: %s (run %d/%d)", si+1, p.nScen, io, row, round, server, p.doneN+1, p.total)
	p.started = time.Now()
}

// logf writes a log line; when the live line is on, it clears it first
// so the log line does not end with the status line's remainder.
func (p *progress) logf(w io.Writer, format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out != nil {
		fmt.Fprint(p.out, "\r\x1b[K")
	}
	fmt.Fprintf(w, format, a...)
}

func (p *progress) done() {
	p.mu.Lock()
	p.doneN++
	p.mu.Unlock()
}

// left is the estimated time to the end: the rest of this run plus the
// runs not started (server restarts between scenarios are not counted).
func (p *progress) left() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leftLocked()
}

func (p *progress) leftLocked() time.Duration {
	if p.per <= 0 {
		return 0
	}
	remaining := time.Duration(p.total-p.doneN) * p.per
	if !p.started.IsZero() && p.doneN < p.total {
		remaining -= min(time.Since(p.started), p.per)
	}
	return max(remaining, 0)
}

func (p *progress) loop() {
	defer p.wg.Done()
	tk := time.NewTicker(time.Second)
	defer tk.Stop()
	for {
		select {
		case <-p.quit:
			fmt.Fprint(p.out, "\r\x1b[K")
			return
		case <-tk.C:
			p.mu.Lock()
			line, left := p.line, p.leftLocked()
			p.mu.Unlock()
			if line == "" {
				continue
			}
			eta := ""
			if p.per > 0 {
				eta = ", " + roundDur(left) + " left"
			}
			fmt.Fprintf(p.out, "\r%s%s\x1b[K", line, eta)
		}
	}
}

func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
}

func roundDur(d time.Duration) string {
	if d <= 0 {
		return "?"
	}
	return d.Round(time.Second).String()
}
