package integration

import (
	"bufio"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestReplyBufferResizing: a client's reply buffer (CLIENT LIST rbs/rbp)
// comes down to 1 KiB while it sends little, doubles when a reply fills
// it, and stays put with DEBUG REPLYBUFFER RESIZING 0; INFO counts the
// shrinks and expands. Run on Corvid (both network paths in CI) and,
// when present, on valkey-server 8.0.1.
func TestReplyBufferResizing(t *testing.T) {
	servers := map[string]*testutil.Proc{"corvid": testutil.StartCorvid(t, "--enable-debug-command", "yes")}
	if testutil.HaveValkey(t) {
		servers["valkey"] = testutil.StartValkey(t, "--enable-debug-command", "yes")
	}
	re := regexp.MustCompile(`rbs=(\d+) rbp=(\d+)`)
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			ctl := testutil.Dial(t, srv.Addr)
			a := testutil.Dial(t, srv.Addr)
			expect(t, a, "+OK", "CLIENT", "SETNAME", "a")
			rb := func() (int, int) {
				m := re.FindStringSubmatch(clientLine(t, ctl, "a"))
				if m == nil {
					t.Fatalf("no rbs/rbp in %s", clientLine(t, ctl, "a"))
				}
				s, _ := strconv.Atoi(m[1])
				p, _ := strconv.Atoi(m[2])
				return s, p
			}
			if !waitFor(hangTimeout, func() bool { s, _ := rb(); return s == 1024 }) {
				s, p := rb()
				t.Fatalf("an idle client's reply buffer: rbs=%d rbp=%d, want rbs=1024", s, p)
			}
			if n, _ := strconv.Atoi(infoFields(t, ctl, "stats")["reply_buffer_shrinks"]); n == 0 {
				t.Error("reply_buffer_shrinks is 0 after a shrink")
			}
			// A 3000-byte reply fills the 1 KiB buffer: it doubles.
			expect(t, a, "+OK", "SET", "big", strings.Repeat("x", 3000))
			a.Do("GET", "big")
			if !waitFor(hangTimeout, func() bool { s, _ := rb(); return s == 2048 }) {
				s, p := rb()
				t.Fatalf("after a 3000-byte reply: rbs=%d rbp=%d, want rbs=2048", s, p)
			}
			if n, _ := strconv.Atoi(infoFields(t, ctl, "stats")["reply_buffer_expands"]); n == 0 {
				t.Error("reply_buffer_expands is 0 after an expansion")
			}
			// Resizing off: the buffer keeps its size whatever is sent.
			expect(t, ctl, "+OK", "DEBUG", "REPLYBUFFER", "RESIZING", "0")
			expect(t, ctl, "+OK", "DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "never")
			before, _ := rb()
			a.Do("MGET", "big", "big", "big", "big")
			time.Sleep(2500 * time.Millisecond) // two cron periods, resizing would have happened
			if s, _ := rb(); s != before {
				t.Errorf("rbs changed from %d to %d with resizing off", before, s)
			}
			expect(t, ctl, "+OK", "DEBUG", "REPLYBUFFER", "RESIZING", "1")
			expect(t, ctl, "+OK", "DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "reset")
			expect(t, ctl, "-ERR value is not an integer or out of range", "DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "soon")
		})
	}
}

// TestLargeReplyBlocks: a reply of millions of elements (built in the
// reply buffer's blocks and handed to the connection as they are) arrives
// whole and in order, before the next command's reply, in RESP2 and
// RESP3, while the client reads it slowly; CLIENT LIST counts it in omem
// while it waits; and the server's peak RSS grows by little more than
// the reply (once it grew by 4x it: a doubling buffer, then a copy to
// send it).
func TestLargeReplyBlocks(t *testing.T) {
	bothNetPaths(t, func(t *testing.T, start func(...string) *testutil.Proc) {
		const n = 3_000_000
		srv := start()
		c := testutil.Dial(t, srv.Addr)
		expect(t, c, ":10", "SADD", "s", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")
		expect(t, c, ":3", "ZADD", "z", "1", "a", "2", "b", "3", "c")
		base := vmHWM(t, srv.Cmd.Process.Pid)

		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte(testutil.Command("CLIENT", "SETNAME", "big") + testutil.Command("SRANDMEMBER", "s", "-"+strconv.Itoa(n)) + testutil.Command("PING")))
		// Nothing read yet: the reply waits, counted in omem.
		if !waitFor(hangTimeout, func() bool { return omemOf(c, "srandmember") > 1<<20 }) {
			t.Fatalf("omem %d with a 21 MB reply unread", omemOf(c, "srandmember"))
		}
		conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		r := bufio.NewReaderSize(conn, 512) // small reads: the server waits on the socket
		line := func() string {
			s, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the reply: %v", err)
			}
			return s
		}
		if got := line(); got != "+OK\r\n" {
			t.Fatalf("CLIENT SETNAME: %q", got)
		}
		if got := line(); got != "*"+strconv.Itoa(n)+"\r\n" {
			t.Fatalf("SRANDMEMBER header %q", got)
		}
		for i := range n {
			h, m := line(), line()
			if h != "$1\r\n" || len(m) != 3 || m[0] < '0' || m[0] > '9' {
				t.Fatalf("element %d: %q %q", i, h, m)
			}
		}
		if got := line(); got != "+PONG\r\n" {
			t.Fatalf("after the reply: %q", got)
		}
		if !raceBuild {
			// The reply is 7 bytes an element (21 MB); Valkey's peak grows
			// by the reply, Corvid's once grew by 4x it.
			reply := int64(n * len("$1\r\n0\r\n"))
			peak := vmHWM(t, srv.Cmd.Process.Pid)
			t.Logf("VmHWM: %d MB before, %d MB after a %d MB reply", base>>20, peak>>20, reply>>20)
			if peak-base > 2*reply {
				t.Errorf("VmHWM grew by %d MB for a %d MB reply", (peak-base)>>20, reply>>20)
			}
		}

		// RESP3, nested pairs, then a small reply after it on the same
		// connection: the buffer is back to one block.
		c3 := testutil.Dial(t, srv.Addr)
		c3.Do("HELLO", "3")
		got := c3.Do("ZRANDMEMBER", "z", "-200000", "WITHSCORES")
		// The outer array and 200000 [member, score] pairs, as doubles.
		if n := strings.Count(got, "*["); n != 200001 || !strings.HasPrefix(got, `*[*["`) || !strings.Contains(got, `", ,2]`) {
			t.Fatalf("ZRANDMEMBER WITHSCORES: %d arrays: %.60s", n, got)
		}
		expect(t, c3, "+PONG", "PING")
	})
}

// vmHWM is the peak RSS of process pid so far.
func vmHWM(t *testing.T, pid int) int64 { return procStatusBytes(t, pid, "VmHWM") }
