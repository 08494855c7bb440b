package metrics

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// valkeyInfo is INFO ALL from valkey-server 8.0.1 after SET a, SET c,
// GET a, LPUSH l, SELECT 3, SET b EX 100 and an unknown command.
func valkeyInfo(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/valkey-8.0.1-info-all.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var defaultConfig = map[string]string{
	"databases": "16", "maxclients": "10000", "maxmemory": "0", "io-threads": "1",
	"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
}

func render(t *testing.T, src *Source) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, src); err != nil {
		t.Fatal(err)
	}
	checkFormat(t, b.String())
	return b.String()
}

var (
	sampleRE = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (\S+)$`)
	typeRE   = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|summary|histogram|untyped)$`)
	helpRE   = regexp.MustCompile(`^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .*$`)
)

// checkFormat checks the text exposition format: each family once, HELP
// then TYPE before its samples, samples of a family together (a
// summary's _sum and _count belong to it), valid names, labels and
// numbers, no duplicate series.
func checkFormat(t *testing.T, text string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Fatal("the text does not end in a newline")
	}
	families := map[string]bool{}
	series := map[string]bool{}
	cur, curType := "", ""
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "# HELP "):
			m := helpRE.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("line %d: bad HELP %q", i+1, line)
			}
			if families[m[1]] {
				t.Fatalf("line %d: family %s twice", i+1, m[1])
			}
			families[m[1]] = true
			cur, curType = m[1], ""
		case strings.HasPrefix(line, "# TYPE "):
			m := typeRE.FindStringSubmatch(line)
			if m == nil || m[1] != cur || curType != "" {
				t.Fatalf("line %d: TYPE %q not right after its HELP", i+1, line)
			}
			curType = m[2]
		default:
			m := sampleRE.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("line %d: bad sample %q", i+1, line)
			}
			name := m[1]
			if curType == "summary" {
				name = strings.TrimSuffix(strings.TrimSuffix(name, "_sum"), "_count")
			}
			if name != cur || curType == "" {
				t.Fatalf("line %d: sample %q outside its family (%s)", i+1, line, cur)
			}
			if v := m[4]; v != "+Inf" && v != "-Inf" && v != "NaN" {
				if _, ok := parseValue(v); !ok {
					t.Fatalf("line %d: bad value %q", i+1, v)
				}
			}
			id := line[:strings.LastIndexByte(line, ' ')]
			if series[id] {
				t.Fatalf("line %d: series %s twice", i+1, id)
			}
			series[id] = true
		}
	}
}

func TestRenderValkeyInfo(t *testing.T) {
	now := time.Unix(1796244725, 0)
	out := render(t, &Source{Info: valkeyInfo(t), Config: defaultConfig, Now: now})
	want := []string{
		// Fields under their own names, and the exporter's renames.
		"# HELP redis_connected_clients connected_clients metric\n# TYPE redis_connected_clients gauge\nredis_connected_clients 1\n",
		"# TYPE redis_commands_processed_total counter\nredis_commands_processed_total 8\n",
		"redis_memory_used_bytes 1.080664e+06\n",
		"redis_memory_max_bytes 0\n",
		"redis_mem_fragmentation_ratio 6.14\n",
		"redis_rdb_last_bgsave_status 1\n", // ok
		"redis_rdb_last_bgsave_duration_sec -1\n",
		"redis_latest_fork_seconds 0\n", // latest_fork_usec, in seconds
		"redis_keyspace_hits_total 1\n",
		"# TYPE redis_expired_time_cap_reached_total gauge\n", // as the Debian exporter (1.45) types it
		"redis_cpu_user_main_thread_seconds_total ",
		"redis_uptime_in_seconds 358\n",
		"redis_start_time_seconds 1.796244367e+09\n",
		"redis_cluster_enabled 0\n",
		"redis_hz 10\n",
		"redis_max_clients 10000\n",
		// Per command.
		"# TYPE redis_commands_total counter\n",
		`redis_commands_total{cmd="set"} 3` + "\n",
		`redis_commands_total{cmd="config|resetstat"} 1` + "\n",
		`redis_commands_duration_seconds_total{cmd="set"} 2e-05` + "\n",
		`redis_commands_failed_calls_total{cmd="get"} 0` + "\n",
		`redis_commands_rejected_calls_total{cmd="get"} 0` + "\n",
		"# TYPE redis_latency_percentiles_usec summary\n",
		`redis_latency_percentiles_usec{cmd="set",quantile="50"} 8.031` + "\n" +
			`redis_latency_percentiles_usec{cmd="set",quantile="99"} 9.023` + "\n" +
			`redis_latency_percentiles_usec{cmd="set",quantile="99.9"} 9.023` + "\n" +
			`redis_latency_percentiles_usec_sum{cmd="set"} 20` + "\n" +
			`redis_latency_percentiles_usec_count{cmd="set"} 3` + "\n",
		// Errors and databases.
		"# TYPE redis_errors_total counter\n" + `redis_errors_total{err="ERR"} 1` + "\n",
		`redis_db_keys{db="db0"} 3` + "\n",
		`redis_db_keys{db="db3"} 1` + "\n",
		`redis_db_keys{db="db15"} 0` + "\n",
		`redis_db_keys_expiring{db="db3"} 1` + "\n",
		`redis_db_keys_expiring{db="db9"} 0` + "\n",
		`redis_db_avg_ttl_seconds{db="db0"} 0` + "\n",
		// CONFIG GET.
		"redis_config_maxclients 10000\n",
		"redis_config_maxmemory 0\n",
		"redis_config_io_threads 1\n",
		`redis_config_client_output_buffer_limit_bytes{class="slave",limit="hard"} 2.68435456e+08` + "\n",
		`redis_config_client_output_buffer_limit_overcome_seconds{class="pubsub",limit="soft"} 60` + "\n",
		// The slow log, empty.
		"redis_slowlog_length 0\n", "redis_slowlog_last_id 0\n", "redis_last_slow_execution_duration_seconds 0\n",
		// The instance's description, labels sorted by name.
		`redis_instance_info{master_replid="399598b15f3068968cc41f0fbbdc3f07aeab97b9",maxmemory_policy="noeviction",os="Linux 6.18.44-fc-v857 x86_64",process_id="9963",redis_build_id="12b208e71060a802",redis_mode="standalone",redis_version="7.2.4",role="master",run_id="11d8a87018e670d42db36bdb07acdaa7edb273ee",tcp_port="7391",valkey_version="8.0.1"} 1` + "\n",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q", w)
		}
	}
	for _, not := range []string{
		"redis_db_avg_ttl_seconds{db=\"db1\"}",                      // only the databases INFO lists
		"redis_used_memory_human", "redis_executable", "redis_role", // text and unmapped fields
		"redis_latest_fork_usec", "redis_slave_info", "redis_master_link_up",
		`redis_db_keys{db="db16"}`,
	} {
		if strings.Contains(out, not) {
			t.Errorf("unexpected %q", not)
		}
	}
	// LF-only INFO (as some clients print it) renders the same.
	if lf := render(t, &Source{Info: strings.ReplaceAll(valkeyInfo(t), "\r\n", "\n"), Config: defaultConfig, Now: now}); lf != out {
		t.Error("LF and CRLF INFO render differently")
	}
}

func TestRenderReplica(t *testing.T) {
	info := "# Server\r\nredis_version:7.2.4\r\nuptime_in_seconds:10\r\n" +
		"# Replication\r\nrole:slave\r\nmaster_host:10.1.2.3\r\nmaster_port:6380\r\nmaster_link_status:up\r\n" +
		"master_last_io_seconds_ago:2\r\nmaster_sync_in_progress:0\r\nslave_read_repl_offset:99\r\nslave_repl_offset:98\r\n" +
		"slave_priority:100\r\nslave_read_only:1\r\nreplica_announced:1\r\nconnected_slaves:0\r\nmaster_repl_offset:98\r\n"
	out := render(t, &Source{Info: info, Now: time.Unix(100, 0)})
	for _, w := range []string{
		`redis_master_link_up{master_host="10.1.2.3",master_port="6380"} 1`,
		`redis_master_last_io_seconds_ago{master_host="10.1.2.3",master_port="6380"} 2`,
		`redis_master_sync_in_progress{master_host="10.1.2.3",master_port="6380"} 0`,
		`redis_slave_repl_offset{master_host="10.1.2.3",master_port="6380"} 98`,
		`redis_slave_info{master_host="10.1.2.3",master_port="6380",read_only="1"} 1`,
		"redis_slave_priority 100\n",
		"redis_master_repl_offset 98\n",
		"redis_start_time_seconds 90\n",
		`redis_db_keys{db="db15"} 0`, // no CONFIG: 16 databases
	} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in\n%s", w, out)
		}
	}
	down := render(t, &Source{Info: strings.Replace(info, "master_link_status:up", "master_link_status:down", 1)})
	if !strings.Contains(down, `redis_master_link_up{master_host="10.1.2.3",master_port="6380"} 0`) {
		t.Error("a down link is not 0")
	}
}

func TestRenderPrimaryWithReplicas(t *testing.T) {
	info := "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n" +
		"slave0:ip=127.0.0.1,port=7001,state=online,offset=420,lag=1\r\n" +
		"slave1:ip=127.0.0.1,port=7002,state=wait_bgsave,offset=0,lag=0\r\n" +
		"master_repl_offset:420\r\nrepl_backlog_active:1\r\nrepl_backlog_size:1048576\r\n"
	out := render(t, &Source{Info: info})
	for _, w := range []string{
		`redis_connected_slave_offset_bytes{slave_ip="127.0.0.1",slave_port="7001",slave_state="online"} 420`,
		`redis_connected_slave_lag_seconds{slave_ip="127.0.0.1",slave_port="7001",slave_state="online"} 1`,
		`redis_connected_slave_offset_bytes{slave_ip="127.0.0.1",slave_port="7002",slave_state="wait_bgsave"} 0`,
		"redis_connected_slaves 2\n",
		"redis_repl_backlog_is_active 1\n",
		"redis_replication_backlog_bytes 1.048576e+06\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in\n%s", w, out)
		}
	}
	if strings.Contains(out, "redis_slave_info") {
		t.Error("slave_info on a primary")
	}
}

func TestRenderClusterAndLatency(t *testing.T) {
	info := "# Cluster\r\ncluster_enabled:1\r\n# Keyspace\r\ndb0:keys=5,expires=2,avg_ttl=1500\r\n"
	cluster := "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_known_nodes:3\r\n" +
		"cluster_stats_messages_sent:10\r\ncluster_stats_messages_received:9\r\ntotal_cluster_links_buffer_limit_exceeded:0\r\n"
	out := render(t, &Source{
		Info: info, ClusterInfo: cluster, Config: defaultConfig,
		SlowlogLen: 3, SlowlogLastID: 41, SlowlogLastMicros: 25000,
		Latency: []LatencyEvent{{"command", 1700000000, 120}, {"fast-command", 1700000001, 2}},
	})
	for _, w := range []string{
		"redis_cluster_enabled 1\n",
		"redis_cluster_state 1\n",
		"redis_cluster_slots_assigned 16384\n",
		"redis_cluster_known_nodes 3\n",
		"redis_cluster_messages_sent_total 10\n",
		"redis_cluster_messages_received_total 9\n",
		`redis_db_keys{db="db0"} 5`,
		`redis_db_keys_expiring{db="db0"} 2`,
		`redis_db_avg_ttl_seconds{db="db0"} 1.5`,
		"redis_slowlog_length 3\n", "redis_slowlog_last_id 41\n", "redis_last_slow_execution_duration_seconds 0.025\n",
		`redis_latency_spike_last{event_name="command"} 1.7e+09`,
		`redis_latency_spike_duration_seconds{event_name="command"} 0.12`,
		`redis_latency_spike_duration_seconds{event_name="fast-command"} 0.002`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in\n%s", w, out)
		}
	}
	// Cluster mode has one database: no padding beyond db0.
	if strings.Contains(out, `db="db1"`) || strings.Contains(out, "total_cluster_links") {
		t.Errorf("unexpected series in\n%s", out)
	}
}

func TestFormatting(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 1: "1", -1: "-1", 0.5: "0.5", 1e6: "1e+06", 123456: "123456",
		1100472: "1.100472e+06", 2.68435456e8: "2.68435456e+08"} {
		if got := formatFloat(in); got != want {
			t.Errorf("formatFloat(%v) = %q, want %q", in, got, want)
		}
	}
	if got := escapeLabel("a\"b\\c\nd"); got != `a\"b\\c\nd` {
		t.Errorf("escapeLabel: %q", got)
	}
	if got := sanitizeName("a-b.c|d"); got != "a_b_c_d" {
		t.Errorf("sanitizeName: %q", got)
	}
}

func TestHandler(t *testing.T) {
	var fail error
	h := NewHandler(func() (*Source, error) {
		if fail != nil {
			return nil, fail
		}
		return &Source{Info: "# Clients\r\nconnected_clients:7\r\n"}, nil
	})
	get := func(method, path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w
	}
	w := get("GET", "/metrics")
	if w.Code != 200 || w.Header().Get("Content-Type") != ContentType {
		t.Fatalf("GET /metrics: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	body := w.Body.String()
	checkFormat(t, body)
	for _, s := range []string{"redis_up 1\n", "redis_connected_clients 7\n", `redis_exporter_last_scrape_error{err=""} 0`,
		"redis_exporter_scrapes_total 1\n", "redis_exporter_scrape_duration_seconds_count 1\n",
		"# TYPE redis_exporter_scrape_duration_seconds summary\n", "redis_exporter_last_scrape_duration_seconds ",
		"redis_target_scrape_request_errors_total 0\n"} {
		if !strings.Contains(body, s) {
			t.Errorf("missing %q in\n%s", s, body)
		}
	}
	fail = errors.New(`no "server"` + "\n")
	body = get("GET", "/metrics").Body.String()
	checkFormat(t, body)
	for _, s := range []string{"redis_up 0\n", `redis_exporter_last_scrape_error{err="no \"server\"\n"} 1`, "redis_exporter_scrapes_total 2\n"} {
		if !strings.Contains(body, s) {
			t.Errorf("missing %q in\n%s", s, body)
		}
	}
	if strings.Contains(body, "connected_clients") {
		t.Error("a failed scrape rendered server metrics")
	}
	if c := get("GET", "/nope").Code; c != http.StatusNotFound {
		t.Errorf("GET /nope: %d", c)
	}
	if c := get("POST", "/metrics").Code; c != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %d", c)
	}
	if w := get("GET", "/"); w.Code != 200 || !strings.Contains(w.Body.String(), `href="/metrics"`) {
		t.Errorf("GET /: %d %q", w.Code, w.Body.String())
	}
}
