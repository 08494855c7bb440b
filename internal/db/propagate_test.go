package db

import (
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
)

// recordEffects attaches a recorder to h's keyspace and gives the
// harness's context a unit that do commits after each command, as the
// dispatcher does.
func recordEffects(h *memHarness) *effects.Recorder {
	h.ks.Effects = new(effects.Stream)
	var rec effects.Recorder
	h.ks.Effects.Attach(&rec)
	return &rec
}

func opText(op effects.Op) string {
	parts := strings.Split(string(op.Cmd), "\r\n")
	var args []string
	for i := 2; i < len(parts); i += 2 {
		args = append(args, parts[i])
	}
	return strings.Join(args, " ")
}

// TestActiveExpiryPropagates: each key active expiry deletes is one op of
// its own in the stream (never wrapped), UNLINK with lazyfree-lazy-expire
// on and DEL with it off; keys that have not expired stay, unpropagated.
func TestActiveExpiryPropagates(t *testing.T) {
	for _, lazy := range []bool{true, false} {
		h := newMemHarness(t)
		// The harness's clock is in the past, so these TTLs have passed
		// for ActiveExpire, which reads the wall clock.
		h.fill("gone:", 30, 10, func(int) int { return 1 })
		h.fill("kept:", 5, 10, nil)
		h.ks.SetLazyFree(lazy, lazy, lazy)
		rec := recordEffects(h)
		var cyc expireCycle
		for h.ks.ActiveExpire(time.Second, 10, &cyc) > 0 {
		}
		ops := rec.Ops()
		if len(ops) != 30 {
			t.Fatalf("lazy %v: %d ops for 30 expired keys", lazy, len(ops))
		}
		seen := map[string]bool{}
		for _, op := range ops {
			name, key, _ := strings.Cut(opText(op), " ")
			if name != delName(lazy) || !strings.HasPrefix(key, "gone:") || op.DB != 0 {
				t.Fatalf("lazy %v: op %q in db %d", lazy, opText(op), op.DB)
			}
			seen[key] = true
		}
		if len(seen) != 30 || h.survivors("kept:", 5) != 5 || h.survivors("gone:", 30) != 0 {
			t.Fatalf("lazy %v: %d distinct keys propagated; kept %d, gone left %d", lazy, len(seen),
				h.survivors("kept:", 5), h.survivors("gone:", 30))
		}
	}
}

// TestLazyExpiryInUnit: a command that meets an expired key propagates
// the deletion first, in its own unit, and a read that meets one
// propagates only the deletion.
func TestLazyExpiryInUnit(t *testing.T) {
	h := newMemHarness(t)
	h.ks.SetLazyFree(true, true, true)
	h.do("SET", "k", "v", "PX", "1")
	h.do("SET", "r", "v", "PX", "1")
	h.advance(10)
	rec := recordEffects(h)
	var u effects.Unit
	run := func(args ...string) {
		h.c.Prop = &u
		h.c.BeginOwn()
		h.do(args...)
		h.c.CommitUnit()
		h.c.Prop = nil
	}
	run("APPEND", "k", "x")
	run("GET", "r")
	var got []string
	for _, op := range rec.Ops() {
		got = append(got, opText(op))
	}
	want := []string{"MULTI", "UNLINK k", "APPEND k x", "EXEC", "UNLINK r"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ops %q, want %q", got, want)
	}
}

// TestExpiredMetByWritesPropagates: the deletions that the keyspace
// events of Valkey 8.0.1 made visible are propagated as Valkey does: a
// write that inserts over an expired key (MSET, a STORE destination)
// expires it first, in its unit; SET with a time already past deletes
// the key it replaces (and replays as that deletion); SCAN and
// RANDOMKEY, which lock stripes themselves, commit each expired key they
// delete as a unit of its own.
func TestExpiredMetByWritesPropagates(t *testing.T) {
	h := newMemHarness(t)
	h.ks.SetLazyFree(true, true, true)
	for _, k := range []string{"m", "d", "p", "s"} {
		h.do("SET", k, "v", "PX", "1")
	}
	h.do("SELECT", "4")
	h.do("SET", "r", "v", "PX", "1")
	h.do("SELECT", "0")
	h.advance(10)
	rec := recordEffects(h)
	var u effects.Unit
	run := func(args ...string) {
		h.c.Prop = &u
		h.c.BeginOwn()
		h.do(args...)
		h.c.CommitUnit()
		h.c.Prop = nil
	}
	run("MSET", "m", "1")
	run("SET", "x", "1")
	run("SUNIONSTORE", "d", "x")  // WRONGTYPE: d was not touched
	run("SADD", "st", "a")        // a set to store
	run("SUNIONSTORE", "d", "st") // over the expired d
	run("SET", "x", "2", "PXAT", "1")
	run("SET", "y", "2", "PXAT", "1") // nothing there: nothing done
	run("SCAN", "0", "MATCH", "s")
	run("SELECT", "4")
	run("RANDOMKEY")
	run("SELECT", "0")
	var got []string
	for _, op := range rec.Ops() {
		got = append(got, opText(op))
	}
	want := []string{"MULTI", "UNLINK m", "MSET m 1", "EXEC", "SET x 1",
		"SADD st a", "MULTI", "UNLINK d", "SUNIONSTORE d st", "EXEC", "UNLINK x",
		"UNLINK s", "UNLINK r"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ops\n got: %q\nwant: %q", got, want)
	}
}
