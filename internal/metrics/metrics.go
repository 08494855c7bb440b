// Package metrics renders a server's INFO in the Prometheus text
// exposition format (version 0.0.4), under the metric names, types and
// labels that redis_exporter (github.com/oliver006/redis_exporter, the
// exporter operators run beside Valkey) gives them: redis_up,
// redis_connected_clients, redis_commands_total{cmd="get"},
// redis_db_keys{db="db0"}, and so on. Grafana dashboards and alerts
// written for the exporter read Corvid's own endpoint unchanged.
//
// The numbers are the server's INFO ALL text, parsed as the exporter
// parses it, plus the few values the exporter reads with other commands
// (CONFIG GET, SLOWLOG, LATENCY LATEST, CLUSTER INFO): there is no second
// set of counters. Render does the conversion; Handler serves it over
// HTTP and adds the exporter's own families (redis_up, the scrape
// counters).
package metrics

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// namespace prefixes every metric name, as the exporter's default
// -namespace does.
const namespace = "redis"

// Source is what one scrape renders.
type Source struct {
	// Info is the reply of INFO ALL: "# Section" headers and field:value
	// lines (CRLF or LF).
	Info string
	// Config holds the directives the exporter reads from CONFIG GET *:
	// databases, maxclients, maxmemory, io-threads and
	// client-output-buffer-limit. A missing one is not exported.
	Config map[string]string
	// ClusterInfo is the reply of CLUSTER INFO; read only when Info says
	// cluster_enabled:1.
	ClusterInfo string
	// The slow log: SLOWLOG LEN, and the newest entry's id and duration
	// (both 0 when the log is empty).
	SlowlogLen, SlowlogLastID, SlowlogLastMicros int64
	// Latency is LATENCY LATEST.
	Latency []LatencyEvent
	// Now dates start_time_seconds (uptime_in_seconds before it); the
	// zero value means time.Now().
	Now time.Time
}

// LatencyEvent is one row of LATENCY LATEST.
type LatencyEvent struct {
	Name         string
	Time         int64 // unix seconds of the latest spike
	LatestMillis int64 // its duration
}

// Metric types as the format spells them.
const (
	gauge   = "gauge"
	counter = "counter"
	summary = "summary"
)

// family is one metric name with its samples.
type family struct {
	name, typ, help string
	metrics         []*metric
	seen            map[string]bool // label sets already added: the first one wins
}

// metric is one sample (or, for a summary, one labelled summary).
type metric struct {
	labels    []label // sorted by name
	key       string  // the rendered labels, for sorting and duplicates
	value     float64
	quantiles []quantile // summary only
	count     uint64     // summary only
}

type label struct{ name, value string }

type quantile struct{ q, v float64 }

// registry collects families for one rendering.
type registry struct{ fams map[string]*family }

func newRegistry() *registry { return &registry{fams: map[string]*family{}} }

// add records a sample of name (without the namespace); labels are
// name, value pairs. A second sample with the same labels is dropped.
func (r *registry) add(name, typ string, v float64, labels ...string) *metric {
	f := r.fams[name]
	if f == nil {
		help := helps[name]
		if help == "" {
			help = name + " metric"
		}
		f = &family{name: name, typ: typ, help: help, seen: map[string]bool{}}
		r.fams[name] = f
	}
	m := &metric{value: v}
	for i := 0; i+1 < len(labels); i += 2 {
		m.labels = append(m.labels, label{labels[i], labels[i+1]})
	}
	slices.SortStableFunc(m.labels, func(a, b label) int { return strings.Compare(a.name, b.name) })
	var b bytes.Buffer
	writeLabels(&b, m.labels, "", 0)
	m.key = b.String()
	if f.seen[m.key] {
		return m
	}
	f.seen[m.key] = true
	f.metrics = append(f.metrics, m)
	return m
}

// write renders every family, sorted by name, each sample sorted by its
// labels (as the Prometheus client library does).
func (r *registry) write(w io.Writer) error {
	names := make([]string, 0, len(r.fams))
	for n := range r.fams {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, n := range names {
		f := r.fams[n]
		full := namespace + "_" + f.name
		b.WriteString("# HELP ")
		b.WriteString(full)
		b.WriteByte(' ')
		b.WriteString(escapeHelp(f.help))
		b.WriteString("\n# TYPE ")
		b.WriteString(full)
		b.WriteByte(' ')
		b.WriteString(f.typ)
		b.WriteByte('\n')
		slices.SortStableFunc(f.metrics, func(x, y *metric) int { return strings.Compare(x.key, y.key) })
		for _, m := range f.metrics {
			if f.typ != summary {
				writeSample(&b, full, m.labels, "", 0, m.value)
				continue
			}
			for _, q := range m.quantiles {
				writeSample(&b, full, m.labels, "quantile", q.q, q.v)
			}
			writeSample(&b, full+"_sum", m.labels, "", 0, m.value)
			writeSample(&b, full+"_count", m.labels, "", 0, float64(m.count))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeSample(b *bytes.Buffer, name string, labels []label, extra string, extraVal float64, v float64) {
	b.WriteString(name)
	writeLabels(b, labels, extra, extraVal)
	b.WriteByte(' ')
	b.WriteString(formatFloat(v))
	b.WriteByte('\n')
}

// writeLabels writes {a="x",b="y"} (nothing without labels); extra, when
// set, is a last label with a float value (a summary's quantile).
func writeLabels(b *bytes.Buffer, labels []label, extra string, extraVal float64) {
	if len(labels) == 0 && extra == "" {
		return
	}
	b.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.name)
		b.WriteString(`="`)
		b.WriteString(escapeLabel(l.value))
		b.WriteByte('"')
	}
	if extra != "" {
		if len(labels) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(extra)
		b.WriteString(`="`)
		b.WriteString(formatFloat(extraVal))
		b.WriteByte('"')
	}
	b.WriteByte('}')
}

// formatFloat is the exposition format's number: Go's shortest 'g' form,
// and +Inf, -Inf, NaN.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

// sanitizeName replaces what a metric name cannot hold with '_'.
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// parseValue reads an INFO value as the exporter does: ok/true are 1,
// err/fail/false 0, anything else must be a number.
func parseValue(s string) (float64, bool) {
	switch s {
	case "ok", "true":
		return 1, true
	case "err", "fail", "false":
		return 0, true
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// Render writes the metrics of src (the redis_* families that come from
// the server; Handler adds redis_up and the scrape's own).
func Render(w io.Writer, src *Source) error {
	r := newRegistry()
	r.addSource(src)
	return r.write(w)
}

func (r *registry) addSource(src *Source) {
	now := src.Now
	if now.IsZero() {
		now = time.Now()
	}
	dbCount := r.addConfig(src.Config)
	info := parseInfo(src.Info)
	if info.fields["cluster_enabled"] == "1" {
		// Cluster mode has one database.
		dbCount = 1
		for _, kv := range parseInfo(src.ClusterInfo).lines {
			r.addField(kv.key, kv.value)
		}
	} else if dbCount == 0 {
		dbCount = 16
	}
	r.addInfo(info, dbCount, now)
	r.add("slowlog_length", gauge, float64(src.SlowlogLen))
	r.add("slowlog_last_id", gauge, float64(src.SlowlogLastID))
	r.add("last_slow_execution_duration_seconds", gauge, float64(src.SlowlogLastMicros)/1e6)
	for _, e := range src.Latency {
		r.add("latency_spike_last", gauge, float64(e.Time), "event_name", e.Name)
		r.add("latency_spike_duration_seconds", gauge, float64(e.LatestMillis)/1e3, "event_name", e.Name)
	}
}

// addConfig exports the directives the exporter reads from CONFIG GET
// and returns the number of databases (0 if unknown).
func (r *registry) addConfig(cfg map[string]string) (dbCount int) {
	for _, k := range []string{"io-threads", "maxclients", "maxmemory"} {
		if v, err := strconv.ParseFloat(cfg[k], 64); err == nil {
			r.add("config_"+strings.ReplaceAll(k, "-", "_"), gauge, v)
		}
	}
	if v, err := strconv.Atoi(cfg["databases"]); err == nil {
		dbCount = v
	}
	// "normal 0 0 0 replica 268435456 67108864 60 pubsub 33554432 8388608 60"
	f := strings.Fields(cfg["client-output-buffer-limit"])
	for i := 0; i+3 < len(f); i += 4 {
		class := f[i]
		if v, err := strconv.ParseFloat(f[i+1], 64); err == nil {
			r.add("config_client_output_buffer_limit_bytes", gauge, v, "class", class, "limit", "hard")
		}
		if v, err := strconv.ParseFloat(f[i+2], 64); err == nil {
			r.add("config_client_output_buffer_limit_bytes", gauge, v, "class", class, "limit", "soft")
		}
		if v, err := strconv.ParseFloat(f[i+3], 64); err == nil {
			r.add("config_client_output_buffer_limit_overcome_seconds", gauge, v, "class", class, "limit", "soft")
		}
	}
	return dbCount
}

// infoLine is one field of an INFO reply with its section.
type infoLine struct{ section, key, value string }

type parsedInfo struct {
	lines  []infoLine
	fields map[string]string // the last value of each key
}

func parseInfo(text string) parsedInfo {
	p := parsedInfo{fields: map[string]string{}}
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# ") {
			section = line[2:]
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || len(line) < 2 {
			continue
		}
		p.lines = append(p.lines, infoLine{section, k, v})
		p.fields[k] = v
	}
	return p
}

// includeField is the exporter's test for a field that becomes a metric
// of its own.
func includeField(k string) bool {
	if strings.HasPrefix(k, "db") || strings.HasPrefix(k, "cmdstat_") || strings.HasPrefix(k, "cluster_") {
		return true
	}
	_, g := gaugeFields[k]
	_, c := counterFields[k]
	return g || c
}

// addField exports one INFO field under its own metric, if it has one.
func (r *registry) addField(k, v string) {
	if !includeField(k) {
		return
	}
	val, ok := parseValue(v)
	if !ok {
		return
	}
	name := sanitizeName(k)
	typ := gauge
	if n, ok := gaugeFields[name]; ok {
		name = n
	} else if n, ok := counterFields[name]; ok {
		name = n
	}
	if counterFields[sanitizeName(k)] != "" {
		typ = counter
	}
	if name == "latest_fork_usec" {
		name, val = "latest_fork_seconds", val/1e6
	}
	r.add(name, typ, val)
}

var instanceInfoLabels = []string{"role", "redis_version", "redis_build_id", "redis_mode", "os", "maxmemory_policy", "tcp_port", "run_id", "process_id", "master_replid"}

// addInfo exports the INFO fields: per-section metrics with labels
// (commands, errors, databases, replicas, the primary link), the rest
// one metric per field.
func (r *registry) addInfo(info parsedInfo, dbCount int, now time.Time) {
	type cmdStat struct {
		calls uint64
		usec  float64
	}
	cmdStats := map[string]cmdStat{}
	var latencies []infoLine
	dbs := map[string]bool{}
	masterHost, masterPort := "", ""
	for _, l := range info.lines {
		k, v := l.key, l.value
		if isMasterField(k, "_host") {
			masterHost = v
		}
		if isMasterField(k, "_port") {
			masterPort = v
		}
		switch l.section {
		case "Replication":
			if r.addReplication(k, v, masterHost, masterPort) {
				continue
			}
		case "Server":
			switch k {
			case "uptime_in_seconds":
				if up, err := strconv.ParseFloat(v, 64); err == nil {
					r.add("start_time_seconds", gauge, float64(now.Unix())-up)
				}
			case "hz", "configured_hz":
				if hz, err := strconv.ParseInt(v, 10, 64); err == nil {
					r.add(k, gauge, float64(hz))
				}
			}
		case "Commandstats":
			if cmd, calls, usec, ok := r.addCommandStat(k, v); ok {
				cmdStats[cmd] = cmdStat{uint64(calls), usec}
			}
			continue
		case "Latencystats":
			latencies = append(latencies, l)
			continue
		case "Errorstats":
			if kind, ok := strings.CutPrefix(k, "errorstat_"); ok {
				if n, ok := fieldValue(v, "count"); ok {
					r.add("errors_total", counter, n, "err", kind)
				}
			}
			continue
		case "Keyspace":
			if r.addKeyspace(k, v) {
				dbs[k] = true
				continue
			}
		}
		r.addField(k, v)
	}
	// Per-command latency percentiles: a summary whose count and sum
	// (microseconds) are the command's calls and usec.
	for _, l := range latencies {
		cmd, ok := strings.CutPrefix(l.key, "latency_percentiles_usec_")
		st, have := cmdStats[cmd]
		if !ok || !have {
			continue
		}
		var qs []quantile
		for _, part := range strings.Split(l.value, ",") {
			pk, pv, ok := strings.Cut(part, "=")
			if !ok || len(pk) < 2 {
				qs = nil
				break
			}
			q, err1 := strconv.ParseFloat(pk[1:], 64)
			v, err2 := strconv.ParseFloat(pv, 64)
			if err1 != nil || err2 != nil {
				qs = nil
				break
			}
			qs = append(qs, quantile{q, v})
		}
		if qs == nil {
			continue
		}
		slices.SortFunc(qs, func(a, b quantile) int { return cmpFloat(a.q, b.q) })
		m := r.add("latency_percentiles_usec", summary, st.usec, "cmd", cmd)
		m.quantiles, m.count = qs, st.calls
	}
	// Every database up to databases has db_keys and db_keys_expiring,
	// 0 when INFO keyspace does not list it.
	for i := 0; i < dbCount; i++ {
		db := "db" + strconv.Itoa(i)
		if !dbs[db] {
			r.add("db_keys", gauge, 0, "db", db)
			r.add("db_keys_expiring", gauge, 0, "db", db)
		}
	}
	f := info.fields
	mode := f["redis_mode"]
	if mode == "" {
		mode = f["server_mode"]
	}
	var lv []string
	for _, n := range instanceInfoLabels {
		val := f[n]
		if n == "redis_mode" {
			val = mode
		}
		lv = append(lv, n, val)
	}
	if v, ok := f["valkey_version"]; ok {
		lv = append(lv, "valkey_version", v)
	}
	if v := f["availability_zone"]; v != "" {
		lv = append(lv, "availability_zone", v)
	}
	r.add("instance_info", gauge, 1, lv...)
	if f["role"] == "slave" {
		r.add("slave_info", gauge, 1, "master_host", f["master_host"], "master_port", f["master_port"], "read_only", f["slave_read_only"])
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isMasterField matches master_<suffix> and master_<n>_<suffix> (KeyDB's
// multi-primary names).
func isMasterField(k, suffix string) bool {
	rest, ok := strings.CutPrefix(k, "master")
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "_") {
		if n := strings.TrimLeft(rest[1:], "0123456789"); len(n) < len(rest)-1 && strings.HasPrefix(n, "_") {
			rest = n
		}
	}
	return strings.HasPrefix(rest, suffix)
}

// addReplication handles the Replication fields that carry labels and
// reports whether k was one.
func (r *registry) addReplication(k, v, host, port string) bool {
	if isMasterField(k, "_link_status") {
		up := 0.0
		if v == "up" {
			up = 1
		}
		r.add("master_link_up", gauge, up, "master_host", host, "master_port", port)
		return true
	}
	name := ""
	switch {
	case isMasterField(k, "_last_io_seconds_ago"):
		name = "master_last_io_seconds_ago"
	case isMasterField(k, "_sync_in_progress"):
		name = "master_sync_in_progress"
	case strings.HasPrefix(k, "slave_repl_offset"):
		name = "slave_repl_offset"
	}
	if name != "" {
		n, _ := strconv.Atoi(v) // as the exporter: what is not an integer is 0
		r.add(name, gauge, float64(n), "master_host", host, "master_port", port)
		return true
	}
	// slave0:ip=127.0.0.1,port=6380,state=online,offset=42,lag=0
	rest, ok := strings.CutPrefix(k, "slave")
	if !ok || rest == "" || rest[0] < '0' || rest[0] > '9' {
		return false
	}
	kv := map[string]string{}
	for _, part := range strings.Split(v, ",") {
		a, b, ok := strings.Cut(part, "=")
		if !ok {
			return false
		}
		kv[a] = b
	}
	offset, err := strconv.ParseFloat(kv["offset"], 64)
	if err != nil {
		return false
	}
	lag := -1.0
	if s, ok := kv["lag"]; ok {
		if lag, err = strconv.ParseFloat(s, 64); err != nil {
			return false
		}
	}
	labels := []string{"slave_ip", kv["ip"], "slave_port", kv["port"], "slave_state", kv["state"]}
	r.add("connected_slave_offset_bytes", gauge, offset, labels...)
	if lag > -1 {
		r.add("connected_slave_lag_seconds", gauge, lag, labels...)
	}
	return true
}

// addCommandStat exports cmdstat_<cmd>:calls=N,usec=N,usec_per_call=F,
// rejected_calls=N,failed_calls=N.
func (r *registry) addCommandStat(k, v string) (cmd string, calls, usec float64, ok bool) {
	cmd, ok = strings.CutPrefix(k, "cmdstat_")
	parts := strings.Split(v, ",")
	if !ok || len(parts) < 3 {
		return "", 0, 0, false
	}
	var ok1, ok2 bool
	calls, ok1 = fieldValue(parts[0], "")
	usec, ok2 = fieldValue(parts[1], "")
	if !ok1 || !ok2 {
		return "", 0, 0, false
	}
	r.add("commands_total", counter, calls, "cmd", cmd)
	r.add("commands_duration_seconds_total", counter, usec/1e6, "cmd", cmd)
	if len(parts) >= 5 {
		rejected, ok1 := fieldValue(parts[3], "")
		failed, ok2 := fieldValue(parts[4], "")
		if ok1 && ok2 {
			r.add("commands_rejected_calls_total", counter, rejected, "cmd", cmd)
			r.add("commands_failed_calls_total", counter, failed, "cmd", cmd)
		}
	}
	return cmd, calls, usec, true
}

// fieldValue parses "name=number"; an empty want accepts any name.
func fieldValue(s, want string) (float64, bool) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || want != "" && k != want {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// addKeyspace exports db<N>:keys=N,expires=N,avg_ttl=N and reports
// whether the line was one.
func (r *registry) addKeyspace(k, v string) bool {
	if !strings.HasPrefix(k, "db") {
		return false
	}
	kv := map[string]float64{}
	for _, part := range strings.Split(v, ",") {
		a, b, ok := strings.Cut(part, "=")
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(b, 64)
		if err != nil {
			return false
		}
		kv[a] = f
	}
	keys, ok1 := kv["keys"]
	expires, ok2 := kv["expires"]
	if !ok1 || !ok2 {
		return false
	}
	r.add("db_keys", gauge, keys, "db", k)
	r.add("db_keys_expiring", gauge, expires, "db", k)
	if ttl, ok := kv["avg_ttl"]; ok {
		r.add("db_avg_ttl_seconds", gauge, ttl/1000, "db", k)
	}
	return true
}
