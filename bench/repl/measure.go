package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// fill writes keys key:0 .. key:n-1 with size random bytes each, pipelined
// over 4 connections; the values are windows of one random block, so no
// value compresses (the RDB carries every byte).
func fill(ctx context.Context, s *server, n, size int) error {
	block := make([]byte, 4<<20+size)
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	for i := range block {
		block[i] = byte(rng.Uint32())
	}
	const conns, batch = 4, 128
	errs := make(chan error, conns)
	for w := range conns {
		go func() {
			errs <- func() error {
				c, err := wire.Dial("tcp", s.Addr, 5*time.Second)
				if err != nil {
					return err
				}
				defer c.Close()
				for lo := w * batch; lo < n; lo += conns * batch {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					hi := min(lo+batch, n)
					for i := lo; i < hi; i++ {
						k := "key:" + strconv.Itoa(i)
						off := (i * 4099) % (len(block) - size)
						c.Out = fmt.Appendf(c.Out, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n", len(k), k, size)
						c.Out = append(append(c.Out, block[off:off+size]...), '\r', '\n')
					}
					_ = c.SetDeadline(time.Now().Add(60 * time.Second))
					if err := c.Flush(); err != nil {
						return err
					}
					for i := lo; i < hi; i++ {
						_, kind, msg, err := c.Next()
						if err != nil {
							return err
						}
						if kind == wire.KindError {
							return fmt.Errorf("SET: %s", msg)
						}
					}
				}
				return nil
			}()
		}()
	}
	var first error
	for range conns {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("%s: filling: %w", s.Name, first)
	}
	got, err := s.do("DBSIZE")
	if err != nil {
		return err
	}
	if got.Int < int64(n) {
		return fmt.Errorf("%s: DBSIZE %d after filling %d keys", s.Name, got.Int, n)
	}
	return nil
}

// syncResult is one full sync.
type syncResult struct {
	Kind       string
	Round      int
	Replica    int // 1: the first replica attached, 2: the second, ...
	Seconds    float64
	LinkUp     float64 // seconds until master_link_status:up
	PrimaryCPU float64 // seconds
	ReplicaCPU float64
	KeysOK     bool // the replica's DBSIZE is the primary's
}

func (r syncResult) line() string {
	ok := "keys ok"
	if !r.KeysOK {
		ok = "DBSIZE DIFFERS"
	}
	return fmt.Sprintf("round %d  %-6s  full sync of replica %d: %7.2f s (link up %.2f s)  CPU primary %.2f s, replica %.2f s  %s",
		r.Round, r.Kind, r.Replica, r.Seconds, r.LinkUp, r.PrimaryCPU, r.ReplicaCPU, ok)
}

// attach makes r a replica of p and times the full sync.
func attach(ctx context.Context, c *config, p, r *server) (syncResult, error) {
	var res syncResult
	pt0, err := p.ticks()
	if err != nil {
		return res, err
	}
	rt0, err := r.ticks()
	if err != nil {
		return res, err
	}
	t0 := time.Now()
	if _, err := r.do("REPLICAOF", "127.0.0.1", strconv.Itoa(p.Port)); err != nil {
		return res, err
	}
	deadline := t0.Add(c.syncTimeout)
	for {
		pOff, err := p.infoInt("replication", "master_repl_offset")
		if err != nil {
			return res, err
		}
		m, err := r.info("replication")
		if err != nil {
			return res, err
		}
		now := time.Now()
		if m["master_link_status"] == "up" {
			if res.LinkUp == 0 {
				res.LinkUp = now.Sub(t0).Seconds()
			}
			if rOff, err := benchproc.InfoInt(m, "slave_repl_offset"); err == nil && rOff >= pOff {
				res.Seconds = now.Sub(t0).Seconds()
				break
			}
		}
		if now.After(deadline) {
			return res, fmt.Errorf("%s: no full sync after %v (link %s)\n%s", r.Name, c.syncTimeout, m["master_link_status"], r.LogTail(2000))
		}
		if p.Exited() || r.Exited() {
			return res, fmt.Errorf("a server died during the full sync:\n%s\n%s", p.LogTail(2000), r.LogTail(2000))
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Valkey's RDB child is counted in the primary's CPU once reaped.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if n, err := p.infoInt("persistence", "rdb_bgsave_in_progress"); err != nil || n == 0 {
			break
		}
	}
	pt1, err := p.ticks()
	if err != nil {
		return res, err
	}
	rt1, err := r.ticks()
	if err != nil {
		return res, err
	}
	res.PrimaryCPU, res.ReplicaCPU = ticksSec(pt1-pt0), ticksSec(rt1-rt0)
	pk, err1 := p.do("DBSIZE")
	rk, err2 := r.do("DBSIZE")
	res.KeysOK = err1 == nil && err2 == nil && pk.Int == rk.Int
	return res, nil
}

// memtierArgs is the seed SET against port (docs/benchmarks.md: the seed
// command line, 128-byte random values, keys 1..500, pipeline 1).
func memtierArgs(c *config, port, jsonFile string) []string {
	return []string{"-s", "127.0.0.1", "-p", port, "-t", strconv.Itoa(c.threads), "-c", strconv.Itoa(c.clients),
		"--test-time", strconv.Itoa(c.testTime), "--distinct-client-seed",
		"--command", "set __key__ __data__", "--command-key-pattern", "R", "--key-prefix", "kv_",
		"--key-minimum", "1", "--key-maximum", "500", "--random-data", "--data-size", "128",
		"--hide-histogram", "--print-percentiles", "50,99", "--json-out-file", jsonFile}
}

// phaseResult is one load phase.
type phaseResult struct {
	Kind       string
	Round      int
	Replicas   int
	OpsSec     float64
	Ops        int64
	P50, P99   float64 // ms
	PrimaryCPU float64 // seconds
	ReplicaCPU float64 // seconds, all replicas
	lag        []lagSample
	visible    []float64 // ms, every (probe, replica)
	Timeouts   int       // probes not visible within 10 s
}

type lagSample struct {
	t   float64 // seconds since the phase began
	lag float64 // bytes
	err float64 // bytes: the sample is within lag +- err
}

func (r phaseResult) cpuPerOp() float64 { return per(r.PrimaryCPU*1e6, float64(r.Ops)) }

func (r phaseResult) replicaCPUPerOp() float64 {
	if r.Replicas == 0 {
		return nan
	}
	return per(r.ReplicaCPU*1e6, float64(r.Ops)*float64(r.Replicas))
}

func (r phaseResult) line() string {
	s := fmt.Sprintf("round %d  %-6s  %d replica(s): %9.0f ops/s  p50 %.3f ms  p99 %.3f ms  primary CPU %.2f us/op",
		r.Round, r.Kind, r.Replicas, r.OpsSec, r.P50, r.P99, r.cpuPerOp())
	if r.Replicas > 0 {
		lags := lagValues(r.lag)
		g := growth(r.lag)
		s += fmt.Sprintf("  replica %.2f us/op  lag p50 %s p99 %s max %s%s", r.replicaCPUPerOp(),
			bytesStr(pct(lags, 50)), bytesStr(pct(lags, 99)), bytesStr(pct(lags, 100)), map[bool]string{true: " GROWS", false: ""}[g.grows])
	}
	vis := sorted(r.visible)
	s += fmt.Sprintf("  visible p50 %.3f ms p99 %.3f ms (%d probes", pct(vis, 50), pct(vis, 99), len(r.visible))
	if r.Timeouts > 0 {
		s += fmt.Sprintf(", %d timed out", r.Timeouts)
	}
	return s + ")"
}

// phase runs the seed SET against p with reps attached, sampling the lag
// and probing visibility meanwhile.
func phase(ctx context.Context, c *config, tmp string, p *server, reps []*server) (phaseResult, error) {
	res := phaseResult{Replicas: len(reps)}
	jsonFile := filepath.Join(tmp, "memtier.json")
	logFile := filepath.Join(tmp, "memtier.log")
	os.Remove(jsonFile)
	lf, err := os.Create(logFile)
	if err != nil {
		return res, err
	}
	defer lf.Close()
	pt0, err := p.ticks()
	if err != nil {
		return res, err
	}
	rt0 := make([]int64, len(reps))
	for i, r := range reps {
		if rt0[i], err = r.ticks(); err != nil {
			return res, err
		}
	}
	mctx, cancel := context.WithTimeout(ctx, time.Duration(c.testTime+120)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(mctx, c.memtier, memtierArgs(c, strconv.Itoa(p.Port), jsonFile)...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return res, err
	}
	sctx, stopSide := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var sampleErr, probeErr error
	wg.Add(2)
	go func() { defer wg.Done(); res.lag, sampleErr = sampleLag(sctx, c, p, reps) }()
	go func() { defer wg.Done(); res.visible, res.Timeouts, probeErr = probe(sctx, c, p, reps) }()
	runErr := cmd.Wait()
	stopSide()
	wg.Wait()
	pt1, err := p.ticks()
	if err != nil {
		return res, err
	}
	for i, r := range reps {
		t, err := r.ticks()
		if err != nil {
			return res, err
		}
		res.ReplicaCPU += ticksSec(t - rt0[i])
	}
	res.PrimaryCPU = ticksSec(pt1 - pt0)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	for _, s := range append([]*server{p}, reps...) {
		if s.Exited() {
			return res, fmt.Errorf("%s died during the load:\n%s", s.Name, s.LogTail(2000))
		}
	}
	if runErr != nil {
		out, _ := os.ReadFile(logFile)
		return res, fmt.Errorf("memtier against %s: %v\n%s", p.Name, runErr, benchproc.Tail(out, 2000))
	}
	if sampleErr != nil {
		return res, fmt.Errorf("lag sampler: %w", sampleErr)
	}
	if probeErr != nil {
		return res, fmt.Errorf("probe: %w", probeErr)
	}
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		return res, fmt.Errorf("memtier wrote no JSON: %w", err)
	}
	if err := parseMemtier(b, &res); err != nil {
		return res, fmt.Errorf("memtier JSON: %w", err)
	}
	return res, nil
}

// parseMemtier reads the Totals of memtier's --json-out-file.
func parseMemtier(b []byte, res *phaseResult) error {
	var doc struct {
		All struct {
			Totals *struct {
				OpsSec *float64       `json:"Ops/sec"`
				Count  int64          `json:"Count"`
				Pcts   map[string]any `json:"Percentile Latencies"` // also "Histogram log format": {...}
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

// sampleLag reads the primary's offset, then each replica's, then the
// primary's again, every lagInterval until ctx ends: one sample per
// replica per tick, the lag from the mean of the two primary readings
// (which bracket the replica's: the sample is exact to within half their
// difference, kept as the sample's err). Its own connections: the control
// ones belong to the caller.
func sampleLag(ctx context.Context, c *config, p *server, reps []*server) ([]lagSample, error) {
	if len(reps) == 0 {
		return nil, nil
	}
	conns := make([]*wire.Conn, 0, len(reps)+1)
	defer func() {
		for _, cn := range conns {
			cn.Close()
		}
	}()
	for _, s := range append([]*server{p}, reps...) {
		cn, err := wire.Dial("tcp", s.Addr, 5*time.Second)
		if err != nil {
			return nil, err
		}
		conns = append(conns, cn)
	}
	offset := func(cn *wire.Conn, field string) (int64, error) {
		_ = cn.SetDeadline(time.Now().Add(10 * time.Second))
		v, err := benchproc.Do(cn, "INFO", "replication")
		if err != nil {
			return 0, err
		}
		return benchproc.InfoInt(benchproc.ParseInfo(v.Str), field)
	}
	var out []lagSample
	rOffs := make([]int64, len(reps))
	t0 := time.Now()
	tick := time.NewTicker(c.lagInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return out, nil
		case <-tick.C:
		}
		t := time.Since(t0).Seconds()
		p1, err := offset(conns[0], "master_repl_offset")
		if err != nil {
			return out, err
		}
		for i, cn := range conns[1:] {
			if rOffs[i], err = offset(cn, "slave_repl_offset"); err != nil {
				return out, err
			}
		}
		p2, err := offset(conns[0], "master_repl_offset")
		if err != nil {
			return out, err
		}
		mid := float64(p1+p2) / 2
		for _, r := range rOffs {
			out = append(out, lagSample{t: t, lag: max(mid-float64(r), 0), err: float64(p2-p1) / 2})
		}
	}
}

// probe SETs replprobe to a fresh value on the primary every
// probeInterval and times until GET returns it on every replica (on the
// primary itself with no replica).
func probe(ctx context.Context, c *config, p *server, reps []*server) (visible []float64, timeouts int, err error) {
	targets := reps
	if len(targets) == 0 {
		targets = []*server{p}
	}
	pc, err := wire.Dial("tcp", p.Addr, 5*time.Second)
	if err != nil {
		return nil, 0, err
	}
	defer pc.Close()
	tcs := make([]*wire.Conn, len(targets))
	for i, s := range targets {
		if tcs[i], err = wire.Dial("tcp", s.Addr, 5*time.Second); err != nil {
			return nil, 0, err
		}
		defer tcs[i].Close()
	}
	tick := time.NewTicker(c.probeInterval)
	defer tick.Stop()
	seen := make([]bool, len(targets))
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return visible, timeouts, nil
		case <-tick.C:
		}
		val := strconv.Itoa(n) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		t0 := time.Now()
		_ = pc.SetDeadline(t0.Add(10 * time.Second))
		if _, err := benchproc.Do(pc, "SET", "replprobe", val); err != nil {
			return visible, timeouts, err
		}
		clear(seen)
		left := len(targets)
		for left > 0 {
			for i, cn := range tcs {
				if seen[i] {
					continue
				}
				_ = cn.SetDeadline(time.Now().Add(10 * time.Second))
				v, err := benchproc.Do(cn, "GET", "replprobe")
				if err != nil {
					return visible, timeouts, err
				}
				if !v.Nil && v.Str == val {
					seen[i] = true
					left--
					visible = append(visible, float64(time.Since(t0))/float64(time.Millisecond))
				}
			}
			if left == 0 {
				break
			}
			if time.Since(t0) > 10*time.Second {
				timeouts += left
				break
			}
			if ctx.Err() != nil {
				return visible, timeouts, nil // the load ended: this probe does not count
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
}
