package main

import (
	"bytes"
	"strings"
	"testing"
)

func meas(usedB, usedA, rssB, rssA int64, enc string, usage int64) measurement {
	return measurement{before: sample{usedB, rssB}, after: sample{usedA, rssA}, settledRSS: rssA + 1000,
		encoding: enc, usage: usage}
}

func TestRows(t *testing.T) {
	c := meas(1000, 1000+150*1000, 4000, 4000+200*1000, "quicklist", 140*1000)
	r := meas(2000, 2000+160*1000, 8000, 8000+250*1000, "quicklist", 150*1000)
	rows := rowsFor(caseSpec{"list", "RPUSH", "mem:list", 1, 1000, 0}, c, r)
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	x := rows[0]
	if x.used(x.corvid) != 150 || x.used(x.redis) != 160 || x.rss(x.corvid) != 200 || x.rss(x.redis) != 250 {
		t.Errorf("per element: %v %v %v %v", x.used(x.corvid), x.used(x.redis), x.rss(x.corvid), x.rss(x.redis))
	}
	if x.usage(x.corvid) != 140 || x.settled(x.corvid) != 201 {
		t.Errorf("usage %v settled %v", x.usage(x.corvid), x.settled(x.corvid))
	}

	rows = rowsFor(caseSpec{"smallhash", "HSET", "h:", 100, 10, 0}, c, r)
	if len(rows) != 2 || rows[0].div != 100 || rows[1].div != 1000 || rows[0].usageDiv != 1 || rows[1].usageDiv != 10 {
		t.Fatalf("small hash rows: %+v", rows)
	}
	if rows[0].used(c) != 1500 || rows[1].used(c) != 150 || rows[1].usage(c) != 14000 {
		t.Errorf("small hash per hash %v, per field %v, usage per field %v", rows[0].used(c), rows[1].used(c), rows[1].usage(c))
	}
	rows = rowsFor(caseSpec{"smallzset", "ZADD", "z:", 100, 2, 0}, c, r)
	if len(rows) != 2 || rows[0].label != "smallzset (per set)" || rows[1].label != "smallzset (per member)" || rows[1].div != 200 {
		t.Fatalf("small sorted set rows: %+v", rows)
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want string
	}{{150, 160, "0.94"}, {200, 100, "2.00"}, {1, 0, "n/a"}, {1, -5, "n/a"}} {
		if got := ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("ratio(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMarkdownAndCSV(t *testing.T) {
	c := meas(0, 150000, 0, 200000, "quicklist", 140000)
	r := meas(0, 160000, 0, 250000, "quicklist", 150000)
	rows := rowsFor(caseSpec{"list", "RPUSH", "mem:list", 1, 1000, 0}, c, r)
	md := markdown([]string{"command: `x`"}, rows)
	if !strings.Contains(md, "- command: `x`\n") {
		t.Errorf("header missing:\n%s", md)
	}
	line := "| list | 1000 | 150.0 | 160.0 | 0.94 | 200.0 | 250.0 | 0.80 | quicklist / quicklist | 140.0 / 150.0 | 201.0 / 251.0 |"
	if !strings.Contains(md, line) {
		t.Errorf("markdown lacks %q:\n%s", line, md)
	}
	var b bytes.Buffer
	if err := writeCSV(&b, []string{"command: x"}, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || lines[0] != "# command: x" || !strings.HasPrefix(lines[1], "case,elements,") ||
		!strings.HasPrefix(lines[2], "list,1000,0,150000,0,201000,200000,") {
		t.Errorf("csv:\n%s", b.String())
	}
	if n := strings.Count(lines[1], ","); n != strings.Count(lines[2], ",") {
		t.Errorf("csv header has %d commas, row %d", n, strings.Count(lines[2], ","))
	}
}

func TestPeerNames(t *testing.T) {
	defer func(p string) { peer = p }(peer)
	peer = "valkey"
	c := meas(0, 150000, 0, 200000, "listpack", 140000)
	rows := rowsFor(caseSpec{"lphash", "HSET", "lphash:", 100, 10, 16}, c, c)
	if len(rows) != 2 || rows[0].label != "lphash (per hash)" || rows[1].label != "lphash (per field)" {
		t.Fatalf("rows: %+v", rows)
	}
	md := markdown(nil, rows)
	if !strings.Contains(md, "| valkey used B/elem |") || strings.Contains(md, "redis") {
		t.Errorf("markdown does not name the peer valkey:\n%s", md)
	}
	var b bytes.Buffer
	if err := writeCSV(&b, nil, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",valkey_used_before,") || strings.Contains(b.String(), "redis") || strings.Contains(b.String(), "PEER") {
		t.Errorf("csv header does not name the peer valkey:\n%s", b.String())
	}
}
