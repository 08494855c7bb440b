package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// row is one line of the results: a case's measurements, Corvid's and
// each peer's, divided by a number of elements.
type row struct {
	label    string
	div      int // what the used_memory and RSS deltas are divided by
	usageDiv int // what MEMORY USAGE of key 0 is divided by
	corvid   measurement
	peers    []measurement // one per peer, in the order of -peer
}

// rowsFor makes a case's rows: one per element for the big cases, per
// key and per element (field, member) for the small ones. peers are the
// peers' measurements in the order of -peer.
func rowsFor(spec caseSpec, corvid measurement, peers []measurement) []row {
	if spec.keys == 1 {
		return []row{{spec.name, spec.perKey, spec.perKey, corvid, peers}}
	}
	if spec.perKey == 1 { // strings: one value per key
		return []row{{spec.name, spec.keys, 1, corvid, peers}}
	}
	key, elem := elemNames(spec.cmd)
	return []row{
		{spec.name + " (per " + key + ")", spec.keys, 1, corvid, peers},
		{spec.name + " (per " + elem + ")", spec.elements(), spec.perKey, corvid, peers},
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

// ratio formats a/b, corvid over the peer.
func ratio(a, b float64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// report is what the table and the CSV are made of: the peers' names
// (-peer, in order) and the rows, whose peers measurements follow them.
type report struct {
	peers []string
	rows  []row
}

// ratioName heads the column of corvid / peer i: "ratio" when there is
// one peer (the table as it was before -peer took a list), else
// "corvid/<peer>".
func (r report) ratioName(i int) string {
	if len(r.peers) == 1 {
		return "ratio"
	}
	return "corvid/" + r.peers[i]
}

// pair joins Corvid's value and each peer's with " / ".
func pair(corvid string, peers []string) string {
	return strings.Join(append([]string{corvid}, peers...), " / ")
}

// each applies f to each peer's measurement of r.
func each(r row, f func(measurement) string) []string {
	out := make([]string, len(r.peers))
	for i, m := range r.peers {
		out[i] = f(m)
	}
	return out
}

// serverList is "valkey-server", "valkey-server and redis-server", or
// "a-server, b-server and c-server".
func serverList(peers []string) string {
	s := make([]string, len(peers))
	for i, p := range peers {
		s[i] = p + "-server"
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// markdownTable renders the rows as a Markdown table: corvid's used
// B/elem, then each peer's and the ratio corvid / peer; RSS likewise;
// then encoding, MEMORY USAGE and the RSS before purge, corvid's and each
// peer's in one column.
func (r report) markdownTable() string {
	var b strings.Builder
	all := strings.Join(r.peers, " / ")
	b.WriteString("| case | elements |")
	align := "| --- | ---: |"
	for _, what := range []string{"used", "RSS"} {
		fmt.Fprintf(&b, " corvid %s B/elem |", what)
		align += " ---: |"
		for i, p := range r.peers {
			fmt.Fprintf(&b, " %s %s B/elem | %s |", p, what, r.ratioName(i))
			align += " ---: | ---: |"
		}
	}
	fmt.Fprintf(&b, " encoding corvid / %[1]s | MEMORY USAGE B/elem corvid / %[1]s | RSS B/elem before purge corvid / %[1]s |\n", all)
	b.WriteString(align + " --- | ---: | ---: |\n")
	for _, x := range r.rows {
		fmt.Fprintf(&b, "| %s | %d |", x.label, x.div)
		for _, per := range []func(measurement) float64{x.used, x.rss} {
			c := per(x.corvid)
			fmt.Fprintf(&b, " %s |", f1(c))
			for _, m := range x.peers {
				fmt.Fprintf(&b, " %s | %s |", f1(per(m)), ratio(c, per(m)))
			}
		}
		fmt.Fprintf(&b, " %s | %s | %s |\n",
			pair(x.corvid.encoding, each(x, func(m measurement) string { return m.encoding })),
			pair(f1(x.usage(x.corvid)), each(x, func(m measurement) string { return f1(x.usage(m)) })),
			pair(f1(x.settled(x.corvid)), each(x, func(m measurement) string { return f1(x.settled(m)) })))
	}
	return b.String()
}

// markdown is the whole report: header lines, the table, and how to read it.
func (r report) markdown(header []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Memory per element: corvid-server vs %s\n\n", serverList(r.peers))
	for _, h := range header {
		b.WriteString("- " + h + "\n")
	}
	b.WriteString("\n")
	b.WriteString(r.markdownTable())
	ratios := "Ratio = corvid / " + r.peers[0]
	if len(r.peers) > 1 {
		ratios = "corvid/<peer> = corvid / that peer"
	}
	b.WriteString("\nB/elem = (after - before) / elements, both samples taken after MEMORY PURGE " +
		"on a freshly flushed server; used = INFO used_memory, RSS = VmRSS. " + ratios + " " +
		"(at or below 1 meets the goal). For the small hashes and sorted sets, encoding and MEMORY USAGE are those " +
		"of the key h:0 or z:0. \"Before purge\" is the RSS delta after the settle time, before MEMORY PURGE.\n")
	return b.String()
}

// csvColumns names the CSV columns: the raw samples of corvid and of each
// peer, then per element used memory of corvid and, for each peer, its
// value and corvid's ratio to it (used_ratio with one peer,
// used_ratio_<peer> with several), RSS likewise, then encoding, MEMORY
// USAGE and load time of corvid and of each peer.
func (r report) csvColumns() []string {
	cols := []string{"case", "elements"}
	raw := func(s string) []string {
		return []string{s + "_used_before", s + "_used_after", s + "_rss_before", s + "_rss_settled", s + "_rss_after"}
	}
	cols = append(cols, raw("corvid")...)
	for _, p := range r.peers {
		cols = append(cols, raw(p)...)
	}
	for _, what := range []string{"used", "rss"} {
		cols = append(cols, "corvid_"+what+"_per_elem")
		for _, p := range r.peers {
			name := what + "_ratio"
			if len(r.peers) > 1 {
				name += "_" + p
			}
			cols = append(cols, p+"_"+what+"_per_elem", name)
		}
	}
	for _, what := range []string{"encoding", "memory_usage_key0", "load_seconds"} {
		cols = append(cols, "corvid_"+what)
		for _, p := range r.peers {
			cols = append(cols, p+"_"+what)
		}
	}
	return cols
}

// writeCSV writes the header lines as "# " comments, then the columns'
// names and the rows.
func (r report) writeCSV(w io.Writer, header []string) error {
	if err := benchproc.WriteComments(w, header); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.Write(r.csvColumns())
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, x := range r.rows {
		rec := []string{x.label, strconv.Itoa(x.div)}
		all := append([]measurement{x.corvid}, x.peers...)
		for _, m := range all {
			rec = append(rec, i(m.before.used), i(m.after.used), i(m.before.rss), i(m.settledRSS), i(m.after.rss))
		}
		for _, per := range []func(measurement) float64{x.used, x.rss} {
			c := per(x.corvid)
			rec = append(rec, f1(c))
			for _, m := range x.peers {
				rec = append(rec, f1(per(m)), ratio(c, per(m)))
			}
		}
		for _, m := range all {
			rec = append(rec, m.encoding)
		}
		for _, m := range all {
			rec = append(rec, i(m.usage))
		}
		for _, m := range all {
			rec = append(rec, fmt.Sprintf("%.3f", m.load.Seconds()))
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
