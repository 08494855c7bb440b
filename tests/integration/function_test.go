package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Functions (FUNCTION LOAD, FCALL): their replies and errors against
// Valkey 8.0.1 (cases run by TestScriptDifferential), and their
// persistence in RDB and AOF files, across Corvid and Valkey.

const fnLib = "#!lua name=mylib\n" +
	"local function incr(keys, args) return redis.call('INCRBY', keys[1], args[1] or 1) end\n" +
	"redis.register_function('myincr', incr)\n" +
	"redis.register_function{function_name='myget', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='read one key'}\n"

func fnCases() []sdCase {
	load := func(code string, extra ...string) sdStep {
		return sdCmd(append(append([]string{"FUNCTION", "LOAD"}, extra...), code)...)
	}
	lib := func(name, body string) string { return "#!lua name=" + name + "\n" + body }
	return []sdCase{
		sdOne("fn-load-call", load(fnLib), sdCmd("FCALL", "myincr", "1", "c", "5"), sdCmd("FCALL", "myincr", "1", "c"),
			sdCmd("FCALL_RO", "myget", "1", "c"), sdCmd("FCALL_RO", "myincr", "1", "c"), sdCmd("FCALL", "myget", "1", "c"),
			sdCmd("FCALL", "nosuch", "0"), sdCmd("FCALL", "myincr", "2", "c"), sdCmd("FCALL", "myincr", "-1"),
			sdCmd("FCALL", "myincr", "x"), sdCmd("fcall", "MYINCR", "0"), load(fnLib), load(fnLib, "REPLACE"),
			sdCmd("FUNCTION", "STATS"), sdCmd("FUNCTION", "DELETE", "mylib"), sdCmd("FUNCTION", "DELETE", "mylib"),
			sdCmd("FCALL", "myincr", "1", "c")),
		// One function per library: Valkey lists a library's functions
		// in its hash table's order, which is random per process.
		sdOne("fn-list", load(lib("la", "redis.register_function{function_name='fa', callback=function() end, description='A', flags={'no-writes', 'allow-oom'}}")),
			load(lib("lb", "redis.register_function('fb', function() end)")),
			sdCmd("FUNCTION", "LIST", "LIBRARYNAME", "la"), sdCmd("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "l[b]"),
			sdCmd("FUNCTION", "LIST", "LIBRARYNAME", "x*"), sdCmd("FUNCTION", "LIST", "LIBRARYNAME"), sdCmd("FUNCTION", "LIST", "bogus"),
			sdCmd("FUNCTION", "LIST", "WITHCODE", "WITHCODE"), sdCmd("FUNCTION", "LIST", "LIBRARYNAME", "la", "LIBRARYNAME", "lb"),
			sdCmd("FCALL", "FA", "0"), sdCmd("FCALL", "Fb", "0")),
		sdOne("fn-load-errors", load("return 1"), load("#!lua"), load("#!lua\nx"), load("#!js name=a\nx"),
			load(lib("bad-name", "x")), load("#!lua name=a foo=bar\nx"), load("#!lua name=a name=b\nx"),
			load(lib("a", "local x = 1")), load(lib("a", "redis.call('ping')")), load(lib("a", "local p = pairs")),
			load(lib("a", "redis.register_function('f', function() end) redis.register_function('f', function() end)")),
			load(lib("a", "redis.register_function{function_name='f'}")), load(lib("a", "redis.register_function{callback=function() end}")),
			load(lib("a", "redis.register_function{function_name='f', callback=function() end, flags={'bogus'}}")),
			load(lib("a", "redis.register_function{function_name='f', callback=function() end, flags='no-writes'}")),
			load(lib("a", "redis.register_function{function_name='f', callback=function() end, extra=1}")),
			load(lib("a", "redis.register_function('f', 'notfn')")), load(lib("a", "redis.register_function()")),
			load(lib("a", "redis.register_function('bad name', function() end)")),
			load(lib("a", "redis.register_function('f', function() end) error('late')")),
			load(lib("a", "redis.log(redis.LOG_NOTICE, 'loading') redis.register_function('f', function() return redis.VALKEY_VERSION end)")),
			load(lib("b", "redis.register_function('f', function() end)")),
			sdCmd("FUNCTION", "LOAD"), sdCmd("FUNCTION", "LOAD", "REPLACE"), sdCmd("FUNCTION", "LOAD", "BOGUS", lib("c", "x"))),
		sdOne("fn-runtime", load(lib("r", "local n = 0\n"+
			"redis.register_function('r1', function(keys, args) n = n + 1 return {type(keys), #keys, #args, redis.call('PING')['ok']} end)\n"+
			"redis.register_function('r2', function() return KEYS end)\n"+
			"redis.register_function('r3', function() error('boom') end)\n"+
			"redis.register_function('r4', function() return redis.setresp(3) end)\n"+
			"redis.register_function('r5', function() local o = {} for k in pairs(redis) do o[#o+1] = k end table.sort(o) return o end)\n"+
			"redis.register_function('r6', function(keys) return redis.call('SET', keys[1], 'v') end)\n"+
			"redis.register_function('r7', function() return redis.pcall('NOSUCH') end)\n")),
			sdCmd("FCALL", "r1", "2", "a", "b", "x"), sdCmd("FCALL", "r2", "0"), sdCmd("FCALL", "r3", "0"), sdCmd("FCALL", "r4", "0"),
			sdCmd("FCALL", "r5", "0"), sdCmd("FCALL", "r6", "1", "k"), sdCmd("FCALL_RO", "r6", "1", "k"), sdCmd("FCALL", "r7", "0")),
		sdOne("fn-flags", load(lib("fl", "redis.register_function{function_name='w', callback=function(keys) return redis.call('SET', keys[1], 1) end}\n"+
			"redis.register_function{function_name='ro', callback=function(keys) return redis.call('SET', keys[1], 1) end, flags={'no-writes'}}\n"+
			"redis.register_function{function_name='oom', callback=function() return 1 end, flags={'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}\n")),
			sdCmd("FCALL", "w", "1", "k"), sdCmd("FCALL_RO", "w", "1", "k"), sdCmd("FCALL", "ro", "1", "k"), sdCmd("FCALL", "oom", "0")),
		sdOne("fn-flush-restore", load(fnLib), sdCmd("FUNCTION", "FLUSH", "bogus"), sdCmd("FUNCTION", "FLUSH", "ASYNC"),
			sdCmd("FUNCTION", "LIST"), load(fnLib), sdCmd("FUNCTION", "FLUSH", "SYNC"), sdCmd("FUNCTION", "FLUSH", "SYNC", "x"), sdCmd("FUNCTION", "RESTORE", "bogus"),
			sdCmd("FUNCTION", "RESTORE", "x", "BOGUS"), sdCmd("FUNCTION", "KILL"), sdCmd("FUNCTION", "STATS")),
	}
}

// TestFunctionDumpRestore: FUNCTION DUMP's payload restores on the other
// server (Corvid's on Valkey and Valkey's on Corvid), with each policy.
func TestFunctionDumpRestore(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	cv := testutil.Dial(t, testutil.StartCorvid(t).Addr)
	vk := testutil.Dial(t, testutil.StartValkey(t).Addr)
	for _, pair := range []struct {
		name     string
		from, to *testutil.Raw
	}{{"corvid to valkey", cv, vk}, {"valkey to corvid", vk, cv}} {
		t.Run(pair.name, func(t *testing.T) {
			for _, c := range []*testutil.Raw{pair.from, pair.to} {
				c.Do("FUNCTION", "FLUSH")
			}
			if r := pair.from.Do("FUNCTION", "LOAD", fnLib); r != `"mylib"` {
				t.Fatalf("load: %q", r)
			}
			dump := pair.from.Do("FUNCTION", "DUMP")
			payload := bulkPayload(t, dump)
			for _, step := range []struct {
				args []string
				want string
			}{
				{[]string{"FUNCTION", "RESTORE", payload}, "+OK"},
				{[]string{"FUNCTION", "RESTORE", payload}, "-ERR Library mylib already exists"},
				{[]string{"FUNCTION", "RESTORE", payload, "REPLACE"}, "+OK"},
				{[]string{"FUNCTION", "RESTORE", payload, "FLUSH"}, "+OK"},
				{[]string{"FCALL", "myincr", "1", "n", "3"}, ":3"},
				{[]string{"FUNCTION", "RESTORE", payload[:len(payload)-1] + "x"}, "-ERR DUMP payload version or checksum are wrong"},
			} {
				if r := pair.to.Do(step.args...); r != step.want {
					t.Errorf("%s: %q, want %q", step.args[:2], r, step.want)
				}
			}
		})
	}
}

// bulkPayload returns a bulk string reply's payload (testutil.Raw
// quotes it).
func bulkPayload(t *testing.T, reply string) string {
	t.Helper()
	s, err := strconv.Unquote(reply)
	if err != nil {
		t.Fatalf("not a bulk string: %q", reply)
	}
	return s
}

// TestFunctionPersistence: libraries survive a restart in the RDB file
// and in the AOF (its RDB base and its FUNCTION commands), and the RDB
// files carry them between Corvid and Valkey in both directions.
func TestFunctionPersistence(t *testing.T) {
	t.Run("rdb", func(t *testing.T) {
		dir := t.TempDir()
		srv := testutil.StartCorvidIn(t, dir)
		c := testutil.Dial(t, srv.Addr)
		c.Do("FUNCTION", "LOAD", fnLib)
		if r := c.Do("SAVE"); r != "+OK" {
			t.Fatalf("SAVE: %q", r)
		}
		srv.Stop()
		c = testutil.Dial(t, testutil.StartCorvidIn(t, dir).Addr)
		if r := c.Do("FCALL", "myincr", "1", "k", "2"); r != ":2" {
			t.Fatalf("after restart: %q", r)
		}
	})
	t.Run("aof", func(t *testing.T) {
		for _, preamble := range []string{"yes", "no"} {
			dir := t.TempDir()
			args := []string{"--appendonly", "yes", "--aof-use-rdb-preamble", preamble}
			srv := testutil.StartCorvidIn(t, dir, args...)
			c := testutil.Dial(t, srv.Addr)
			c.Do("FUNCTION", "LOAD", fnLib)
			c.Do("FUNCTION", "LOAD", "#!lua name=gone\nredis.register_function('g', function() return 1 end)")
			c.Do("FUNCTION", "DELETE", "gone")
			srv.Stop()
			// Replayed from the incr file.
			c = testutil.Dial(t, testutil.StartCorvidIn(t, dir, args...).Addr)
			if r := c.Do("FCALL", "myincr", "1", "k"); r != ":1" {
				t.Fatalf("preamble %s, replayed: %q", preamble, r)
			}
			if r := c.Do("FCALL", "g", "0"); r != "-ERR Function not found" {
				t.Fatalf("preamble %s, deleted library: %q", preamble, r)
			}
			// From the rewritten base.
			if r := c.Do("BGREWRITEAOF"); !strings.HasPrefix(r, "+") {
				t.Fatalf("BGREWRITEAOF: %q", r)
			}
			waitRawRewrite(t, c)
			c.Do("SHUTDOWN")
			c = testutil.Dial(t, testutil.StartCorvidIn(t, dir, args...).Addr)
			if r := c.Do("FCALL", "myincr", "1", "k"); r != ":2" {
				t.Fatalf("preamble %s, from the base: %q", preamble, r)
			}
		}
	})
	if !testutil.HaveValkey(t) {
		return
	}
	t.Run("corvid-to-valkey", func(t *testing.T) {
		dir := t.TempDir()
		srv := testutil.StartCorvidIn(t, dir)
		c := testutil.Dial(t, srv.Addr)
		c.Do("FUNCTION", "LOAD", fnLib)
		c.Do("SAVE")
		srv.Stop()
		v := testutil.Dial(t, testutil.StartValkeyIn(t, dir).Addr)
		if r := v.Do("FCALL", "myincr", "1", "k", "7"); r != ":7" {
			t.Fatalf("Valkey on Corvid's file: %q", r)
		}
	})
	t.Run("valkey-to-corvid", func(t *testing.T) {
		dir := t.TempDir()
		vs := testutil.StartValkeyIn(t, dir)
		v := testutil.Dial(t, vs.Addr)
		v.Do("FUNCTION", "LOAD", fnLib)
		v.Do("SAVE")
		vs.Stop()
		if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
			t.Fatal(err)
		}
		c := testutil.Dial(t, testutil.StartCorvidIn(t, dir).Addr)
		if r := c.Do("FCALL_RO", "myget", "1", "k"); r != "(nil)" {
			t.Fatalf("Corvid on Valkey's file: %q", r)
		}
	})
}

// waitRawRewrite waits for a background AOF rewrite to end.
func waitRawRewrite(t *testing.T, c *testutil.Raw) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if r := c.Do("INFO", "persistence"); strings.Contains(r, "aof_rewrite_in_progress:0") && !strings.Contains(r, "aof_rewrite_scheduled:1") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the AOF rewrite did not end")
}

// TestScriptPropagation: a script's writes reach the AOF as one
// transaction (MULTI ... EXEC) of the commands it ran, not as the EVAL;
// what it writes after redis.set_repl(redis.REPL_NONE) is not written
// there; and a restart replays exactly that.
func TestScriptPropagation(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--appendonly", "yes", "--appendfsync", "always"}
	srv := testutil.StartCorvidIn(t, dir, args...)
	c := testutil.Dial(t, srv.Addr)
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"EVAL", "redis.call('SET', KEYS[1], '1') redis.call('SET', KEYS[2], '2') return 1", "2", "a", "b"}, ":1"},
		{[]string{"EVAL", "redis.set_repl(redis.REPL_NONE) redis.call('SET', 'c', '3') " +
			"redis.set_repl(redis.REPL_ALL) redis.call('SET', 'd', '4') return 1", "0"}, ":1"},
		{[]string{"EVAL", "return redis.call('GET', 'a')", "0"}, `"1"`},
	} {
		if r := c.Do(step.args...); r != step.want {
			t.Fatalf("%q: %q, want %q", step.args[1], r, step.want)
		}
	}
	incr, err := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	if err != nil || len(incr) != 1 {
		t.Fatalf("incr files %v %v", incr, err)
	}
	b, err := os.ReadFile(incr[0])
	if err != nil {
		t.Fatal(err)
	}
	aof := string(b)
	multi := strings.Index(aof, "MULTI")
	setA, setB, exec := strings.Index(aof, "$1\r\na\r\n$1\r\n1"), strings.Index(aof, "$1\r\nb\r\n$1\r\n2"), strings.Index(aof, "EXEC")
	if multi < 0 || !(multi < setA && setA < setB && setB < exec) {
		t.Errorf("the first script is not one transaction in the AOF:\n%q", aof)
	}
	if strings.Contains(aof, "EVAL") || strings.Contains(aof, "$1\r\nc\r\n") || !strings.Contains(aof, "$1\r\nd\r\n$1\r\n4") {
		t.Errorf("the AOF holds the EVAL, the unreplicated write or misses the last one:\n%q", aof)
	}
	srv.Stop()
	c = testutil.Dial(t, testutil.StartCorvidIn(t, dir, args...).Addr)
	if r := c.Do("MGET", "a", "b", "c", "d"); r != `*["1", "2", (nil), "4"]` {
		t.Errorf("after restart: %s", r)
	}
}

// TestPauseWriteScripts: CLIENT PAUSE WRITE holds back EVAL, EVALSHA and
// FCALL unless the script or function declared no-writes; EVAL_RO and
// FCALL_RO pass. The same answers from Valkey 8.0.1 when it is present.
func TestPauseWriteScripts(t *testing.T) {
	servers := []struct {
		name string
		addr string
	}{{"corvid", testutil.StartCorvid(t).Addr}}
	if testutil.HaveValkey(t) {
		servers = append(servers, struct {
			name string
			addr string
		}{"valkey", testutil.StartValkey(t).Addr})
	}
	lib := "#!lua name=pl\nredis.register_function{function_name='ro', callback=function() return 1 end, flags={'no-writes'}}\n" +
		"redis.register_function('rw', function() return 1 end)"
	cases := []struct {
		args []string
		held bool
	}{
		{[]string{"EVAL", "return 1", "0"}, true},
		{[]string{"EVAL", "#!lua flags=no-writes\nreturn 1", "0"}, false},
		{[]string{"EVAL", "#!lua\nreturn 1", "0"}, true},
		{[]string{"EVAL_RO", "return 1", "0"}, false},
		{[]string{"EVALSHA", sha1Hex("#!lua flags=no-writes\nreturn 1"), "0"}, false},
		{[]string{"FCALL", "ro", "0"}, false},
		{[]string{"FCALL", "rw", "0"}, true},
		{[]string{"FCALL_RO", "ro", "0"}, false},
	}
	for _, srv := range servers {
		ctl := testutil.Dial(t, srv.addr)
		// PING answers while the server still loads; FUNCTION LOAD would
		// not.
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(ctl.Do("INFO", "persistence"), "loading:0"); {
			if time.Now().After(deadline) {
				t.Fatalf("%s still loading", srv.name)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if r := ctl.Do("FUNCTION", "LOAD", lib); r != `"pl"` {
			t.Fatalf("%s: FUNCTION LOAD: %s", srv.name, r)
		}
		for _, tc := range cases {
			conn, rd := testutil.DialConn(t, srv.addr)
			if r := ctl.Do("CLIENT", "PAUSE", "10000", "WRITE"); r != "+OK" {
				t.Fatalf("%s: CLIENT PAUSE: %s", srv.name, r)
			}
			conn.Write([]byte(testutil.Command(tc.args...)))
			// A held command cannot answer before UNPAUSE (the pause
			// lasts 10 s); a command that is not held answers at once,
			// given 5 s on a loaded machine.
			wait := 5 * time.Second
			if tc.held {
				wait = 300 * time.Millisecond
			}
			conn.SetReadDeadline(time.Now().Add(wait))
			_, err := rd.Peek(1)
			held := err != nil
			ctl.Do("CLIENT", "UNPAUSE")
			if held != tc.held {
				t.Errorf("%s: %q held %v, want %v", srv.name, tc.args[:2], held, tc.held)
			}
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := rd.Peek(1); err != nil {
				t.Errorf("%s: %q: no reply after UNPAUSE: %v", srv.name, tc.args[:2], err)
			}
			conn.Close()
		}
	}
}
