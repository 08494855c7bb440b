package resp_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// nextAll runs Next until it returns nothing, turning a panic into a
// test failure.
func nextAll(t *testing.T, r *resp.Reader) (cmds int, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("Next panicked: %v", p)
		}
	}()
	for {
		argv, err := r.Next()
		if err != nil || argv == nil {
			return cmds, err
		}
		cmds++
	}
}

// TestReaderHugeBulkLength: with proto-max-bulk-len at its maximum a
// declared length near 2^63 must not overflow the reader's arithmetic; the
// command can never fit in client-query-buffer-limit, so the reader gives
// up on the client.
func TestReaderHugeBulkLength(t *testing.T) {
	for _, in := range []string{
		"*1\r\n$9223372036854775000\r\n",
		"*1\r\n$9223372036854775807\r\n",
		"*1\r\n$9223372036854775806\r\nab",
		"*2\r\n$1\r\nx\r\n$9223372036854775805\r\n",
		"*1\r\n$1073741823\r\n", // 1 GB - 1: the command is over 1 GB
	} {
		r := resp.NewReader()
		r.MaxBulk = math.MaxInt64
		r.Feed([]byte(in))
		if _, err := nextAll(t, r); !errors.Is(err, resp.ErrQueryBufferLimit) {
			t.Errorf("%q: err = %v, want ErrQueryBufferLimit", in, err)
		}
	}
}

// TestReaderQueryLimitBoundary: a command of exactly client-query-buffer-limit
// bytes is accepted, one byte more is refused when its length is declared,
// before the data arrives and without allocating for it.
func TestReaderQueryLimitBoundary(t *testing.T) {
	const limit = 1 << 20
	head := "*1\r\n$1048560\r\n" // 14 bytes + 1048560 + 2 = 1 MB
	if len(head)+1048560+2 != limit {
		t.Fatal("bad test arithmetic")
	}
	r := resp.NewReader()
	r.MaxQuery = limit
	in := head + strings.Repeat("v", 1048560) + "\r\n"
	src := strings.NewReader(in)
	got := 0
	for {
		_, err := r.Fill(src)
		n, perr := nextAll(t, r)
		if perr != nil {
			t.Fatal(perr)
		}
		got += n
		if err != nil {
			break
		}
	}
	if got != 1 {
		t.Fatalf("%d commands, want 1", got)
	}

	r = resp.NewReader()
	r.MaxQuery = limit
	r.MaxBulk = 1 << 40
	src = strings.NewReader("*1\r\n$1048561\r\nvvvv")
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		if _, err = r.Fill(src); err == nil || err == io.EOF {
			_, err = nextAll(t, r)
		}
	}
	if !errors.Is(err, resp.ErrQueryBufferLimit) {
		t.Fatalf("err = %v, want ErrQueryBufferLimit", err)
	}

	// A declared 100 GB bulk (proto-max-bulk-len raised that far) is
	// refused without a 100 GB buffer.
	r = resp.NewReader()
	r.MaxBulk = math.MaxInt64
	src = strings.NewReader("*2\r\n$4\r\nECHO\r\n$100000000000\r\nabc")
	err = nil
	for i := 0; i < 3 && err == nil; i++ {
		if _, err = r.Fill(src); err == nil || err == io.EOF {
			_, err = nextAll(t, r)
		}
	}
	if !errors.Is(err, resp.ErrQueryBufferLimit) || r.Cap() > 1<<20 {
		t.Fatalf("err = %v, buffer %d bytes", err, r.Cap())
	}
}

// TestReaderHugeCount: "*2147483647" is a legal count; the reader must not
// allocate for two billion arguments before they arrive.
func TestReaderHugeCount(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := resp.NewReader()
	r.Feed([]byte("*2147483647\r\n$1\r\nx\r\n$3\r\nabc\r\n"))
	if n, err := nextAll(t, r); n != 0 || err != nil {
		t.Fatalf("%d commands, err %v", n, err)
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("allocated %d bytes for a 2-argument prefix", d)
	}
}

// TestReaderUnauthenticatedQueryLimit: Valkey lets a client that has not
// authenticated hold at most 1 MB of query buffer.
func TestReaderUnauthenticatedQueryLimit(t *testing.T) {
	pings := bytes.Repeat([]byte("PING\r\n"), (1<<20)/6+1)
	r := resp.NewReader()
	r.Unauthenticated = true
	r.Feed(pings)
	if _, err := r.Fill(strings.NewReader("P")); !errors.Is(err, resp.ErrQueryBufferLimit) {
		t.Fatalf("unauthenticated: err = %v", err)
	}
	r = resp.NewReader()
	r.Feed(pings)
	if _, err := r.Fill(strings.NewReader("P")); err != nil {
		t.Fatalf("authenticated: err = %v", err)
	}
}

// TestReaderReadBound: a buffer grown by one big command does not make
// later reads take megabytes of pipelined commands at once; only a pending
// bulk may make one read larger, and then only by what the bulk needs.
func TestReaderReadBound(t *testing.T) {
	const bulk = 1 << 20
	var in bytes.Buffer
	in.WriteString("*2\r\n$4\r\nECHO\r\n$1048576\r\n")
	in.WriteString(strings.Repeat("v", bulk) + "\r\n")
	pipeline := bytes.Repeat([]byte("*1\r\n$4\r\nPING\r\n"), 100000)
	in.Write(pipeline)

	r := resp.NewReader()
	resp.SetBigArg(r, 0) // the bulk grows the read buffer (TestReaderBigArg has the other case)
	src := bytes.NewReader(in.Bytes())
	// The command's head, then the rest of the bulk in one read.
	n, err := r.Fill(src)
	if err != nil || n > 16<<10 {
		t.Fatalf("first read %d bytes, err %v", n, err)
	}
	if argv, err := r.Next(); argv != nil || err != nil {
		t.Fatalf("command complete after %d bytes", n)
	}
	rest := 24 + bulk + 2 - n
	if n, err = r.Fill(src); err != nil || n != rest {
		t.Fatalf("bulk read %d bytes, want %d (err %v)", n, rest, err)
	}
	if argv, err := r.Next(); err != nil || len(argv) != 2 || len(argv[1]) != bulk {
		t.Fatalf("big command: %d args, err %v", len(argv), err)
	}
	if r.Cap() < bulk {
		t.Fatalf("buffer %d bytes", r.Cap())
	}
	// The buffer is now over 1 MB and holds the start of a command, so it
	// is not given back; each later read is still bounded.
	r.Feed([]byte("*1\r\n$4\r\nPI"))
	src = bytes.NewReader(pipeline)
	for i := 0; i < 10; i++ {
		n, err := r.Fill(src)
		if err != nil || n == 0 || n > 16<<10 {
			t.Fatalf("pipelined read %d bytes, err %v", n, err)
		}
		if _, err := nextAll(t, r); err != nil {
			t.Fatal(err)
		}
	}
}
