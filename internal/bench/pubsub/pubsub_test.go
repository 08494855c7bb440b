package pubsub

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

func TestParseDefaults(t *testing.T) {
	c, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
	if c.Addr() != "" || c.Subscribers != 1 || c.Channels != 1 || c.Publishers != 1 || c.Pipeline != 1 ||
		c.DataSize != 128 || c.TestTime != 10*time.Second || c.Mode != ModeChannel || c.MaxLag != 0 {
		t.Fatalf("defaults: %+v", c)
	}
}

// One row per flag: the arguments and the resulting config.
func TestParseEachFlag(t *testing.T) {
	cases := []struct {
		args  string
		check func(c *Config) bool
	}{
		{"-s 10.0.0.1", func(c *Config) bool { return c.Addr() == "10.0.0.1:6379" }},
		{"-s 10.0.0.1 -p 7000", func(c *Config) bool { return c.Addr() == "10.0.0.1:7000" }},
		{"--server=h:7001 -p 7000", func(c *Config) bool { return c.Addr() == "h:7001" }},
		{"-p 7000", func(c *Config) bool { return c.Addr() == "localhost:7000" && c.Network() == "tcp" }},
		{"-S /tmp/s.sock", func(c *Config) bool { return c.Addr() == "/tmp/s.sock" && c.Network() == "unix" }},
		{"-a u:p", func(c *Config) bool { return c.Auth == "u:p" }},
		{"-P resp3", func(c *Config) bool { return c.Protocol == "resp3" }},
		{"--subscribers 1000 --channels 100 --publishers 4", func(c *Config) bool {
			return c.Subscribers == 1000 && c.Channels == 100 && c.Publishers == 4
		}},
		{"--pipeline 16", func(c *Config) bool { return c.Pipeline == 16 }},
		{"-d 24", func(c *Config) bool { return c.DataSize == 24 }},
		{"--data-size=4096", func(c *Config) bool { return c.DataSize == 4096 }},
		{"--test-time 3", func(c *Config) bool { return c.TestTime == 3*time.Second }},
		{"--test-time 750ms", func(c *Config) bool { return c.TestTime == 750*time.Millisecond }},
		{"--mode pattern", func(c *Config) bool { return c.Mode == ModePattern }},
		{"--mode sharded", func(c *Config) bool { return c.Mode == ModeSharded }},
		{"--channel-prefix news.", func(c *Config) bool { return c.Prefix == "news." }},
		{"--max-lag 5000", func(c *Config) bool { return c.MaxLag == 5000 }},
		{"--subscribers 30 --slow-subscribers 10 --slow-read-rate 1000 --stalled-subscribers 5", func(c *Config) bool {
			return c.SlowSubscribers == 10 && c.SlowReadRate == 1000 && c.StalledSubscribers == 5
		}},
		{"--json --json-out-file x.json", func(c *Config) bool { return c.JSON && c.JSONOut == "x.json" }},
		{"--help", func(c *Config) bool { return c.Help }},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			c, err := Parse(strings.Fields(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Fatalf("%+v", c)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ args, msg string }{
		{"--subscribers 0", "subscribers must be an integer in [1,"},
		{"--channels x", "channels must be"},
		{"--publishers -1", "publishers must be"},
		{"--pipeline 2000", "pipeline must be"},
		{"-d 23", "data-size must be at least 24"},
		{"-d 0", "data-size must be greater than zero."},
		{"--test-time 0", "test time must be greater than zero."},
		{"--test-time -1s", "test time must be"},
		{"--mode fanout", "mode must be 'channel', 'pattern' or 'sharded'."},
		{"-P memcache_text", "supported protocols are"},
		{"-p 0", "port must be"},
		{"--subscribers 3 --slow-subscribers 2 --stalled-subscribers 2", "must not exceed subscribers"},
		{"--subscribers 3 --stalled-subscribers 1 --max-lag 10", "max-lag would stall"},
		{"--ratio 1:1", "unrecognized option '--ratio'"},
		{"-p 6380 --tls", "pubsub does not support --tls"},
		{"extra", "unexpected argument 'extra'"},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			_, err := Parse(strings.Fields(tc.args))
			var ue *options.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want a usage error containing %q", err, tc.msg)
			}
		})
	}
}

func TestPayloadRoundTrip(t *testing.T) {
	pad := bytes.Repeat([]byte{'x'}, 104)
	for _, h := range []Header{
		{Publisher: 0, Seq: 1, Sent: 0},
		{Publisher: 7, Seq: 123456789012, Sent: int64(3 * time.Second)},
		{Publisher: 1<<32 - 1, Seq: 1<<64 - 1, Sent: -5},
	} {
		b := AppendPayload([]byte("prefix"), h, pad)
		if len(b) != len("prefix")+HeaderSize+len(pad) {
			t.Fatalf("length %d", len(b))
		}
		got, ok := DecodePayload(b[len("prefix"):])
		if !ok || got != h {
			t.Fatalf("decode %+v, %v; want %+v", got, ok, h)
		}
	}
	if _, ok := DecodePayload(AppendPayload(nil, Header{Seq: 1}, nil)[:HeaderSize-1]); ok {
		t.Fatal("short payload decoded")
	}
	if _, ok := DecodePayload(bytes.Repeat([]byte{'y'}, 64)); ok {
		t.Fatal("a payload without the magic decoded")
	}
}

func TestOrderCheck(t *testing.T) {
	o := newOrderCheck(3)
	for _, step := range []struct {
		pub  uint32
		seq  uint64
		okay bool
	}{
		{0, 1, true}, {0, 5, true}, {1, 2, true}, {0, 9, true}, // gaps are fine
		{0, 9, false}, // a duplicate
		{1, 1, false}, // earlier than the last
		{1, 3, true},
		{3, 1, false}, // no such publisher: foreign
		{2, 0, false}, // sequence numbers start at 1: foreign
	} {
		if got := o.see(Header{Publisher: step.pub, Seq: step.seq}); got != step.okay {
			t.Fatalf("see(%d, %d) = %v", step.pub, step.seq, got)
		}
	}
	if o.violations != 2 || o.foreign != 2 || o.first != "publisher 0: sequence 9 after 9" {
		t.Fatalf("%+v", o)
	}
	if o.silent() != 1 { // publisher 2
		t.Fatalf("silent %d", o.silent())
	}
}

func TestChannelsOf(t *testing.T) {
	cases := []struct {
		i, subs, chans int
		want           []int
	}{
		{0, 1, 1, []int{0}},
		{0, 1, 4, []int{0, 1, 2, 3}},         // one subscriber takes every channel
		{1, 2, 5, []int{1, 3}},               // fewer subscribers than channels
		{7, 100, 1, []int{0}},                // everybody on the one channel
		{57, 1000, 100, []int{57}},           // more subscribers than channels
		{157, 1000, 100, []int{57}},          // ... spread evenly
		{2, 3, 100, nil /* checked below */}, // 100 is not a multiple of 3
	}
	for _, tc := range cases[:len(cases)-1] {
		if got := channelsOf(tc.i, tc.subs, tc.chans); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("channelsOf(%d, %d, %d) = %v, want %v", tc.i, tc.subs, tc.chans, got, tc.want)
		}
	}
	// Every channel has exactly one of 3 subscribers; each has 33 or 34.
	seen := map[int]int{}
	for i := 0; i < 3; i++ {
		chs := channelsOf(i, 3, 100)
		if len(chs) < 33 || len(chs) > 34 {
			t.Fatalf("subscriber %d: %d channels", i, len(chs))
		}
		for _, c := range chs {
			seen[c]++
		}
	}
	for c := 0; c < 100; c++ {
		if seen[c] != 1 {
			t.Fatalf("channel %d has %d subscribers", c, seen[c])
		}
	}
}

func TestKindOf(t *testing.T) {
	c := &Config{Subscribers: 10, SlowSubscribers: 3, StalledSubscribers: 2}
	var got []string
	for i := 0; i < 10; i++ {
		got = append(got, kindOf(i, c).String())
	}
	want := "fast fast fast fast fast slow slow slow stalled stalled"
	if strings.Join(got, " ") != want {
		t.Fatalf("%v", got)
	}
}

func TestParseFrame(t *testing.T) {
	payload := string(AppendPayload(nil, Header{Publisher: 1, Seq: 2, Sent: 3}, []byte("pad")))
	bulk := func(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
	cases := []struct {
		name, in string
		kind     frameKind
		payload  string
	}{
		{"message", "*3\r\n" + bulk("message") + bulk("ch") + bulk(payload), frameMessage, payload},
		{"push message", ">3\r\n" + bulk("message") + bulk("ch") + bulk(payload), frameMessage, payload},
		{"pmessage", "*4\r\n" + bulk("pmessage") + bulk("ch*") + bulk("ch1") + bulk(payload), frameMessage, payload},
		{"smessage", ">3\r\n" + bulk("smessage") + bulk("ch") + bulk(payload), frameMessage, payload},
		{"subscribe", "*3\r\n" + bulk("subscribe") + bulk("ch") + ":1\r\n", frameSubscribed, ""},
		{"psubscribe push", ">3\r\n" + bulk("psubscribe") + bulk("ch") + ":12\r\n", frameSubscribed, ""},
		{"ssubscribe", "*3\r\n" + bulk("ssubscribe") + bulk("ch") + ":1\r\n", frameSubscribed, ""},
		{"pong", "*2\r\n" + bulk("pong") + bulk("") + "", frameOther, ""},
		{"invalidate push", ">2\r\n" + bulk("invalidate") + "*1\r\n" + bulk("k") + "", frameOther, ""},
		{"simple string", "+OK\r\n", frameOther, ""},
		{"error", "-ERR unknown command 'SSUBSCRIBE'\r\n", frameError, "ERR unknown command 'SSUBSCRIBE'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in + "*1\r\n" // a following partial frame is not consumed
			n, f, err := parseFrame([]byte(in))
			if err != nil || n != len(tc.in) || f.kind != tc.kind || string(f.payload) != tc.payload {
				t.Fatalf("n=%d (want %d) kind=%d payload=%q err=%v", n, len(tc.in), f.kind, f.payload, err)
			}
			for cut := 0; cut < len(tc.in); cut++ {
				if n, _, err := parseFrame([]byte(tc.in[:cut])); n != 0 || err != nil {
					t.Fatalf("prefix of %d bytes: n=%d err=%v", cut, n, err)
				}
			}
		})
	}
	for _, bad := range []string{"*x\r\n", "*1\r\n$-5\r\n", "?\r\n"} {
		if _, _, err := parseFrame([]byte(bad)); !errors.Is(err, wire.ErrProtocol) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

func TestParseInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		v    int64
		emsg string
		bad  bool
	}{
		{":0\r\n", 4, 0, "", false},
		{":1000\r\n:1", 7, 1000, "", false},
		{":10", 0, 0, "", false},
		{"-ERR wrong\r\n", 12, 0, "ERR wrong", false},
		{"+OK\r\n", 0, 0, "", true},
		{"\r\n", 0, 0, "", true},
	} {
		n, v, emsg, err := parseInt([]byte(tc.in))
		if n != tc.n || v != tc.v || string(emsg) != tc.emsg || (err != nil) != tc.bad {
			t.Errorf("%q: %d %d %q %v", tc.in, n, v, emsg, err)
		}
	}
}

// The subscriber's per-message work (parse, decode, order, count, latency
// sample) does not allocate.
func TestConsumeDoesNotAllocate(t *testing.T) {
	sh := &shared{cfg: Defaults(), deadline: int64(time.Hour)}
	s := &subscriber{sh: sh, kind: subFast, order: newOrderCheck(1), group: &histGroup{h: stats.NewHist()},
		samples: make([]int64, 0, 256)}
	// AllocsPerRun runs the function once more than asked, to warm up.
	batches := make([][]byte, 101)
	seq := uint64(0)
	for i := range batches {
		for j := 0; j < 32; j++ {
			seq++
			batches[i] = append(batches[i], "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$64\r\n"...)
			batches[i] = AppendPayload(batches[i], Header{Seq: seq, Sent: 1}, make([]byte, 40))
			batches[i] = append(batches[i], "\r\n"...)
		}
	}
	s.buf = make([]byte, 0, 64<<10)
	next := 0
	allocs := testing.AllocsPerRun(100, func() {
		s.buf = append(s.buf[:0], batches[next]...)
		next++
		s.r, s.w = 0, len(s.buf)
		if err := s.consume(1000); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per 32 messages", allocs)
	}
	if s.order.violations != 0 || s.received != seq {
		t.Fatalf("received %d of %d, %d out of order", s.received, seq, s.order.violations)
	}
}

func TestParseProcStat(t *testing.T) {
	// The command name may hold spaces and parentheses; utime and stime
	// are fields 14 and 15 (1234 and 66 ticks of 10 ms).
	line := "4242 (valkey-server (x) y) S 1 4242 4242 0 -1 4194560 1203 0 0 0 1234 66 0 0 20 0 5 0 123 0 0\n"
	got, err := parseProcStat([]byte(line))
	if err != nil || got != 13*time.Second {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := parseProcStat([]byte("4242 (x) S 1 2")); err == nil {
		t.Fatal("short line parsed")
	}
	self, err := procCPU(os.Getpid())
	if err != nil || self < 0 {
		t.Fatalf("own CPU: %v %v", self, err)
	}
}
