package integration

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestQueryBuffer: the query buffer as Valkey 8.0 keeps it (it reads
// every client into its thread's shared query buffer and gives a client
// one of its own only while a command is incomplete). An idle client
// shows qbuf=0 qbuf-free=0 in CLIENT LIST; one with part of a command
// shows the part not parsed yet as qbuf (the bytes of a bulk so far) and
// room to read the rest as qbuf-free, which shrinks to about its bytes
// once it has been idle for 2 s; once the command completes it goes back
// to 0 and 0. A big command shows in INFO client_recent_max_input_buffer.
// Run on Corvid (both network paths in CI) and, when present, on
// valkey-server 8.0.1.
func TestQueryBuffer(t *testing.T) {
	servers := map[string]*testutil.Proc{"corvid": testutil.StartCorvid(t)}
	if testutil.HaveValkey(t) {
		servers["valkey"] = testutil.StartValkey(t)
	}
	re := regexp.MustCompile(` qbuf=(\d+) qbuf-free=(\d+) `)
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			ctl := testutil.Dial(t, srv.Addr)
			line := func(client string) string {
				t.Helper()
				list, err := strconv.Unquote(ctl.Do("CLIENT", "LIST"))
				if err != nil {
					t.Fatalf("CLIENT LIST: %v", err)
				}
				for _, l := range strings.Split(list, "\n") {
					if strings.Contains(l, " name="+client+" ") {
						return l
					}
				}
				t.Fatalf("no client named %s in %s", client, list)
				return ""
			}
			qbuf := func(client string) (int, int) {
				t.Helper()
				line := line(client)
				m := re.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("no qbuf fields in %s", line)
				}
				q, _ := strconv.Atoi(m[1])
				f, _ := strconv.Atoi(m[2])
				return q, f
			}
			await := func(what, client string, ok func(q, f int) bool) {
				t.Helper()
				if !waitFor(hangTimeout, func() bool { return ok(qbuf(client)) }) {
					t.Fatalf("%s: %s", what, line(client))
				}
			}

			idle := testutil.Dial(t, srv.Addr)
			expect(t, idle, "+OK", "CLIENT", "SETNAME", "idle")
			expect(t, idle, "+PONG", "PING")
			await("an idle client", "idle", func(q, f int) bool { return q == 0 && f == 0 })

			// Part of a command, its last bulk started: qbuf counts the
			// bulk's bytes so far.
			part := testutil.Dial(t, srv.Addr)
			expect(t, part, "+OK", "CLIENT", "SETNAME", "part")
			part.WriteRaw("*3\r\n$3\r\nSET\r\n$4\r\npart\r\n$100\r\n" + strings.Repeat("a", 10))
			await("a client with 10 bytes of a bulk", "part", func(q, f int) bool { return q == 10 && f > 0 })
			if l := line("part"); !strings.Contains(l, " argv-mem=7 ") {
				t.Errorf("argv-mem of an incomplete SET part ...: %s", l)
			}
			// Idle for 2 s, its buffer shrinks to about its bytes.
			await("a client idle with 10 bytes of a bulk", "part", func(q, f int) bool { return q == 10 && f < 4096 })
			part.WriteRaw(strings.Repeat("a", 90) + "\r\n")
			expectRead(t, part, "+OK")
			await("a client whose command completed", "part", func(q, f int) bool { return q == 0 && f == 0 })
			expect(t, ctl, strconv.Quote(strings.Repeat("a", 100)), "GET", "part")

			// A large bulk, half sent.
			half := testutil.Dial(t, srv.Addr)
			expect(t, half, "+OK", "CLIENT", "SETNAME", "half")
			half.WriteRaw("*3\r\n$3\r\nSET\r\n$4\r\nhalf\r\n$100000\r\n" + strings.Repeat("h", 50000))
			await("a client with half of a 100000-byte bulk", "half", func(q, f int) bool { return q == 50000 && f > 0 })
			half.WriteRaw(strings.Repeat("h", 50000) + "\r\n")
			expectRead(t, half, "+OK")

			// A big command: its buffer shows in
			// client_recent_max_input_buffer, and is given back.
			big := testutil.Dial(t, srv.Addr)
			expect(t, big, "+OK", "CLIENT", "SETNAME", "big")
			expect(t, big, "+OK", "SET", "big", strings.Repeat("b", 200000))
			if !waitFor(hangTimeout, func() bool {
				n, _ := strconv.Atoi(infoFields(t, ctl, "clients")["client_recent_max_input_buffer"])
				return n >= 200000
			}) {
				t.Errorf("client_recent_max_input_buffer after a 200000-byte command: %s",
					infoFields(t, ctl, "clients")["client_recent_max_input_buffer"])
			}
			// Valkey keeps an empty 8-byte buffer (qbuf-free=4) after a
			// big argument; Corvid none.
			await("a client after a big command", "big", func(q, f int) bool { return q == 0 && f <= 4 })
			await("an idle client, still", "idle", func(q, f int) bool { return q == 0 && f == 0 })
		})
	}
}
