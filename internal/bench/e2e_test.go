package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/internal/server"
)

// hangTimeout bounds the waits for a server to start or its cluster to
// come up: only a hang reaches it (the machines that run these tests are
// small and noisy).
const hangTimeout = 30 * time.Second

// startRedis runs redis-server on a free loopback port for the test, or
// skips when it is not installed.
func startRedis(t *testing.T, extra ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir() // cluster mode writes nodes.conf here
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(hangTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
	}
	t.Fatalf("redis-server did not start on %s", addr)
	return ""
}

// servers are the targets of the end-to-end tests: a redis-server the test
// starts and an in-process corvid-server (or the one CORVID_SERVER_ADDR
// names, to test a separately built binary).
func servers(t *testing.T) map[string]string {
	out := map[string]string{"redis": startRedis(t)}
	if a := os.Getenv("CORVID_SERVER_ADDR"); a != "" {
		out["corvid"] = a
		return out
	}
	addr, stop, err := server.StartEmbedded()
	if err != nil {
		t.Fatalf("embedded corvid-server: %v", err)
	}
	t.Cleanup(stop)
	out["corvid"] = addr
	return out
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = MainContext(context.Background(), args, &o, &e)
	return o.String(), e.String(), code
}

func hostPort(addr string) (string, string) {
	h, p, _ := net.SplitHostPort(addr)
	return h, p
}

func TestLoadModeEndToEnd(t *testing.T) {
	for name, addr := range servers(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			h, p := hostPort(addr)
			js := filepath.Join(dir, "out.json")
			out, errOut, code := run(t, "-s", h, "-p", p, "-t", "1", "-c", "4", "--pipeline", "8", "--test-time", "1",
				"--ratio", "1:4", "--key-maximum", "1000", "--json-out-file", js, "--hdr-file-prefix", filepath.Join(dir, "h"),
				"--print-percentiles", "50,99,99.9")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{"ALL STATS", "Sets", "Gets", "Waits", "Totals", "p99.9 Latency", "Request Latency Distribution", "ops per CPU-second"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			var doc map[string]map[string]map[string]any
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &struct{ X any }{}); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal(b, &doc)
			if ops, _ := doc["ALL STATS"]["Totals"]["Ops/sec"].(float64); ops <= 0 {
				t.Fatalf("JSON totals: %v", doc["ALL STATS"]["Totals"])
			}
			hg, _ := filepath.Glob(filepath.Join(dir, "h_*_RUN_1.hgrm"))
			if len(hg) < 2 {
				t.Fatalf("hdr files: %v", hg)
			}
			// The JSON is memtier-shaped, so report reads it back.
			rep, errOut, code := run(t, "report", "--out", "", "x="+js)
			if code != 0 || !strings.Contains(rep, "get") || !strings.Contains(rep, "set") {
				t.Fatalf("report on our JSON: %d %s\n%s", code, errOut, rep)
			}
		})
	}
}

func TestRunsAndOutFile(t *testing.T) {
	addr := startRedis(t)
	h, p := hostPort(addr)
	outFile := filepath.Join(t.TempDir(), "o.txt")
	_, errOut, code := run(t, "-s", h, "-p", p, "-t", "1", "-c", "2", "-n", "200", "-x", "2", "--print-all-runs",
		"--hide-histogram", "-o", outFile, "--command=incr __key__", "--command=get __key__", "--command-ratio=2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(outFile)
	out := string(b)
	for _, want := range []string{"RUN #1 RESULTS", "RUN #2 RESULTS", "BEST RUN RESULTS", "WORST RUN RESULTS", "AGGREGATED AVERAGE RESULTS (2 runs)", "Incrs", "Gets"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if strings.Contains(out, "Request Latency Distribution") || strings.Contains(out, "Waits") {
		t.Error("histogram printed despite --hide-histogram, or Waits row with --command")
	}
}

func TestSeveralServersSum(t *testing.T) {
	a, b := startRedis(t), startRedis(t)
	out, errOut, code := run(t, "-s", a+","+b, "-t", "1", "-c", "2", "--test-time", "300ms", "--hide-histogram")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "PER SERVER") || !strings.Contains(out, a) || !strings.Contains(out, b) || !strings.Contains(out, "Sum") {
		t.Fatal(out)
	}
}

func TestMatrixThenReport(t *testing.T) {
	for name, addr := range servers(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			prefix := filepath.Join(dir, "m")
			out, errOut, code := run(t, "matrix", "--target", "base="+addr, "--target", "same="+addr, "--io-threads", "2",
				"--price", "base=1.0", "--price", "same=0.5", "-t", "1", "-c", "2", "--test-time", "70ms", "--out", prefix, "--png")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{"get", "hset", "incr", "lpush", "sadd", "set", "zadd", "total (normalized)", "price-performance (normalized)", "50%"} {
				if !strings.Contains(out, want) {
					t.Errorf("matrix output lacks %q:\n%s", want, out)
				}
			}
			// The seed's exact memtier command lines are logged.
			if !strings.Contains(errOut, `--command="zadd __key__ __key__ __data__" --key-prefix=""`) {
				t.Errorf("log lacks the seed's zadd line:\n%s", errOut)
			}
			if name == "redis" && !strings.Contains(out, "recorded as a label only") {
				t.Errorf("redis refuses CONFIG SET io-threads; the note is missing:\n%s", out)
			}
			for _, ext := range []string{".csv", "-normalized.csv", ".json", ".svg", ".png"} {
				if st, err := os.Stat(prefix + ext); err != nil || st.Size() == 0 {
					t.Errorf("%s%s: %v", prefix, ext, err)
				}
			}
			// report on the recorded CSV reproduces the same table.
			rep, errOut, code := run(t, "report", "--price", "base=1.0", "--price", "same=0.5", "--out", "", prefix+".csv")
			if code != 0 {
				t.Fatalf("report exit %d: %s", code, errOut)
			}
			if cut(rep, "baseline") != cut(out, "baseline") {
				t.Errorf("report differs from matrix:\n%s\n---\n%s", rep, out)
			}
		})
	}
}

func cut(s, marker string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return s
	}
	return s[:i]
}

func TestSLAEndToEnd(t *testing.T) {
	// One redis-server and one corvid-server as the two instances.
	srv := servers(t)
	a, b := srv["redis"], srv["corvid"]
	js := filepath.Join(t.TempDir(), "sla.json")
	// A bound every step meets however slow the machine: the search goes
	// through both phases.
	out, errOut, code := run(t, "sla", "--target", "r1="+a, "--target", "c1="+b, "--connections", "1,2",
		"--sla", "1h", "--test-time", "200ms", "--pipeline", "4", "--json-out-file", js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"SLA: p99 <= 3600000.000 ms", "connections", "instances", "answer:"} {
		if !strings.Contains(out, want) {
			t.Errorf("sla output lacks %q:\n%s", want, out)
		}
	}
	var res struct {
		Curve []struct{ Instances int }
		Best  *struct {
			OpsSec float64 `json:"ops_sec"`
		}
	}
	b2, _ := os.ReadFile(js)
	if err := json.Unmarshal(b2, &res); err != nil || res.Best == nil || res.Best.OpsSec <= 0 || len(res.Curve) != 3 {
		t.Fatalf("json %s err %v", b2, err)
	}
	// A bound nothing can meet gives a clear "no step" answer, exit 0.
	// The step over the bound ran twice (--retries 1 by default); with
	// --retries 0, once.
	out, _, code = run(t, "sla", "--target", "r1="+a, "--connections", "1", "--sla", "1ns", "--test-time", "100ms")
	if code != 0 || !strings.Contains(out, "no step kept p99") || strings.Count(out, "over bound") != 2 ||
		!strings.Contains(out, "over bound (again, 1)") {
		t.Fatalf("%d %s", code, out)
	}
	out, _, code = run(t, "sla", "--target", "r1="+a, "--connections", "1", "--sla", "1ns", "--test-time", "100ms", "--retries", "0")
	if code != 0 || !strings.Contains(out, "no step kept p99") || strings.Count(out, "over bound") != 1 {
		t.Fatalf("--retries 0: %d %s", code, out)
	}
}

func TestEmbeddedDefault(t *testing.T) {
	old := StartEmbedded
	defer func() { StartEmbedded = old }()
	StartEmbedded = nil
	_, errOut, code := run(t, "-n", "10")
	if code != 1 || !strings.Contains(errOut, "embedded server not available") {
		t.Fatalf("%d %s", code, errOut)
	}
	addr := startRedis(t)
	stopped := false
	StartEmbedded = func() (string, func(), error) { return addr, func() { stopped = true }, nil }
	out, errOut, code := run(t, "-t", "1", "-c", "1", "-n", "20", "--hide-histogram")
	if code != 0 || !strings.Contains(out, "ALL STATS") || !strings.Contains(errOut, "embedded corvid-server at "+addr) || !stopped {
		t.Fatalf("%d %s %s", code, errOut, out)
	}
	out, errOut, code = run(t, "matrix", "--commands", "set,get", "-t", "1", "-c", "1", "--test-time", "50ms", "--out", "", "--no-discover", "--rounds", "1")
	if code != 0 || !strings.Contains(out, "corvid") {
		t.Fatalf("matrix on embedded: %d %s %s", code, errOut, out)
	}
	StartEmbedded = func() (string, func(), error) { return "", nil, fmt.Errorf("port in use") }
	if _, errOut, code := run(t, "sla"); code != 1 || !strings.Contains(errOut, "port in use") {
		t.Fatalf("%d %s", code, errOut)
	}
}

func TestCommandLineErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--nope"}, 2, "unrecognized option"},
		{[]string{"-t", "0"}, 2, "threads must be greater than zero"},
		{[]string{"-p", "1", "-n", "5", "extra"}, 2, "unexpected argument"},
		{[]string{"-p", "1", "-n", "5"}, 1, "cannot connect to localhost:1"},
		{[]string{"-s", "127.0.0.1", "-p", "1", "--cluster-mode", "-n", "5"}, 1, "cannot connect"},
		{[]string{"matrix", "--target", "nope"}, 2, "--target must be name=host:port"},
		{[]string{"matrix", "--target", "a=127.0.0.1:1", "--test-time", "1"}, 1, "cannot connect to 127.0.0.1:1"},
		{[]string{"matrix", "--commands", "flush", "--target", "a=127.0.0.1:1"}, 1, "unknown seed command"},
		{[]string{"matrix", "--command=get __key__", "--target", "a=127.0.0.1:1"}, 2, "--commands"},
		{[]string{"report"}, 2, "at least one FILE"},
		{[]string{"report", "/nonexistent.csv"}, 1, "no such file"},
		{[]string{"report", "--price", "x"}, 2, "--price must be"},
		{[]string{"sla", "--sla", "fast"}, 2, "--sla must be"},
		{[]string{"sla", "--connections", "4,2"}, 2, "ascending"},
		{[]string{"sla", "--retries", "-1"}, 2, "--retries must be"},
		{[]string{"--tls"}, 2, "--tls needs a server"},
		{[]string{"-p", "1", "--cacert", "ca.crt"}, 2, "--cacert needs --tls"},
		{[]string{"-p", "1", "--tls", "--client-io", "epoll"}, 2, "--tls needs the goroutine client"},
		{[]string{"-p", "1", "--tls", "--cert", "/nonexistent.crt", "--key", "/nonexistent.key"}, 1, "failed to load the client certificate"},
		{[]string{"matrix", "--tls", "--target", "a=127.0.0.1:1"}, 2, "matrix does not support --tls"},
		{[]string{"sla", "--tls", "-p", "1"}, 2, "sla does not support --tls"},
		{[]string{"pubsub", "--tls", "-p", "1"}, 2, "pubsub does not support --tls"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, errOut, code := run(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, c.code, errOut, c.msg)
			}
		})
	}
	// help and version succeed.
	for _, a := range [][]string{{"--help"}, {"help"}, {"-v"}, {"matrix", "--help"}, {"report", "--help"}, {"sla", "--help"}} {
		if out, _, code := run(t, a...); code != 0 || out == "" {
			t.Errorf("%v: exit %d", a, code)
		}
	}
}

func TestClusterModeAgainstStandaloneRedis(t *testing.T) {
	addr := startRedis(t)
	h, p := hostPort(addr)
	_, errOut, code := run(t, "-s", h, "-p", p, "--cluster-mode", "-n", "5", "-t", "1", "-c", "1")
	if code != 1 || !strings.Contains(errOut, "cluster support disabled") {
		t.Fatalf("%d %s", code, errOut)
	}
}

// A one-node redis cluster owning every slot: CLUSTER SLOTS from a real
// server is parsed and requests are routed without redirects.
func TestClusterModeAgainstRedisCluster(t *testing.T) {
	addr := startRedis(t, "--cluster-enabled", "yes")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(wire.AppendCommand(nil, "CLUSTER", "ADDSLOTSRANGE", "0", "16383")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	if n, err := c.Read(buf); err != nil || !strings.HasPrefix(string(buf[:n]), "+OK") {
		t.Skipf("CLUSTER ADDSLOTSRANGE: %q %v", buf[:n], err)
	}
	// wait for cluster_state:ok
	for deadline := time.Now().Add(hangTimeout); ; time.Sleep(10 * time.Millisecond) {
		_, _ = c.Write(wire.AppendCommand(nil, "CLUSTER", "INFO"))
		n, _ := c.Read(buf)
		if strings.Contains(string(buf[:n]), "cluster_state:ok") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("cluster did not become ok")
		}
	}
	h, p := hostPort(addr)
	out, errOut, code := run(t, "-s", h, "-p", p, "--cluster-mode", "-t", "1", "-c", "2", "-n", "200", "--pipeline", "4", "--hide-histogram")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "MOVED/sec") || !strings.Contains(out, "ASK/sec") || strings.Contains(errOut, "error replies") {
		t.Fatalf("%s\n%s", out, errOut)
	}
}
