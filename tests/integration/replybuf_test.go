package integration

import (
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
