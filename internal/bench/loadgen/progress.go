package loadgen

import (
	"fmt"
	"time"
)

// progress prints memtier's one-line status every interval, rewriting the
// line with '\r'. A value sent on done asks for the final line; progress
// then replies on done and returns.
func (r *runner) progress(p Progress, lives []live, done chan struct{}) {
	iv := p.Interval
	if iv <= 0 {
		iv = time.Second
	}
	tick := time.NewTicker(iv)
	defer tick.Stop()
	var lastOps, lastBytes, lastLat uint64
	last := r.base
	conns := len(lives)
	line := func(final bool) {
		var ops, bytes, lat uint64
		for i := range lives {
			ops += lives[i].ops.Load()
			bytes += lives[i].bytes.Load()
			lat += lives[i].latNs.Load()
		}
		now := time.Now()
		el := now.Sub(r.base)
		dt := now.Sub(last).Seconds()
		if dt <= 0 {
			dt = 1e-9
		}
		dOps := ops - lastOps
		cur := float64(dOps) / dt
		avg := float64(ops) / max(el.Seconds(), 1e-9)
		curMB := float64(bytes-lastBytes) / dt / (1 << 20)
		avgMB := float64(bytes) / max(el.Seconds(), 1e-9) / (1 << 20)
		curLat, avgLat := 0.0, 0.0
		if dOps > 0 {
			curLat = float64(lat-lastLat) / float64(dOps) / 1e6
		}
		if ops > 0 {
			avgLat = float64(lat) / float64(ops) / 1e6
		}
		pct, eta := 0.0, ""
		switch {
		case r.cfg.TestTime > 0:
			pct = 100 * el.Seconds() / r.cfg.TestTime.Seconds()
			if left := r.cfg.TestTime - el; left > 0 {
				eta = fmt.Sprintf(" ETA %ds", int(left.Seconds()+0.5))
			}
		case r.cfg.Requests > 0:
			total := float64(r.cfg.Requests) * float64(conns)
			pct = 100 * float64(ops) / total
			if avg > 0 && float64(ops) < total {
				eta = fmt.Sprintf(" ETA %ds", int((total-float64(ops))/avg+0.5))
			}
		}
		pct = min(pct, 100)
		fmt.Fprintf(p.Out, "\r[RUN #%d %3.0f%%, %3d secs] %2d threads %4d conns: %11d ops, %8.0f (avg: %8.0f) ops/sec, %.2fMB/sec (avg: %.2fMB/sec), %6.2f (avg: %6.2f) msec latency%s\x1b[K",
			p.Run, pct, int(el.Seconds()), r.cfg.Threads, conns, ops, cur, avg, curMB, avgMB, curLat, avgLat, eta)
		if final {
			fmt.Fprintln(p.Out)
		}
		lastOps, lastBytes, lastLat, last = ops, bytes, lat, now
	}
	for {
		select {
		case <-tick.C:
			line(false)
		case <-done:
			line(true)
			done <- struct{}{}
			return
		}
	}
}
