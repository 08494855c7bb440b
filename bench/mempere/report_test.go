package main

import (
	"bytes"
	"encoding/csv"
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
	v := meas(0, 170*1000, 0, 260*1000, "quicklist", 155*1000)
	rows := rowsFor(caseSpec{"list", "RPUSH", "mem:list", 1, 1000, 0}, c, []measurement{r, v})
	if len(rows) != 1 || len(rows[0].peers) != 2 {
		t.Fatalf("rows: %+v", rows)
	}
	x := rows[0]
	if x.used(x.corvid) != 150 || x.used(x.peers[0]) != 160 || x.rss(x.corvid) != 200 || x.rss(x.peers[0]) != 250 {
		t.Errorf("per element: %v %v %v %v", x.used(x.corvid), x.used(x.peers[0]), x.rss(x.corvid), x.rss(x.peers[0]))
	}
	if x.used(x.peers[1]) != 170 || x.rss(x.peers[1]) != 260 {
		t.Errorf("second peer per element: %v %v", x.used(x.peers[1]), x.rss(x.peers[1]))
	}
	if x.usage(x.corvid) != 140 || x.settled(x.corvid) != 201 {
		t.Errorf("usage %v settled %v", x.usage(x.corvid), x.settled(x.corvid))
	}

	rows = rowsFor(caseSpec{"smallhash", "HSET", "h:", 100, 10, 0}, c, []measurement{r})
	if len(rows) != 2 || rows[0].div != 100 || rows[1].div != 1000 || rows[0].usageDiv != 1 || rows[1].usageDiv != 10 {
		t.Fatalf("small hash rows: %+v", rows)
	}
	if rows[0].used(c) != 1500 || rows[1].used(c) != 150 || rows[1].usage(c) != 14000 {
		t.Errorf("small hash per hash %v, per field %v, usage per field %v", rows[0].used(c), rows[1].used(c), rows[1].usage(c))
	}
	rows = rowsFor(caseSpec{"smallzset", "ZADD", "z:", 100, 2, 0}, c, []measurement{r})
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

// The report's Markdown table and CSV columns, with one peer (the
// table as it was before -peer took a list) and with two.
func TestReportTable(t *testing.T) {
	c := meas(0, 150000, 0, 200000, "quicklist", 140000)
	r := meas(0, 160000, 0, 250000, "quicklist", 150000)
	v := meas(0, 300000, 0, 100000, "listpack", 120000)
	list := caseSpec{"list", "RPUSH", "mem:list", 1, 1000, 0}
	for _, tc := range []struct {
		name   string
		peers  []string
		ms     []measurement
		title  string
		header string
		align  string
		line   string
		note   string
		csv    string // the CSV's column names
		csvRow string
	}{{
		name:   "redis",
		peers:  []string{"redis"},
		ms:     []measurement{r},
		title:  "# Memory per element: corvid-server vs redis-server\n",
		header: "| case | elements | corvid used B/elem | redis used B/elem | ratio | corvid RSS B/elem | redis RSS B/elem | ratio | encoding corvid / redis | MEMORY USAGE B/elem corvid / redis | RSS B/elem before purge corvid / redis |",
		align:  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
		line:   "| list | 1000 | 150.0 | 160.0 | 0.94 | 200.0 | 250.0 | 0.80 | quicklist / quicklist | 140.0 / 150.0 | 201.0 / 251.0 |",
		note:   "Ratio = corvid / redis (at or below 1",
		csv: "case,elements,corvid_used_before,corvid_used_after,corvid_rss_before,corvid_rss_settled,corvid_rss_after," +
			"redis_used_before,redis_used_after,redis_rss_before,redis_rss_settled,redis_rss_after," +
			"corvid_used_per_elem,redis_used_per_elem,used_ratio,corvid_rss_per_elem,redis_rss_per_elem,rss_ratio," +
			"corvid_encoding,redis_encoding,corvid_memory_usage_key0,redis_memory_usage_key0,corvid_load_seconds,redis_load_seconds",
		csvRow: "list,1000,0,150000,0,201000,200000,0,160000,0,251000,250000,150.0,160.0,0.94,200.0,250.0,0.80," +
			"quicklist,quicklist,140000,150000,0.000,0.000",
	}, {
		name:   "valkey",
		peers:  []string{"valkey"},
		ms:     []measurement{v},
		title:  "# Memory per element: corvid-server vs valkey-server\n",
		header: "| case | elements | corvid used B/elem | valkey used B/elem | ratio | corvid RSS B/elem | valkey RSS B/elem | ratio | encoding corvid / valkey | MEMORY USAGE B/elem corvid / valkey | RSS B/elem before purge corvid / valkey |",
		align:  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
		line:   "| list | 1000 | 150.0 | 300.0 | 0.50 | 200.0 | 100.0 | 2.00 | quicklist / listpack | 140.0 / 120.0 | 201.0 / 101.0 |",
		note:   "Ratio = corvid / valkey (at or below 1",
		csv: "case,elements,corvid_used_before,corvid_used_after,corvid_rss_before,corvid_rss_settled,corvid_rss_after," +
			"valkey_used_before,valkey_used_after,valkey_rss_before,valkey_rss_settled,valkey_rss_after," +
			"corvid_used_per_elem,valkey_used_per_elem,used_ratio,corvid_rss_per_elem,valkey_rss_per_elem,rss_ratio," +
			"corvid_encoding,valkey_encoding,corvid_memory_usage_key0,valkey_memory_usage_key0,corvid_load_seconds,valkey_load_seconds",
		csvRow: "list,1000,0,150000,0,201000,200000,0,300000,0,101000,100000,150.0,300.0,0.50,200.0,100.0,2.00," +
			"quicklist,listpack,140000,120000,0.000,0.000",
	}, {
		name:   "valkey,redis",
		peers:  []string{"valkey", "redis"},
		ms:     []measurement{v, r},
		title:  "# Memory per element: corvid-server vs valkey-server and redis-server\n",
		header: "| case | elements | corvid used B/elem | valkey used B/elem | corvid/valkey | redis used B/elem | corvid/redis | corvid RSS B/elem | valkey RSS B/elem | corvid/valkey | redis RSS B/elem | corvid/redis | encoding corvid / valkey / redis | MEMORY USAGE B/elem corvid / valkey / redis | RSS B/elem before purge corvid / valkey / redis |",
		align:  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
		line:   "| list | 1000 | 150.0 | 300.0 | 0.50 | 160.0 | 0.94 | 200.0 | 100.0 | 2.00 | 250.0 | 0.80 | quicklist / listpack / quicklist | 140.0 / 120.0 / 150.0 | 201.0 / 101.0 / 251.0 |",
		note:   "corvid/<peer> = corvid / that peer (at or below 1",
		csv: "case,elements,corvid_used_before,corvid_used_after,corvid_rss_before,corvid_rss_settled,corvid_rss_after," +
			"valkey_used_before,valkey_used_after,valkey_rss_before,valkey_rss_settled,valkey_rss_after," +
			"redis_used_before,redis_used_after,redis_rss_before,redis_rss_settled,redis_rss_after," +
			"corvid_used_per_elem,valkey_used_per_elem,used_ratio_valkey,redis_used_per_elem,used_ratio_redis," +
			"corvid_rss_per_elem,valkey_rss_per_elem,rss_ratio_valkey,redis_rss_per_elem,rss_ratio_redis," +
			"corvid_encoding,valkey_encoding,redis_encoding,corvid_memory_usage_key0,valkey_memory_usage_key0,redis_memory_usage_key0," +
			"corvid_load_seconds,valkey_load_seconds,redis_load_seconds",
		csvRow: "list,1000,0,150000,0,201000,200000,0,300000,0,101000,100000,0,160000,0,251000,250000," +
			"150.0,300.0,0.50,160.0,0.94,200.0,100.0,2.00,250.0,0.80," +
			"quicklist,listpack,quicklist,140000,120000,150000,0.000,0.000,0.000",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rep := report{peers: tc.peers, rows: rowsFor(list, c, tc.ms)}
			md := rep.markdown([]string{"command: `x`"})
			if !strings.HasPrefix(md, tc.title+"\n- command: `x`\n\n") {
				t.Errorf("title or header lines wrong:\n%s", md)
			}
			lines := strings.Split(md, "\n")
			if len(lines) < 7 || lines[4] != tc.header || lines[5] != tc.align || lines[6] != tc.line {
				t.Errorf("table:\n%s\nwant:\n%s\n%s\n%s", strings.Join(lines[4:7], "\n"), tc.header, tc.align, tc.line)
			}
			for i, l := range lines[4:7] {
				if n, want := strings.Count(l, "|"), strings.Count(tc.header, "|"); n != want {
					t.Errorf("table line %d has %d cells' bars, the header %d", i, n, want)
				}
			}
			if !strings.Contains(md, tc.note) {
				t.Errorf("markdown lacks %q:\n%s", tc.note, md)
			}
			if strings.Contains(md, "PEER") {
				t.Errorf("markdown has a placeholder:\n%s", md)
			}

			var b bytes.Buffer
			if err := rep.writeCSV(&b, []string{"command: x"}); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(b.String()), "\n")
			if len(got) != 3 || got[0] != "# command: x" || got[1] != tc.csv || got[2] != tc.csvRow {
				t.Errorf("csv:\n%s\nwant:\n# command: x\n%s\n%s", b.String(), tc.csv, tc.csvRow)
			}
			recs, err := csv.NewReader(strings.NewReader(strings.Join(got[1:], "\n"))).ReadAll()
			if err != nil || len(recs) != 2 || len(recs[0]) != len(recs[1]) {
				t.Errorf("csv records: %v %v", recs, err)
			}
		})
	}
}

func TestSmallCaseRowsNamePeers(t *testing.T) {
	c := meas(0, 150000, 0, 200000, "listpack", 140000)
	rows := rowsFor(caseSpec{"lphash", "HSET", "lphash:", 100, 10, 16}, c, []measurement{c, c})
	if len(rows) != 2 || rows[0].label != "lphash (per hash)" || rows[1].label != "lphash (per field)" {
		t.Fatalf("rows: %+v", rows)
	}
	md := report{peers: []string{"redis", "valkey"}, rows: rows}.markdown(nil)
	for _, want := range []string{
		"| lphash (per hash) | 100 | 1500.0 | 1500.0 | 1.00 | 1500.0 | 1.00 | 2000.0 | 2000.0 | 1.00 | 2000.0 | 1.00 | listpack / listpack / listpack | 140000.0 / 140000.0 / 140000.0 | 2010.0 / 2010.0 / 2010.0 |",
		"| lphash (per field) | 1000 | 150.0 | 150.0 | 1.00 | 150.0 | 1.00 | 200.0 | 200.0 | 1.00 | 200.0 | 1.00 | listpack / listpack / listpack | 14000.0 / 14000.0 / 14000.0 | 201.0 / 201.0 / 201.0 |",
		"| redis used B/elem | corvid/redis | valkey used B/elem | corvid/valkey |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestServerList(t *testing.T) {
	for _, tc := range []struct {
		peers []string
		want  string
	}{
		{[]string{"redis"}, "redis-server"},
		{[]string{"valkey", "redis"}, "valkey-server and redis-server"},
		{[]string{"a", "b", "c"}, "a-server, b-server and c-server"},
	} {
		if got := serverList(tc.peers); got != tc.want {
			t.Errorf("serverList(%v) = %q, want %q", tc.peers, got, tc.want)
		}
	}
}
