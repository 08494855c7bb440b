package server

import (
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// injectPanics makes GET, SET and FLUSHDB panic (a stand-in for a bug in
// a procedure) when their first argument is "boom": GET and SET hold one
// stripe when they panic, FLUSHDB every stripe.
func injectPanics(s *Server) {
	for _, name := range []string{"get", "set", "flushdb"} {
		cm := s.table.cmds[name]
		orig := cm.dbProc
		cm.dbProc = func(ctx *db.Ctx) {
			if len(ctx.Argv) > 1 && string(ctx.Argv[1]) == "boom" {
				panic("injected panic in " + name)
			}
			orig(ctx)
		}
	}
}

// TestPanicContained: a command that panics, alone, pipelined, inside
// MULTI/EXEC or holding every stripe, closes only its own client on every
// network path: the error reply comes first, the stripes it held are
// released, another client of the same loop keeps being served with its
// data intact, and contained_panics counts each one.
func TestPanicContained(t *testing.T) {
	bothPathsSetup(t, injectPanics, func(t *testing.T, s *Server, addr string) {
		other := testutil.Dial(t, addr)
		if got := other.Do("SET", "k", "v"); got != "+OK" {
			t.Fatal(got)
		}
		// "boom" and "k" share no stripe necessarily: lock boom's too.
		if got := other.Do("SET", "boomneighbour", "n"); got != "+OK" {
			t.Fatal(got)
		}
		cases := []struct {
			name string
			req  string
			want []string // replies before the error, then the error and EOF
		}{
			{"one stripe", testutil.Command("GET", "boom"), nil},
			{"pipelined", testutil.Command("PING") + testutil.Command("SET", "boom", "x") + testutil.Command("PING"), []string{"+PONG"}},
			{"every stripe", testutil.Command("FLUSHDB", "boom"), nil},
			{"inside EXEC", testutil.Command("MULTI") + testutil.Command("SET", "a", "1") + testutil.Command("GET", "boom") + testutil.Command("EXEC"),
				[]string{"+OK", "+QUEUED", "+QUEUED"}},
		}
		for i, tc := range cases {
			c := testutil.Dial(t, addr)
			c.WriteRaw(tc.req)
			for _, w := range tc.want {
				if got := c.Read(); got != w {
					t.Fatalf("%s: got %s, want %s", tc.name, got, w)
				}
			}
			if got := c.Read(); !strings.HasPrefix(got, "-ERR internal error") {
				t.Fatalf("%s: got %s, want the internal error", tc.name, got)
			}
			if got := c.ReadWithin(10 * time.Second); got != "<EOF>" {
				t.Fatalf("%s: connection not closed: %s", tc.name, got)
			}
			// Every stripe is free again: a write to the panicking key
			// and a read of every other key go through.
			if got := other.Do("SET", "boomneighbour", "m"+strconv.Itoa(i)); got != "+OK" {
				t.Fatalf("%s: SET after the panic: %s", tc.name, got)
			}
			if got := other.Do("GET", "k"); got != `"v"` {
				t.Fatalf("%s: data after the panic: %s", tc.name, got)
			}
			if got := other.Do("GET", "boomneighbour"); got != `"m`+strconv.Itoa(i)+`"` {
				t.Fatalf("%s: GET after the panic: %s", tc.name, got)
			}
		}
		if got := infoField(t, other.Do("INFO", "stats"), "contained_panics"); got != strconv.Itoa(len(cases)) {
			t.Fatalf("contained_panics %s, want %d", got, len(cases))
		}
		// Commands of the transaction that ran before the panic keep
		// their effects: there is no rollback (nor is there in Valkey).
		if got := other.Do("EXISTS", "a"); got != ":1" {
			t.Fatalf("EXISTS a: %s", got)
		}
	})
}

// TestOnSignal: what each signal asks of the server, and its log line,
// before and during a shutdown (the signals' effect on the real process
// is tested in tests/integration).
func TestOnSignal(t *testing.T) {
	s := listenServer(t, "", "--port", "0", "--bind", "127.0.0.1")
	t.Cleanup(s.Close)
	var log strings.Builder
	s.log.out = &log
	s.log.level = levelVerbose
	cases := []struct {
		sig      syscall.Signal
		shutting bool
		want     signalAction
		line     string
	}{
		{syscall.SIGHUP, false, sigIgnore, "Received SIGHUP, ignored"},
		{syscall.SIGPIPE, false, sigIgnore, "Received SIGPIPE, ignored"},
		{syscall.SIGTERM, false, sigShutdown, "Received SIGTERM scheduling shutdown..."},
		{syscall.SIGINT, false, sigShutdown, "Received SIGINT scheduling shutdown..."},
		{syscall.SIGTERM, true, sigIgnore, ""},
		{syscall.SIGHUP, true, sigIgnore, "Received SIGHUP, ignored"},
		{syscall.SIGINT, true, sigExitNow, "You insist... exiting now."},
	}
	for _, tc := range cases {
		log.Reset()
		if got := s.onSignal(tc.sig, tc.shutting); got != tc.want {
			t.Errorf("%v (shutting down %v): %v, want %v", tc.sig, tc.shutting, got, tc.want)
		}
		if !strings.Contains(log.String(), tc.line) || tc.line == "" && log.Len() > 0 {
			t.Errorf("%v (shutting down %v): logged %q, want %q", tc.sig, tc.shutting, log.String(), tc.line)
		}
	}
}

// TestOutputBackPressure: on every network path, a client whose replies
// pile up unread (40 GETs of 1 MB in one request) has the rest of its
// batch held back: its pending output stays within a few replies (omem),
// and once it reads, every reply arrives in order.
func TestOutputBackPressure(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		admin := testutil.Dial(t, addr)
		val := strings.Repeat("v", 1<<20)
		if got := admin.Do("SET", "big", val); got != "+OK" {
			t.Fatal(got)
		}
		conn, r := testutil.DialConn(t, addr)
		conn.SetDeadline(time.Now().Add(60 * time.Second))
		var req strings.Builder
		for range 40 {
			req.WriteString(testutil.Command("GET", "big"))
		}
		req.WriteString(testutil.Command("ECHO", "end"))
		conn.Write([]byte(req.String()))
		var peak int64
		// Observe while nothing is read: until some output is pending,
		// then for 100 more samples.
		deadline := time.Now().Add(hangTimeout)
		for n := 0; n < 100; {
			for _, l := range clientLines(t, admin.Do("CLIENT", "LIST")) {
				if l["cmd"] == "get" {
					om, _ := strconv.ParseInt(l["omem"], 10, 64)
					peak = max(peak, om)
				}
			}
			if peak > 0 {
				n++
			} else if time.Now().After(deadline) {
				break // reported below
			}
			time.Sleep(2 * time.Millisecond)
		}
		t.Logf("peak omem %d", peak)
		if peak == 0 || peak > 8<<20 {
			t.Errorf("omem peaked at %d bytes with 40 MB of replies unread: want some, within a few replies", peak)
		}
		head := "$" + strconv.Itoa(len(val)) + "\r\n"
		buf := make([]byte, len(head)+len(val)+2)
		for i := range 40 {
			if _, err := io.ReadFull(r, buf); err != nil || string(buf[:len(head)]) != head {
				t.Fatalf("GET %d: %q %v", i, buf[:min(len(buf), 20)], err)
			}
		}
		if line, _ := r.ReadString('\n'); line != "$3\r\n" {
			t.Fatalf("after the GETs: %q", line)
		}
	})
}

// TestServerErrorsLikeValkey pins the server-command error texts the
// command fuzzer (tests/cmdfuzz) found differing from Valkey 8.0.1: an
// argument is printed as C prints it (up to a NUL byte), SELECT tells a
// non-integer from an integer outside int, HELLO checks a SETNAME name
// where it appears, a client name is validated as a C string, and CONFIG
// SET reads memory values as Valkey's memtoull does. The expected replies
// are Valkey's; with valkey-server at hand they are checked against it too.
func TestServerErrorsLikeValkey(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"\x00", "+"}, "-ERR unknown command '', with args beginning with: '+' "},
		{[]string{"GETT", "1\x00", "9"}, "-ERR unknown command 'GETT', with args beginning with: '1' '9' "},
		{[]string{"CONFIG", "x\x00y"}, "-ERR unknown subcommand 'x'. Try CONFIG HELP."},
		{[]string{"LATENCY", "GRAPH", "1\x00"}, "-ERR No samples available for event '1'"},
		{[]string{"CLIENT", "SETINFO", "1\x00", "x"}, "-ERR Unrecognized option '1'"},
		{[]string{"CLIENT", "LIST", "TYPE", "\x00\x00\x00"}, "-ERR Unknown client type ''"},
		{[]string{"SELECT", "9223372036854775807"}, "-ERR value is out of range, value must between -2147483648 and 2147483647"},
		{[]string{"SELECT", "2147483648"}, "-ERR value is out of range, value must between -2147483648 and 2147483647"},
		{[]string{"SELECT", "x"}, "-ERR value is not an integer or out of range"},
		{[]string{"HELLO", "3", "SETNAME", "my name", "float"}, "-ERR Client names cannot contain spaces, newlines or special characters."},
		{[]string{"HELLO", "2", "AUTH", "nosuch", "", "SETNAME", "a b"}, "-ERR Client names cannot contain spaces, newlines or special characters."},
		{[]string{"CLIENT", "SETNAME", "1\x00"}, "+OK"},
		{[]string{"CLIENT", "GETNAME"}, "\"1\\x00\""},
		{[]string{"CONFIG", "SET", "hash-max-listpack-entries", "", "", "-5"}, "-ERR Unknown option or number of arguments for CONFIG SET - ''"},
		{[]string{"CONFIG", "SET", "hash-max-listpack-value", "18446744073709551616"},
			"-ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-value') - argument must be between 0 and 9223372036854775807 inclusive"},
		{[]string{"CONFIG", "SET", "zset-max-listpack-value", "1\x00"}, "+OK"},
		{[]string{"CONFIG", "GET", "zset-max-listpack-value"}, `*["zset-max-listpack-value", "1"]`},
	}
	check := func(t *testing.T, addr string) {
		c := testutil.Dial(t, addr)
		for _, tc := range cases {
			if got := c.Do(tc.args...); got != tc.want {
				t.Errorf("%q: got %s, want %s", tc.args, got, tc.want)
			}
		}
	}
	t.Run("corvid", func(t *testing.T) {
		_, addr := startIntroServer(t)
		check(t, addr)
	})
	t.Run("valkey", func(t *testing.T) { check(t, testutil.StartValkey(t).Addr) })
}
