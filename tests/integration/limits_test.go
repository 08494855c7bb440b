package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestMaxClients: with --maxclients 2 the third connection is refused with
// Valkey's error and closed; a freed slot can be reused.
func TestMaxClients(t *testing.T) {
	srv := testutil.StartCorvid(t, "--maxclients", "2")
	a := testutil.Dial(t, srv.Addr)
	expect(t, a, "+PONG", "PING")
	// The start-up readiness probe's connection may not be reaped yet (on
	// the goroutine-per-connection path under load it can still count
	// against maxclients): wait until a is the only client.
	if !waitFor(hangTimeout, func() bool { return strings.Count(a.Do("CLIENT", "LIST"), "id=") == 1 }) {
		t.Fatal("the readiness probe's connection never went away")
	}
	b := testutil.Dial(t, srv.Addr)
	expect(t, b, "+PONG", "PING")

	c := testutil.Dial(t, srv.Addr)
	if got := c.Read(); got != "-ERR max number of clients reached" {
		t.Fatalf("third connection: %s", got)
	}
	expectClosed(t, c)

	// The two admitted clients are unaffected.
	expect(t, a, "+OK", "SET", "k", "v")
	expect(t, b, `"v"`, "GET", "k")

	// Free a slot; a new connection is admitted once the server noticed.
	b.Close()
	ok := waitFor(hangTimeout, func() bool {
		d := testutil.Dial(t, srv.Addr)
		defer d.Close()
		return d.Do("PING") == "+PONG"
	})
	if !ok {
		t.Fatal("no connection admitted after a client left")
	}
}

// protocolErrors are malformed requests with the exact reply Valkey 8 (and
// Redis 7.0) sends before closing the connection.
var protocolErrors = []struct {
	name, req, want string
}{
	{"bad multibulk count", "*x\r\n", "-ERR Protocol error: invalid multibulk length"},
	{"multibulk count over INT_MAX", "*2147483648\r\n", "-ERR Protocol error: invalid multibulk length"},
	{"expected dollar", "*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'"},
	{"expected dollar got digit", "*2\r\n$4\r\nECHO\r\n5\r\n", "-ERR Protocol error: expected '$', got '5'"},
	{"negative bulk length", "*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length"},
	{"non-numeric bulk length", "*1\r\n$abc\r\n", "-ERR Protocol error: invalid bulk length"},
	{"huge bulk length", "*1\r\n$2147483648\r\n", "-ERR Protocol error: invalid bulk length"},
	{"bulk over proto-max-bulk-len", "*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length"},
	{"unbalanced quotes", "SET \"a\r\n", "-ERR Protocol error: unbalanced quotes in request"},
	{"quote followed by a char", "SET \"a\"b c\r\n", "-ERR Protocol error: unbalanced quotes in request"},
	{"too big inline", strings.Repeat("a", 70000), "-ERR Protocol error: too big inline request"},
	{"too big mbulk count", "*" + strings.Repeat("1", 70000), "-ERR Protocol error: too big mbulk count string"},
	{"too big bulk count", "*1\r\n$" + strings.Repeat("1", 70000), "-ERR Protocol error: too big bulk count string"},
}

// TestMalformedRESP: each malformed request gets the exact protocol error
// and only its own connection closes; the server, other connections and
// the data survive. The same table runs against redis-server 7.0 (when
// installed) to confirm the expected texts.
func TestMalformedRESP(t *testing.T) {
	forServers(t, nil, func(t *testing.T, srv *testutil.Proc) {
		keeper := testutil.Dial(t, srv.Addr)
		expect(t, keeper, "+OK", "SET", "survivor", "yes")
		for _, tc := range protocolErrors {
			t.Run(tc.name, func(t *testing.T) {
				c := testutil.Dial(t, srv.Addr)
				// A valid command before the bad one is answered first.
				c.WriteRaw("PING\r\n" + tc.req)
				expectRead(t, c, "+PONG")
				if got := c.Read(); got != tc.want {
					t.Errorf("reply: %s\n want: %s", got, tc.want)
				}
				expectClosed(t, c)
			})
		}
		expect(t, keeper, `"yes"`, "GET", "survivor")
		expect(t, keeper, "+PONG", "PING")
		expect(t, testutil.Dial(t, srv.Addr), `"yes"`, "GET", "survivor")
	})
}

// TestLenientRESP: inputs that look odd but are valid or ignored.
func TestLenientRESP(t *testing.T) {
	forServers(t, nil, func(t *testing.T, srv *testutil.Proc) {
		c := testutil.Dial(t, srv.Addr)
		c.WriteRaw("*0\r\n*-1\r\nPING\r\n") // empty/negative multibulk: ignored
		expectRead(t, c, "+PONG")
		c.WriteRaw("\r\n\r\n   \r\nPING\r\n") // empty inline lines: ignored
		expectRead(t, c, "+PONG")
		c.WriteRaw("  ECHO   \"a b\"   'c\\'d'  \r\n")
		expectRead(t, c, "-ERR wrong number of arguments for 'echo' command")
		c.WriteRaw("ECHO \"\\x41\\n\"\r\n")
		expectRead(t, c, `"A\n"`)
		// A command split across many writes.
		for _, part := range []string{"*2\r", "\n$4\r\nEC", "HO\r\n$5", "\r\nhel", "lo\r\n"} {
			c.WriteRaw(part)
			time.Sleep(5 * time.Millisecond)
		}
		expectRead(t, c, `"hello"`)
		// Binary-safe bulk arguments.
		expect(t, c, `"\x00\r\n\xff"`, "ECHO", "\x00\r\n\xff")
	})
}

// TestSecurityAttackCommands: "POST" and "Host:" as a command name mean an
// HTTP request was sent to the port (cross-protocol scripting); Valkey
// closes the connection at once, dropping even the replies already queued
// for the same batch, and never answers "unknown command".
func TestSecurityAttackCommands(t *testing.T) {
	forServers(t, nil, func(t *testing.T, srv *testutil.Proc) {
		for _, req := range []string{
			"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nSET pwned 1\r\n",
			"host: example.com\r\nSET pwned 1\r\n",
			"GET / HTTP/1.1\r\nHost: x\r\n\r\nSET pwned 1\r\n",
		} {
			c := testutil.Dial(t, srv.Addr)
			c.WriteRaw(req)
			var replies []string
			for i := 0; i < 5; i++ {
				r := c.ReadWithin(hangTimeout)
				if r == "<EOF>" {
					break
				}
				replies = append(replies, r)
				if r == "<TIMEOUT>" {
					break
				}
			}
			// "GET / HTTP/1.1" is an ordinary (wrong-arity) GET: its reply
			// may or may not be written before the close.
			for _, r := range replies {
				if r != "-ERR wrong number of arguments for 'get' command" || !strings.HasPrefix(req, "GET") {
					t.Errorf("%q: replies %v, want the connection closed without a reply", req, replies)
					break
				}
			}
		}
		c := testutil.Dial(t, srv.Addr)
		expect(t, c, ":0", "EXISTS", "pwned")
	})
}

// TestQueryBufferLimit: a client whose pending request exceeds
// client-query-buffer-limit is disconnected; others are not.
func TestQueryBufferLimit(t *testing.T) {
	forServers(t, []string{"--client-query-buffer-limit", "1mb"}, func(t *testing.T, srv *testutil.Proc) {
		keeper := testutil.Dial(t, srv.Addr)
		expect(t, keeper, "+OK", "SET", "k", "v")
		c := testutil.Dial(t, srv.Addr)
		// Declare a 3 MB argument and send 2 MB of it: the buffered request is
		// over the limit and can never complete within it.
		c.WriteRaw("*2\r\n$4\r\nECHO\r\n$3000000\r\n")
		chunk := strings.Repeat("z", 64<<10)
		for sent := 0; sent < 2<<20; sent += len(chunk) {
			if c.TryWrite(chunk) != nil {
				break
			}
		}
		expectClosed(t, c)
		expect(t, keeper, `"v"`, "GET", "k")
		// A request under the limit still works.
		expect(t, keeper, `"`+strings.Repeat("y", 500000)+`"`, "ECHO", strings.Repeat("y", 500000))
	})
}
