package tracking

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeConn records what is pushed to it.
type fakeConn struct {
	mu    sync.Mutex
	proto int
	sub   bool
	out   []string
}

func (f *fakeConn) Proto() int       { return f.proto }
func (f *fakeConn) Subscribed() bool { return f.sub }
func (f *fakeConn) Push(b []byte) {
	f.mu.Lock()
	f.out = append(f.out, string(b))
	f.mu.Unlock()
}

// take returns and clears what was pushed.
func (f *fakeConn) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.out
	f.out = nil
	return out
}

// world is a table with a client registry for redirects.
type world struct {
	t      *Table
	conns  map[int64]*fakeConn
	active []bool
}

func newWorld() *world {
	w := &world{conns: map[int64]*fakeConn{}}
	w.t = NewTable(func(id int64) Conn {
		if c, ok := w.conns[id]; ok {
			return c
		}
		return nil
	}, func(on bool) { w.active = append(w.active, on) })
	return w
}

func (w *world) client(id int64, proto int) (*fakeConn, *Tracker) {
	c := &fakeConn{proto: proto}
	w.conns[id] = c
	return c, w.t.NewTracker(c)
}

func mustEnable(t *testing.T, tr *Tracker, o Options) {
	t.Helper()
	if msg, ok := tr.Enable(&o); msg != "" || !ok {
		t.Fatalf("Enable(%+v) = %q, %v", o, msg, ok)
	}
}

func push(keys ...string) string {
	var b strings.Builder
	b.WriteString(pushHead + fmt.Sprintf("*%d\r\n", len(keys)))
	for _, k := range keys {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(k), k)
	}
	return b.String()
}

func pubsubMsg(keys ...string) string {
	return pubsubHead + strings.TrimPrefix(push(keys...), pushHead)
}

func eq(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func counts(t *testing.T, tb *Table, keys, items int64) {
	t.Helper()
	if tb.Keys() != keys || tb.Items() != items {
		t.Errorf("keys/items = %d/%d, want %d/%d", tb.Keys(), tb.Items(), keys, items)
	}
}

func TestDefaultMode(t *testing.T) {
	w := newWorld()
	c3, a := w.client(1, 3)
	c2, b := w.client(2, 2)
	mustEnable(t, a, Options{})
	mustEnable(t, b, Options{})
	eq(t, "onActive", func() []string {
		var s []string
		for _, on := range w.active {
			s = append(s, fmt.Sprint(on))
		}
		return s
	}(), "true")

	w.t.Remember(a, []byte("k"))
	w.t.Remember(a, []byte("k")) // twice: one item
	w.t.Remember(b, []byte("k"))
	w.t.Remember(a, []byte("j"))
	counts(t, w.t, 2, 3)

	w.t.Invalidate([]byte("k"), nil)
	eq(t, "RESP3 client", c3.take(), push("k"))
	eq(t, "RESP2 client without redirect", c2.take())
	counts(t, w.t, 1, 1)

	// Told once: the key is forgotten until read again.
	w.t.Invalidate([]byte("k"), nil)
	eq(t, "second change", c3.take())

	// An untracked key costs nothing and sends nothing.
	w.t.Invalidate([]byte("nope"), nil)
	eq(t, "untracked", c3.take())

	// NOLOOP: not for the client's own change; the key is forgotten
	// anyway, as in Valkey.
	mustEnable(t, a, Options{Noloop: true})
	w.t.Invalidate([]byte("j"), a)
	eq(t, "noloop own write", c3.take())
	counts(t, w.t, 0, 0)
	w.t.Remember(a, []byte("j"))
	w.t.Invalidate([]byte("j"), b)
	eq(t, "noloop other write", c3.take(), push("j"))

	// Off: entries stay (lazily dropped) but nothing is sent; on again,
	// the old entries count again (Valkey keeps the client's ID).
	w.t.Remember(a, []byte("x"))
	a.Disable()
	w.t.Invalidate([]byte("x"), nil)
	eq(t, "off", c3.take())
	w.t.Remember(a, []byte("y"))
	mustEnable(t, a, Options{})
	w.t.Invalidate([]byte("y"), nil)
	eq(t, "on again", c3.take(), push("y"))

	// A client switched to BCAST since it read a key gets no default-mode
	// invalidation for it.
	w.t.Remember(a, []byte("z"))
	a.Disable()
	mustEnable(t, a, Options{Bcast: true, Prefixes: [][]byte{[]byte("q")}})
	w.t.Invalidate([]byte("z"), nil)
	w.t.FlushBroadcast()
	eq(t, "bcast now", c3.take())

	a.Close()
	b.Disable()
	if got := w.active; !slices.Equal(got, []bool{true, false}) {
		t.Errorf("onActive calls %v", got)
	}
	if w.t.Clients() != 0 || w.t.Prefixes() != 0 {
		t.Errorf("clients %d prefixes %d after all off", w.t.Clients(), w.t.Prefixes())
	}
}

// TestActive: key changes are wanted while a client tracks or the table
// has entries left by clients that stopped (they go as their keys change,
// as in Valkey).
func TestActive(t *testing.T) {
	w := newWorld()
	_, a := w.client(1, 3)
	_, b := w.client(2, 3)
	mustEnable(t, a, Options{})
	mustEnable(t, b, Options{Bcast: true})
	w.t.Remember(a, []byte("k"))
	w.t.Remember(a, []byte("j"))
	a.Disable()
	b.Close()
	if !slices.Equal(w.active, []bool{true}) {
		t.Fatalf("active %v with entries left", w.active)
	}
	w.t.Invalidate([]byte("k"), nil)
	if !slices.Equal(w.active, []bool{true}) {
		t.Fatalf("active %v with one entry left", w.active)
	}
	w.t.Invalidate([]byte("j"), nil)
	if !slices.Equal(w.active, []bool{true, false}) {
		t.Fatalf("active %v with the table empty", w.active)
	}
	mustEnable(t, a, Options{})
	w.t.Remember(a, []byte("k"))
	a.Disable()
	w.t.Flush()
	if !slices.Equal(w.active, []bool{true, false, true, false}) {
		t.Fatalf("active %v after a flush", w.active)
	}
}

func TestRedirect(t *testing.T) {
	w := newWorld()
	self3, a := w.client(1, 3)
	self2, b := w.client(2, 2)
	sub2, _ := w.client(10, 2)
	sub2.sub = true
	r3, _ := w.client(11, 3)
	plain2, _ := w.client(12, 2)

	for _, tc := range []struct {
		name   string
		target int64
		conn   *fakeConn
		want   string
	}{
		{"RESP2 subscriber", 10, sub2, pubsubMsg("k")},
		{"RESP3 target", 11, r3, push("k")},
		{"RESP2 not subscribed", 12, plain2, ""},
	} {
		mustEnable(t, b, Options{Redirect: tc.target})
		w.t.Remember(b, []byte("k"))
		w.t.Invalidate([]byte("k"), nil)
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		eq(t, tc.name, tc.conn.take(), want...)
		eq(t, tc.name+": tracking client", self2.take())
	}

	// A flush sends the tracking client's null: RESP2's to a RESP3
	// target of a RESP2 client, as Valkey does.
	mustEnable(t, b, Options{Redirect: 11})
	mustEnable(t, a, Options{Redirect: 10})
	w.t.Flush()
	eq(t, "flush to RESP3 target of RESP2 client", r3.take(), pushHead+null2)
	eq(t, "flush to RESP2 subscriber of RESP3 client", sub2.take(), pubsubHead+null3)
	eq(t, "flush: tracking clients", append(self2.take(), self3.take()...))

	// The target goes away: the tracking client hears of it (RESP3 only)
	// at every message, and gets the broken_redirect flag.
	delete(w.conns, 10)
	w.t.Remember(a, []byte("k1"))
	w.t.Remember(a, []byte("k2"))
	w.t.Invalidate([]byte("k1"), nil)
	w.t.Invalidate([]byte("k2"), nil)
	broken := ">2\r\n$21\r\ntracking-redir-broken\r\n:10\r\n"
	eq(t, "broken redirect", self3.take(), broken, broken)
	if a.Flags()&FlagBrokenRedir == 0 {
		t.Error("no broken_redirect flag")
	}
	flags, redir, _ := a.Info()
	eq(t, "info flags", flags, "on", "broken_redirect")
	if redir != 10 {
		t.Errorf("redirect %d", redir)
	}
	// ON again clears the flag and the redirect.
	mustEnable(t, a, Options{})
	if f, r, _ := a.Info(); !slices.Equal(f, []string{"on"}) || r != 0 {
		t.Errorf("after ON: %v %d", f, r)
	}
	delete(w.conns, 11)
	w.t.Remember(b, []byte("k"))
	w.t.Invalidate([]byte("k"), nil)
	eq(t, "RESP2 client, broken redirect", self2.take())
	if b.Flags()&FlagBrokenRedir == 0 {
		t.Error("RESP2: no broken_redirect flag")
	}
}

func TestFlush(t *testing.T) {
	w := newWorld()
	c3, a := w.client(1, 3)
	cb, bc := w.client(2, 3)
	c2, off := w.client(3, 3)
	mustEnable(t, a, Options{})
	mustEnable(t, bc, Options{Bcast: true})
	w.t.Remember(a, []byte("k"))
	w.t.Remember(off, []byte("k"))
	w.t.Flush()
	eq(t, "default", c3.take(), pushHead+null3)
	eq(t, "bcast", cb.take(), pushHead+null3)
	eq(t, "never on", c2.take())
	counts(t, w.t, 0, 0)
	w.t.Invalidate([]byte("k"), nil)
	eq(t, "after flush", c3.take())
}

func TestBroadcast(t *testing.T) {
	w := newWorld()
	ca, a := w.client(1, 3)
	cb, b := w.client(2, 3)
	cc, c := w.client(3, 3)
	mustEnable(t, a, Options{Bcast: true, Noloop: true, Prefixes: [][]byte{[]byte("b"), []byte("a")}})
	mustEnable(t, b, Options{Bcast: true})
	mustEnable(t, c, Options{Bcast: true, Prefixes: [][]byte{[]byte("a")}})
	if w.t.Prefixes() != 3 {
		t.Errorf("prefixes %d, want 3", w.t.Prefixes())
	}
	if _, _, ps := a.Info(); !slices.Equal(ps, []string{"a", "b"}) {
		t.Errorf("a's prefixes %q", ps)
	}

	for _, k := range []string{"b2", "a2", "c1", "a1", "a2"} {
		w.t.Invalidate([]byte(k), b)
	}
	w.t.Invalidate([]byte("a3"), a)
	if !w.t.Pending() {
		t.Fatal("nothing pending")
	}
	w.t.FlushBroadcast()
	// One array per prefix, prefixes and keys in order; NOLOOP a does not
	// hear of a3, which it changed itself.
	eq(t, "noloop client", ca.take(), push("a1", "a2"), push("b2"))
	eq(t, "all keys", cb.take(), push("a1", "a2", "a3", "b2", "c1"))
	eq(t, "prefix a", cc.take(), push("a1", "a2", "a3"))
	w.t.FlushBroadcast()
	eq(t, "second flush", cb.take())

	// Only own changes: a NOLOOP client gets nothing at all.
	w.t.Invalidate([]byte("a9"), a)
	w.t.FlushBroadcast()
	eq(t, "only own", ca.take())
	eq(t, "others", cc.take(), push("a9"))
	cb.take()

	// Keys read by a BCAST client are not remembered (the server does
	// not call Remember: Reads is false).
	if b.Reads() {
		t.Error("BCAST client Reads")
	}

	// Leaving drops the prefix when it was the last client.
	c.Disable()
	a.Disable()
	if w.t.Prefixes() != 1 {
		t.Errorf("prefixes %d after two left, want 1", w.t.Prefixes())
	}
	b.Close()
	if w.t.Broadcasting() {
		t.Error("still broadcasting")
	}
	w.t.Invalidate([]byte("x"), nil)
	if w.t.Pending() {
		t.Error("pending without prefixes")
	}
}

func TestEnableRules(t *testing.T) {
	w := newWorld()
	_, tr := w.client(1, 3)
	p := func(ss ...string) [][]byte {
		var out [][]byte
		for _, s := range ss {
			out = append(out, []byte(s))
		}
		return out
	}
	type step struct {
		o       Options
		refusal string
		enabled bool
		off     bool // turn off before
	}
	for i, s := range []step{
		{o: Options{Prefixes: p("a")}, refusal: ErrPrefixNeedsBcast},
		{o: Options{Bcast: true, Optin: true}, refusal: ErrOptWithBcast},
		{o: Options{Optin: true, Optout: true}, refusal: ErrOptinAndOptout},
		{o: Options{Bcast: true, Prefixes: p("a", "ab")},
			refusal: "ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap."},
		// Valkey 8.0.1: an overlap found for a later prefix is reported
		// and tracking is enabled anyway.
		{o: Options{Bcast: true, Prefixes: p("x", "a", "ab")}, enabled: true,
			refusal: "ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap."},
		{o: Options{}, refusal: ErrBcastSwitch},
		{o: Options{Bcast: true, Prefixes: p("abc")},
			refusal: "ERR Prefix 'abc' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap."},
		{o: Options{Bcast: true, Prefixes: p("y")}, enabled: true},
		{off: true, o: Options{Optin: true}, enabled: true},
		{o: Options{Optout: true}, refusal: ErrOptSwitch},
		{o: Options{Optin: true, Noloop: true}, enabled: true},
		{o: Options{}, enabled: true}, // plain ON clears OPTIN
		{o: Options{Optout: true}, enabled: true},
		{off: true, o: Options{Bcast: true}, enabled: true},
		{o: Options{Bcast: true, Prefixes: p("z")},
			refusal: "ERR Prefix 'z' overlaps with an existing prefix ''. Prefixes for a single client must not overlap."},
	} {
		if s.off {
			tr.Disable()
		}
		refusal, enabled := tr.Enable(&s.o)
		if refusal != s.refusal || enabled != s.enabled {
			t.Errorf("step %d %+v: got %q %v, want %q %v", i, s.o, refusal, enabled, s.refusal, s.enabled)
		}
		if i == 4 {
			if _, _, ps := tr.Info(); !slices.Equal(ps, []string{"a", "ab", "x"}) {
				t.Errorf("prefixes after the overlap quirk: %q", ps)
			}
		}
		if i == 7 {
			if _, _, ps := tr.Info(); !slices.Equal(ps, []string{"a", "ab", "x", "y"}) {
				t.Errorf("prefixes after adding y: %q", ps)
			}
		}
	}
	if _, _, ps := tr.Info(); !slices.Equal(ps, []string{""}) {
		t.Errorf("BCAST without PREFIX: %q", ps)
	}
	// Off: no prefixes, flags "off", redirect -1.
	tr.Disable()
	if f, r, ps := tr.Info(); !slices.Equal(f, []string{"off"}) || r != -1 || len(ps) != 0 {
		t.Errorf("off: %v %d %q", f, r, ps)
	}
	if w.t.Prefixes() != 0 {
		t.Errorf("prefixes left: %d", w.t.Prefixes())
	}
}

func TestCaching(t *testing.T) {
	w := newWorld()
	_, tr := w.client(1, 3)
	if msg := tr.SetCaching(true); msg != ErrCachingOff {
		t.Errorf("off: %q", msg)
	}
	mustEnable(t, tr, Options{})
	if msg := tr.SetCaching(true); msg != ErrCachingYes {
		t.Errorf("default mode YES: %q", msg)
	}
	if msg := tr.SetCaching(false); msg != ErrCachingNo {
		t.Errorf("default mode NO: %q", msg)
	}
	if !tr.Reads() {
		t.Error("default mode does not read")
	}

	mustEnable(t, tr, Options{Optin: true})
	if tr.Reads() {
		t.Error("OPTIN reads without CACHING YES")
	}
	if msg := tr.SetCaching(false); msg != ErrCachingNo {
		t.Errorf("OPTIN NO: %q", msg)
	}
	if msg := tr.SetCaching(true); msg != "" {
		t.Fatal(msg)
	}
	if !tr.Reads() {
		t.Error("OPTIN with CACHING YES does not read")
	}
	if f, _, _ := tr.Info(); !slices.Equal(f, []string{"on", "optin", "caching-yes"}) {
		t.Errorf("info %v", f)
	}
	tr.EndCommand()
	if tr.Reads() {
		t.Error("CACHING YES outlived its command")
	}

	tr.Disable()
	mustEnable(t, tr, Options{Optout: true})
	if !tr.Reads() {
		t.Error("OPTOUT does not read")
	}
	if msg := tr.SetCaching(false); msg != "" {
		t.Fatal(msg)
	}
	if tr.Reads() {
		t.Error("OPTOUT reads after CACHING NO")
	}
	if f, _, _ := tr.Info(); !slices.Equal(f, []string{"on", "optout", "caching-no"}) {
		t.Errorf("info %v", f)
	}
	tr.Disable()
	if tr.Reads() {
		t.Error("reads while off")
	}
}

func TestLimit(t *testing.T) {
	w := newWorld()
	c, tr := w.client(1, 3)
	mustEnable(t, tr, Options{})
	for i := range 10 {
		w.t.Remember(tr, fmt.Appendf(nil, "k%d", i))
	}
	if w.t.Limit(0, nil) || w.t.Limit(10, nil) {
		t.Fatal("limit 0 or at the limit evicted")
	}
	if w.t.Limit(4, nil) {
		t.Fatal("still over")
	}
	counts(t, w.t, 4, 4)
	got := c.take()
	if len(got) != 6 {
		t.Fatalf("%d invalidations, want 6: %q", len(got), got)
	}
	// The evicted keys are those no longer tracked.
	for _, m := range got {
		k := m[strings.LastIndex(m[:len(m)-2], "\n")+1 : len(m)-2]
		w.t.Remember(tr, []byte(k))
	}
	counts(t, w.t, 10, 10)

	// NOLOOP spares the current client, as Valkey spares the client
	// whose command is being processed.
	mustEnable(t, tr, Options{Noloop: true})
	w.t.Limit(9, tr)
	eq(t, "noloop current", c.take())
	counts(t, w.t, 9, 9)

	// Effort: 100 keys per call, 100 more per call that ended over.
	for i := range 1000 {
		w.t.Remember(tr, fmt.Appendf(nil, "m%d", i))
	}
	if !w.t.Limit(1, nil) || w.t.Keys() != 909 {
		t.Fatalf("first call: %d keys left", w.t.Keys())
	}
	if !w.t.Limit(1, nil) || w.t.Keys() != 709 {
		t.Fatalf("second call: %d keys left", w.t.Keys())
	}
	for w.t.Limit(1, nil) {
	}
	counts(t, w.t, 1, 1)
	if w.t.lim.misses != 0 {
		t.Errorf("misses %d after reaching the limit", w.t.lim.misses)
	}
}

// TestConcurrent runs remembers, changes, flushes and broadcasts from many
// goroutines (run with -race): the counters must add up at the end.
func TestConcurrent(t *testing.T) {
	w := newWorld()
	var trs []*Tracker
	for i := range 8 {
		_, tr := w.client(int64(i+1), 3)
		o := Options{}
		if i%4 == 3 {
			o = Options{Bcast: true, Prefixes: [][]byte{fmt.Appendf(nil, "k%d", i)}}
		}
		mustEnable(t, tr, o)
		trs = append(trs, tr)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := trs[g]
			for i := range 2000 {
				k := fmt.Appendf(nil, "k%d", (i*7+g)%97)
				switch i % 5 {
				case 0, 1, 2:
					w.t.Remember(tr, k)
				case 3:
					w.t.Invalidate(k, tr)
				default:
					w.t.FlushBroadcast()
				}
				if i%500 == 0 && g == 0 {
					w.t.Flush()
				}
				if i%300 == 0 {
					w.t.Limit(50, tr)
				}
			}
		}()
	}
	wg.Wait()
	var keys, items int64
	for i := range w.t.shards {
		for _, e := range w.t.shards[i].m {
			keys++
			items += int64(e.len())
		}
	}
	counts(t, w.t, keys, items)
}
