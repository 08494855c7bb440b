package repl

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// pattern is n bytes whose value depends on their offset (byte off+i is
// pat(off+i)), so a reader's bytes say where they came from.
func pat(off int64) byte { return byte(off*7 + off>>8 + off>>16) }

func pattern(off int64, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = pat(off + int64(i))
	}
	return p
}

// appendPattern appends n pattern bytes continuing the buffer's stream, in
// chunks of at most chunk bytes.
func appendPattern(b *Buffer, n, chunk int) {
	for n > 0 {
		c := min(n, chunk)
		b.AppendKick(pattern(b.End()+1, c))
		n -= c
	}
}

// readAll drains r (without waiting) and checks every slice against the
// pattern from the reader's position.
func readAll(t *testing.T, r *Reader) []byte {
	t.Helper()
	var out []byte
	for {
		pos := r.Pos()
		p := r.Next()
		if p == nil {
			return out
		}
		if len(p) == 0 || len(p) > blockSize {
			t.Fatalf("Next returned %d bytes", len(p))
		}
		if !bytes.Equal(p, pattern(pos, len(p))) {
			t.Fatalf("the bytes from offset %d are not the stream's", pos)
		}
		out = append(out, p...)
	}
}

type offsets struct{ first, end, hist int64 }

func offsetsOf(b *Buffer) offsets { return offsets{b.First(), b.End(), b.HistLen()} }

func TestBufferOffsets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		start  int64 // NewBuffer's offset
		size   int64
		append []int // lengths appended
		want   offsets
	}{
		{"empty at 0", 0, 1 << 20, nil, offsets{1, 0, 0}},
		{"empty at 1000", 1000, 1 << 20, nil, offsets{1001, 1000, 0}},
		{"one byte", 0, 1 << 20, []int{1}, offsets{1, 1, 1}},
		{"a PING at 1000", 1000, 1 << 20, []int{14}, offsets{1001, 1014, 14}},
		{"empty appends count nothing", 5, 1 << 20, []int{0, 3, 0}, offsets{6, 8, 3}},
		{"exactly one block", 0, 1 << 20, []int{blockSize}, offsets{1, blockSize, blockSize}},
		{"one block and a byte", 0, 1 << 20, []int{blockSize, 1}, offsets{1, blockSize + 1, blockSize + 1}},
		{"one append over three blocks", 10, 1 << 20, []int{3*blockSize + 5}, offsets{11, 10 + 3*blockSize + 5, 3*blockSize + 5}},
		{"a large start", 1 << 40, 1 << 20, []int{100}, offsets{1<<40 + 1, 1<<40 + 100, 100}},
		// Trimming keeps whole blocks: the backlog's first byte (end+1-size)
		// is in the first block held.
		{"backlog of one byte keeps the last block", 0, 1, []int{blockSize, blockSize, 10}, offsets{2*blockSize + 1, 2*blockSize + 10, 10}},
		{"backlog of one byte, a full last block", 0, 1, []int{3 * blockSize}, offsets{2*blockSize + 1, 3 * blockSize, blockSize}},
		{"backlog reaching into the previous block", 0, 20, []int{blockSize, 10}, offsets{1, blockSize + 10, blockSize + 10}},
		{"backlog of exactly the last block", 0, blockSize, []int{blockSize, blockSize}, offsets{blockSize + 1, 2 * blockSize, blockSize}},
		{"backlog of a block and a byte", 0, blockSize + 1, []int{3 * blockSize}, offsets{blockSize + 1, 3 * blockSize, 2 * blockSize}},
		{"size 0 is 1", 7, 0, []int{2 * blockSize}, offsets{blockSize + 8, 2*blockSize + 7, blockSize}},
		{"negative size is 1", 7, -5, []int{2 * blockSize}, offsets{blockSize + 8, 2*blockSize + 7, blockSize}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuffer(tc.start, tc.size)
			for _, n := range tc.append {
				b.AppendKick(pattern(b.End()+1, n))
			}
			if got := offsetsOf(b); got != tc.want {
				t.Fatalf("First, End, HistLen = %v, want %v", got, tc.want)
			}
			if got := b.First() + b.HistLen(); got != b.End()+1 {
				t.Fatalf("First+HistLen = %d, End+1 = %d", got, b.End()+1)
			}
			r := b.Reader(b.First())
			if r == nil {
				t.Fatal("no reader at First")
			}
			if got := readAll(t, r); int64(len(got)) != tc.want.hist {
				t.Fatalf("a reader from First read %d bytes, want %d", len(got), tc.want.hist)
			}
		})
	}
}

// TestBufferBlocks appends the same stream in many chunkings: every
// chunking holds the same blocks (block i starts at start+1+i*blockSize)
// and a reader returns at most one block per Next.
func TestBufferBlocks(t *testing.T) {
	const start, total = 100, 4*blockSize + 123
	for _, chunk := range []int{1, 7, 1000, blockSize - 1, blockSize, blockSize + 1, 2*blockSize + 3, total} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			b := NewBuffer(start, 1<<30)
			appendPattern(b, total, chunk)
			if got := (offsets{b.First(), b.End(), b.HistLen()}); got != (offsets{start + 1, start + total, total}) {
				t.Fatalf("offsets %v", got)
			}
			for k, i := b.head, 0; k != nil; k, i = k.next, i+1 {
				if want := int64(start + 1 + i*blockSize); k.start != want {
					t.Fatalf("block %d starts at %d, want %d", i, k.start, want)
				}
				if cap(k.data) != blockSize || k.next != nil && len(k.data) != blockSize {
					t.Fatalf("block %d: len %d cap %d", i, len(k.data), cap(k.data))
				}
			}
			// Readers from every block boundary and between them.
			for _, off := range []int64{start + 1, start + 2, start + blockSize, start + blockSize + 1, start + total, start + total + 1} {
				r := b.Reader(off)
				var lens []int
				for {
					pos := r.Pos()
					p := r.Next()
					if p == nil {
						break
					}
					if !bytes.Equal(p, pattern(pos, len(p))) {
						t.Fatalf("reader from %d: wrong bytes at %d", off, pos)
					}
					if blk := (pos - start - 1) / blockSize; (pos+int64(len(p))-start-2)/blockSize != blk {
						t.Fatalf("reader from %d: Next at %d returned %d bytes over a block boundary", off, pos, len(p))
					}
					lens = append(lens, len(p))
				}
				if r.Pos() != start+total+1 || r.Lag() != 0 {
					t.Fatalf("reader from %d ended at %d, lag %d", off, r.Pos(), r.Lag())
				}
				r.Close()
			}
		})
	}
}

// TestBufferTrim: the backlog keeps the last Size bytes in whole blocks,
// never fewer, never a block more than it needs.
func TestBufferTrim(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int64{1, 100, blockSize - 1, blockSize, blockSize + 1, 3*blockSize + 17} {
		b := NewBuffer(42, size)
		for range 300 {
			b.AppendKick(pattern(b.End()+1, 1+rng.IntN(3*blockSize/2)))
			first, end, hist := b.First(), b.End(), b.HistLen()
			backlog := end + 1 - size // the backlog's first byte
			if first > max(backlog, 43) {
				t.Fatalf("size %d: First %d after the backlog's first byte %d", size, first, backlog)
			}
			if (first-43)%blockSize != 0 {
				t.Fatalf("size %d: First %d is not a block's start", size, first)
			}
			if first+blockSize <= backlog {
				t.Fatalf("size %d: First %d, a whole block before the backlog's %d", size, first, backlog)
			}
			if hist != end+1-first || hist < min(size, end-42) || hist >= size+blockSize {
				t.Fatalf("size %d: HistLen %d (First %d End %d)", size, hist, first, end)
			}
			if blocks := (end-first)/blockSize + 1; b.Mem() != blocks*blockSize {
				t.Fatalf("size %d: Mem %d with %d blocks held", size, b.Mem(), blocks)
			}
		}
	}
}

// TestBufferPin: a reader that falls behind keeps what it has not read
// beyond the backlog; what it read, and everything once it closes, goes.
func TestBufferPin(t *testing.T) {
	const start = 0
	b := NewBuffer(start, 100)
	appendPattern(b, 50, 50)
	r := b.Reader(1)
	fast := b.Reader(b.End() + 1)
	appendPattern(b, 10*blockSize, 3000)
	readAll(t, fast)
	if b.First() != 1 || b.HistLen() != 10*blockSize+50 {
		t.Fatalf("with a reader at 1: First %d HistLen %d", b.First(), b.HistLen())
	}
	if !b.Has(1) || b.Reader(1) == nil {
		t.Fatal("the pinned bytes are not available")
	}
	// (the second reader at 1 pins as much; close it)
	b.readers[len(b.readers)-1].Close()
	if r.Lag() != 10*blockSize+50 {
		t.Fatalf("Lag %d", r.Lag())
	}
	// Read four blocks (Next stops at a block's end): the next append
	// frees them.
	for i := range 4 {
		if p := r.Next(); len(p) != blockSize {
			t.Fatalf("Next %d: %d bytes", i, len(p))
		}
	}
	if r.Pos() != 4*blockSize+1 {
		t.Fatalf("Pos %d after four blocks", r.Pos())
	}
	r2 := b.Reader(3*blockSize + 1)
	kept := r2.Next() // the fourth block: stays valid and unchanged when it goes
	r2.Close()
	b.AppendKick([]byte("x"))
	if b.First() != 4*blockSize+1 {
		t.Fatalf("First %d after the reader moved to %d", b.First(), r.Pos())
	}
	if b.Has(4*blockSize) || !b.Has(4*blockSize+1) || b.Reader(4*blockSize) != nil {
		t.Fatal("Has/Reader below the pinned block")
	}
	r.Close()
	if !r.Closed() || b.Readers() != 1 {
		t.Fatalf("Closed %v, Readers %d", r.Closed(), b.Readers())
	}
	// Close trims to the backlog: the block that holds End-99 on.
	if b.First() != 9*blockSize+1 || b.HistLen() != blockSize+51 {
		t.Fatalf("after Close: First %d HistLen %d, want %d and %d", b.First(), b.HistLen(), 9*blockSize+1, blockSize+51)
	}
	appendPattern(b, 3*blockSize, blockSize)
	if !bytes.Equal(kept, pattern(3*blockSize+1, blockSize)) {
		t.Fatal("a slice Next returned changed after its block was trimmed")
	}
	if r.Next() != nil {
		t.Fatal("Next after Close")
	}
}

func TestBufferReaderBounds(t *testing.T) {
	b := NewBuffer(1000, 10)
	if b.Mem() != 0 {
		t.Fatalf("Mem %d with nothing appended", b.Mem())
	}
	// Nothing appended: only End()+1.
	for off, ok := range map[int64]bool{999: false, 1000: false, 1001: true, 1002: false} {
		r := b.Reader(off)
		if b.Has(off) != ok || (r != nil) != ok {
			t.Fatalf("empty buffer at 1000: Has/Reader(%d) want %v", off, ok)
		}
		if r != nil {
			r.Close()
		}
	}
	appendPattern(b, 3*blockSize, 5000)
	first, end := b.First(), b.End()
	if first != 1001+2*blockSize {
		t.Fatalf("First %d", first)
	}
	for _, tc := range []struct {
		off int64
		ok  bool
	}{
		{0, false}, {-1, false}, {1001, false}, {first - 1, false},
		{first, true}, {first + 1, true}, {end, true}, {end + 1, true},
		{end + 2, false}, {end + 1000, false},
	} {
		if got := b.Has(tc.off); got != tc.ok {
			t.Errorf("Has(%d) = %v (First %d End %d)", tc.off, got, first, end)
		}
		r := b.Reader(tc.off)
		if (r != nil) != tc.ok {
			t.Errorf("Reader(%d) = %v (First %d End %d)", tc.off, r, first, end)
		}
		if r != nil {
			if r.Pos() != tc.off || r.Lag() != end+1-tc.off {
				t.Errorf("Reader(%d): Pos %d Lag %d", tc.off, r.Pos(), r.Lag())
			}
			if got := readAll(t, r); int64(len(got)) != end+1-tc.off {
				t.Errorf("Reader(%d) read %d bytes", tc.off, len(got))
			}
			r.Close()
		}
	}
	if b.Readers() != 0 {
		t.Fatalf("Readers %d after closing all", b.Readers())
	}
}

// TestBufferReady: Ready is signalled by Kick when there is something to
// read (once, however many appends came before), never by Append alone,
// and Next then returns the bytes.
func TestBufferReady(t *testing.T) {
	b := NewBuffer(0, 1<<20)
	r := b.Reader(1)
	select {
	case <-r.Ready():
		t.Fatal("Ready before any append")
	default:
	}
	if r.Next() != nil {
		t.Fatal("Next on an empty buffer")
	}
	b.Append([]byte("abc"))
	b.Append([]byte("def"))
	select {
	case <-r.Ready():
		t.Fatal("Ready after an append without Kick")
	default:
	}
	b.Kick()
	b.Kick()
	select {
	case <-r.Ready():
	default:
		t.Fatal("no Ready after Kick")
	}
	select {
	case <-r.Ready():
		t.Fatal("a second Ready for the same wait")
	default:
	}
	if p := r.Next(); string(p) != "abcdef" {
		t.Fatalf("Next %q", p)
	}
	b.AppendKick(nil) // nothing to read: no signal
	select {
	case <-r.Ready():
		t.Fatal("Ready after an empty append")
	default:
	}
}

func TestBufferSetSize(t *testing.T) {
	b := NewBuffer(0, 1<<30)
	appendPattern(b, 8*blockSize+5, blockSize)
	if b.First() != 1 {
		t.Fatalf("First %d", b.First())
	}
	b.SetSize(blockSize + 10) // trims at once
	if want := int64(6*blockSize + 1); b.First() != want {
		t.Fatalf("after SetSize: First %d, want %d", b.First(), want)
	}
	b.SetSize(1 << 30) // what went does not come back
	if want := int64(6*blockSize + 1); b.First() != want {
		t.Fatalf("after growing: First %d, want %d", b.First(), want)
	}
	appendPattern(b, 4*blockSize, blockSize)
	if want := int64(6*blockSize + 1); b.First() != want || b.HistLen() != 6*blockSize+5 {
		t.Fatalf("grown backlog: First %d HistLen %d", b.First(), b.HistLen())
	}
	// A reader pins through a SetSize.
	r := b.Reader(7*blockSize + 3)
	b.SetSize(0)
	if want := int64(7*blockSize + 1); b.First() != want {
		t.Fatalf("SetSize(0) with a reader: First %d, want %d", b.First(), want)
	}
	r.Close()
	if want := int64(12*blockSize + 1); b.First() != want || b.HistLen() != 5 {
		t.Fatalf("SetSize(0) after Close: First %d HistLen %d, want %d and 5", b.First(), b.HistLen(), want)
	}
}

// TestBufferCloseWakes: Close wakes a goroutine waiting on Ready, and is
// idempotent.
func TestBufferCloseWakes(t *testing.T) {
	b := NewBuffer(0, 100)
	r := b.Reader(1)
	woke := make(chan bool)
	go func() {
		<-r.Ready()
		woke <- r.Next() == nil && r.Closed()
	}()
	time.Sleep(10 * time.Millisecond)
	r.Close()
	select {
	case ok := <-woke:
		if !ok {
			t.Fatal("after Close: Next returned bytes or Closed is false")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not wake the waiter")
	}
	r.Close()
	if b.Readers() != 0 {
		t.Fatalf("Readers %d", b.Readers())
	}
	b.AppendKick([]byte("after")) // a closed reader is not signalled any more
	select {
	case <-r.Ready():
		t.Fatal("a closed reader was signalled")
	default:
	}
	if r.Next() != nil {
		t.Fatal("Next after Close")
	}
}

// TestBufferConcurrent: readers on their own goroutines, some joining
// late, some closing early, while one goroutine appends (with a small
// backlog, so blocks are trimmed all along). Every reader reads exactly
// the stream from where it started, and the slices it was given are still
// intact at the end. Run under -race.
func TestBufferConcurrent(t *testing.T) {
	const start = 5000
	total := 4 << 20
	readers := 8
	if testing.Short() {
		total = 1 << 20
	}
	b := NewBuffer(start, 3*blockSize/2)
	type result struct {
		from   int64
		slices [][]byte
		n      int64
		closed bool
	}
	results := make([]result, readers)
	var wg sync.WaitGroup
	done := make(chan struct{})
	read := func(i int, r *Reader, stopAfter int64) {
		defer wg.Done()
		res := &results[i]
		res.from = r.Pos()
		want := int64(start+total) + 1 - res.from
		for res.n < want {
			p := r.Next()
			if p == nil {
				select {
				case <-r.Ready():
				case <-done:
				}
				if r.Closed() {
					res.closed = true
					return
				}
				continue
			}
			res.slices = append(res.slices, p)
			res.n += int64(len(p))
			if stopAfter > 0 && res.n >= stopAfter {
				r.Close()
				res.closed = true
				return
			}
		}
		r.Close()
	}
	for i := range readers / 2 {
		wg.Add(1)
		stop := int64(0)
		if i == 1 {
			stop = int64(total / 3)
		}
		go read(i, b.Reader(start+1), stop)
	}
	// A reader closed from another goroutine while it waits.
	victim := b.Reader(start + 1)
	victimDone := make(chan struct{})
	go func() {
		defer close(victimDone)
		for {
			if p := victim.Next(); p == nil {
				<-victim.Ready()
				if victim.Closed() {
					return
				}
			}
		}
	}()
	var appended sync.WaitGroup
	appended.Add(1)
	go func() {
		defer appended.Done()
		rng := rand.New(rand.NewPCG(3, 4))
		for n := 0; n < total; {
			c := min(total-n, 1+rng.IntN(2*blockSize))
			if rng.IntN(4) == 0 {
				c = min(total-n, 1+rng.IntN(64))
			}
			b.AppendKick(pattern(int64(start+1+n), c))
			n += c
			if n > total/4 && n-c <= total/4 {
				victim.Close()
			}
			if rng.IntN(8) == 0 {
				time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
			}
		}
	}()
	// Late readers: at the end as it is now, or anywhere still held.
	for i := readers / 2; i < readers; i++ {
		time.Sleep(time.Millisecond)
		var r *Reader
		for r == nil {
			off := b.End() + 1
			if i%2 == 1 {
				off = b.First()
			}
			r = b.Reader(off) // nil if trimmed meanwhile: try again
		}
		wg.Add(1)
		go read(i, r, 0)
	}
	appended.Wait()
	wg.Wait()
	close(done)
	<-victimDone
	if b.End() != start+int64(total) || b.Readers() != 0 {
		t.Fatalf("End %d, Readers %d", b.End(), b.Readers())
	}
	for i, res := range results {
		off := res.from
		for _, p := range res.slices {
			if !bytes.Equal(p, pattern(off, len(p))) {
				t.Fatalf("reader %d (from %d): wrong bytes at offset %d", i, res.from, off)
			}
			off += int64(len(p))
		}
		if want := int64(start+total) + 1 - res.from; !res.closed && res.n != want {
			t.Fatalf("reader %d (from %d) read %d bytes, want %d", i, res.from, res.n, want)
		}
		if i == 1 && (!res.closed || res.n < int64(total/3)) {
			t.Fatalf("reader 1 was to stop after %d bytes: closed %v n %d", total/3, res.closed, res.n)
		}
	}
	// Everything is trimmed to the backlog now.
	if b.HistLen() >= 3*blockSize/2+blockSize {
		t.Fatalf("HistLen %d with no reader", b.HistLen())
	}
}
