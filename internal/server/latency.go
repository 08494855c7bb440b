package server

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The latency monitor (LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR) and the
// per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats),
// modelled on Valkey's latency.c and its use of hdr_histogram.

// latencyTSLen is LATENCY_TS_LEN: samples kept per event.
const latencyTSLen = 160

type latencySample struct {
	time    int64 // unix seconds; 0 means unused
	latency int64 // milliseconds
}

type latencySeries struct {
	samples [latencyTSLen]latencySample
	idx     int
	max     int64
}

// latencyMonitor keeps one time series per event name. Its mutex is a
// leaf lock.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencySeries
}

func (m *latencyMonitor) init() { m.events = make(map[string]*latencySeries) }

// add is latencyAddSample: one sample per second per event, keeping the
// worst of a second.
func (m *latencyMonitor) add(event string, ms int64) {
	now := time.Now().Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	if ms > ts.max {
		ts.max = ms
	}
	prev := (ts.idx + latencyTSLen - 1) % latencyTSLen
	if ts.samples[prev].time == now {
		if ms > ts.samples[prev].latency {
			ts.samples[prev].latency = ms
		}
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencyTSLen
}

// snapshot copies the series of one event (nil if it has none).
func (m *latencyMonitor) snapshot(event string) *latencySeries {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		return nil
	}
	cp := *ts
	return &cp
}

func (m *latencyMonitor) names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.events))
	for k := range m.events {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// reset drops the named events (all when none are named) and returns how
// many existed.
func (m *latencyMonitor) reset(events []string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(events) == 0 {
		n := len(m.events)
		m.events = make(map[string]*latencySeries)
		return n
	}
	n := 0
	for _, ev := range events {
		if _, ok := m.events[ev]; ok {
			delete(m.events, ev)
			n++
		}
	}
	return n
}

// samples returns the used samples oldest first.
func (ts *latencySeries) ordered() []latencySample {
	var out []latencySample
	for j := 0; j < latencyTSLen; j++ {
		s := ts.samples[(ts.idx+j)%latencyTSLen]
		if s.time != 0 {
			out = append(out, s)
		}
	}
	return out
}

// LATENCY LATEST: [event, last sample time, last latency, all-time max]
// per event (Valkey 8.0's four fields; 8.1 added sum and count).
func latencyLatestCommand(c *Client) {
	m := &c.srv.ext().lat
	names := m.names()
	c.w.ArrayLen(len(names))
	for _, n := range names {
		ts := m.snapshot(n)
		last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
		c.w.ArrayLen(4)
		c.w.BulkString(n)
		c.w.Int(last.time)
		c.w.Int(last.latency)
		c.w.Int(ts.max)
	}
}

// LATENCY HISTORY event
func latencyHistoryCommand(c *Client) {
	ts := c.srv.ext().lat.snapshot(string(c.ctx.Argv[2]))
	if ts == nil {
		c.w.ArrayLen(0)
		return
	}
	samples := ts.ordered()
	c.w.ArrayLen(len(samples))
	for _, s := range samples {
		c.w.ArrayLen(2)
		c.w.Int(s.time)
		c.w.Int(s.latency)
	}
}

// LATENCY RESET [event ...]
func latencyResetCommand(c *Client) {
	var events []string
	for _, a := range c.ctx.Argv[2:] {
		events = append(events, string(a))
	}
	c.w.Int(int64(c.srv.ext().lat.reset(events)))
}

// LATENCY GRAPH event: an ASCII sparkline of the event's samples, in the
// layout of Valkey's latencyCommandGenSparkeline.
func latencyGraphCommand(c *Client) {
	event := string(c.ctx.Argv[2])
	ts := c.srv.ext().lat.snapshot(event)
	if ts == nil {
		c.w.Error("ERR No samples available for event '" + cstr(c.ctx.Argv[2]) + "'")
		return
	}
	now := time.Now().Unix()
	var seq sparkSeq
	var lo, hi int64
	for i, s := range ts.ordered() {
		if i == 0 {
			lo, hi = s.latency, s.latency
		}
		lo, hi = min(lo, s.latency), max(hi, s.latency)
		elapsed := now - s.time
		var label string
		switch {
		case elapsed < 60:
			label = fmt.Sprintf("%ds", elapsed)
		case elapsed < 3600:
			label = fmt.Sprintf("%dm", elapsed/60)
		case elapsed < 3600*24:
			label = fmt.Sprintf("%dh", elapsed/3600)
		default:
			label = fmt.Sprintf("%dd", elapsed/(3600*24))
		}
		seq.add(float64(s.latency), label)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, ts.max)
	b.WriteString(strings.Repeat("-", latencyGraphCols))
	b.WriteByte('\n')
	seq.render(&b, latencyGraphCols, 4)
	c.w.Verbatim("txt", b.String())
}

const latencyGraphCols = 80

// sparkSeq ports Valkey's sparkline.c (filled mode, linear scale).
type sparkSeq struct {
	values   []float64
	labels   []string
	min, max float64
	nlabels  int
}

func (q *sparkSeq) add(v float64, label string) {
	if len(q.values) == 0 {
		q.min, q.max = v, v
	} else if v < q.min {
		q.min = v
	} else if v > q.max {
		q.max = v
	}
	q.values = append(q.values, v)
	q.labels = append(q.labels, label)
	if label != "" {
		q.nlabels++
	}
}

func (q *sparkSeq) render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(q.values); j += columns {
		n := min(columns, len(q.values)-j)
		if j != 0 {
			b.WriteByte('\n')
		}
		q.renderRange(b, rows, j, n)
	}
}

func (q *sparkSeq) renderRange(b *strings.Builder, rows, offset, n int) {
	const charset = "_o#" // the filled charset
	const marginTop = 1
	relmax := q.max - q.min
	if relmax == 0 {
		relmax = 1
	}
	steps := len(charset) * rows
	chars := make([]byte, n)
	for row := 0; ; row++ {
		loop := false
		for i := range chars {
			chars[i] = ' '
		}
		for j := 0; j < n; j++ {
			v := q.values[j+offset]
			step := int(float64(int((v-q.min)*float64(steps))) / relmax)
			step = max(0, min(step, steps-1))
			if row < rows {
				loop = true
				idx := step - (rows-row-1)*len(charset)
				if idx >= 0 && idx < len(charset) {
					chars[j] = charset[idx]
				} else if idx >= len(charset) {
					chars[j] = '|'
				}
				continue
			}
			if q.nlabels > 0 && row-rows < marginTop {
				loop = true
				break
			}
			label := q.labels[j+offset]
			if k := row - rows - marginTop; k < len(label) {
				loop = true
				chars[j] = label[k]
			}
		}
		if !loop {
			return
		}
		b.Write(chars)
		b.WriteByte('\n')
	}
}

// LATENCY DOCTOR: a short human-readable report (Corvid's own wording).
func latencyDoctorCommand(c *Client) {
	s := c.srv
	m := &s.ext().lat
	names := m.names()
	var b strings.Builder
	th := s.cfg.LatencyMonitorThreshold()
	switch {
	case th == 0 && len(names) == 0:
		b.WriteString("The latency monitor is disabled (latency-monitor-threshold is 0), so there is nothing to analyse.\n")
		b.WriteString("Enable it with CONFIG SET latency-monitor-threshold <milliseconds>.\n")
	case len(names) == 0:
		fmt.Fprintf(&b, "No event reached the %d ms latency threshold so far: nothing to report.\n", th)
	default:
		b.WriteString("Latency events recorded so far:\n\n")
		for i, n := range names {
			ts := m.snapshot(n)
			samples := ts.ordered()
			var sum int64
			for _, smp := range samples {
				sum += smp.latency
			}
			avg := int64(0)
			if len(samples) > 0 {
				avg = sum / int64(len(samples))
			}
			fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, worst %dms).\n", i+1, n, len(samples), avg, ts.max)
		}
		b.WriteString("\nCommand spikes usually mean slow commands (see SLOWLOG GET) or an overloaded host.\n")
	}
	c.w.Verbatim("txt", b.String())
}

// LATENCY HISTOGRAM [command ...]: per command, the call count and the
// cumulative distribution over power-of-two microsecond buckets, as
// Valkey's fillCommandCDF renders its hdr_histogram.
func latencyHistogramCommand(c *Client) {
	s := c.srv
	e := s.ext()
	type entry struct {
		name string
		h    *latencyHist
	}
	var out []entry
	addCmd := func(cm *cmd) {
		if h := e.hists[cm].merged(); h != nil {
			out = append(out, entry{cm.name, h})
		}
	}
	args := c.ctx.Argv[2:]
	if len(args) == 0 {
		for _, cm := range s.sortedCommands() {
			addCmd(cm)
		}
	} else {
		for _, a := range args {
			cm := s.lookupFullName(a)
			if cm == nil {
				continue
			}
			addCmd(cm)
			for _, sub := range sortedSubs(cm) {
				addCmd(sub)
			}
		}
	}
	w := c.w
	w.MapLen(len(out))
	for _, en := range out {
		w.BulkString(en.name)
		en.h.writeCDF(w)
	}
}

var latencyHelp = []string{
	"DOCTOR",
	"    Report on the latency events recorded so far.",
	"GRAPH <event>",
	"    Draw an ASCII graph of the samples of <event>.",
	"HISTOGRAM [<command> ...]",
	"    Reply with the latency distribution of the given commands (default: all).",
	"HISTORY <event>",
	"    Reply with the [time, latency] samples of <event>.",
	"LATEST",
	"    Reply with the latest sample and the maximum of every event.",
	"RESET [<event> ...]",
	"    Forget the samples of the given events (default: all).",
}

// LATENCY HELP
func latencyHelpCommand(c *Client) { c.writeHelp("LATENCY", latencyHelp) }

// latencyHist is a port of the hdr_histogram Valkey keeps per command
// (lowest 1 ns, highest 1 s, 2 significant digits): values are bucketed by
// powers of two, each split into 128 linear sub-buckets, so the relative
// error stays below 1%. Counts are atomics: recording never locks.
type latencyHist struct {
	counts [histCountsLen]atomic.Int64
}

const (
	histSubBucketCount     = 256 // 2 significant digits -> 200 -> next power of two
	histSubBucketHalfMag   = 7
	histSubBucketHalfCount = 128
	histSubBucketMask      = histSubBucketCount - 1
	histBucketCount        = 23 // enough for 1e9 ns
	histCountsLen          = (histBucketCount + 1) * histSubBucketHalfCount
	histMaxValue           = 1_000_000_000 // LATENCY_HISTOGRAM_MAX_VALUE
)

func newLatencyHist() *latencyHist { return &latencyHist{} }

func histBucketIndex(v int64) int {
	pow2ceiling := 64 - bits.LeadingZeros64(uint64(v)|histSubBucketMask)
	return pow2ceiling - (histSubBucketHalfMag + 1)
}

func histCountsIndex(v int64) int {
	b := histBucketIndex(v)
	sub := int(v >> uint(b))
	return (b+1)<<histSubBucketHalfMag + sub - histSubBucketHalfCount
}

func histValueAtIndex(i int) int64 {
	b := i>>histSubBucketHalfMag - 1
	sub := i&(histSubBucketHalfCount-1) + histSubBucketHalfCount
	if b < 0 {
		sub -= histSubBucketHalfCount
		b = 0
	}
	return int64(sub) << uint(b)
}

// histHighestEquivalent is the largest value sharing v's bucket.
func histHighestEquivalent(v int64) int64 {
	b := histBucketIndex(v)
	sub := int(v >> uint(b))
	lowest := int64(sub) << uint(b)
	adjusted := b
	if sub >= histSubBucketCount {
		adjusted++
	}
	return lowest + int64(1)<<uint(adjusted) - 1
}

// record adds one duration in nanoseconds, clamped to [1 ns, 1 s] as
// Valkey's updateCommandLatencyHistogram does.
func (h *latencyHist) record(ns int64) {
	ns = max(1, min(ns, histMaxValue))
	h.counts[histCountsIndex(ns)].Add(1) // the total is summed on read
}

// valueAtPercentile is hdr_value_at_percentile, in nanoseconds.
func (h *latencyHist) valueAtPercentile(p float64) int64 {
	p = math.Min(p, 100)
	var total int64
	for i := range h.counts {
		total += h.counts[i].Load()
	}
	want := int64(p/100*float64(total) + 0.5)
	want = max(want, 1)
	var run int64
	for i := range h.counts {
		run += h.counts[i].Load()
		if run >= want {
			return histHighestEquivalent(histValueAtIndex(i))
		}
	}
	return 0
}

// writeCDF writes {calls, histogram_usec: {bucket: cumulative count}} with
// the buckets of hdr's logarithmic iterator from 1024 ns, base 2; a bucket
// is only listed when its cumulative count grew.
func (h *latencyHist) writeCDF(w interface {
	MapLen(int)
	BulkString(string)
	Int(int64)
}) {
	var counts [histCountsLen]int64
	var total int64
	for i := range h.counts {
		counts[i] = h.counts[i].Load()
		total += counts[i]
	}
	type point struct{ usec, cum int64 }
	var pts []point
	var cum, prev int64
	i := 0
	last := histCountsLen - 1
	for level := int64(1024); ; level *= 2 {
		// Past the last bucket hdr's iterator reports the last one.
		stop := last
		if level <= histValueAtIndex(last) {
			stop = histCountsIndex(level)
		}
		for ; i <= stop; i++ {
			cum += counts[i]
		}
		if cum > prev {
			pts = append(pts, point{histHighestEquivalent(histValueAtIndex(stop)) / 1000, cum})
		}
		prev = cum
		if cum >= total || stop == last {
			break
		}
	}
	w.MapLen(2)
	w.BulkString("calls")
	w.Int(total)
	w.BulkString("histogram_usec")
	w.MapLen(len(pts))
	for _, p := range pts {
		w.Int(p.usec)
		w.Int(p.cum)
	}
}

// resetLatencyHistograms drops every histogram (CONFIG RESETSTAT).
func (e *serverExtras) resetLatencyHistograms() {
	for _, slot := range e.hists {
		for i := range slot.p {
			slot.p[i].Store(nil)
		}
	}
}
