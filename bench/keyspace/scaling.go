package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// scaleRow is one corvid-bench run of the keyspace sweep.
type scaleRow struct {
	Server, Command string
	Round           int     // 1, 2, ...; 0 for a median of several rounds
	Runs            int     // rounds behind a median row
	Size            int64   // the N asked for
	Keys            int64   // DBSIZE just before the run
	FillMethod      string  // "populate" or "pipelined"
	FillSecs        float64 // time to fill the strings (ZADD: the sets)
	Res             benchResult
	CPUUsPerOp      float64 // server utime+stime per operation, microseconds
	RSSKiB          int64   // server RSS after the run
	StartRSSKiB     int64   // RSS of the fresh server before the fill
	FilledRSSKiB    int64   // RSS after the fills, before the load
	Rel             float64 // OpsSec / OpsSec of the smallest size (same server, command)
	CPURel          float64 // CPUUsPerOp / that of the smallest size
	Cmdline         string
}

type sweepConfig struct {
	Sizes    []int64
	Commands []string
	Kinds    []serverKind
	Load     load
	Batch    int
	Rounds   int
	Populate bool
	ZFill    bool
	BenchBin string
	Dir      string
	Log      io.Writer
}

// sweep runs every round × size × server × command, a fresh server per
// size and server, the servers in reverse order on even rounds. It returns
// every run and, per server, command and size, the run of median
// throughput (the lower middle one for an even number of rounds), with Rel
// set.
//
// A size whose RSS would not fit in MemAvailable (with 15% to spare) is
// skipped with a note. The estimate scales the filled server's RSS at the
// previous size linearly with the keys, and adds what the load itself
// added there (the growing ZADD, say), which depends on the run's length,
// not on the keys.
func sweep(ctx context.Context, c sweepConfig) (runs, summary []scaleRow, notes []string, err error) {
	last := map[string]rssSeen{}
	for round := 1; round <= max(c.Rounds, 1); round++ {
		kinds := c.Kinds
		if round%2 == 0 {
			kinds = slices.Clone(kinds)
			slices.Reverse(kinds)
		}
		for _, n := range c.Sizes {
			for _, k := range kinds {
				if p, ok := last[k.Name]; ok && p.n < n {
					need := p.need(n)
					if avail := memAvailableKiB(); avail > 0 && !fits(need, avail) {
						note := fmt.Sprintf("skipped %s at %s keys: needs about %.1f GiB RSS (from %s keys), MemAvailable is %.1f GiB",
							k.Name, sizeLabel(n), float64(need)/(1<<20), sizeLabel(p.n), float64(avail)/(1<<20))
						fmt.Fprintln(c.Log, note)
						notes = append(notes, note)
						continue
					}
				}
				r, err := sweepOne(ctx, c, k, n, round)
				if p, ok := last[k.Name]; !ok || n >= p.n {
					if s, ok := seenRSS(n, r); ok {
						last[k.Name] = s
					}
				}
				for i := range r {
					r[i].Round = round
				}
				runs = append(runs, r...)
				if err != nil {
					err = fmt.Errorf("round %d, %s %s keys: %w", round, k.Name, sizeLabel(n), err)
					runs, summary = finish(runs)
					return runs, summary, notes, err
				}
			}
		}
	}
	runs, summary = finish(runs)
	return runs, summary, notes, nil
}

// finish sets Rel of the runs and builds the median summary.
func finish(runs []scaleRow) (_, summary []scaleRow) {
	setRelatives(runs)
	summary = medianRuns(runs)
	setRelatives(summary)
	return runs, summary
}

// rssSeen is what one size's runs of a server tell about the next size's
// memory: the fresh server's RSS, the RSS once filled (it scales with the
// keys) and the most a run's load added to it (it does not).
type rssSeen struct{ n, baseKiB, filledKiB, growKiB int64 }

// seenRSS summarizes the runs at n keys; false when none measured RSS.
func seenRSS(n int64, runs []scaleRow) (rssSeen, bool) {
	s := rssSeen{n: n}
	for _, x := range runs {
		s.filledKiB, s.baseKiB = max(s.filledKiB, x.FilledRSSKiB), max(x.StartRSSKiB, 0)
		s.growKiB = max(s.growKiB, x.RSSKiB-x.FilledRSSKiB)
	}
	return s, s.filledKiB > 0
}

// need estimates the RSS at n keys.
func (s rssSeen) need(n int64) int64 {
	return estimateKiB(s.baseKiB, s.filledKiB, s.n, n) + s.growKiB
}

// estimateKiB extrapolates an RSS measured at n0 keys to n keys: the
// empty server's baseKiB plus the rest in proportion to the keys.
func estimateKiB(baseKiB, rssKiB, n0, n int64) int64 {
	if n0 <= 0 {
		return 0
	}
	return baseKiB + int64(float64(rssKiB-baseKiB)*float64(n)/float64(n0))
}

// fits says whether need leaves 15% of avail to spare.
func fits(needKiB, availKiB int64) bool { return float64(needKiB) <= 0.85*float64(availKiB) }

// memAvailableKiB is MemAvailable of /proc/meminfo, or -1.
func memAvailableKiB() int64 { return benchproc.MeminfoKiB("MemAvailable") }

// medianRuns keeps, per server, command and size (in first-seen order), the
// run of median ops/sec; Round is 0 when there were several.
func medianRuns(runs []scaleRow) []scaleRow {
	type key struct {
		s, c string
		n    int64
	}
	var order []key
	groups := map[key][]scaleRow{}
	for _, r := range runs {
		k := key{r.Server, r.Command, r.Size}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]scaleRow, 0, len(order))
	for _, k := range order {
		g := slices.Clone(groups[k])
		slices.SortStableFunc(g, func(a, b scaleRow) int { return cmp.Compare(a.Res.OpsSec, b.Res.OpsSec) })
		m := g[(len(g)-1)/2]
		if len(g) > 1 {
			m.Round = 0
		}
		m.Runs = len(g)
		out = append(out, m)
	}
	return out
}

func sweepOne(ctx context.Context, c sweepConfig, k serverKind, n int64, round int) ([]scaleRow, error) {
	s, err := start(k, c.Dir)
	if err != nil {
		return nil, err
	}
	defer s.Stop()
	startRSS := s.rssKiB()
	label := fmt.Sprintf("[%s %s]", k.Name, sizeLabel(n))
	if c.Rounds > 1 {
		label = fmt.Sprintf("[round %d %s %s]", round, k.Name, sizeLabel(n))
	}

	method, secs, err := fillStrings(ctx, s.Addr, n, c.Populate, c.Batch, c.Load.DataSize)
	if err != nil {
		return nil, fmt.Errorf("fill: %w", err)
	}
	keys := dbsize(s.Addr)
	fmt.Fprintf(c.Log, "%s filled %d strings (%s, %.1f s), dbsize %d, rss %d MiB\n", label, n, method, secs, keys, s.rssKiB()/1024)
	if keys != n {
		return nil, fmt.Errorf("dbsize %d after filling %d keys", keys, n)
	}

	var rows []scaleRow
	for _, cmd := range c.Commands {
		row := scaleRow{Server: k.Name, Command: cmd, Size: n, FillMethod: method, FillSecs: secs, StartRSSKiB: startRSS}
		if cmd == "ZADD" && c.ZFill {
			st, err := pipeline(ctx, s.Addr, pipeSpec{From: 1, To: n, Batch: c.Batch, Gen: zaddCmd(fillValue(c.Load.DataSize))})
			if err != nil {
				return rows, fmt.Errorf("zset fill: %w", err)
			}
			if st.Errors > 0 {
				return rows, fmt.Errorf("zset fill: %d error replies, first %s", st.Errors, st.FirstErr)
			}
			row.FillMethod, row.FillSecs = "pipelined", st.Elapsed.Seconds()
			fmt.Fprintf(c.Log, "%s filled %d sorted sets (pipelined, %.1f s), rss %d MiB\n", label, n, row.FillSecs, s.rssKiB()/1024)
		}
		row.Keys = dbsize(s.Addr)
		row.FilledRSSKiB = s.rssKiB()
		name := fmt.Sprintf("%s-%s-%d-r%d", k.Name, cmd, n, round)
		jp := jsonPathFor(c.Dir, name)
		args := benchArgs(c.Load, cmd, n, "127.0.0.1", s.Port, jp)
		row.Cmdline = benchDisplay(args)
		cpu0 := s.cpu()
		res, err := runBench(ctx, c.BenchBin, args, jp, filepath.Join(c.Dir, "bench.log"))
		cpu1 := s.cpu()
		if err != nil {
			return rows, err
		}
		row.Res = res
		if res.Count > 0 && cpu0 >= 0 && cpu1 >= cpu0 {
			row.CPUUsPerOp = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(res.Count)
		}
		row.RSSKiB = s.rssKiB()
		fmt.Fprintf(c.Log, "%s %-4s %9.0f ops/s  p50 %.3f  p99 %.3f  p99.9 %.3f ms  cpu %.1f us/op%s\n",
			label, cmd, res.OpsSec, res.P50, res.P99, res.P999, row.CPUUsPerOp, hitNote(res))
		rows = append(rows, row)
	}
	return rows, nil
}

func hitNote(r benchResult) string {
	if !r.HasHits {
		return ""
	}
	return fmt.Sprintf("  hits %.0f%%", 100*r.HitsSec/max(r.HitsSec+r.MissesSec, 1e-9))
}

// fillStrings makes key:1..key:n exist, by DEBUG POPULATE when allowed
// and accepted, else by pipelined SETs.
func fillStrings(ctx context.Context, addr string, n int64, populate bool, batch, size int) (string, float64, error) {
	t0 := time.Now()
	if populate {
		ok, err := tryPopulate(addr, n, size)
		if err != nil {
			return "", 0, err
		}
		if ok {
			return "populate", time.Since(t0).Seconds(), nil
		}
	}
	st, err := pipeline(ctx, addr, pipeSpec{From: 1, To: n, Batch: batch, Gen: setCmd(fillValue(size))})
	if err != nil {
		return "", 0, err
	}
	if st.Errors > 0 {
		return "", 0, fmt.Errorf("%d error replies, first %s", st.Errors, st.FirstErr)
	}
	return "pipelined", time.Since(t0).Seconds(), nil
}

// dbsize is DBSIZE, or -1 when it cannot be read.
func dbsize(addr string) int64 {
	c, err := dial(addr)
	if err != nil {
		return -1
	}
	defer c.Close()
	n, err := benchproc.DoInt(c, "DBSIZE")
	if err != nil {
		return -1
	}
	return n
}

// setRelatives fills Rel and CPURel: each row's ops/sec (CPU per op) over
// that of the smallest size measured for the same server, command and
// round.
func setRelatives(rows []scaleRow) {
	type key struct {
		s, c  string
		round int
	}
	base := map[key]scaleRow{}
	for _, r := range rows {
		k := key{r.Server, r.Command, r.Round}
		if b, ok := base[k]; !ok || r.Size < b.Size {
			base[k] = r
		}
	}
	for i := range rows {
		b := base[key{rows[i].Server, rows[i].Command, rows[i].Round}]
		if b.Res.OpsSec > 0 {
			rows[i].Rel = rows[i].Res.OpsSec / b.Res.OpsSec
		}
		if b.CPUUsPerOp > 0 {
			rows[i].CPURel = rows[i].CPUUsPerOp / b.CPUUsPerOp
		}
	}
}

// verdict is the flatness check of one server and command.
type verdict struct {
	Server, Command string
	Min, Max        float64 // throughput ratios
	CPUMin, CPUMax  float64 // CPU-per-op ratios
	Pass            bool
	Sizes           int
}

// flatness says, per server and command (in first-seen order), whether
// every ratio lies within [1-tol, 1+tol].
func flatness(rows []scaleRow, tol float64) []verdict {
	var out []verdict
	idx := map[[2]string]int{}
	for _, r := range rows {
		k := [2]string{r.Server, r.Command}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, verdict{Server: r.Server, Command: r.Command, Min: r.Rel, Max: r.Rel, CPUMin: r.CPURel, CPUMax: r.CPURel})
		}
		v := &out[i]
		v.Min, v.Max = min(v.Min, r.Rel), max(v.Max, r.Rel)
		v.CPUMin, v.CPUMax = min(v.CPUMin, r.CPURel), max(v.CPUMax, r.CPURel)
		v.Sizes++
	}
	for i := range out {
		out[i].Pass = out[i].Min >= 1-tol-1e-9 && out[i].Max <= 1+tol+1e-9
	}
	return out
}
