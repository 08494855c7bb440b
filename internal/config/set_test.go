package config

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func pairs(kv ...string) [][2]string {
	out := make([][2]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, [2]string{kv[i], kv[i+1]})
	}
	return out
}

func TestSetErrors(t *testing.T) {
	tests := []struct {
		kv   []string
		want string
	}{
		{[]string{"foo", "bar"}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{[]string{"fo\r\no", "bar"}, "ERR Unknown option or number of arguments for CONFIG SET - 'fo  o'"},
		{[]string{"maxmemory", "1", "foo", "2"}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{[]string{"foo", "1", "daemonize", "yes"}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		// Once a name is invalid, later unknown names no longer take over.
		{[]string{"maxmemory", "1", "daemonize", "yes", "foo", "3"}, "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config"},
		{[]string{"maxmemory", "abc"}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"},
		{[]string{"daemonize", "yes"}, "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config"},
		{[]string{"DAEMONIZE", "yes"}, "ERR CONFIG SET failed (possibly related to argument 'DAEMONIZE') - can't set immutable config"},
		{[]string{"slaveof", "no one"}, "ERR CONFIG SET failed (possibly related to argument 'slaveof') - can't set immutable config"},
		{[]string{"maxmemory", "1", "maxmemory", "2"}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate parameter"},
		{[]string{"maxmemory", "1", "MAXMEMORY", "2"}, "ERR CONFIG SET failed (possibly related to argument 'MAXMEMORY') - duplicate parameter"},
		{[]string{"port", "70000"}, "ERR CONFIG SET failed (possibly related to argument 'port') - argument must be between 0 and 65535 inclusive"},
		{[]string{"metrics-port", "70000"}, "ERR CONFIG SET failed (possibly related to argument 'metrics-port') - argument must be between 0 and 65535 inclusive"},
		{[]string{"metrics-bind", ""}, "ERR CONFIG SET failed (possibly related to argument 'metrics-bind') - metrics-bind needs at least one address"},
		{[]string{"metrics-bind", "127.0.0.1 no/such"}, "ERR CONFIG SET failed (possibly related to argument 'metrics-bind') - Invalid metrics-bind address no/such"},
		{[]string{"protected-mode", "maybe"}, "ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'"},
		{[]string{"maxmemory-policy", "foo"}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
		{[]string{"hz", "abc"}, "ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer"},
		{[]string{"timeout", "-1"}, "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive"},
		{[]string{"save", "10"}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
		{[]string{"client-output-buffer-limit", "foo"}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Wrong number of arguments in buffer limit configuration."},
		{[]string{"client-output-buffer-limit", "master 1 1 1"}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Invalid client class specified in buffer limit configuration."},
		{[]string{"maxmemory-clients", "-5%"}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value"},
		{[]string{"maxmemory-clients", "200%"}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - percentage argument must be less or equal to 100"},
		{[]string{"shutdown-on-sigint", "save nosave"}, "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - shutdown options SAVE and NOSAVE can't be used simultaneously"},
		{[]string{"notify-keyspace-events", "Z"}, "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'."},
		{[]string{"oom-score-adj-values", "1 2"}, "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - wrong number of arguments"},
		{[]string{"dir", "/tmp"}, "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"},
		{[]string{"dbfilename", "x.rdb"}, "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config"},
		{[]string{"unixsocketperm", "999"}, "ERR CONFIG SET failed (possibly related to argument 'unixsocketperm') - can't set immutable config"},
		{[]string{"latency-tracking-info-percentiles", "101"}, "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		// A value error names the registered name, i.e. the alias when used.
		{[]string{"SLAVE-PRIORITY", "x"}, "ERR CONFIG SET failed (possibly related to argument 'slave-priority') - argument couldn't be parsed into an integer"},
		// Alias and canonical name are distinct entries upstream: no duplicate.
		{[]string{"slave-priority", "1", "replica-priority", "x"}, "ERR CONFIG SET failed (possibly related to argument 'replica-priority') - argument couldn't be parsed into an integer"},
		// Corvid refusals.
		{[]string{"cluster-enabled", "yes"}, "ERR CONFIG SET failed (possibly related to argument 'cluster-enabled') - can't set immutable config"},
	}
	for _, tc := range tests {
		c := Default()
		before := c.Get("*")
		err := c.Set(pairs(tc.kv...))
		if err == nil || err.Error() != tc.want {
			t.Errorf("CONFIG SET %q:\n got %v\nwant %s", tc.kv, err, tc.want)
		}
		var re ReplyError
		if !errors.As(err, &re) {
			t.Errorf("CONFIG SET %q: error is %T, want ReplyError", tc.kv, err)
		}
		if after := c.Get("*"); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("CONFIG SET %q changed values despite failing", tc.kv)
		}
	}
}

func TestSetValues(t *testing.T) {
	tests := []struct {
		kv       []string
		name     string
		want     string
		wantSame bool // value unchanged from default
	}{
		{kv: []string{"maxmemory", "1GB"}, name: "maxmemory", want: "1073741824"},
		{kv: []string{"maxmemory", ""}, name: "maxmemory", want: "0"},
		{kv: []string{"maxmemory-clients", "5%"}, name: "maxmemory-clients", want: "5%"},
		{kv: []string{"save", ""}, name: "save", want: ""},
		{kv: []string{"hz", "1000"}, name: "hz", want: "500"},
		{kv: []string{"bind", "127.0.0.1 ::1"}, name: "bind", want: "127.0.0.1 ::1"},
		{kv: []string{"bind", ""}, name: "bind", want: ""},
		{kv: []string{"client-output-buffer-limit", "replica 1gb 2mb 30 pubsub 1 2 3"}, name: "client-output-buffer-limit",
			want: "normal 0 0 0 slave 1073741824 2097152 30 pubsub 1 2 3"},
		{kv: []string{"client-output-buffer-limit", ""}, name: "client-output-buffer-limit",
			want: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{kv: []string{"shutdown-on-sigint", "save now"}, name: "shutdown-on-sigint", want: "save now"},
		{kv: []string{"notify-keyspace-events", "AnKm"}, name: "notify-keyspace-events", want: "AKm"},
		{kv: []string{"oom-score-adj", "relative"}, name: "oom-score-adj", want: "yes"},
		{kv: []string{"latency-tracking-info-percentiles", "50 99.99 100"}, name: "latency-tracking-info-percentiles", want: "50 99.99 100"},
		{kv: []string{"maxmemory-policy", "ALLKEYS-LRU"}, name: "maxmemory-policy", want: "allkeys-lru"},
		{kv: []string{"protected-mode", "NO"}, name: "protected-mode", want: "no"},
		{kv: []string{"slave-priority", "5"}, name: "replica-priority", want: "5"},
		{kv: []string{"masterauth", "pw"}, name: "primaryauth", want: "pw"},
		{kv: []string{"requirepass", ""}, name: "requirepass", want: ""},
		{kv: []string{"appendonly", "no"}, name: "appendonly", want: "no"},
		{kv: []string{"tls-port", "0"}, name: "tls-port", want: "0"},
		{kv: []string{"metrics-port", "9121"}, name: "metrics-port", want: "9121"},
		{kv: []string{"metrics-bind", "* ::* 10.0.0.1 localhost"}, name: "metrics-bind", want: "* ::* 10.0.0.1 localhost"},
	}
	for _, tc := range tests {
		c := Default()
		if err := c.Set(pairs(tc.kv...)); err != nil {
			t.Errorf("CONFIG SET %q: %v", tc.kv, err)
			continue
		}
		if got := c.String(tc.name); got != tc.want {
			t.Errorf("CONFIG SET %q: %s = %q, want %q", tc.kv, tc.name, got, tc.want)
		}
	}
}

func TestSetProtectedAndLoading(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		protected string
		local     bool
		ok        bool
	}{{"no", true, false}, {"yes", false, true}, {"local", false, false}, {"local", true, true}} {
		c, err := Load("", []string{"--enable-protected-configs", tc.protected})
		if err != nil {
			t.Fatal(err)
		}
		err = c.SetWith(pairs("dir", dir, "dbfilename", "x.rdb"), SetOptions{ClientIsLocal: tc.local})
		if (err == nil) != tc.ok {
			t.Errorf("protected=%s local=%v: %v", tc.protected, tc.local, err)
		}
		if tc.ok && (c.Dir() != dir || c.Dbfilename() != "x.rdb") {
			t.Errorf("dir=%q dbfilename=%q", c.Dir(), c.Dbfilename())
		}
	}
	c := Default()
	err := c.SetWith(pairs("maxmemory", "1", "appendonly", "no"), SetOptions{Loading: true})
	if err == nil || err.Error() != "LOADING Valkey is loading the dataset in memory" {
		t.Errorf("loading: %v", err)
	}
	// LOADING takes precedence over an earlier unknown name only when seen first.
	err = c.SetWith(pairs("appendonly", "no", "foo", "1"), SetOptions{Loading: true})
	if err == nil || err.Error() != "LOADING Valkey is loading the dataset in memory" {
		t.Errorf("loading precedence: %v", err)
	}
}

func TestSetAtomicity(t *testing.T) {
	c := Default()
	err := c.Set(pairs("maxmemory", "100", "port", "7000", "hz", "abc"))
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer" {
		t.Fatalf("got %v", err)
	}
	if c.MaxMemory() != 0 || c.Port() != 6379 {
		t.Errorf("partial apply: maxmemory=%d port=%d", c.MaxMemory(), c.Port())
	}
	if err := c.Set(pairs("maxmemory", "100", "port", "7000", "hz", "20")); err != nil {
		t.Fatal(err)
	}
	if c.MaxMemory() != 100 || c.Port() != 7000 || c.Hz() != 20 {
		t.Errorf("after set: %d %d %d", c.MaxMemory(), c.Port(), c.Hz())
	}
}

func TestOnChangeHooks(t *testing.T) {
	c := Default()
	var calls []string
	c.OnChange("maxmemory", func(c *Config) error {
		calls = append(calls, fmt.Sprintf("maxmemory=%d", c.MaxMemory()))
		return nil
	})
	c.OnChange("port", func(c *Config) error {
		calls = append(calls, fmt.Sprintf("port=%d", c.Port()))
		if c.Port() == 1 {
			return errors.New("Unable to listen on this port. Check server logs.")
		}
		return nil
	})
	c.OnChange("slave-priority", func(c *Config) error { calls = append(calls, "prio"); return nil })

	// Only changed directives run their hooks.
	if err := c.Set(pairs("maxmemory", "10", "port", "6379")); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(calls) != "[maxmemory=10]" {
		t.Errorf("calls = %v", calls)
	}

	// A failing hook restores every value and re-runs the hooks.
	calls = nil
	err := c.Set(pairs("maxmemory", "20", "replica-priority", "3", "port", "1"))
	want := "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs."
	if err == nil || err.Error() != want {
		t.Fatalf("got %v", err)
	}
	if c.MaxMemory() != 10 || c.Port() != 6379 || c.String("replica-priority") != "100" {
		t.Errorf("not restored: maxmemory=%d port=%d", c.MaxMemory(), c.Port())
	}
	if fmt.Sprint(calls) != "[maxmemory=20 prio port=1 maxmemory=10 prio port=6379]" {
		t.Errorf("calls = %v", calls)
	}
	defer func() {
		if recover() == nil {
			t.Error("OnChange of an unknown directive did not panic")
		}
	}()
	c.OnChange("nope", func(*Config) error { return nil })
}

func TestSetUnsupportedRelax(t *testing.T) {
	c := Default()
	c.SetUnsupported("appendonly", nil)
	if err := c.Set(pairs("appendonly", "yes")); err != nil || !c.AppendOnly() {
		t.Errorf("relaxed appendonly: %v", err)
	}
	c.SetUnsupported("maxmemory", func(v string) string {
		if v != "0" {
			return "no limits here"
		}
		return ""
	})
	err := c.Set(pairs("maxmemory", "1mb"))
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - no limits here" {
		t.Errorf("custom refusal: %v", err)
	}
}

// TestConcurrentReadersSeeWholeSets runs with -race: readers never see half
// of a multi-directive CONFIG SET.
func TestConcurrentReadersSeeWholeSets(t *testing.T) {
	c := Default()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				st := c.snap()
				if st.v[idxHz].n != st.v[idxTimeout].n && st.v[idxTimeout].n != 0 {
					t.Errorf("torn read: hz=%d timeout=%d", st.v[idxHz].n, st.v[idxTimeout].n)
					return
				}
				_ = c.MaxMemory()
				_ = c.Get("max*")
			}
		}()
	}
	for i := 1; i <= 300; i++ {
		v := fmt.Sprint(i%400 + 1)
		if err := c.Set(pairs("hz", v, "timeout", v, "maxmemory", v)); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
