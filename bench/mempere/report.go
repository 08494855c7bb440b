package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// row is one line of the results: a case's two measurements divided by
// a number of elements.
type row struct {
	label         string
	div           int // what the used_memory and RSS deltas are divided by
	usageDiv      int // what MEMORY USAGE of key 0 is divided by
	corvid, redis measurement
}

// rowsFor makes a case's rows: one per element for the big cases, per
// key and per element (field, member) for the small ones.
func rowsFor(spec caseSpec, corvid, redis measurement) []row {
	if spec.keys == 1 {
		return []row{{spec.name, spec.perKey, spec.perKey, corvid, redis}}
	}
	if spec.perKey == 1 { // strings: one value per key
		return []row{{spec.name, spec.keys, 1, corvid, redis}}
	}
	key, elem := elemNames(spec.cmd)
	return []row{
		{spec.name + " (per " + key + ")", spec.keys, 1, corvid, redis},
		{spec.name + " (per " + elem + ")", spec.elements(), spec.perKey, corvid, redis},
	}
}

func perElem(n int64, div int) float64 {
	if div <= 0 {
		return 0
	}
	return float64(n) / float64(div)
}

func (r row) used(m measurement) float64 { return perElem(m.after.used-m.before.used, r.div) }
func (r row) rss(m measurement) float64  { return perElem(m.after.rss-m.before.rss, r.div) }
func (r row) settled(m measurement) float64 {
	return perElem(m.settledRSS-m.before.rss, r.div)
}
func (r row) usage(m measurement) float64 { return perElem(m.usage, r.usageDiv) }

// peer names the server Corvid is compared with in the report: "redis"
// or "valkey" (-peer).
var peer = "redis"

// ratio formats a/b, corvid over the peer.
func ratio(a, b float64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// markdownTable renders the rows as a Markdown table.
func markdownTable(rows []row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| case | elements | corvid used B/elem | %[1]s used B/elem | ratio | corvid RSS B/elem | %[1]s RSS B/elem | ratio | encoding corvid / %[1]s | MEMORY USAGE B/elem corvid / %[1]s | RSS B/elem before purge corvid / %[1]s |\n", peer)
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n")
	for _, r := range rows {
		cu, ru := r.used(r.corvid), r.used(r.redis)
		cr, rr := r.rss(r.corvid), r.rss(r.redis)
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s |\n",
			r.label, r.div, f1(cu), f1(ru), ratio(cu, ru), f1(cr), f1(rr), ratio(cr, rr),
			r.corvid.encoding, r.redis.encoding,
			f1(r.usage(r.corvid)), f1(r.usage(r.redis)),
			f1(r.settled(r.corvid)), f1(r.settled(r.redis)))
	}
	return b.String()
}

// markdown is the whole report: header lines, the table, and how to read it.
func markdown(header []string, rows []row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Memory per element: corvid-server vs %s-server\n\n", peer)
	for _, h := range header {
		b.WriteString("- " + h + "\n")
	}
	b.WriteString("\n")
	b.WriteString(markdownTable(rows))
	b.WriteString("\nB/elem = (after - before) / elements, both samples taken after MEMORY PURGE " +
		"on a freshly flushed server; used = INFO used_memory, RSS = VmRSS. Ratio = corvid / " + peer + " " +
		"(at or below 1 meets the goal). For the small hashes and sorted sets, encoding and MEMORY USAGE are those " +
		"of the key h:0 or z:0. \"Before purge\" is the RSS delta after the settle time, before MEMORY PURGE.\n")
	return b.String()
}

// csvHeader names the CSV columns; "PEER" is replaced by peer.
var csvHeader = []string{"case", "elements",
	"corvid_used_before", "corvid_used_after", "corvid_rss_before", "corvid_rss_settled", "corvid_rss_after",
	"PEER_used_before", "PEER_used_after", "PEER_rss_before", "PEER_rss_settled", "PEER_rss_after",
	"corvid_used_per_elem", "PEER_used_per_elem", "used_ratio",
	"corvid_rss_per_elem", "PEER_rss_per_elem", "rss_ratio",
	"corvid_encoding", "PEER_encoding", "corvid_memory_usage_key0", "PEER_memory_usage_key0",
	"corvid_load_seconds", "PEER_load_seconds"}

// writeCSV writes the header lines as "# " comments, then the rows.
func writeCSV(w io.Writer, header []string, rows []row) error {
	if err := benchproc.WriteComments(w, header); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	hdr := make([]string, len(csvHeader))
	for i, h := range csvHeader {
		hdr[i] = strings.Replace(h, "PEER", peer, 1)
	}
	cw.Write(hdr)
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, r := range rows {
		c, d := r.corvid, r.redis
		cu, ru := r.used(c), r.used(d)
		cr, rr := r.rss(c), r.rss(d)
		cw.Write([]string{r.label, strconv.Itoa(r.div),
			i(c.before.used), i(c.after.used), i(c.before.rss), i(c.settledRSS), i(c.after.rss),
			i(d.before.used), i(d.after.used), i(d.before.rss), i(d.settledRSS), i(d.after.rss),
			f1(cu), f1(ru), ratio(cu, ru), f1(cr), f1(rr), ratio(cr, rr),
			c.encoding, d.encoding, i(c.usage), i(d.usage),
			fmt.Sprintf("%.3f", c.load.Seconds()), fmt.Sprintf("%.3f", d.load.Seconds())})
	}
	cw.Flush()
	return cw.Error()
}
