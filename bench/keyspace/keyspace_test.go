package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

func TestLookupInt(t *testing.T) {
	// MEMORY STATS as RESP2 sends it: a flat array of names and values.
	v, _, err := wire.Parse([]byte("*8\r\n+peak.allocated\r\n:10\r\n+db.0\r\n*2\r\n+overhead.hashtable.main\r\n:3\r\n" +
		"+overhead.db.hashtable.lut\r\n:4096\r\n+dataset.percentage\r\n$4\r\n12.5\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := lookupInt(v, "overhead.db.hashtable.lut"); !ok || n != 4096 {
		t.Fatalf("lut = %d, %v", n, ok)
	}
	if _, ok := lookupInt(v, "db.dict.rehashing.count"); ok {
		t.Fatal("absent key found")
	}
	if _, ok := lookupInt(v, "dataset.percentage"); ok {
		t.Fatal("non-integer value found")
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "1e3": 1000, "10^7": 10_000_000, "1_000_000": 1e6, " 1e7 ": 1e7, "2^20": 1 << 20} {
		got, err := parseCount(in)
		if err != nil || got != want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "1.5", "abc", "1e20", "10^x"} {
		if _, err := parseCount(in); err == nil {
			t.Errorf("parseCount(%q): no error", in)
		}
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("1e7,1e3, 1e5,1000,,1e4", 1e5)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1000, 10000, 100000}; !reflect.DeepEqual(got, want) {
		t.Fatalf("parseSizes = %v, want %v", got, want)
	}
	if _, err := parseSizes("1e3,x", 0); err == nil {
		t.Fatal("bad size: no error")
	}
}

func TestSizeLabel(t *testing.T) {
	for n, want := range map[int64]string{1000: "10^3", 10_000_000: "10^7", 100: "100", 65536: "65536", 20000: "20000"} {
		if got := sizeLabel(n); got != want {
			t.Errorf("sizeLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseCommands(t *testing.T) {
	got, err := parseCommands("zadd, GET,get,")
	if err != nil || !reflect.DeepEqual(got, []string{"GET", "ZADD"}) {
		t.Fatalf("parseCommands = %v, %v", got, err)
	}
	if _, err := parseCommands("get,lpush"); err == nil {
		t.Fatal("lpush: no error")
	}
}

const benchJSON = `{"ALL STATS": {
 "Gets": {"Count": 1000, "Ops/sec": 500.5, "Hits/sec": 400.5, "Misses/sec": 100, "Errors": 0,
   "Average Latency": 0.5, "Max Latency": 9.5, "Percentile Latencies": {"p50.00": 0.4, "p99.00": 1.5}},
 "Waits": {"Count": 0},
 "Totals": {"Count": 1000, "Ops/sec": 500.5, "Errors": 2, "Average Latency": 0.5, "Max Latency": 9.5,
   "Percentile Latencies": {"p50.00": 0.4, "p99.00": 1.5, "p99.90": 3.25, "p99.99": 8}}},
 "configuration": {"threads": 2}}`

func TestParseBenchJSON(t *testing.T) {
	r, err := parseBenchJSON([]byte(benchJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := benchResult{OpsSec: 500.5, Count: 1000, Errors: 2, AvgMs: 0.5, MaxMs: 9.5, P50: 0.4, P99: 1.5, P999: 3.25, P9999: 8,
		HitsSec: 400.5, MissesSec: 100, HasHits: true}
	if r != want {
		t.Fatalf("parseBenchJSON = %+v\nwant %+v", r, want)
	}
	if _, err := parseBenchJSON([]byte(`{"ALL STATS": {}}`)); err == nil {
		t.Fatal("no Totals: no error")
	}
	if _, err := parseBenchJSON([]byte(`not json`)); err == nil {
		t.Fatal("bad JSON: no error")
	}
}

func TestBenchArgs(t *testing.T) {
	l := load{Threads: 2, Clients: 25, Seconds: 10, DataSize: 128}
	got := benchproc.ShellJoin(benchArgs(l, "ZADD", 1000, "127.0.0.1", 7000, "/t/z.json"))
	want := "-s 127.0.0.1 -p 7000 -t 2 -c 25 --test-time 10 --command 'zadd zkey:__key__ __key__ __data__' --key-prefix '' " +
		"--key-minimum 1 --key-maximum 1000 -d 128 -R --distinct-client-seed --print-percentiles 50,99,99.9,99.99 --hide-histogram --json-out-file /t/z.json"
	if got != want {
		t.Fatalf("ZADD args:\n%s\nwant\n%s", got, want)
	}
	if a := strings.Join(benchArgs(l, "GET", 5, "h", 1, "j"), " "); !strings.Contains(a, "--ratio 0:1 --key-prefix key:") {
		t.Fatalf("GET args: %s", a)
	}
	if a := strings.Join(benchArgs(l, "SET", 5, "h", 1, "j"), " "); !strings.Contains(a, "--ratio 1:0 --key-prefix key:") {
		t.Fatalf("SET args: %s", a)
	}
}

func TestBatching(t *testing.T) {
	if n := numBatches(2001, 1000); n != 3 {
		t.Fatalf("numBatches(2001,1000) = %d", n)
	}
	if n := numBatches(0, 1000); n != 0 {
		t.Fatalf("numBatches(0) = %d", n)
	}
	t0 := time.Unix(100, 0)
	if got := batchDue(t0, 10*time.Second, 5, 10); !got.Equal(t0.Add(5 * time.Second)) {
		t.Fatalf("batchDue = %v", got)
	}
	if got := batchDue(t0, 0, 5, 10); !got.Equal(t0) {
		t.Fatalf("batchDue without span = %v", got)
	}
	from, to := rehashRange(20, 1000)
	if from != 1<<20-1000 || to != 1<<21+1000 {
		t.Fatalf("rehashRange = %d, %d", from, to)
	}
	lead, span := writerSpan(10 * time.Second)
	if lead != time.Second || span != 8*time.Second {
		t.Fatalf("writerSpan(10s) = %v, %v", lead, span)
	}
	lead, span = writerSpan(4 * time.Second)
	if lead != 400*time.Millisecond || span != 3200*time.Millisecond {
		t.Fatalf("writerSpan(4s) = %v, %v", lead, span)
	}
}

func TestCommandGenerators(t *testing.T) {
	set := setCmd([]byte("vv"))
	if got := string(set(nil, 7)); got != "*3\r\n$3\r\nSET\r\n$5\r\nkey:7\r\n$2\r\nvv\r\n" {
		t.Fatalf("setCmd = %q", got)
	}
	z := zaddCmd([]byte("m"))
	if got := string(z(nil, 12)); got != "*4\r\n$4\r\nZADD\r\n$7\r\nzkey:12\r\n$2\r\n12\r\n$1\r\nm\r\n" {
		t.Fatalf("zaddCmd = %q", got)
	}
	var ids []string
	w := wrapIDs(3, func(buf []byte, id int64) []byte { ids = append(ids, string(rune('0'+id))); return buf })
	for id := int64(1); id <= 7; id++ {
		w(nil, id)
	}
	if got := strings.Join(ids, ""); got != "1231231" {
		t.Fatalf("wrapIDs visited %s", got)
	}
	if v := fillValue(128); len(v) != 128 || v[0] != 'a' || v[26] != 'a' {
		t.Fatalf("fillValue = %q", v)
	}
}

func row(server, cmd string, n int64, round int, ops, cpu float64) scaleRow {
	return scaleRow{Server: server, Command: cmd, Size: n, Round: round, Res: benchResult{OpsSec: ops}, CPUUsPerOp: cpu}
}

func TestRelativesAndFlatness(t *testing.T) {
	rows := []scaleRow{
		row("corvid", "GET", 1e3, 1, 100, 10), row("corvid", "GET", 1e5, 1, 85, 11), row("corvid", "GET", 1e7, 1, 120, 10),
		row("redis", "GET", 1e4, 1, 50, 10), row("redis", "GET", 1e7, 1, 39, 14),
	}
	setRelatives(rows)
	if rows[1].Rel != 0.85 || rows[2].Rel != 1.2 || rows[4].Rel != 0.78 || rows[4].CPURel != 1.4 {
		t.Fatalf("relatives: %v %v %v %v", rows[1].Rel, rows[2].Rel, rows[4].Rel, rows[4].CPURel)
	}
	v := flatness(rows, 0.2)
	if len(v) != 2 {
		t.Fatalf("verdicts: %+v", v)
	}
	if !v[0].Pass || v[0].Min != 0.85 || v[0].Max != 1.2 || v[0].Sizes != 3 {
		t.Fatalf("corvid verdict %+v", v[0])
	}
	if v[1].Pass || v[1].Server != "redis" || v[1].CPUMax != 1.4 {
		t.Fatalf("redis verdict %+v", v[1])
	}
}

func TestMedianRuns(t *testing.T) {
	runs := []scaleRow{
		row("corvid", "GET", 1e3, 1, 100, 1), row("corvid", "GET", 1e3, 2, 300, 1), row("corvid", "GET", 1e3, 3, 200, 1),
		row("redis", "GET", 1e3, 1, 50, 1), row("redis", "GET", 1e3, 2, 40, 1),
		row("corvid", "SET", 1e3, 1, 70, 1),
	}
	m := medianRuns(runs)
	if len(m) != 3 {
		t.Fatalf("medianRuns: %d rows", len(m))
	}
	if m[0].Res.OpsSec != 200 || m[0].Round != 0 || m[0].Runs != 3 {
		t.Fatalf("corvid GET median %+v", m[0])
	}
	if m[1].Res.OpsSec != 40 || m[1].Runs != 2 {
		t.Fatalf("redis GET median (lower middle) %+v", m[1])
	}
	if m[2].Res.OpsSec != 70 || m[2].Round != 1 || m[2].Runs != 1 {
		t.Fatalf("single run %+v", m[2])
	}
}

func TestTables(t *testing.T) {
	rows := []scaleRow{
		row("corvid", "GET", 1e3, 1, 1000, 10), row("redis", "GET", 1e3, 1, 500, 10),
		row("corvid", "GET", 1e6, 1, 900, 11), row("redis", "GET", 1e6, 1, 300, 12),
	}
	setRelatives(rows)
	ts := scalingTables(rows, []string{"GET"})
	if len(ts) != 3 {
		t.Fatalf("%d tables", len(ts))
	}
	var txt, md bytes.Buffer
	for _, tb := range ts {
		tb.text(&txt)
		tb.markdown(&md)
	}
	for _, want := range []string{"corvid/redis", "10^6", "0.90", "3.00", "PASS (ops/s 0.90..1.00", "FAIL (ops/s 0.60..1.00"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, txt.String())
		}
	}
	if !strings.Contains(md.String(), "| keys | corvid ops/s |") || !strings.Contains(md.String(), "| :--- | ---: |") {
		t.Errorf("markdown output:\n%s", md.String())
	}

	var cs bytes.Buffer
	if err := writeCSV(&cs, []string{"command: x", "nproc: 2"}, rows, rows, []rehashRow{{Window: "grow"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(cs.String()), "\n")
	if lines[0] != "# command: x" || lines[1] != "# nproc: 2" || !strings.HasPrefix(lines[2], "mode,round,server,") || len(lines) != 3+4+1 {
		t.Fatalf("CSV:\n%s", cs.String())
	}
	for _, l := range lines[3:] {
		if n := strings.Count(l, ","); n != len(csvHeader)-1 {
			t.Fatalf("CSV line with %d commas: %s", n, l)
		}
	}
}

// TestPipeline runs the pipelined writer against a fake server that
// answers +OK to every command and -ERR to the 5th.
func TestPipeline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan []string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r, w := wire.NewConn(c, ""), bufio.NewWriter(c)
		var keys []string
		for {
			v, err := r.ReadValue()
			if err != nil {
				got <- keys
				return
			}
			keys = append(keys, v.Elems[1].Str)
			if len(keys) == 5 {
				w.WriteString("-ERR five\r\n")
			} else {
				w.WriteString("+OK\r\n")
			}
			if !r.Buffered() {
				w.Flush()
			}
		}
	}()
	st, err := pipeline(context.Background(), l.Addr().String(), pipeSpec{From: 3, To: 27, Batch: 4, Gen: setCmd([]byte("v"))})
	if err != nil {
		t.Fatal(err)
	}
	if st.Ops != 25 || st.Errors != 1 || st.FirstErr != "ERR five" {
		t.Fatalf("pipeline stats %+v", st)
	}
	keys := <-got
	if len(keys) != 25 || keys[0] != "key:3" || keys[24] != "key:27" {
		t.Fatalf("server saw %d keys: %v", len(keys), keys)
	}
}

func TestMemoryHelpers(t *testing.T) {
	if got := estimateKiB(0, 1300<<10, 1e6, 1e7); got != 13000<<10 {
		t.Fatalf("estimateKiB = %d", got)
	}
	if got := estimateKiB(10<<10, 20<<10, 1e3, 1e5); got != 1010<<10 {
		t.Fatalf("estimateKiB = %d", got)
	}
	if !fits(85, 100) || fits(86, 100) {
		t.Fatal("fits: wrong 15% margin")
	}
}

// TestSeenRSSScalesTheFillNotTheLoad: the ZADD run at 10^3 keys grows the
// server by ~150 MiB whatever the key count (its sets grow for the
// run's length); the estimate for 10^7 keys scales what the fill took,
// not that growth (which skipped every larger size).
func TestSeenRSSScalesTheFillNotTheLoad(t *testing.T) {
	runs := []scaleRow{{StartRSSKiB: 9 << 10, FilledRSSKiB: 10 << 10, RSSKiB: 165 << 10}}
	s, ok := seenRSS(1e3, runs)
	if !ok {
		t.Fatal("no RSS seen")
	}
	want := int64(9<<10) + 1e4*(1<<10) + 155<<10 // base + fill x 10^4 + the load's growth
	if got := s.need(1e7); got != want {
		t.Fatalf("need(10^7) = %d KiB, want %d", got, want)
	}
	if _, ok := seenRSS(1e3, []scaleRow{{RSSKiB: 5}}); ok {
		t.Fatal("runs without a filled RSS gave an estimate")
	}
}
