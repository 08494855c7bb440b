package db

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/resp"
)

// ownedBuf is an argument as resp.Reader hands out a big one read into a
// buffer of its own: its bytes, then the CRLF, in an allocation rounded up
// to the allocator's size.
func ownedBuf(s string) []byte {
	b := make([]byte, 0, ds.AllocSize(len(s)+2))
	b = append(b, s...)
	copy(b[len(b):cap(b)], "\r\n") // what the reader leaves in the spare room
	return b
}

// owner is an ArgOwner over a list of buffers, as resp.Reader.TakeOwned.
type owner [][]byte

func (o owner) TakeOwned(v []byte) []byte {
	for i, b := range o {
		if b != nil && len(b) == len(v) && sameBuf(b, v) {
			o[i] = nil
			return b
		}
	}
	return nil
}

// oneKB hands out its data 1000 bytes per Read.
type oneKB struct{ data []byte }

func (r *oneKB) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1000)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// doRead runs a command read by a resp.Reader in 1000-byte pieces, so
// that its arguments of resp.BigArg bytes or more are in buffers of their
// own, with the Reader as the Ctx's ArgOwner, as the dispatcher runs a
// command read from a connection. It returns the reply, those buffers by
// argument index, and which of them the command adopted.
func (h *keyHarness) doRead(args ...string) (reply string, bufs map[int][]byte, adopted map[int]bool) {
	h.t.Helper()
	var in strings.Builder
	in.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		in.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	rd := resp.NewReader()
	src := &oneKB{[]byte(in.String())}
	var argv [][]byte
	for argv == nil {
		if _, err := rd.Fill(src); err != nil {
			h.t.Fatalf("Fill: %v", err)
		}
		var err error
		if argv, err = rd.Next(); err != nil {
			h.t.Fatalf("Next: %v", err)
		}
	}
	bufs, adopted = make(map[int][]byte), make(map[int]bool)
	own := rd.Owned()
	for i, b := range own {
		if b != nil {
			bufs[i] = b
		}
	}
	h.c.Client, h.c.AdoptArgs = rd, own != nil
	reply = h.doArgv(func(a [][]byte) { copy(a, argv) }, args...)
	h.c.Client, h.c.AdoptArgs = nil, false
	for i := range bufs {
		adopted[i] = own[i] == nil // TakeOwned forgets what it gives
	}
	return reply, bufs, adopted
}

func sameBuf(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

// str returns key's string value in database 0 (nil when missing).
func (h *keyHarness) str(key string) []byte {
	h.ks.LockAll()
	defer h.ks.UnlockAll()
	o := h.c.LookupDB(0, []byte(key))
	if o == nil {
		return nil
	}
	return o.Str()
}

// TestSetAdoptsOwnedArg: SET and the commands that store an argument as
// a new string value whole (SETNX, SETEX, PSETEX, GETSET, SET ... GET,
// MSET, MSETNX, APPEND to a missing key) keep an argument that the reader
// read into a buffer of its own instead of copying it, with the buffer's
// whole capacity, counted by MEMORY USAGE; a big key is copied, and so is
// every argument when the Ctx has no ArgOwner.
func TestSetAdoptsOwnedArg(t *testing.T) {
	big := strings.Repeat("v", 100000)
	for _, tc := range []struct {
		args  []string
		adopt map[int]string // argument index -> the key that keeps it
		plain bool           // run without an ArgOwner
	}{
		{[]string{"SET", "k", big}, map[int]string{2: "k"}, false},
		{[]string{"SET", "k", big, "EX", "100"}, map[int]string{2: "k"}, false},
		{[]string{"SET", "k", big, "GET"}, map[int]string{2: "k"}, false},
		{[]string{"SETNX", "k", big}, map[int]string{2: "k"}, false},
		{[]string{"SETEX", "k", "100", big}, map[int]string{3: "k"}, false},
		{[]string{"PSETEX", "k", "100000", big}, map[int]string{3: "k"}, false},
		{[]string{"GETSET", "k", big}, map[int]string{2: "k"}, false},
		{[]string{"APPEND", "k", big}, map[int]string{2: "k"}, false},
		{[]string{"MSET", "k", big, "b", big + "b"}, map[int]string{2: "k", 4: "b"}, false},
		{[]string{"MSETNX", "k", big, "b", big + "b"}, map[int]string{2: "k", 4: "b"}, false},
		{[]string{"SET", big, "v"}, nil, false},
		{[]string{"SET", "k", big}, nil, true},
	} {
		name := tc.args[0]
		h := newKeyHarness(t)
		var reply string
		var bufs map[int][]byte
		var adopted map[int]bool
		if tc.plain {
			reply = h.do(tc.args...)
		} else {
			reply, bufs, adopted = h.doRead(tc.args...)
			if len(bufs) == 0 {
				t.Fatalf("%s: no argument in a buffer of its own", name)
			}
		}
		if strings.HasPrefix(reply, "-") {
			t.Fatalf("%s: %q", name, reply)
		}
		for i := range bufs {
			key, want := tc.adopt[i]
			if adopted[i] != want {
				t.Errorf("%s: argument %d adopted %v, want %v", name, i, adopted[i], want)
			}
			if !want {
				continue
			}
			got := h.str(key)
			if !bytes.Equal(got, []byte(tc.args[i])) {
				t.Fatalf("%s: %s holds %d bytes, want argument %d", name, key, len(got), i)
			}
			if !sameBuf(got, bufs[i]) || cap(got) != ds.AllocSize(len(got)+2) {
				t.Errorf("%s: %s copied argument %d (cap %d), want its buffer kept (cap %d)", name, key, i, cap(got), cap(bufs[i]))
			}
			h.ks.LockAll()
			mem, _ := h.ks.KeyMemUsage(0, []byte(key))
			h.ks.UnlockAll()
			if int(mem) < cap(bufs[i]) {
				t.Errorf("%s: MEMORY USAGE %d, less than the adopted buffer's %d", name, mem, cap(bufs[i]))
			}
		}
		if got := h.str("k"); tc.args[1] == "k" && len(got) != len(big) {
			t.Errorf("%s: k holds %d bytes", name, len(got))
		}
	}
}

// TestSetOwnedOnce: a buffer is adopted at most once (two values never
// share one), and APPEND to an existing value copies its argument.
func TestSetOwnedOnce(t *testing.T) {
	big := strings.Repeat("x", 40000)
	h := newKeyHarness(t)
	h.doRead("SET", "k", big)
	_, bufs, adopted := h.doRead("APPEND", "k", big)
	if adopted[2] {
		t.Error("APPEND to an existing value adopted its argument")
	}
	if got := h.str("k"); len(got) != 2*len(big) || sameBuf(got, bufs[2]) || strings.Count(string(got), "x") != 2*len(big) {
		t.Errorf("APPEND: %d bytes", len(got))
	}
	// The same buffer twice in one argv: only one value may keep it.
	b := ownedBuf(big)
	h.c.Client, h.c.AdoptArgs = owner{nil, nil, b, nil, nil}, true
	h.doArgv(func(argv [][]byte) { argv[2], argv[4] = b[:len(big):len(big)], b[:len(big):len(big)] }, "MSET", "a", big, "b", big)
	h.c.Client, h.c.AdoptArgs = nil, false
	a, bb := h.str("a"), h.str("b")
	if sameBuf(a, bb) {
		t.Fatal("two keys share one buffer")
	}
	if string(a) != big || string(bb) != big {
		t.Fatal("MSET values differ from the argument")
	}
}

// TestAdoptTrim: an adopted buffer is kept unless its spare room exceeds
// a tenth of the value (Valkey's rule for a big argument it keeps) and a
// copy would take less memory; a trimmed value has the capacity of its
// own allocation.
func TestAdoptTrim(t *testing.T) {
	for _, tc := range []struct {
		n, c int
		trim bool
	}{
		{100000, ds.AllocSize(100002), false}, // a reader's buffer: 6496 spare
		{8 << 20, ds.AllocSize(8<<20 + 2), false},
		{40000, 40960, false},   // 960 spare
		{33000, 40960, false},   // 7960 spare, but a copy takes 40960 too
		{40000, 48 << 10, true}, // 9152 spare; a copy takes 40960
		{32768, 40960, true},    // 8192 spare; a copy takes 32768
		{30000, 40960, true},    // a copy takes 32768
		{100000, 120 << 10, true},
	} {
		b := make([]byte, tc.n, tc.c)
		b[0], b[tc.n-1] = 'a', 'z'
		var o Object
		o.Type = TypeString
		o.adoptStr(b)
		got := o.Str()
		trimmed := !sameBuf(got, b)
		if trimmed != tc.trim || len(got) != tc.n || got[0] != 'a' || got[tc.n-1] != 'z' {
			t.Errorf("adopt %d bytes in %d: trimmed %v (cap %d), want %v", tc.n, tc.c, trimmed, cap(got), tc.trim)
		}
		if trimmed && cap(got) != ds.AllocSize(tc.n) {
			t.Errorf("adopt %d bytes in %d: trimmed to %d, want %d", tc.n, tc.c, cap(got), ds.AllocSize(tc.n))
		}
	}
}

// TestGrowInPlace: a value that grows within its buffer's capacity keeps
// the buffer (SETRANGE, SETBIT, BITFIELD, APPEND one byte past a big value
// SET from a buffer of its own copy nothing), and the new bytes are zeros
// (or the written ones), not what the spare room held.
func TestGrowInPlace(t *testing.T) {
	const n = 100000
	big := strings.Repeat("a", n)
	for _, tc := range []struct {
		args []string
		tail string // the value's bytes from n on
	}{
		{[]string{"SETRANGE", "k", "100000", "y"}, "y"},
		{[]string{"SETRANGE", "k", "100001", "y"}, "\x00y"},
		{[]string{"SETBIT", "k", "800007", "1"}, "\x01"},
		{[]string{"SETBIT", "k", "800015", "0"}, "\x00\x00"},
		{[]string{"BITFIELD", "k", "SET", "u8", "#100000", "1"}, "\x01"},
		{[]string{"BITFIELD", "k", "SET", "u8", "#100001", "0"}, "\x00\x00"},
		{[]string{"APPEND", "k", "yz"}, "yz"},
	} {
		name := strings.Join(tc.args, " ")
		h := newKeyHarness(t)
		_, bufs, _ := h.doRead("SET", "k", big)
		if reply := h.do(tc.args...); strings.HasPrefix(reply, "-") {
			t.Fatalf("%s: %q", name, reply)
		}
		got := h.str("k")
		if !sameBuf(got, bufs[2]) || cap(got) != cap(bufs[2]) {
			t.Errorf("%s: copied into a new buffer (cap %d)", name, cap(got))
		}
		if len(got) != n+len(tc.tail) || string(got[:n]) != big || string(got[n:]) != tc.tail {
			t.Errorf("%s: value ends %q (%d bytes), want %q", name, got[max(n-2, 0):], len(got), tc.tail)
		}
	}
}

// TestGrowPolicy: growth past a buffer's capacity copies into a buffer
// with room, as Valkey's sdsMakeRoomFor (twice the new length below 1 MiB,
// 1 MiB more above), rounded up to what the allocator hands out; growth
// within the capacity, or to no more than the length, copies nothing.
func TestGrowPolicy(t *testing.T) {
	for _, tc := range []struct {
		len, cap int
		n        int64
		wantCap  int
		inPlace  bool
	}{
		{10, 10, 11, ds.AllocSize(22), false},
		{10, 16, 16, 16, true},
		{10, 16, 5, 16, true}, // not shrunk
		{1000, 1000, 1001, ds.AllocSize(2002), false},
		{1<<20 - 2, 1<<20 - 2, 1<<20 - 1, ds.AllocSize(2<<20 - 2), false},
		{1 << 20, 1 << 20, 1<<20 + 1, ds.AllocSize(2<<20 + 1), false},
		{4 << 20, 4 << 20, 4<<20 + 1, ds.AllocSize(5<<20 + 1), false},
		{4 << 20, ds.AllocSize(4<<20 + 2), 4<<20 + 1, ds.AllocSize(4<<20 + 2), true},
	} {
		b := make([]byte, tc.len, tc.cap)
		b[0] = 'a'
		for i := tc.len; i < tc.cap; i++ {
			b[:tc.cap][i] = 0xff // junk in the spare room
		}
		g := growZero(b, tc.n)
		wantLen := max(int(tc.n), tc.len)
		if len(g) != wantLen || cap(g) != tc.wantCap || sameBuf(g, b) != tc.inPlace || g[0] != 'a' {
			t.Errorf("grow %d/%d to %d: len %d cap %d in place %v, want %d %d %v",
				tc.len, tc.cap, tc.n, len(g), cap(g), sameBuf(g, b), wantLen, tc.wantCap, tc.inPlace)
		}
		if i := bytes.IndexByte(g[tc.len:], 0xff); i >= 0 {
			t.Errorf("grow %d/%d to %d: byte %d not cleared", tc.len, tc.cap, tc.n, tc.len+i)
		}
	}
}
