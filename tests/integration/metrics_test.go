package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/metrics"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// Corvid's Prometheus endpoint (metrics-port, internal/metrics) against
// the tools operators use: redis_exporter (Debian's
// prometheus-redis-exporter) and Prometheus itself (Debian's prometheus).
// CI installs both (.ci/run) and sets CORVID_REQUIRE_EXPORTER and
// CORVID_REQUIRE_PROMETHEUS, which turn a missing binary into a failure.

// exporterOnly are the families redis_exporter exports for Valkey that
// Corvid's endpoint deliberately does not: they describe the exporter
// process, not the server.
var exporterOnly = []struct{ prefix, why string }{
	{"go_", "the exporter's Go runtime"},
	{"process_", "the exporter's process (CPU, memory, file descriptors)"},
	{"promhttp_", "the exporter's HTTP handler"},
	{"redis_exporter_build_info", "the exporter binary's version"},
	{"redis_exporter_last_scrape_connect_time_seconds", "the exporter's connection to the server: the endpoint is in the server"},
	{"redis_last_key_groups_scrape_duration_milliseconds", "the exporter's -check-key-groups option"},
}

func exporterOnlyFamily(name string) bool {
	for _, e := range exporterOnly {
		if strings.HasPrefix(name, e.prefix) {
			return true
		}
	}
	return false
}

// exposition is one scrape, parsed: each family's type, and each series'
// label names.
type exposition struct {
	types  map[string]string          // family -> type
	labels map[string]map[string]bool // sample name -> sorted label names joined by ","
	lines  map[string]bool            // every line as is
	values map[string]string          // series (name{labels}) -> value
}

func parseExposition(t *testing.T, body string) exposition {
	t.Helper()
	e := exposition{types: map[string]string{}, labels: map[string]map[string]bool{}, lines: map[string]bool{}, values: map[string]string{}}
	for _, line := range strings.Split(body, "\n") {
		if line == "" {
			continue
		}
		e.lines[line] = true
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(f, " ")
			e.types[name] = typ
			continue
		}
		if line[0] == '#' {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		series, value := line[:sp], line[sp+1:]
		e.values[series] = value
		name, rest, _ := strings.Cut(series, "{")
		var names []string
		// Label values are quoted; the names are what precedes each ="
		for rest != "" && rest != "}" {
			n, after, ok := strings.Cut(rest, `="`)
			if !ok {
				t.Fatalf("bad labels in %q", line)
			}
			names = append(names, strings.TrimLeft(n, ","))
			// Skip the value, honouring escapes.
			i := 0
			for ; i < len(after) && after[i] != '"'; i++ {
				if after[i] == '\\' {
					i++
				}
			}
			rest = after[i+1:]
		}
		slices.Sort(names)
		if e.labels[name] == nil {
			e.labels[name] = map[string]bool{}
		}
		e.labels[name][strings.Join(names, ",")] = true
	}
	return e
}

// runExporter starts redis_exporter against addr and returns its
// /metrics once it shows the server up.
func runExporter(t *testing.T, exporter, addr string) string {
	t.Helper()
	port := testutil.FreePort(t)
	cmd := exec.Command(exporter, "-redis.addr", "redis://"+addr, "-web.listen-address", fmt.Sprintf("127.0.0.1:%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	body := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, err := httpGet(fmt.Sprintf("http://127.0.0.1:%d/metrics", port)); err == nil {
			if body = b; strings.Contains(body, "redis_up 1") {
				return body
			}
		}
	}
	t.Fatalf("the exporter did not reach %s:\n%.2000s", addr, body)
	return ""
}

func httpGet(u string) (string, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("%s: %s", resp.Status, b)
	}
	return string(b), err
}

func needExporter(t *testing.T) string {
	t.Helper()
	exporter, err := exec.LookPath("prometheus-redis-exporter")
	if err != nil {
		if os.Getenv("CORVID_REQUIRE_EXPORTER") != "" {
			t.Fatal("prometheus-redis-exporter not installed but CORVID_REQUIRE_EXPORTER is set")
		}
		t.Skip("prometheus-redis-exporter not installed")
	}
	return exporter
}

// metricsWorkload is what both servers get before they are scraped:
// after the load and CONFIG RESETSTAT, commands on two databases, an
// error, and a slow-log entry.
func metricsWorkload(t *testing.T, addr string) {
	t.Helper()
	c := testutil.Dial(t, addr)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(c.Do("INFO", "persistence"), "loading:0"); {
		if time.Now().After(deadline) {
			t.Fatalf("%s still loading", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A slow start-up command (the race detector) must not be in the
	// slow log: only the PING below and the CONFIG SET before it.
	c.Do("CONFIG", "SET", "slowlog-log-slower-than", "10000000")
	c.Do("SLOWLOG", "RESET")
	c.Do("CONFIG", "RESETSTAT")
	for _, args := range [][]string{{"SET", "a", "1"}, {"GET", "a"}, {"LPUSH", "l", "x"}, {"HSET", "h", "f", "v"},
		{"CONFIG", "SET", "slowlog-log-slower-than", "0"}, {"PING"}, {"CONFIG", "SET", "slowlog-log-slower-than", "10000000"},
		{"SELECT", "3"}, {"SET", "b", "2", "EX", "100"}} {
		if r := c.Do(args...); strings.HasPrefix(r, "-") {
			t.Fatalf("%s %q: %s", addr, args, r)
		}
	}
	if r := c.Do("NOSUCHCOMMAND"); !strings.HasPrefix(r, "-ERR") {
		t.Fatalf("%s: unknown command answered %s", addr, r)
	}
}

// TestMetricsEndpointMatchesExporter: every metric redis_exporter exports
// for valkey-server 8.0.1 is on Corvid's own endpoint after the same
// commands, with the same type and label names (the label values that
// name what the commands touched too), except the families in
// exporterOnly. Corvid may export more (redis_exporter's newer versions
// read more of INFO).
func TestMetricsEndpointMatchesExporter(t *testing.T) {
	exporter := needExporter(t)
	if !testutil.HaveValkey(t) {
		return
	}
	vk := testutil.StartValkey(t)
	metricsPort := testutil.FreePort(t)
	cv := testutil.StartCorvid(t, "--metrics-port", strconv.Itoa(metricsPort))
	metricsWorkload(t, vk.Addr)
	metricsWorkload(t, cv.Addr)
	want := parseExposition(t, runExporter(t, exporter, vk.Addr))
	body, err := httpGet(fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort))
	if err != nil {
		t.Fatal(err)
	}
	got := parseExposition(t, body)
	if got.values["redis_up"] != "1" {
		t.Fatalf("redis_up is not 1:\n%.3000s", body)
	}
	names := 0
	for name, typ := range want.types {
		if exporterOnlyFamily(name) {
			continue
		}
		names++
		if g, ok := got.types[name]; !ok {
			t.Errorf("exported for Valkey, not by Corvid's endpoint: %s", name)
		} else if g != typ {
			t.Errorf("%s: type %s, the exporter's %s", name, g, typ)
		}
	}
	if names < 100 {
		t.Errorf("only %d families from the exporter: did it read Valkey's INFO?", names)
	}
	for name, sets := range want.labels {
		if exporterOnlyFamily(name) || got.labels[name] == nil {
			continue
		}
		for set := range sets {
			if got.labels[name][set] {
				continue
			}
			// The exporter's newer versions add labels to instance_info
			// (master_replid, valkey_version): Corvid has those.
			if name == "redis_instance_info" {
				for g := range got.labels[name] {
					if isSubset(strings.Split(set, ","), strings.Split(g, ",")) {
						set = ""
					}
				}
				if set == "" {
					continue
				}
			}
			t.Errorf("%s: labels (%s) from the exporter, Corvid's %v", name, set, keys(got.labels[name]))
		}
	}
	for _, series := range []string{`redis_commands_total{cmd="set"}`, `redis_commands_total{cmd="hset"}`,
		`redis_db_keys{db="db0"}`, `redis_db_keys{db="db3"}`, `redis_db_keys_expiring{db="db3"}`,
		`redis_errors_total{err="ERR"}`, `redis_db_keys{db="db15"}`} {
		if want.values[series] == "" {
			t.Errorf("the exporter has no %s", series)
		}
		if got.values[series] != want.values[series] {
			t.Errorf("%s: Corvid %q, Valkey through the exporter %q", series, got.values[series], want.values[series])
		}
	}
	// avg_ttl is an estimate the expiry cycle refreshes: present on both.
	if s := `redis_db_avg_ttl_seconds{db="db3"}`; got.values[s] == "" || want.values[s] == "" {
		t.Errorf("%s: Corvid %q, Valkey through the exporter %q", s, got.values[s], want.values[s])
	}
	// The numbers the workload fixes agree exactly; the exporter's own
	// connection is one more client of Valkey's.
	if n, _ := strconv.Atoi(want.values["redis_connected_clients"]); got.values["redis_connected_clients"] != strconv.Itoa(n-1) {
		t.Errorf("redis_connected_clients: Corvid %q, Valkey through the exporter %d (with the exporter's)", got.values["redis_connected_clients"], n)
	}
	for _, series := range []string{"redis_slowlog_length", "redis_config_maxclients",
		"redis_config_maxmemory", `redis_commands_total{cmd="lpush"}`, "redis_memory_max_bytes", "redis_aof_enabled"} {
		if got.values[series] != want.values[series] {
			t.Errorf("%s: Corvid %q, Valkey through the exporter %q", series, got.values[series], want.values[series])
		}
	}
}

func isSubset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// fakeServer answers redis_exporter's commands from fixed replies: INFO
// with info, CONFIG GET * with cfg, an empty slow log and latency
// monitor. It records the commands it gets.
type fakeServer struct {
	ln   net.Listener
	info string
	cfg  map[string]string
	mu   sync.Mutex
	cmds []string
}

func startFakeServer(t *testing.T, info string, cfg map[string]string) *fakeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{ln: ln, info: info, cfg: cfg}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(conn)
		}
	}()
	return f
}

func (f *fakeServer) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		argv, err := readCommand(r)
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.Join(argv, " "))
		f.mu.Lock()
		f.cmds = append(f.cmds, cmd)
		f.mu.Unlock()
		var reply string
		switch {
		case strings.HasPrefix(cmd, "INFO"):
			reply = fmt.Sprintf("$%d\r\n%s\r\n", len(f.info), f.info)
		case cmd == "CONFIG GET *":
			var b strings.Builder
			fmt.Fprintf(&b, "*%d\r\n", 2*len(f.cfg))
			for k, v := range f.cfg {
				fmt.Fprintf(&b, "$%d\r\n%s\r\n$%d\r\n%s\r\n", len(k), k, len(v), v)
			}
			reply = b.String()
		case cmd == "SLOWLOG LEN":
			reply = ":0\r\n"
		case strings.HasPrefix(cmd, "SLOWLOG GET"), strings.HasPrefix(cmd, "LATENCY"):
			reply = "*0\r\n"
		case cmd == "PING":
			reply = "+PONG\r\n"
		case strings.HasPrefix(cmd, "CLIENT SETNAME"), strings.HasPrefix(cmd, "SELECT"), strings.HasPrefix(cmd, "AUTH"):
			reply = "+OK\r\n"
		default:
			reply = "-ERR unknown command\r\n"
		}
		if _, err := io.WriteString(conn, reply); err != nil {
			return
		}
	}
}

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return strings.Fields(line), nil // inline
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	argv := make([]string, 0, n)
	for i := 0; i < n; i++ {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		argv = append(argv, string(buf[:size]))
	}
	return argv, nil
}

// TestMetricsRenderMatchesExporter: for the same data (valkey-server
// 8.0.1's INFO ALL and CONFIG GET, served by a fake server), every line
// redis_exporter prints for the server (HELP, TYPE, each sample with its
// value) is in internal/metrics' rendering, byte for byte. Left out:
// exporterOnly, start_time_seconds (the exporter dates it with its own
// clock: its name is checked), redis_up and redis_exporter_* (the scrape's
// own), and instance_info, whose labels newer exporters extend (its
// labels are compared as a subset).
func TestMetricsRenderMatchesExporter(t *testing.T) {
	exporter := needExporter(t)
	info, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "internal", "metrics", "testdata", "valkey-8.0.1-info-all.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]string{"databases": "16", "maxclients": "10000", "maxmemory": "0", "io-threads": "1",
		"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		"maxmemory-policy":           "noeviction", "port": "7391"}
	fake := startFakeServer(t, string(info), cfg)
	exported := runExporter(t, exporter, fake.ln.Addr().String())
	var b bytes.Buffer
	if err := metrics.Render(&b, &metrics.Source{Info: string(info), Config: cfg}); err != nil {
		t.Fatal(err)
	}
	rendered := parseExposition(t, b.String())
	skip := func(line string) bool {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		name, _, _ = strings.Cut(name, " ")
		name, _, _ = strings.Cut(name, "{")
		return exporterOnlyFamily(name) || name == "redis_up" || strings.HasPrefix(name, "redis_exporter_") ||
			name == "redis_target_scrape_request_errors_total" || name == "redis_instance_info" ||
			strings.HasPrefix(line, "redis_start_time_seconds ")
	}
	compared := 0
	for _, line := range strings.Split(exported, "\n") {
		if line == "" || skip(line) {
			continue
		}
		compared++
		if !rendered.lines[line] {
			t.Errorf("the exporter's line is not in the rendering: %s", line)
		}
	}
	if compared < 300 {
		t.Errorf("only %d lines compared", compared)
	}
	if rendered.values["redis_start_time_seconds"] == "" {
		t.Error("no redis_start_time_seconds")
	}
	want := parseExposition(t, exported)
	for set := range want.labels["redis_instance_info"] {
		ok := false
		for g := range rendered.labels["redis_instance_info"] {
			ok = ok || isSubset(strings.Split(set, ","), strings.Split(g, ","))
		}
		if !ok {
			t.Errorf("instance_info labels (%s), rendered %v", set, keys(rendered.labels["redis_instance_info"]))
		}
	}
	fake.mu.Lock()
	t.Logf("the exporter sent: %q", slices.Compact(fake.cmds))
	fake.mu.Unlock()
}

// TestPrometheusScrapesCorvid: the real Prometheus scrapes Corvid's
// endpoint on loopback and answers queries on what it scraped.
func TestPrometheusScrapesCorvid(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CORVID_REQUIRE_PROMETHEUS") != "" {
			t.Fatal("prometheus not installed but CORVID_REQUIRE_PROMETHEUS is set")
		}
		t.Skip("prometheus not installed")
	}
	metricsPort := testutil.FreePort(t)
	cv := testutil.StartCorvid(t, "--metrics-port", strconv.Itoa(metricsPort))
	c := testutil.Dial(t, cv.Addr)
	for i := 0; i < 7; i++ {
		c.Do("SET", fmt.Sprint("key", i), "v")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: corvid
    static_configs:
      - targets: ["127.0.0.1:%d"]
`, metricsPort)), 0o644); err != nil {
		t.Fatal(err)
	}
	promPort := testutil.FreePort(t)
	cmd := exec.Command(prom, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", promPort), "--log.level=warn")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	api := fmt.Sprintf("http://127.0.0.1:%d/api/v1/", promPort)
	query := func(q string) (string, error) {
		body, err := httpGet(api + "query?query=" + url.QueryEscape(q))
		if err != nil {
			return "", err
		}
		var r struct {
			Status string
			Data   struct {
				Result []struct {
					Metric map[string]string
					Value  []any
				}
			}
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return "", err
		}
		if r.Status != "success" || len(r.Data.Result) == 0 {
			return "", fmt.Errorf("no result yet: %s", body)
		}
		if r.Data.Result[0].Metric["job"] != "corvid" {
			return "", fmt.Errorf("not from the corvid job: %s", body)
		}
		v, _ := r.Data.Result[0].Value[1].(string)
		return v, nil
	}
	deadline := time.Now().Add(25 * time.Second)
	var last error
	for {
		v, err := query("redis_up")
		if err == nil && v == "1" {
			break
		}
		last = err
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus has no redis_up 1 from Corvid: %v\n%s", last, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	for q, want := range map[string]string{
		`redis_db_keys{db="db0"}`:         "7",
		`redis_commands_total{cmd="set"}`: "7",
		"redis_config_maxclients":         "10000",
	} {
		if v, err := query(q); err != nil || v != want {
			t.Errorf("%s = %q (%v), want %s", q, v, err, want)
		}
	}
	if v, err := query("redis_connected_clients"); err != nil || v == "0" {
		t.Errorf("redis_connected_clients = %q (%v)", v, err)
	}
	// The target is healthy: Prometheus parsed the whole exposition.
	body, err := httpGet(api + "targets")
	if err != nil || !strings.Contains(body, `"health":"up"`) {
		t.Errorf("targets: %v %s", err, body)
	}
}
