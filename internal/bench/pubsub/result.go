package pubsub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/corvid-kv/corvid/internal/bench/stats"
)

// ErrCheck is what the command line returns when a run's check failed.
var ErrCheck = errors.New("pubsub: delivery check failed")

// Check outcomes.
const (
	CheckOK      = "ok"
	CheckFailed  = "failed"
	CheckPartial = "partial" // subscribers were dropped: order and coverage checked, the totals not
)

// Result is one run, as printed and as JSON.
type Result struct {
	Server      string  `json:"server"`
	Mode        Mode    `json:"mode"`
	Protocol    string  `json:"protocol"`
	Subscribers int     `json:"subscribers"`
	Channels    int     `json:"channels"`
	Publishers  int     `json:"publishers"`
	Pipeline    int     `json:"pipeline"`
	DataSize    int     `json:"data_size"`
	TestTime    float64 `json:"test_time_s"`
	MaxLag      int64   `json:"max_lag"`

	Published     uint64  `json:"published"`         // PUBLISH replies read
	PublishSecs   float64 `json:"publish_s"`         // from the start to the last publisher's last reply
	PublishPerSec float64 `json:"publish_ops_sec"`   // Published / PublishSecs
	Receivers     uint64  `json:"publish_receivers"` // sum of the PUBLISH replies

	Delivered       uint64  `json:"delivered"`           // every message of ours the subscribers read
	InWindow        uint64  `json:"delivered_in_window"` // ... by the end of the test time
	Late            uint64  `json:"delivered_late"`      // ... after it (in flight when the publishers stopped)
	DeliveredPerSec float64 `json:"delivered_msgs_sec"`  // InWindow / test time

	LatencySamples uint64  `json:"latency_samples"` // fast subscribers' messages
	P50            float64 `json:"latency_p50_ms"`
	P99            float64 `json:"latency_p99_ms"`
	P999           float64 `json:"latency_p999_ms"`
	Max            float64 `json:"latency_max_ms"`

	Slow        int    `json:"slow_subscribers"`
	Stalled     int    `json:"stalled_subscribers"`
	Dropped     int    `json:"dropped"` // subscribers whose connection ended before the stop
	DroppedBy   [3]int `json:"dropped_fast_slow_stalled"`
	FirstDrop   string `json:"first_drop,omitempty"`
	OutOfOrder  uint64 `json:"out_of_order"`
	FirstOrder  string `json:"first_out_of_order,omitempty"`
	Foreign     uint64 `json:"foreign"`      // messages not ours (another publisher on the server)
	SilentPairs int    `json:"silent_pairs"` // (live subscriber, publisher) pairs without a message

	Check       string  `json:"check"` // ok, failed or partial
	CheckDetail string  `json:"check_detail"`
	ClientCPU   float64 `json:"client_cpu_s"`

	// With --server-pid: the server's CPU from the publishers' start to
	// the last message read, and that over Delivered.
	ServerCPU       float64 `json:"server_cpu_s,omitempty"`
	ServerCPUPerMsg float64 `json:"server_cpu_us_per_msg,omitempty"`
}

// collect sums the connections' counters after every goroutine ended.
func collect(cfg *Config, addr string, subs []*subscriber, pubs []*publisher, groups []*histGroup, pubDur, cpu time.Duration) *Result {
	res := &Result{Server: addr, Mode: cfg.Mode, Protocol: cfg.Protocol, Subscribers: cfg.Subscribers, Channels: cfg.Channels,
		Publishers: cfg.Publishers, Pipeline: cfg.Pipeline, DataSize: cfg.DataSize, TestTime: cfg.TestTime.Seconds(),
		MaxLag: cfg.MaxLag, Slow: cfg.SlowSubscribers, Stalled: cfg.StalledSubscribers, ClientCPU: cpu.Seconds()}
	minPublished := ^uint64(0)
	for _, p := range pubs {
		res.Published += p.published
		res.Receivers += p.receivers
		minPublished = min(minPublished, p.published)
	}
	res.PublishSecs = pubDur.Seconds()
	if res.PublishSecs > 0 {
		res.PublishPerSec = float64(res.Published) / res.PublishSecs
	}
	for _, s := range subs {
		res.Delivered += s.received
		res.InWindow += s.inWindow
		res.Late += s.late
		res.OutOfOrder += s.order.violations
		res.Foreign += s.order.foreign
		if res.FirstOrder == "" && s.order.first != "" {
			res.FirstOrder = fmt.Sprintf("subscriber %d: %s", s.id, s.order.first)
		}
		if s.dropped {
			res.Dropped++
			res.DroppedBy[s.kind]++
			if res.FirstDrop == "" {
				res.FirstDrop = fmt.Sprintf("subscriber %d (%s): %v", s.id, s.kind, s.err)
			}
		} else {
			res.SilentPairs += s.order.silent()
		}
	}
	res.DeliveredPerSec = float64(res.InWindow) / cfg.TestTime.Seconds()
	h := stats.NewHist()
	for _, g := range groups {
		h.Merge(g.h)
	}
	res.LatencySamples = uint64(h.TotalCount())
	if res.LatencySamples > 0 {
		ms := func(h *hdrhistogram.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1e6 }
		res.P50, res.P99, res.P999, res.Max = ms(h, 50), ms(h, 99), ms(h, 99.9), float64(h.Max())/1e6
	}

	// The check. Every publisher that went round all the channels reached
	// every subscriber; with no subscriber dropped, each receiver a PUBLISH
	// reply counted got the message.
	var bad []string
	if res.OutOfOrder > 0 {
		bad = append(bad, fmt.Sprintf("%d messages out of order (first: %s)", res.OutOfOrder, res.FirstOrder))
	}
	if res.SilentPairs > 0 && minPublished >= uint64(cfg.Channels) {
		bad = append(bad, fmt.Sprintf("%d (subscriber, publisher) pairs without a message", res.SilentPairs))
	}
	if res.Dropped == 0 && res.Delivered != res.Receivers {
		bad = append(bad, fmt.Sprintf("delivered %d != PUBLISH receivers %d", res.Delivered, res.Receivers))
	}
	switch {
	case len(bad) > 0:
		res.Check, res.CheckDetail = CheckFailed, strings.Join(bad, "; ")
	case res.Dropped > 0:
		res.Check = CheckPartial
		res.CheckDetail = fmt.Sprintf("%d subscribers dropped (first: %s), so delivered %d of PUBLISH receivers %d is not checked; in order",
			res.Dropped, res.FirstDrop, res.Delivered, res.Receivers)
	default:
		res.Check = CheckOK
		res.CheckDetail = fmt.Sprintf("delivered = PUBLISH receivers = %d; in order; every subscriber heard every publisher", res.Delivered)
	}
	return res
}

// Failed reports whether the check failed.
func (r *Result) Failed() bool { return r.Check == CheckFailed }

// WriteText prints the result for people.
func (r *Result) WriteText(w io.Writer) {
	modeCmd := map[Mode]string{ModeChannel: "SUBSCRIBE/PUBLISH", ModePattern: "PSUBSCRIBE/PUBLISH", ModeSharded: "SSUBSCRIBE/SPUBLISH"}[r.Mode]
	fmt.Fprintf(w, "pubsub against %s: %s, protocol %s\n", r.Server, modeCmd, r.Protocol)
	fmt.Fprintf(w, "  %d subscribers on %d channels, %d publishers (pipeline %d), %d-byte messages, %gs",
		r.Subscribers, r.Channels, r.Publishers, r.Pipeline, r.DataSize, r.TestTime)
	if r.MaxLag > 0 {
		fmt.Fprintf(w, ", max lag %d", r.MaxLag)
	}
	if r.Slow+r.Stalled > 0 {
		fmt.Fprintf(w, "; %d slow, %d stalled", r.Slow, r.Stalled)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-14s %14.0f ops/s    (%d in %.2fs; receivers %d)\n", "PUBLISH", r.PublishPerSec, r.Published, r.PublishSecs, r.Receivers)
	fmt.Fprintf(w, "%-14s %14.0f msgs/s   (%d in the window, %d after it)\n", "Delivered", r.DeliveredPerSec, r.InWindow, r.Late)
	if r.LatencySamples > 0 {
		fmt.Fprintf(w, "%-14s p50 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (%d messages)\n", "Latency ms", r.P50, r.P99, r.P999, r.Max, r.LatencySamples)
	}
	fmt.Fprintf(w, "%-14s %d dropped (fast %d, slow %d, stalled %d)", "Subscribers", r.Dropped, r.DroppedBy[0], r.DroppedBy[1], r.DroppedBy[2])
	if r.Foreign > 0 {
		fmt.Fprintf(w, "; %d foreign messages", r.Foreign)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-14s %s: %s\n", "Check", r.Check, r.CheckDetail)
	fmt.Fprintf(w, "%-14s %.3f s (user+sys)\n", "Client CPU", r.ClientCPU)
	if r.ServerCPU > 0 {
		fmt.Fprintf(w, "%-14s %.3f s (user+sys), %.3f us per delivered message\n", "Server CPU", r.ServerCPU, r.ServerCPUPerMsg)
	}
}

// WriteJSON prints the result as one indented JSON object.
func (r *Result) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
