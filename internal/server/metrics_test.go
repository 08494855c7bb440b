package server

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

func scrapeMetrics(t *testing.T, port int) (string, error) {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	return string(b), err
}

// TestMetricsEndpoint: metrics-port serves INFO's numbers under
// redis_exporter's names, off by default; CONFIG SET moves it, turns it
// off, and when the new port is taken fails and keeps the old one.
func TestMetricsEndpoint(t *testing.T) {
	s, addr := startIntroServer(t)
	if a := s.MetricsAddrs(); len(a) != 0 {
		t.Fatalf("metrics endpoint on by default: %v", a)
	}

	s, addr, p1 := startOnFreePort(t, "--metrics-port", "--enable-debug-command", "yes",
		"--slowlog-log-slower-than", "0", "--latency-monitor-threshold", "1")
	if a := s.MetricsAddrs(); len(a) != 1 || a[0] != fmt.Sprintf("127.0.0.1:%d", p1) {
		t.Fatalf("metrics on %v, want 127.0.0.1:%d", a, p1)
	}
	c := testutil.Dial(t, addr)
	for _, args := range [][]string{{"SET", "k", "v"}, {"GET", "k"}, {"SELECT", "2"}, {"SET", "t", "v", "EX", "100"},
		{"NOSUCH"}, {"DEBUG", "SLEEP", "0.02"}} {
		c.Do(args...)
	}
	body, err := scrapeMetrics(t, p1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"redis_up 1\n",
		"redis_connected_clients 1\n",
		`redis_commands_total{cmd="set"} 2` + "\n",
		`redis_commands_total{cmd="get"} 1` + "\n",
		`redis_db_keys{db="db0"} 1` + "\n",
		`redis_db_keys_expiring{db="db2"} 1` + "\n",
		`redis_db_keys{db="db15"} 0` + "\n",
		`redis_errors_total{err="ERR"} 1` + "\n",
		"redis_config_maxclients 10000\n",
		`redis_latency_spike_duration_seconds{event_name="command"} `,
		`redis_latency_percentiles_usec_count{cmd="set"} 2` + "\n",
		"redis_exporter_scrapes_total 1\n",
		"# TYPE redis_commands_processed_total counter\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in\n%s", want, body)
		}
	}
	// Scraping runs no command (redis_exporter's INFO and CONFIG GET
	// show in the stats; the endpoint's reads do not).
	if strings.Contains(body, `cmd="info"`) || strings.Contains(body, `cmd="config|get"`) {
		t.Error("the scrape counted as a command")
	}
	// The slow log held every command (threshold 0) until the CONFIG
	// SET: its length is SLOWLOG LEN's.
	c.Do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
	n := c.Do("SLOWLOG", "LEN")
	body, _ = scrapeMetrics(t, p1)
	if !strings.Contains(body, "redis_slowlog_length "+strings.TrimPrefix(n, ":")+"\n") {
		t.Errorf("SLOWLOG LEN %s, metrics:\n%s", n, grepLines(body, "slowlog"))
	}
	// The numbers are INFO's: the same counter read both ways.
	info := c.Do("INFO", "stats")
	m := regexp.MustCompile(`total_connections_received:(\d+)`).FindStringSubmatch(info)
	if m == nil || !strings.Contains(body, "redis_connections_received_total "+m[1]+"\n") {
		t.Errorf("INFO says %v, metrics:\n%s", m, grepLines(body, "connections_received"))
	}

	// CONFIG SET moves the endpoint.
	p2 := testutil.FreePort(t)
	if r := c.Do("CONFIG", "SET", "metrics-port", fmt.Sprint(p2)); r != "+OK" {
		t.Fatalf("CONFIG SET metrics-port: %s", r)
	}
	if _, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", p1)); err == nil {
		t.Error("the old port still answers")
	}
	if _, err := scrapeMetrics(t, p2); err != nil {
		t.Fatal(err)
	}
	// A taken port: CONFIG SET fails, the endpoint stays where it was.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	bp := busy.Addr().(*net.TCPAddr).Port
	want := "-ERR CONFIG SET failed (possibly related to argument 'metrics-port') - Unable to listen on metrics-port. Check server logs."
	if r := c.Do("CONFIG", "SET", "metrics-port", fmt.Sprint(bp)); r != want {
		t.Errorf("CONFIG SET to a taken port: %s", r)
	}
	if r := c.Do("CONFIG", "GET", "metrics-port"); !strings.Contains(r, fmt.Sprint(p2)) {
		t.Errorf("CONFIG GET metrics-port after the failure: %s", r)
	}
	if _, err := scrapeMetrics(t, p2); err != nil {
		t.Fatalf("after the failed CONFIG SET: %v", err)
	}
	// 0 turns it off.
	if r := c.Do("CONFIG", "SET", "metrics-port", "0"); r != "+OK" {
		t.Fatalf("CONFIG SET metrics-port 0: %s", r)
	}
	if a := s.MetricsAddrs(); len(a) != 0 {
		t.Errorf("still on: %v", a)
	}
	s.Close()
	if _, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", p2)); err == nil {
		t.Error("the endpoint outlives the server")
	}
}

// TestMetricsClosesWithServer: Close stops the endpoint.
func TestMetricsClosesWithServer(t *testing.T) {
	p := testutil.FreePort(t)
	s, _ := startIntroServer(t, "--metrics-port", fmt.Sprint(p))
	if _, err := scrapeMetrics(t, p); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", p)); err == nil {
		t.Error("the endpoint outlives the server")
	}
}

func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMetricsClusterMode: in cluster mode the endpoint adds CLUSTER
// INFO's fields, as redis_exporter does, and only db0.
func TestMetricsClusterMode(t *testing.T) {
	p := testutil.FreePort(t)
	port := testutil.FreePort(t)
	for port > 55535 { // the bus port is port+10000
		port = testutil.FreePort(t)
	}
	s := listenServer(t, "", "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
		"--metrics-port", fmt.Sprint(p))
	go s.Serve()
	t.Cleanup(s.Close)
	body, err := scrapeMetrics(t, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"redis_cluster_enabled 1\n", "redis_cluster_state 0\n", "redis_cluster_known_nodes 1\n",
		"redis_cluster_slots_assigned 0\n", `redis_db_keys{db="db0"} 0` + "\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in\n%s", want, grepLines(body, "cluster"))
		}
	}
	if strings.Contains(body, `db="db1"`) {
		t.Error("databases beyond db0 in cluster mode")
	}
}
