package effects

import (
	"strings"
	"sync"
	"testing"
)

func encode(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestUnitEncoding: ops are RESP multibulk commands; a unit of more than
// one op is wrapped in MULTI/EXEC (unless Alone), MULTI in the first op's
// database and EXEC in the last's; Reset empties it.
func TestUnitEncoding(t *testing.T) {
	var u Unit
	u.Begin(0, 5)
	u.ArgString("SET")
	u.Arg([]byte("k"))
	u.Arg([]byte("v\r\n"))
	u.ArgString("PXAT")
	u.ArgInt(-12)
	var got []string
	each := func() {
		got = got[:0]
		u.Each(func(db int, cmd []byte) { got = append(got, itoa(db)+":"+string(cmd)) })
	}
	each()
	if want := "0:" + encode("SET", "k", "v\r\n", "PXAT", "-12"); len(got) != 1 || got[0] != want {
		t.Fatalf("one op: %q, want %q", got, want)
	}
	u.AddStrings(3, "UNLINK", "x")
	each()
	want := []string{"0:" + encode("MULTI"), "0:" + encode("SET", "k", "v\r\n", "PXAT", "-12"), "3:" + encode("UNLINK", "x"), "3:" + encode("EXEC")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("two ops: %q, want %q", got, want)
	}
	u.Alone = true
	each()
	if len(got) != 2 {
		t.Fatalf("alone: %q", got)
	}
	u.Reset()
	each()
	if len(got) != 0 || u.Alone {
		t.Fatalf("after Reset: %q alone=%v", got, u.Alone)
	}
}

// TestStream: nothing is active without a sink; committed units reach
// every attached sink in commit order and are emptied; a detached sink
// gets nothing more; the recorder's stream selects databases as it goes.
func TestStream(t *testing.T) {
	var s Stream
	if s.Active() {
		t.Fatal("active with no sink")
	}
	var nilStream *Stream
	if nilStream.Active() {
		t.Fatal("nil stream active")
	}
	var a, b Recorder
	detachA := s.Attach(&a)
	s.Attach(&b)
	if !s.Active() {
		t.Fatal("not active with sinks")
	}
	var u Unit
	u.AddStrings(0, "SET", "a", "1")
	s.Commit(&u)
	if u.Len() != 0 {
		t.Fatal("Commit did not empty the unit")
	}
	detachA()
	u.AddStrings(2, "DEL", "b")
	u.AddStrings(2, "DEL", "c")
	s.Commit(&u)
	if n := len(a.Ops()); n != 1 {
		t.Fatalf("detached sink got %d ops", n)
	}
	want := encode("SELECT", "0") + encode("SET", "a", "1") + encode("SELECT", "2") + encode("MULTI") +
		encode("DEL", "b") + encode("DEL", "c") + encode("EXEC")
	if got := string(b.Stream()); got != want {
		t.Fatalf("stream:\n%q\nwant\n%q", got, want)
	}
	// Concurrent commits interleave whole units.
	var wg sync.WaitGroup
	var c Recorder
	s.Attach(&c)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var u Unit
			for range 100 {
				u.AddStrings(g, "INCR", "x")
				u.AddStrings(g, "INCR", "y")
				s.Commit(&u)
			}
		}()
	}
	wg.Wait()
	ops := c.Ops()
	if len(ops) != 4*100*4 {
		t.Fatalf("%d ops", len(ops))
	}
	for i := 0; i < len(ops); i += 4 {
		if string(ops[i].Cmd) != encode("MULTI") || string(ops[i+3].Cmd) != encode("EXEC") || ops[i+1].DB != ops[i+2].DB {
			t.Fatalf("units interleaved at op %d", i)
		}
	}
}
