package main

import (
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{ratio(3, 2), "1.50"},
		{ratio(1, 0), "n/a"},
		{ratio(1, -1), "n/a"},
		{secs(412 * time.Millisecond), "0.412 s"},
		{secs(56 * time.Second), "56.000 s"},
		{mib(3 << 20), "3.0 MiB"},
		{signedMiB(5 << 19), "+2.5 MiB"},
		{signedMiB(-1 << 20), "-1.0 MiB"},
		{pingText(45*time.Microsecond + 900*time.Nanosecond), "45 µs"},
		{pingText(9999 * time.Microsecond), "9999 µs"},
		{pingText(12345 * time.Microsecond), "12.3 ms"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestClientOutcome(t *testing.T) {
	const want = 100 << 20
	for _, tc := range []struct {
		name  string
		got   int64
		err   error
		alive bool
		text  string
	}{
		{"served", want, nil, true, "kept, read all 100.0 MiB"},
		{"served, then closed", want, nil, false, "read all 100.0 MiB, then closed"},
		{"closed at once", 0, io.EOF, false, "closed after 0.0 MiB of 100.0 MiB"},
		{"reset midway", 30 << 20, syscall.ECONNRESET, false, "closed after 30.0 MiB of 100.0 MiB"},
		{"timed out", 1 << 20, errors.New("i/o timeout"), false, "read 1.0 MiB of 100.0 MiB: i/o timeout"},
	} {
		if got := clientOutcome(tc.got, want, tc.err, tc.alive); got != tc.text {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.text)
		}
	}
}

func TestRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    result
		want string
	}{
		{"multibulk", result{scenario: "large multibulk", server: "corvid", wall: 450 * time.Millisecond, cpu: 280 * time.Millisecond,
			rssBase: 9 << 20, rssGrowth: 33 << 20, idlePing: 60 * time.Microsecond, busyPing: 129 * time.Microsecond, pingSamples: 162, obufDisc: -1},
			"| large multibulk | corvid | 0.450 s | 0.280 s | 9.0 MiB | +33.0 MiB peak | 60 µs | 129 µs (162) | 2.15 |  | – |\n"},
		{"idle", result{scenario: "idle connections", server: "valkey", wall: time.Second, cpu: 80 * time.Millisecond,
			rssBase: 7 << 20, rssGrowth: 5734, perConn: true, idlePing: 100 * time.Microsecond, busyPing: 50 * time.Microsecond, pingSamples: 200, obufDisc: -1},
			"| idle connections | valkey | 1.000 s | 0.080 s | 7.0 MiB | 5.6 KiB/conn | 100 µs | 50 µs (200) | 0.50 |  | – |\n"},
		{"obuf", result{scenario: "slow reader, obuf limit", server: "valkey", cpu: 310 * time.Millisecond, rssBase: 17 << 20, rssGrowth: 69 << 20,
			idlePing: 50 * time.Microsecond, busyPing: 73 * time.Microsecond, pingSamples: 625, client: "closed after 0.0 MiB of 100.0 MiB", closed: true, obufDisc: 1},
			"| slow reader, obuf limit | valkey | 0.000 s | 0.310 s | 17.0 MiB | +69.0 MiB peak | 50 µs | 73 µs (625) | 1.46 | closed after 0.0 MiB of 100.0 MiB | 1 |\n"},
		{"failed", result{scenario: "slow reader", server: "redis", err: "SET: a | b", obufDisc: -1},
			"| slow reader | redis | 0.000 s | 0.000 s | 0.0 MiB | +0.0 MiB peak | 0 µs | 0 µs | n/a | error: SET: a / b | – |\n"},
	} {
		if got := tc.r.row(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	mk := func(sc, srv string, wall, cpu time.Duration, growth int64) result {
		return result{scenario: sc, server: srv, wall: wall, cpu: cpu, rssGrowth: growth, obufDisc: -1}
	}
	closed := mk("obuf", "valkey", time.Millisecond, time.Second, 70<<20)
	closed.closed = true
	failed := mk("slow", "valkey", 0, 0, 0)
	failed.err = "the server exited"
	rs := []result{
		mk("big", "corvid", 2*time.Second, time.Second, 40<<20),
		mk("big", "valkey", time.Second, 2*time.Second, 10<<20),
		mk("big", "redis", time.Second, time.Second, 10<<20),
		mk("slow", "corvid", time.Second, time.Second, 1<<20),
		failed,
		mk("obuf", "corvid", time.Second, 3*time.Second, 35<<20),
		closed,
		mk("idle", "corvid", time.Second, time.Second, 1),
	}
	lines := strings.Split(strings.TrimSuffix(table(rs), "\n"), "\n")
	var ratios []string
	for _, l := range lines {
		if strings.Contains(l, "corvid/valkey") {
			ratios = append(ratios, l)
		}
	}
	want := []string{
		"| big | corvid/valkey | 2.00 | 0.50 | | 4.00 | | | | | |",
		"| obuf | corvid/valkey | n/a | 3.00 | | 0.50 | | | | | |", // a closed client's wall is no drain
	}
	if strings.Join(ratios, "\n") != strings.Join(want, "\n") {
		t.Errorf("ratio rows:\n%s\nwant:\n%s", strings.Join(ratios, "\n"), strings.Join(want, "\n"))
	}
	if len(lines) != 2+len(rs)+len(want) {
		t.Errorf("%d lines, want %d:\n%s", len(lines), 2+len(rs)+len(want), table(rs))
	}
	// Each scenario's ratio row follows its last server.
	if !strings.HasPrefix(lines[2+3], "| big | corvid/valkey") || !strings.HasPrefix(lines[len(lines)-2], "| obuf | corvid/valkey") {
		t.Errorf("ratio rows out of place:\n%s", table(rs))
	}
}

func TestReport(t *testing.T) {
	md := report([]string{"command: `go run ./bench/hostile -n 10`", "machine: x"},
		[]result{{scenario: "large multibulk", server: "corvid", obufDisc: -1}}, []string{"redis-server not found in PATH: skipped"})
	for _, want := range []string{
		"# Hostile clients:",
		"\n- command: `go run ./bench/hostile -n 10`\n- machine: x\n\n| scenario | server |",
		"\n| large multibulk | corvid |",
		"\nnote: redis-server not found in PATH: skipped\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
