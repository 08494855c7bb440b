package main

import (
	"fmt"
	"strings"
	"time"
)

// result is one scenario's figures on one server.
type result struct {
	scenario string // the table's label
	server   string
	err      string // the scenario failed: why; the figures are partial

	wall, cpu time.Duration
	rssBase   int64 // bytes, before the attack
	rssGrowth int64 // bytes: peak over rssBase, or per connection with perConn
	perConn   bool

	idlePing, busyPing time.Duration // prober medians
	pingSamples        int           // PINGs in the attacked median

	client   string // the slow reader's outcome; "" for other scenarios
	closed   bool   // the slow reader was disconnected (wall is not a drain)
	obufDisc int64  // client_output_buffer_limit_disconnections gained; -1: not read
}

// header of the table; row and ratioRow fill the same columns.
const tableHead = "| scenario | server | wall | server CPU | RSS before | RSS growth | PING idle | PING attacked | PING ratio | slow client | obuf disconnections |\n" +
	"| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n"

func (r result) row() string {
	growth := signedMiB(r.rssGrowth) + " peak"
	if r.perConn {
		growth = fmt.Sprintf("%.1f KiB/conn", float64(r.rssGrowth)/1024)
	}
	busy := pingText(r.busyPing)
	if r.pingSamples > 0 {
		busy += fmt.Sprintf(" (%d)", r.pingSamples)
	}
	client := r.client
	if r.err != "" {
		client = "error: " + strings.ReplaceAll(r.err, "|", "/")
	}
	obuf := "–"
	if r.obufDisc >= 0 {
		obuf = fmt.Sprint(r.obufDisc)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		r.scenario, r.server, secs(r.wall), secs(r.cpu), mib(r.rssBase), growth,
		pingText(r.idlePing), busy, ratio(float64(r.busyPing), float64(r.idlePing)), client, obuf)
}

// ratioRow divides a's wall, CPU and RSS growth by b's; the wall only
// when both slow readers were served to the end (a closed client's wall
// is no drain).
func ratioRow(a, b result) string {
	wall := ratio(float64(a.wall), float64(b.wall))
	if a.closed || b.closed {
		wall = "n/a"
	}
	return fmt.Sprintf("| %s | %s/%s | %s | %s | | %s | | | | | |\n", a.scenario, a.server, b.server,
		wall, ratio(float64(a.cpu), float64(b.cpu)), ratio(float64(a.rssGrowth), float64(b.rssGrowth)))
}

// table renders the results, grouped by scenario in the order they first
// appear, each group followed by corvid/valkey when both ran without error.
func table(results []result) string {
	var b strings.Builder
	b.WriteString(tableHead)
	var order []string
	groups := map[string][]result{}
	for _, r := range results {
		if _, ok := groups[r.scenario]; !ok {
			order = append(order, r.scenario)
		}
		groups[r.scenario] = append(groups[r.scenario], r)
	}
	for _, sc := range order {
		var corvid, valkey *result
		for i, r := range groups[sc] {
			b.WriteString(r.row())
			switch {
			case r.err != "":
			case r.server == "corvid":
				corvid = &groups[sc][i]
			case r.server == "valkey":
				valkey = &groups[sc][i]
			}
		}
		if corvid != nil && valkey != nil {
			b.WriteString(ratioRow(*corvid, *valkey))
		}
	}
	return b.String()
}

// report is the whole markdown: title, header lines, table, notes.
func report(header []string, results []result, notes []string) string {
	var b strings.Builder
	b.WriteString("# Hostile clients: corvid-server, valkey-server, redis-server\n\n")
	for _, h := range header {
		b.WriteString("- " + h + "\n")
	}
	b.WriteString("\n")
	b.WriteString(table(results))
	b.WriteString("\nwall: large multibulk, first byte sent to the reply; slow reader, the drain after the hold " +
		"(first read to last byte); idle connections, opening them all. server CPU: utime+stime over the same span " +
		"(the slow reader: from its write to the end of the drain), the prober's PINGs included. RSS growth: peak VmRSS over the RSS before the attack; " +
		"idle connections, (RSS after - before) / connections. PING: the other client's median round trip, idle " +
		"and under attack (PINGs in that median); ratio = attacked / idle, same server, same run. " +
		"corvid/valkey divides wall, CPU and RSS growth (below 1: Corvid spends less).\n")
	for _, n := range notes {
		b.WriteString("\nnote: " + n + "\n")
	}
	return b.String()
}

// ratio formats a/b, "n/a" when b is not positive.
func ratio(a, b float64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func signedMiB(b int64) string { return fmt.Sprintf("%+.1f MiB", float64(b)/(1<<20)) }

// pingText shows a round trip in µs, or ms from 10 ms up.
func pingText(d time.Duration) string {
	if d >= 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d µs", d.Microseconds())
}
