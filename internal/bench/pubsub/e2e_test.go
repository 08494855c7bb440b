package pubsub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/internal/server"
)

// hangTimeout bounds waits that only a hang reaches.
const hangTimeout = 30 * time.Second

// Runs against an in-process corvid-server: every message a PUBLISH reply
// counted arrives, in order, at every subscriber, in each mode and
// protocol, and with subscribers that read slowly or only at the end.
func TestRunAgainstCorvid(t *testing.T) {
	addr, stop, err := server.StartEmbedded()
	if err != nil {
		t.Fatalf("embedded corvid-server: %v", err)
	}
	t.Cleanup(stop)
	cases := []struct {
		name string
		args string
	}{
		{"channel", "--subscribers 6 --channels 2 --publishers 2 --pipeline 4 --test-time 1 --server-pid " + strconv.Itoa(os.Getpid())},
		{"pattern resp3", "--subscribers 3 --channels 5 --publishers 2 --pipeline 2 --test-time 500ms --mode pattern -P resp3"},
		{"sharded", "--subscribers 4 --channels 4 --publishers 1 --test-time 500ms --mode sharded"},
		{"max lag", "--subscribers 4 --channels 1 --publishers 2 --pipeline 8 --test-time 500ms --max-lag 64"},
		{"slow and stalled", "--subscribers 4 --slow-subscribers 1 --stalled-subscribers 1 --slow-read-rate 100000 --test-time 500ms -d 64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse(append(fields(tc.args), "-s", addr))
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			start := time.Now()
			res, err := Run(context.Background(), cfg, addr, &log)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			var text bytes.Buffer
			res.WriteText(&text)
			t.Logf("%s in %s\n%s", tc.name, time.Since(start).Round(time.Millisecond), text.String())
			if res.Check != CheckOK || res.Dropped != 0 || res.OutOfOrder != 0 || res.SilentPairs != 0 {
				t.Fatalf("check %s: %s", res.Check, res.CheckDetail)
			}
			if res.Published == 0 || res.Delivered == 0 || res.Delivered != res.Receivers || res.InWindow+res.Late != res.Delivered {
				t.Fatalf("published %d, receivers %d, delivered %d (%d + %d)", res.Published, res.Receivers, res.Delivered, res.InWindow, res.Late)
			}
			fast := cfg.Subscribers - cfg.SlowSubscribers - cfg.StalledSubscribers
			if res.LatencySamples == 0 || res.P50 <= 0 || res.P99 < res.P50 || (fast == cfg.Subscribers && res.LatencySamples != res.Delivered) {
				t.Fatalf("latency: %d samples, p50 %v p99 %v", res.LatencySamples, res.P50, res.P99)
			}
			if cfg.ServerPID > 0 && (res.ServerCPU <= 0 || res.ServerCPUPerMsg <= 0) {
				t.Fatalf("server CPU %v s, %v us/msg", res.ServerCPU, res.ServerCPUPerMsg)
			}
			var js bytes.Buffer
			if err := res.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			var back Result
			if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Delivered != res.Delivered || back.Check != CheckOK {
				t.Fatalf("JSON: %v\n%s", err, js.String())
			}
		})
	}
}

// A subscriber the server closes is counted as dropped, and the totals are
// then not checked (partial), but the run still reports.
func TestDroppedSubscriber(t *testing.T) {
	addr, stop, err := server.StartEmbedded()
	if err != nil {
		t.Fatalf("embedded corvid-server: %v", err)
	}
	t.Cleanup(stop)
	cfg, err := Parse(fields("--subscribers 3 --publishers 1 --test-time 2"))
	if err != nil {
		t.Fatal(err)
	}
	// Once the three are subscribed, kill them from a control connection.
	killed := make(chan error, 1)
	go func() {
		c, err := wire.Dial("tcp", addr, hangTimeout)
		if err != nil {
			killed <- err
			return
		}
		defer c.Close()
		for deadline := time.Now().Add(hangTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			v, err := c.Do("PUBSUB", "NUMSUB", cfg.Prefix+"0")
			if err != nil {
				killed <- err
				return
			}
			if len(v.Elems) == 2 && v.Elems[1].Int == 3 {
				v, err = c.Do("CLIENT", "KILL", "TYPE", "pubsub")
				if err == nil && v.Int != 3 {
					err = fmt.Errorf("CLIENT KILL killed %s", v.Text())
				}
				killed <- err
				return
			}
		}
		killed <- errors.New("the subscribers never subscribed")
	}()
	res, err := Run(context.Background(), cfg, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-killed; err != nil {
		t.Fatal(err)
	}
	if res.Dropped != 3 || res.Check != CheckPartial || res.Failed() {
		t.Fatalf("dropped %d, check %s: %s", res.Dropped, res.Check, res.CheckDetail)
	}
}

func fields(s string) []string {
	var out []string
	for _, f := range bytes.Fields([]byte(s)) {
		out = append(out, string(f))
	}
	return out
}
