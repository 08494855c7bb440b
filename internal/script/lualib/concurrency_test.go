package lualib

import (
	"strings"
	"sync"
	"testing"
)

// TestStatesIndependent runs LStates on several goroutines at once (under
// -race this checks the package shares no mutable state between them) and
// checks one state's cjson configuration is not seen by another's.
func TestStatesIndependent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			L := newTestState()
			defer L.Close()
			if g%2 == 0 {
				runLocal(L, "cjson.encode_number_precision(3) return 1")
			}
			want := `"[0.33333333333333,{\"a\":\"\\u0001\"}]"`
			if g%2 == 0 {
				want = `"[0.333,{\"a\":\"\\u0001\"}]"`
			}
			for i := 0; i < 200; i++ {
				got := runLocal(L, `return cjson.encode({1/3, cjson.decode('{"a":"\\u0001"}')})`)
				if got != want {
					errs <- got
					return
				}
				if got := runLocal(L, `return cmsgpack.pack(cmsgpack.unpack(struct.pack('>bB', -1, 255)))`); got != `"\xff\xff"` {
					errs <- got
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestNullPerState checks cjson.null is one value within a state (shared by
// cjson.new instances) and differs between states.
func TestNullPerState(t *testing.T) {
	a, b := newTestState(), newTestState()
	defer a.Close()
	defer b.Close()
	if got := runLocal(a, "return rawequal(cjson.null, cjson.new().null) and rawequal(cjson.decode('null'), cjson.new().decode('null'))"); got != ":1" {
		t.Fatalf("null within a state: %s", got)
	}
	if a.GetGlobal("cjson").(interface{ String() string }).String() == "" {
		t.Fatal("no cjson")
	}
	na := a.GetField(a.GetGlobal("cjson"), "null")
	nb := b.GetField(b.GetGlobal("cjson"), "null")
	if na == nb {
		t.Fatal("two states share cjson.null")
	}
	if got := runLocal(a, "return tostring(cjson.null)"); !strings.Contains(got, "userdata: (nil)") {
		t.Fatalf("tostring(cjson.null) = %s", got)
	}
}
