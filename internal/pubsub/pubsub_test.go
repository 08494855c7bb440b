package pubsub

import (
	"slices"
	"sync"
	"testing"
)

type fakeSub struct {
	proto int
	mu    sync.Mutex
	got   []string
}

func (f *fakeSub) Proto() int { return f.proto }
func (f *fakeSub) Deliver(b []byte, _ any) {
	f.mu.Lock()
	f.got = append(f.got, string(b))
	f.mu.Unlock()
}

func TestPublishEncodings(t *testing.T) {
	r := NewRegistry()
	a, b := &fakeSub{proto: 2}, &fakeSub{proto: 3}
	var sa, sb State
	r.Subscribe(a, &sa, Channel, "news")
	r.Subscribe(b, &sb, Channel, "news")
	r.Subscribe(b, &sb, Pattern, "n*")
	r.Subscribe(a, &sa, Shard, "news") // another namespace
	if n := r.Publish(Channel, []byte("news"), []byte("hi"), nil); n != 3 {
		t.Fatalf("receivers %d, want 3", n)
	}
	wantA := []string{"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n"}
	wantB := []string{
		">3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n",
		">4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n",
	}
	if !slices.Equal(a.got, wantA) || !slices.Equal(b.got, wantB) {
		t.Fatalf("a got %q\nb got %q", a.got, b.got)
	}
	if n := r.Publish(Shard, []byte("news"), []byte("x"), nil); n != 1 {
		t.Fatalf("shard receivers %d, want 1 (patterns never match shard channels)", n)
	}
	if got := a.got[1]; got != "*3\r\n$8\r\nsmessage\r\n$4\r\nnews\r\n$1\r\nx\r\n" {
		t.Fatalf("smessage %q", got)
	}
	if n := r.Publish(Channel, []byte("other"), []byte("x"), nil); n != 0 {
		t.Fatalf("receivers %d, want 0", n)
	}
}

func TestSubscribeCounts(t *testing.T) {
	r := NewRegistry()
	a, b := &fakeSub{proto: 2}, &fakeSub{proto: 2}
	var sa, sb State
	steps := []struct {
		do   func() bool
		want bool
	}{
		{func() bool { return r.Subscribe(a, &sa, Channel, "x") }, true},
		{func() bool { return r.Subscribe(a, &sa, Channel, "x") }, false},
		{func() bool { return r.Subscribe(b, &sb, Channel, "x") }, true},
		{func() bool { return r.Subscribe(a, &sa, Pattern, "x*") }, true},
		{func() bool { return r.Subscribe(b, &sb, Pattern, "x*") }, true},
		{func() bool { return r.Subscribe(b, &sb, Shard, "s") }, true},
		{func() bool { return r.Unsubscribe(a, &sa, Channel, "nope") }, false},
	}
	for i, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("step %d: %v, want %v", i, got, s.want)
		}
	}
	if r.NumSub(Channel, []byte("x")) != 2 || r.NumPat() != 1 || r.NumChannels(Channel) != 1 ||
		r.NumChannels(Shard) != 1 || r.NumSub(Shard, []byte("s")) != 1 || r.Clients() != 2 {
		t.Fatalf("numsub %d numpat %d channels %d shard %d clients %d", r.NumSub(Channel, []byte("x")),
			r.NumPat(), r.NumChannels(Channel), r.NumChannels(Shard), r.Clients())
	}
	if sa.Count(Channel) != 1 || sa.Count(Pattern) != 1 || sb.Count(Shard) != 1 {
		t.Fatal("per-client counts")
	}
	r.UnsubscribeAll(a, &sa)
	if sa.Active() || r.NumSub(Channel, []byte("x")) != 1 || r.NumPat() != 1 || r.Clients() != 1 {
		t.Fatal("after UnsubscribeAll(a)")
	}
	r.UnsubscribeAll(b, &sb)
	// Channels and patterns without subscribers are gone entirely.
	if r.NumChannels(Channel) != 0 || r.NumPat() != 0 || r.NumChannels(Shard) != 0 || r.Clients() != 0 || r.Wanted() {
		t.Fatal("registry not empty")
	}
}

func TestChannelsPattern(t *testing.T) {
	r := NewRegistry()
	s := &fakeSub{proto: 2}
	var st State
	for _, ch := range []string{"a.1", "a.2", "b.1", "[x]"} {
		r.Subscribe(s, &st, Channel, ch)
	}
	got := r.Channels(Channel, []byte("a.*"))
	slices.Sort(got)
	if !slices.Equal(got, []string{"a.1", "a.2"}) {
		t.Fatalf("a.*: %q", got)
	}
	if got := r.Channels(Channel, nil); len(got) != 4 {
		t.Fatalf("all: %q", got)
	}
	if got := r.Channels(Channel, []byte(`\[x]`)); !slices.Equal(got, []string{"[x]"}) {
		t.Fatalf("escaped: %q", got)
	}
}

func TestReply(t *testing.T) {
	for _, tc := range []struct {
		proto int
		null  bool
		want  string
	}{
		{2, false, "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"},
		{3, false, ">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"},
		{2, true, "*3\r\n$9\r\nsubscribe\r\n$-1\r\n:1\r\n"},
		{3, true, ">3\r\n$9\r\nsubscribe\r\n_\r\n:1\r\n"},
	} {
		if got := string(Reply(nil, tc.proto, "subscribe", []byte("c"), tc.null, 1)); got != tc.want {
			t.Errorf("proto %d null %v: %q, want %q", tc.proto, tc.null, got, tc.want)
		}
	}
}

// TestConcurrent runs publishers and subscribers at once (for -race) and
// checks each subscriber gets one publisher's messages in order.
func TestConcurrent(t *testing.T) {
	r := NewRegistry()
	const subs, msgs = 8, 500
	ss := make([]*fakeSub, subs)
	sts := make([]State, subs)
	for i := range ss {
		ss[i] = &fakeSub{proto: 2 + i%2}
		r.Subscribe(ss[i], &sts[i], Channel, "c")
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < msgs; i++ {
			r.Publish(Channel, []byte("c"), []byte{byte(i), byte(i >> 8)}, nil)
		}
	}()
	go func() { // churn on another channel meanwhile
		defer wg.Done()
		x := &fakeSub{proto: 2}
		var st State
		for i := 0; i < msgs; i++ {
			r.Subscribe(x, &st, Pattern, "d*")
			r.Unsubscribe(x, &st, Pattern, "d*")
		}
	}()
	wg.Wait()
	for i, s := range ss {
		if len(s.got) != msgs {
			t.Fatalf("sub %d got %d", i, len(s.got))
		}
		for j, m := range s.got {
			p := m[len(m)-4 : len(m)-2]
			if int(p[0])|int(p[1])<<8 != j {
				t.Fatalf("sub %d message %d out of order", i, j)
			}
		}
	}
}

func BenchmarkPublishFanout(b *testing.B) {
	r := NewRegistry()
	for i := 0; i < 100; i++ {
		var st State
		r.Subscribe(&nullSub{}, &st, Channel, "c")
	}
	msg := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		r.Publish(Channel, []byte("c"), msg, nil)
	}
}

type nullSub struct{ _ int }

func (nullSub) Proto() int          { return 2 }
func (nullSub) Deliver([]byte, any) {}
