package integration

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestPausedClientsCounted: a command held by CLIENT PAUSE WRITE counts
// in INFO blocked_clients (not in clients_in_timeout_table: it has no
// timeout) and shows in CLIENT LIST with flag b, its command and its
// arguments' size, as Valkey 8's postponed clients; a blocking pop counts
// in the timeout table only with a timeout. Run on Corvid and, when
// present, on valkey-server 8.0.1.
func TestPausedClientsCounted(t *testing.T) {
	servers := map[string]*testutil.Proc{"corvid": testutil.StartCorvid(t)}
	if testutil.HaveValkey(t) {
		servers["valkey"] = testutil.StartValkey(t)
	}
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			r := testutil.Dial(t, srv.Addr)
			w := testutil.Dial(t, srv.Addr)
			expect(t, r, "+OK", "CLIENT", "SETNAME", "ctl")
			expect(t, w, "+OK", "CLIENT", "SETNAME", "writer")
			expect(t, r, "+OK", "CLIENT", "PAUSE", "20000", "WRITE")
			w.Send("SET", "k", "v")
			if !waitFor(hangTimeout, func() bool { return infoFields(t, r, "clients")["blocked_clients"] == "1" }) {
				t.Fatalf("the paused SET is not counted: %v", infoFields(t, r, "clients"))
			}
			if got := infoFields(t, r, "clients")["clients_in_timeout_table"]; got != "0" {
				t.Errorf("clients_in_timeout_table = %s with a paused client, want 0", got)
			}
			line := clientLine(t, r, "writer")
			for _, f := range []string{" flags=b ", " cmd=set ", " argv-mem=5 "} {
				if !strings.Contains(line, f) {
					t.Errorf("CLIENT LIST of the paused client lacks %q: %s", f, line)
				}
			}
			expect(t, r, "+OK", "CLIENT", "UNPAUSE")
			expectRead(t, w, "+OK")
			if got := infoFields(t, r, "clients")["blocked_clients"]; got != "0" {
				t.Errorf("blocked_clients = %s after UNPAUSE", got)
			}

			// Blocking pops: one with a timeout, one without.
			b1 := testutil.Dial(t, srv.Addr)
			b0 := testutil.Dial(t, srv.Addr)
			b1.Send("BLPOP", "nolist", "100")
			if !waitFor(hangTimeout, func() bool { return infoFields(t, r, "clients")["blocked_clients"] == "1" }) {
				t.Fatalf("the first pop did not block: %v", infoFields(t, r, "clients"))
			}
			b0.Send("BLPOP", "nolist", "0")
			if !waitFor(hangTimeout, func() bool { return infoFields(t, r, "clients")["blocked_clients"] == "2" }) {
				t.Fatalf("the pops did not block: %v", infoFields(t, r, "clients"))
			}
			if got := infoFields(t, r, "clients")["clients_in_timeout_table"]; got != "1" {
				t.Errorf("clients_in_timeout_table = %s with BLPOP 100 and BLPOP 0, want 1", got)
			}
			expect(t, r, ":2", "RPUSH", "nolist", "a", "b")
			expectRead(t, b1, `*["nolist", "a"]`)
			expectRead(t, b0, `*["nolist", "b"]`)
		})
	}
}

// clientLine is the CLIENT LIST line of the client named name.
func clientLine(t *testing.T, r *testutil.Raw, name string) string {
	t.Helper()
	list := r.Do("CLIENT", "LIST")
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, " name="+name+" ") {
			return l
		}
	}
	t.Fatalf("no client named %s in %s", name, list)
	return ""
}
