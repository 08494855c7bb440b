package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// runResult is one case on one server in one round.
type runResult struct {
	Case, Kind string
	Round      int
	// Throughput cases.
	OpsSec       float64
	Ops          int64
	P50, P99     float64 // ms
	CPU          float64 // server utime+stime during the load, seconds
	Errors       int64   // total_error_replies growth during the load
	ErrorStats   string  // INFO errorstats when Errors > 0
	ClientErrors int64   // error replies the Go loop saw
	Empty        int64   // XREADGROUP reads that found nothing
	BadAcks      int64   // XACK replies other than 1
	Fill         float64 // seconds spent filling before the load
	Note         string
	// Memory cases.
	Elements              int64
	UsedBefore, UsedAfter int64
	RSSBefore, RSSAfter   int64 // bytes
	LoadSeconds           float64
}

func (r runResult) cpuPerOp() float64 { return per(r.CPU*1e6, float64(r.Ops)) }

// flagged is why the run is kept out of the medians, "" if it is not.
func (r runResult) flagged() string {
	var why []string
	if r.Errors > 0 {
		s := fmt.Sprintf("%d error replies", r.Errors)
		if r.ErrorStats != "" {
			s += " (" + r.ErrorStats + ")"
		}
		why = append(why, s)
	}
	if r.ClientErrors > 0 && r.Errors == 0 {
		why = append(why, fmt.Sprintf("%d error replies seen by the client", r.ClientErrors))
	}
	if r.Empty > 0 {
		why = append(why, fmt.Sprintf("%d empty reads (streams drained: raise -stream-entries)", r.Empty))
	}
	if r.BadAcks > 0 {
		why = append(why, fmt.Sprintf("%d XACK replies other than 1", r.BadAcks))
	}
	return strings.Join(why, "; ")
}

func (r runResult) line() string {
	if isMemory(r.Case) {
		return fmt.Sprintf("round %d  %-10s %-6s %d elements loaded in %.2f s: used_memory %.1f B/elem, RSS %.1f B/elem",
			r.Round, r.Case, r.Kind, r.Elements, r.LoadSeconds, perElem(r.UsedAfter-r.UsedBefore, r.Elements), perElem(r.RSSAfter-r.RSSBefore, r.Elements))
	}
	s := fmt.Sprintf("round %d  %-10s %-6s %9.0f ops/s  p50 %.3f ms  p99 %.3f ms  CPU %.2f us/op  errors %d",
		r.Round, r.Case, r.Kind, r.OpsSec, r.P50, r.P99, r.cpuPerOp(), r.Errors)
	if r.Fill > 0 {
		s += fmt.Sprintf("  (filled in %.1f s", r.Fill)
		if r.Note != "" {
			s += ": " + r.Note
		}
		s += ")"
	}
	if f := r.flagged(); f != "" {
		s += "  FLAGGED: " + f
	}
	return s
}

// memtierArgs is the full memtier command line of a case against port.
func memtierArgs(c *config, name, port, jsonFile string) []string {
	a := []string{"-s", "127.0.0.1", "-p", port, "-t", strconv.Itoa(c.threads), "-c", strconv.Itoa(c.clients),
		"--test-time", strconv.Itoa(c.testTime), "--pipeline", "1", "--distinct-client-seed",
		"--random-data", "--data-size", "16", "--hide-histogram", "--print-percentiles", "50,99", "--json-out-file", jsonFile}
	return append(a, memtierCase(c, name)...)
}

// measure runs load between readings of the server's CPU and
// total_error_replies.
func measure(s *server, res *runResult, load func() error) error {
	e0, err := s.infoInt("stats", "total_error_replies")
	if err != nil {
		return err
	}
	t0, err := s.cpuSeconds()
	if err != nil {
		return err
	}
	loadErr := load()
	t1, err := s.cpuSeconds()
	if err != nil {
		return fmt.Errorf("%s died during the load? %w\n%s", s.Name, err, s.LogTail(2000))
	}
	if s.Exited() {
		return fmt.Errorf("%s died during the load:\n%s", s.Name, s.LogTail(2000))
	}
	res.CPU = t1 - t0
	e1, err := s.infoInt("stats", "total_error_replies")
	if err != nil {
		return err
	}
	if res.Errors = e1 - e0; res.Errors > 0 {
		res.ErrorStats = s.errorStats()
	}
	return loadErr
}

// runMemtier runs a memtier case against s.
func runMemtier(ctx context.Context, c *config, name, tmp string, s *server, res *runResult) error {
	jsonFile := filepath.Join(tmp, "memtier.json")
	logFile := filepath.Join(tmp, "memtier.log")
	os.Remove(jsonFile)
	lf, err := os.Create(logFile)
	if err != nil {
		return err
	}
	defer lf.Close()
	return measure(s, res, func() error {
		mctx, cancel := context.WithTimeout(ctx, time.Duration(c.testTime+120)*time.Second)
		defer cancel()
		cmd := exec.CommandContext(mctx, c.memtier, memtierArgs(c, name, strconv.Itoa(s.Port), jsonFile)...)
		cmd.Stdout, cmd.Stderr = lf, lf
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			out, _ := os.ReadFile(logFile)
			return fmt.Errorf("memtier against %s: %v\n%s", s.Name, err, benchproc.Tail(out, 2000))
		}
		b, err := os.ReadFile(jsonFile)
		if err != nil {
			return fmt.Errorf("memtier wrote no JSON: %w", err)
		}
		if err := parseMemtier(b, res); err != nil {
			return fmt.Errorf("memtier JSON: %w", err)
		}
		return nil
	})
}

// parseMemtier reads the Totals of memtier's --json-out-file.
func parseMemtier(b []byte, res *runResult) error {
	var doc struct {
		All struct {
			Totals *struct {
				OpsSec *float64       `json:"Ops/sec"`
				Count  int64          `json:"Count"`
				Pcts   map[string]any `json:"Percentile Latencies"`
			} `json:"Totals"`
		} `json:"ALL STATS"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	t := doc.All.Totals
	if t == nil || t.OpsSec == nil {
		return fmt.Errorf(`no "ALL STATS" / "Totals" / "Ops/sec"`)
	}
	res.OpsSec, res.Ops = *t.OpsSec, t.Count
	for key, dst := range map[string]*float64{"p50.00": &res.P50, "p99.00": &res.P99} {
		v, ok := t.Pcts[key].(float64)
		if !ok {
			return fmt.Errorf("no %s in Totals \"Percentile Latencies\"", key)
		}
		*dst = v
	}
	return nil
}

// streamID is the id of the one entry an XREADGROUP ... COUNT 1 reply
// carries: [[key, [[id, [field, value]]]]]; ok is false for anything else.
func streamID(v wire.Value) (id string, ok bool) {
	if len(v.Elems) != 1 || len(v.Elems[0].Elems) != 2 {
		return "", false
	}
	entries := v.Elems[0].Elems[1].Elems
	if len(entries) != 1 || len(entries[0].Elems) != 2 || entries[0].Elems[0].Str == "" {
		return "", false
	}
	return entries[0].Elems[0].Str, true
}

// loopWorker is one connection's tally in the Go loop.
type loopWorker struct {
	pairs, empty, errs, badAcks int64
	lat                         []time.Duration
	end                         time.Time
	err                         error
}

// runXReadGroup is the xreadgroup case: conns connections, each reading
// one new entry of a random stream with XREADGROUP and acknowledging it,
// one command in flight at a time, for -time seconds.
func runXReadGroup(ctx context.Context, c *config, s *server, res *runResult) error {
	n := c.conns()
	conns := make([]*wire.Conn, n)
	defer func() {
		for _, cn := range conns {
			if cn != nil {
				cn.Close()
			}
		}
	}()
	for i := range conns {
		cn, err := wire.Dial("tcp", s.Addr, 5*time.Second)
		if err != nil {
			return err
		}
		conns[i] = cn
	}
	ws := make([]loopWorker, n)
	var start time.Time
	err := measure(s, res, func() error {
		start = time.Now()
		deadline := start.Add(time.Duration(c.testTime) * time.Second)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := &ws[i]
				w.err = xreadWorker(ctx, c, conns[i], i, deadline, w)
				w.end = time.Now()
			}()
		}
		wg.Wait()
		for i := range ws {
			if ws[i].err != nil {
				return fmt.Errorf("%s: connection %d: %w", s.Name, i, ws[i].err)
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	var lat []time.Duration
	end := start
	for _, w := range ws {
		res.Ops += w.pairs
		res.Empty += w.empty
		res.ClientErrors += w.errs
		res.BadAcks += w.badAcks
		lat = append(lat, w.lat...)
		if w.end.After(end) {
			end = w.end
		}
	}
	res.OpsSec = per(float64(res.Ops), end.Sub(start).Seconds())
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	if len(lat) > 0 {
		res.P50, res.P99 = ms(pctOf(lat, 50)), ms(pctOf(lat, 99))
	} else {
		res.P50, res.P99 = nan, nan
	}
	return nil
}

// pctOf is the p-th percentile (nearest rank) of sorted xs.
func pctOf[T any](xs []T, p float64) T {
	i := int(float64(len(xs))*p/100+0.9999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

func xreadWorker(ctx context.Context, c *config, cn *wire.Conn, i int, deadline time.Time, w *loopWorker) error {
	rng := rand.New(rand.NewPCG(uint64(i), 42))
	consumer := "c" + strconv.Itoa(i)
	w.lat = make([]time.Duration, 0, 1<<14)
	_ = cn.SetDeadline(deadline.Add(60 * time.Second))
	for ctx.Err() == nil {
		t0 := time.Now()
		if t0.After(deadline) {
			return nil
		}
		key := "stream:" + strconv.Itoa(rng.IntN(c.keys)+1)
		v, err := cn.Do("XREADGROUP", "GROUP", "g", consumer, "COUNT", "1", "STREAMS", key, ">")
		if err != nil {
			return err
		}
		if v.Err() != nil {
			w.errs++
			continue
		}
		if v.Nil {
			w.empty++
			continue
		}
		id, ok := streamID(v)
		if !ok {
			return fmt.Errorf("XREADGROUP %s: unexpected reply %s", key, v.Text())
		}
		a, err := cn.Do("XACK", key, "g", id)
		if err != nil {
			return err
		}
		if a.Err() != nil {
			w.errs++
			continue
		}
		if a.Type != ':' || a.Int != 1 {
			w.badAcks++
		}
		w.lat = append(w.lat, time.Since(t0))
		w.pairs++
	}
	return ctx.Err()
}

// memSample is used_memory and VmRSS (bytes) after a settle and MEMORY
// PURGE.
func memSample(c *config, s *server) (used, rss int64, err error) {
	time.Sleep(c.settle)
	if _, err := s.do("MEMORY", "PURGE"); err != nil {
		return 0, 0, err
	}
	if used, err = s.infoInt("memory", "used_memory"); err != nil {
		return 0, 0, err
	}
	kib, err := s.RSSKiB()
	return used, kib << 10, err
}

// runMemory is a memory case on a fresh server.
func runMemory(ctx context.Context, c *config, name string, s *server, res *runResult) error {
	var err error
	if res.UsedBefore, res.RSSBefore, err = memSample(c, s); err != nil {
		return err
	}
	t0 := time.Now()
	if err := loadMemory(ctx, c, name, s); err != nil {
		return err
	}
	res.LoadSeconds = time.Since(t0).Seconds()
	if res.UsedAfter, res.RSSAfter, err = memSample(c, s); err != nil {
		return err
	}
	if res.Elements, err = countMemory(c, name, s); err != nil {
		return err
	}
	if res.Elements != int64(c.memElements) {
		return fmt.Errorf("%s: %s holds %d elements after adding %d", s.Name, name, res.Elements, c.memElements)
	}
	return nil
}
