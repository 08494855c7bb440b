package server

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// streamText renders a recorder's ops one command a line ("SET k v"),
// with "@db" before an op whose database differs from the previous one.
func streamText(rec *effects.Recorder) []string {
	var out []string
	db := 0
	for _, op := range rec.Ops() {
		if op.DB != db {
			out = append(out, "@"+string(rune('0'+op.DB)))
			db = op.DB
		}
		parts := strings.Split(string(op.Cmd), "\r\n")
		var args []string
		for i := 2; i < len(parts); i += 2 {
			args = append(args, parts[i])
		}
		out = append(out, strings.Join(args, " "))
	}
	return out
}

var msTime = regexp.MustCompile(`\b1[0-9]{12}\b`)

// TestEffectsForms pins what each kind of write puts in the effects
// stream, in the forms Valkey 8.0.1 writes to its AOF (observed on
// valkey-server with appendonly yes): rewrites that make a replay
// deterministic, transactions, lazily expired keys, blocked clients
// served by a push (each a unit after the push), and nothing for writes
// that changed nothing. Absolute times read as <ms>.
func TestEffectsForms(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		var rec effects.Recorder
		detach := s.Effects().Attach(&rec)
		defer detach()
		c := testutil.Dial(t, addr)
		steps := []struct {
			args []string
			want []string // ops this command adds
		}{
			{[]string{"SET", "a", "1", "EX", "100"}, []string{"SET a 1 PXAT <ms>"}},
			{[]string{"SET", "g", "1", "GET"}, []string{"SET g 1"}},
			{[]string{"set", "g", "2", "XX"}, []string{"set g 2 XX"}},
			{[]string{"SET", "g", "3", "NX"}, nil}, // changed nothing
			{[]string{"SETEX", "se", "100", "v"}, []string{"SET se v PXAT <ms>"}},
			{[]string{"EXPIRE", "a", "50"}, []string{"PEXPIREAT a <ms>"}},
			{[]string{"PEXPIRE", "a", "60000", "GT"}, []string{"PEXPIREAT a <ms> GT"}},
			{[]string{"GETEX", "a", "PERSIST"}, []string{"PERSIST a"}},
			{[]string{"GETEX", "a"}, nil},
			{[]string{"GETEX", "a", "EX", "10"}, []string{"PEXPIREAT a <ms>"}},
			{[]string{"INCRBYFLOAT", "f", "1.5"}, []string{"SET f 1.5 KEEPTTL"}},
			{[]string{"GETDEL", "f"}, []string{"DEL f"}},
			{[]string{"EXPIRE", "g", "-5"}, []string{"UNLINK g"}},
			{[]string{"HINCRBYFLOAT", "h", "f", "2.5"}, []string{"HSET h f 2.5"}},
			{[]string{"SADD", "s", "only"}, []string{"SADD s only"}},
			{[]string{"SPOP", "s"}, []string{"SREM s only"}},
			{[]string{"SADD", "s2", "a", "b"}, []string{"SADD s2 a b"}},
			{[]string{"SPOP", "s2", "10"}, []string{"UNLINK s2"}},
			{[]string{"RPUSH", "l", "1", "2", "3"}, []string{"RPUSH l 1 2 3"}},
			{[]string{"BLPOP", "l", "0"}, []string{"LPOP l"}},
			{[]string{"LMPOP", "1", "l", "RIGHT", "COUNT", "5"}, []string{"RPOP l 2"}},
			{[]string{"RPUSH", "s1", "a", "b"}, []string{"RPUSH s1 a b"}},
			{[]string{"BRPOPLPUSH", "s1", "d1", "0"}, []string{"RPOPLPUSH s1 d1"}},
			{[]string{"BLMOVE", "s1", "d1", "LEFT", "RIGHT", "0"}, []string{"LMOVE s1 d1 LEFT RIGHT"}},
			{[]string{"ZADD", "z", "1", "a", "2", "b"}, []string{"ZADD z 1 a 2 b"}},
			{[]string{"BZPOPMAX", "z", "0"}, []string{"ZPOPMAX z"}},
			{[]string{"ZMPOP", "1", "z", "MIN", "COUNT", "3"}, []string{"ZPOPMIN z 1"}},
			{[]string{"DEL", "nope"}, nil},
			{[]string{"FLUSHDB"}, []string{"FLUSHDB"}},
			{[]string{"SWAPDB", "0", "1"}, []string{"SWAPDB 0 1"}},
			{[]string{"SELECT", "3"}, nil},
			{[]string{"SET", "in3", "v"}, []string{"@3", "SET in3 v"}},
			{[]string{"SELECT", "0"}, nil},
			{[]string{"MULTI"}, nil},
			{[]string{"SET", "x", "1"}, nil},
			{[]string{"INCR", "y"}, nil},
			{[]string{"EXEC"}, []string{"@0", "MULTI", "SET x 1", "INCR y", "EXEC"}},
			{[]string{"MULTI"}, nil},
			{[]string{"SET", "x2", "1"}, nil},
			{[]string{"GET", "x2"}, nil},
			{[]string{"EXEC"}, []string{"SET x2 1"}}, // one op: not wrapped
			// Active expiry off, so that k is met by the APPEND below
			// and not deleted by the cycle first.
			{[]string{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, nil},
			{[]string{"SET", "k", "v", "PX", "1"}, []string{"SET k v PXAT <ms>"}},
		}
		n := 0
		for _, st := range steps {
			c.Do(st.args...)
			got := streamText(&rec)
			if len(got) < n {
				t.Fatalf("%q: the stream shrank", st.args)
			}
			for i := range got {
				got[i] = msTime.ReplaceAllString(got[i], "<ms>")
			}
			if added := strings.Join(got[n:], " | "); added != strings.Join(st.want, " | ") {
				t.Fatalf("%q added %q, want %q", st.args, added, strings.Join(st.want, " | "))
			}
			n = len(got)
		}
		// A write that meets an expired key: the deletion, then the
		// write, as one unit (wrapped).
		waitServerTime(t, c, time.Now().Add(2*time.Millisecond)) // k's 1 ms TTL passes
		c.Do("APPEND", "k", "x")
		got := streamText(&rec)[n:]
		if want := "MULTI | UNLINK k | APPEND k x | EXEC"; strings.Join(got, " | ") != want {
			t.Fatalf("APPEND to an expired key: %q, want %q", got, want)
		}
		n += len(got)

		// Blocked clients served by a push: the push, then each served
		// client's pop as a unit of its own.
		b1 := testutil.Dial(t, addr)
		b2 := testutil.Dial(t, addr)
		b1.Send("BLPOP", "bl", "0")
		b2.Send("BZMPOP", "0", "1", "bz", "MAX", "COUNT", "2")
		blockedSoon(t, c, 2)
		c.Do("RPUSH", "bl", "x", "y")
		c.Do("ZADD", "bz", "1", "a", "2", "b", "3", "c")
		b1.Read()
		b2.Read()
		got = streamText(&rec)[n:]
		if want := "RPUSH bl x y | LPOP bl | ZADD bz 1 a 2 b 3 c | ZPOPMAX bz 2"; strings.Join(got, " | ") != want {
			t.Fatalf("served clients: %q, want %q", got, want)
		}
	})
}

// waitServerTime returns once the server's clock (TIME) has passed
// when; it reads no key, so it expires nothing on the way.
func waitServerTime(t *testing.T, c *testutil.Raw, when time.Time) {
	t.Helper()
	for {
		r := c.Do("TIME") // *["<sec>", "<usec>"]
		var sec, usec int64
		if _, err := fmt.Sscanf(strings.ReplaceAll(r, `"`, ""), "*[%d, %d]", &sec, &usec); err != nil {
			t.Fatalf("TIME: %s: %v", r, err)
		}
		if time.Unix(sec, usec*1000).After(when) {
			return
		}
	}
}

// TestEffectsAttachWhileWaiting: a sink attached while a command waits for
// its stripe (as a snapshot's start attaches one with every stripe held)
// receives that command's unit: the command decides whether to record
// once it holds the stripe (db.Ctx.StartProp), not before.
func TestEffectsAttachWhileWaiting(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		c := testutil.Dial(t, addr)
		st := s.ks.StripeOf([]byte("k"))
		s.ks.LockStripe(st)
		c.Send("SET", "k", "v")
		// Observable state: a goroutine waits in the stripe's lock on
		// behalf of callData.
		waitFor(t, "SET waiting for its stripe", func() bool {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			return strings.Contains(stacks, "(*Keyspace).LockStripe") && strings.Contains(stacks, "(*Client).callData")
		})
		var rec effects.Recorder
		detach := s.Effects().Attach(&rec)
		defer detach()
		s.ks.UnlockStripe(st)
		if r := c.Read(); r != "+OK" {
			t.Fatalf("SET: %s", r)
		}
		if got := strings.Join(streamText(&rec), " | "); got != "SET k v" {
			t.Fatalf("the stream holds %q, want the SET that waited", got)
		}
	})
}
