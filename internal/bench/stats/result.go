package stats

import (
	"strings"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: nanoseconds, 1µs resolution, up to 100 s.
const (
	HistLowest  = 1000
	HistHighest = 100 * int64(time.Second)
	HistSigFigs = 3
)

// NewHist returns an empty latency histogram.
func NewHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistSigFigs)
}

// Counters are the per-command tallies.
type Counters struct {
	Ops, Hits, Misses, Moved, Ask, Errors, Bytes uint64
}

// Add accumulates o into c.
func (c *Counters) Add(o Counters) {
	c.Ops += o.Ops
	c.Hits += o.Hits
	c.Misses += o.Misses
	c.Moved += o.Moved
	c.Ask += o.Ask
	c.Errors += o.Errors
	c.Bytes += o.Bytes
}

// Cmd is one row's raw data: counters plus latency histogram.
type Cmd struct {
	Name      string // row label, e.g. "Sets"
	TrackHits bool   // GET-like: hits/misses are meaningful
	Counters
	Hist *hdrhistogram.Histogram
}

// Result is one run against one server, or the sum over servers.
type Result struct {
	Server     string
	Start, End time.Time
	Cmds       []*Cmd
	Cluster    bool // show MOVED/ASK columns
	Waits      bool // default SET/GET mode: memtier prints a Waits row
	FirstError string
}

// Duration of the run.
func (r *Result) Duration() time.Duration { return r.End.Sub(r.Start) }

// Totals merges every command into one row. Hits and misses come only
// from the rows that track them (GET-like), as in memtier's Totals row: a
// SET's +OK is not a hit.
func (r *Result) Totals() *Cmd {
	t := &Cmd{Name: "Totals", Hist: NewHist()}
	for _, c := range r.Cmds {
		t.Counters.Add(c.hitCounters())
		t.TrackHits = t.TrackHits || c.TrackHits
		t.Hist.Merge(c.Hist)
	}
	return t
}

// hitCounters are c's counters with hits and misses zeroed when the row
// does not track them.
func (c *Cmd) hitCounters() Counters {
	k := c.Counters
	if !c.TrackHits {
		k.Hits, k.Misses = 0, 0
	}
	return k
}

// Sum adds per-server results of the same run into one; rows are matched by
// name and the run spans the earliest start to the latest end.
func Sum(server string, rs []*Result) *Result {
	out := &Result{Server: server}
	idx := map[string]*Cmd{}
	for _, r := range rs {
		if out.Start.IsZero() || r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.Cluster = out.Cluster || r.Cluster
		out.Waits = out.Waits || r.Waits
		if out.FirstError == "" {
			out.FirstError = r.FirstError
		}
		for _, c := range r.Cmds {
			d := idx[c.Name]
			if d == nil {
				d = &Cmd{Name: c.Name, TrackHits: c.TrackHits, Hist: NewHist()}
				idx[c.Name] = d
				out.Cmds = append(out.Cmds, d)
			}
			d.Counters.Add(c.Counters)
			d.Hist.Merge(c.Hist)
		}
	}
	return out
}

// RowName is memtier's row label for a command name: "SET" -> "Sets".
func RowName(cmd string) string {
	if cmd == "" {
		return "Cmds"
	}
	l := strings.ToLower(cmd)
	return strings.ToUpper(l[:1]) + l[1:] + "s"
}

// TracksHits reports whether a command's nil reply means a miss.
func TracksHits(cmd string) bool {
	switch strings.ToUpper(cmd) {
	case "GET", "GETEX", "GETDEL", "HGET", "LINDEX", "ZSCORE", "HGETALL", "SMEMBERS", "LRANGE", "MGET":
		return true
	}
	return false
}

// CPUTime is the process's user+system CPU time so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
