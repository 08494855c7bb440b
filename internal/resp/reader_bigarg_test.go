package resp_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// chunked hands out its data at most n bytes per Read.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}

// command encodes argv as a multibulk request.
var command = testutil.Command

// kept is an argument a test holds on to after its command ran.
type kept struct {
	arg, want []byte
}

// readAll reads src to its end with Fill and Next, calling fn for every
// command.
func readAll(t *testing.T, r *resp.Reader, src io.Reader, fn func(argv [][]byte)) {
	t.Helper()
	for {
		_, err := r.Fill(src)
		for {
			argv, nerr := r.Next()
			if nerr != nil {
				t.Fatalf("Next: %v", nerr)
			}
			if argv == nil {
				break
			}
			fn(argv)
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("Fill: %v", err)
		}
	}
}

// TestReaderBigArg: a bulk of BigArg bytes or more that is not whole in
// the read buffer is read into a buffer of its own, exactly its length and
// CRLF rounded up to the allocator's size, and Owned reports it; such an
// argument does not alias the read buffer, so it keeps its bytes while
// later commands (pipelined after it, or read later) go through the
// Reader, however the input is split across reads.
func TestReaderBigArg(t *testing.T) {
	const big = 100000
	val := func(c byte) string { return strings.Repeat(string(c), big) }
	stream := command("SET", "a", val('a')) + command("PING") +
		command("SET", "b", val('b')) + command("SET", "c", val('c')) +
		command("MSET", "d", val('d'), "e", val('e')) +
		strings.Repeat(command("SET", "x", "small"), 2000) +
		command("SET", "f", val('f'))
	for _, n := range []int{1, 7, 4096, 16 << 10, 1 << 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := resp.NewReader()
			var keep []kept
			cmds := 0
			readAll(t, r, &chunked{[]byte(stream), n}, func(argv [][]byte) {
				cmds++
				own := r.Owned()
				for i, a := range argv {
					if len(a) != big {
						if own != nil && own[i] != nil {
							t.Errorf("command %d: small argument %d reported owned", cmds, i)
						}
						continue
					}
					if own == nil || own[i] == nil {
						// Fill reads at most 16 KiB at a time, so even
						// with 1 MB available no big bulk arrives whole.
						t.Fatalf("command %d: argument %d not in its own buffer", cmds, i)
					}
					o := own[i]
					if len(o) != big || unsafe.SliceData(o) != unsafe.SliceData(a) {
						t.Fatalf("command %d: Owned()[%d] is not argv[%d]", cmds, i, i)
					}
					if cap(o) != ds.AllocSize(big+2) {
						t.Errorf("own buffer cap %d, want %d", cap(o), ds.AllocSize(big+2))
					}
					if cap(a) != len(a) {
						t.Errorf("argv[%d] cap %d, want its length", i, cap(a))
					}
					keep = append(keep, kept{a, bytes.Clone(a)})
				}
			})
			if cmds != 2006 {
				t.Fatalf("%d commands, want 2006", cmds)
			}
			if len(keep) != 6 {
				t.Fatalf("%d owned arguments, want 6", len(keep))
			}
			for i, k := range keep {
				if !bytes.Equal(k.arg, k.want) {
					t.Errorf("owned argument %d changed after later commands", i)
				}
			}
			if r.Owned() != nil {
				t.Errorf("Owned after the input ended: %d", len(r.Owned()))
			}
		})
	}
}

// TestReaderBigArgWhole: a big bulk already whole in the buffer is
// handed out in place (Valkey copies it then too); a small one never has
// a buffer of its own; BigArg 0 turns the feature off.
func TestReaderBigArgWhole(t *testing.T) {
	in := command("SET", "k", strings.Repeat("v", 50000))
	r := resp.NewReader()
	r.Feed([]byte(in))
	if argv, err := r.Next(); err != nil || len(argv) != 3 || r.Owned() != nil {
		t.Fatalf("whole: %d args, err %v, owned %v", len(argv), err, r.Owned() != nil)
	}
	for _, bigArg := range []int{0, 50001} {
		r = resp.NewReader()
		resp.SetBigArg(r, bigArg)
		readAll(t, r, &chunked{[]byte(in), 100}, func(argv [][]byte) {
			if r.Owned() != nil {
				t.Errorf("BigArg %d: a 50000-byte bulk in its own buffer", bigArg)
			}
		})
	}
}

// TestReaderBigArgState: while a big bulk is being read into its own
// buffer, the Reader reports its bytes as Valkey's query buffer does
// (qbuf: the bulk's bytes so far; qbuf-free: the room left for them),
// the read buffer is not grown for it, and one read takes the rest of
// the bulk and nothing beyond it.
func TestReaderBigArgState(t *testing.T) {
	const big = 1 << 20
	head := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n"
	in := head + strings.Repeat("v", big) + "\r\n" + command("PING")
	r := resp.NewReader()
	src := strings.NewReader(in)
	n, err := r.Fill(src)
	if err != nil || n != 16<<10 {
		t.Fatalf("first read %d bytes, err %v", n, err)
	}
	if argv, err := r.Next(); argv != nil || err != nil {
		t.Fatal("command complete after the first read")
	}
	got := n - len(head)
	if r.Pending() != got || r.Buffered() != n || r.Parsed() != 4 {
		t.Errorf("Pending %d Buffered %d Parsed %d, want %d %d 4", r.Pending(), r.Buffered(), r.Parsed(), got, n)
	}
	if want := ds.AllocSize(big+2) - got; r.Free() != want {
		t.Errorf("Free %d, want %d", r.Free(), want)
	}
	if want := 16<<10 + ds.AllocSize(big+2); r.Cap() != want {
		t.Errorf("Cap %d, want %d", r.Cap(), want)
	}
	if n, err = r.Fill(src); err != nil || n != big+2-got {
		t.Fatalf("bulk read %d bytes, want %d (err %v)", n, big+2-got, err)
	}
	argv, err := r.Next()
	if err != nil || len(argv) != 3 || len(argv[2]) != big || r.Owned() == nil {
		t.Fatalf("big command: %d args, err %v", len(argv), err)
	}
	if r.Cap() != 16<<10 || r.Buffered() != 0 {
		t.Errorf("after the command: Cap %d Buffered %d", r.Cap(), r.Buffered())
	}
	if p := r.TakePeak(); p < big {
		t.Errorf("TakePeak %d, want the big buffer's size", p)
	}
	if n, err = r.Fill(src); err != nil || n != len(command("PING")) {
		t.Fatalf("read after the bulk: %d bytes, err %v", n, err)
	}
	if argv, err := r.Next(); err != nil || len(argv) != 1 || r.Owned() != nil {
		t.Fatalf("PING after: %q, err %v", argv, err)
	}
}

// TestReaderBigArgQueryLimit: arguments in buffers of their own count
// toward client-query-buffer-limit as if they were in the read buffer.
func TestReaderBigArgQueryLimit(t *testing.T) {
	a, b := strings.Repeat("a", 60000), strings.Repeat("b", 50000)
	for _, tc := range []struct {
		limit int64
		ok    bool
	}{
		{int64(len(command("SET", a, b))), true},
		{int64(len(command("SET", a, b))) - 1, false},
	} {
		r := resp.NewReader()
		r.MaxQuery = tc.limit
		src := &chunked{[]byte(command("SET", a, b)), 1000}
		var err error
		cmds := 0
		for err == nil {
			if _, err = r.Fill(src); err != nil {
				break
			}
			var argv [][]byte
			for argv, err = r.Next(); argv != nil; argv, err = r.Next() {
				cmds++
			}
		}
		if tc.ok && (cmds != 1 || !errors.Is(err, io.EOF)) {
			t.Errorf("limit %d: %d commands, err %v", tc.limit, cmds, err)
		}
		if !tc.ok && !errors.Is(err, resp.ErrQueryBufferLimit) {
			t.Errorf("limit %d: err %v, want ErrQueryBufferLimit", tc.limit, err)
		}
	}
}

// TestReaderBigArgReset: Reset and a protocol error drop a big bulk in
// progress; the Reader then serves a new stream.
func TestReaderBigArgReset(t *testing.T) {
	r := resp.NewReader()
	r.Feed([]byte("*2\r\n$4\r\nECHO\r\n$40000\r\nxyz"))
	if argv, err := r.Next(); argv != nil || err != nil || r.Pending() != 3 {
		t.Fatalf("partial: %q %v, pending %d", argv, err, r.Pending())
	}
	r.Reset()
	if r.Buffered() != 0 || r.Cap() > 16<<10 {
		t.Fatalf("after Reset: Buffered %d Cap %d", r.Buffered(), r.Cap())
	}
	r.Feed([]byte(command("PING")))
	if argv, err := r.Next(); err != nil || len(argv) != 1 || r.Owned() != nil {
		t.Fatalf("after Reset: %q %v", argv, err)
	}

	// A big bulk complete, then a malformed argument.
	r.Feed([]byte("*3\r\n$4\r\nECHO\r\n$40000\r\nxyz"))
	r.Next()
	r.Feed([]byte(strings.Repeat("z", 40000-3) + "\r\nX1\r\n"))
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "expected '$', got 'X'") {
		t.Fatalf("malformed after a big bulk: %v", err)
	}
	if r.Buffered() != 0 || r.Cap() > 16<<10 || r.Owned() != nil {
		t.Fatalf("after the error: Buffered %d Cap %d", r.Buffered(), r.Cap())
	}
	r.Reset()
	r.Feed([]byte(command("PING")))
	if argv, err := r.Next(); err != nil || len(argv) != 1 {
		t.Fatalf("after the error and Reset: %q %v", argv, err)
	}
}

// TestReaderTakeOwned: TakeOwned hands over an argument in a buffer of
// its own once, by identity (the same bytes, not equal ones), with its
// buffer's capacity; the next call to Next forgets the last command's.
func TestReaderTakeOwned(t *testing.T) {
	val := strings.Repeat("v", 50000)
	r := resp.NewReader()
	cmds := 0
	readAll(t, r, &chunked{[]byte(command("SET", "k", val) + command("PING")), 1000}, func(argv [][]byte) {
		cmds++
		if cmds == 2 {
			if len(argv) != 1 || r.Owned() != nil {
				t.Errorf("PING: %q, owned %v", argv, r.Owned() != nil)
			}
			return
		}
		if r.TakeOwned([]byte(val)) != nil {
			t.Error("TakeOwned of equal bytes elsewhere")
		}
		if r.TakeOwned(argv[1]) != nil {
			t.Error("TakeOwned of an argument in the read buffer")
		}
		b := r.TakeOwned(argv[2])
		if b == nil || !bytes.Equal(b, []byte(val)) || unsafe.SliceData(b) != unsafe.SliceData(argv[2]) || cap(b) != ds.AllocSize(len(val)+2) {
			t.Fatalf("TakeOwned(argv[2]) = %d bytes, cap %d", len(b), cap(b))
		}
		if r.TakeOwned(argv[2]) != nil || r.Owned()[2] != nil {
			t.Error("TakeOwned handed the same buffer twice")
		}
	})
	if cmds != 2 {
		t.Fatalf("%d commands", cmds)
	}
}

// TestParsedCounts: Parsed is the length of the pending command's
// arguments read so far, argument by argument, and 0 once it is returned.
func TestParsedCounts(t *testing.T) {
	r := resp.NewReader()
	in := &chunked{data: []byte(command("RPUSH", "key", "abc", "de", "f")), n: 1}
	want := map[int]bool{0: true, 5: true, 8: true, 11: true, 13: true}
	for {
		if _, err := r.Fill(in); err != nil {
			t.Fatal(err)
		}
		argv, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if argv != nil {
			if r.Parsed() != 0 {
				t.Errorf("Parsed %d after the command was returned, want 0", r.Parsed())
			}
			return
		}
		if !want[r.Parsed()] {
			t.Fatalf("Parsed %d mid-command, want one of 0, 5, 8, 11, 13", r.Parsed())
		}
	}
}
