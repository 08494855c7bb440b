package repl

import "sync"

// blockSize is the size of the buffer's blocks: big enough that a
// sender writes a replica's stream in few system calls, small enough
// that trimming frees memory in steps a backlog of 1 MB notices.
const blockSize = 16 << 10

// block holds bytes start .. start+len(data)-1 of the stream. data grows
// (within its capacity, never moving) under Buffer.mu; the bytes below
// its length never change.
type block struct {
	start int64
	data  []byte
	next  *block
}

// Buffer is a replication buffer: what was appended from its start
// offset on, kept while some Reader still needs it or it is among the
// last Size bytes (the backlog partial resyncs are served from).
type Buffer struct {
	mu         sync.Mutex
	head, tail *block
	end        int64 // the offset of the last byte appended
	size       int64 // the backlog's size (repl-backlog-size)
	readers    []*Reader
}

// NewBuffer makes a buffer whose first byte will have offset off+1,
// keeping size bytes of history.
func NewBuffer(off, size int64) *Buffer {
	return &Buffer{end: off, size: max(size, 1)}
}

// Append adds p to the stream (Kick wakes the readers waiting for it).
func (b *Buffer) Append(p []byte) {
	if len(p) == 0 {
		return
	}
	b.mu.Lock()
	for len(p) > 0 {
		t := b.tail
		if t == nil || len(t.data) == cap(t.data) {
			nb := &block{start: b.end + 1, data: make([]byte, 0, max(blockSize, 0))}
			if t == nil {
				b.head = nb
			} else {
				t.next = nb
			}
			b.tail, t = nb, nb
		}
		n := min(len(p), cap(t.data)-len(t.data))
		t.data = append(t.data, p[:n]...)
		b.end += int64(n)
		p = p[n:]
	}
	b.trim()
	b.mu.Unlock()
}

// AppendKick is Append followed by Kick.
func (b *Buffer) AppendKick(p []byte) {
	b.Append(p)
	b.Kick()
}

// Kick wakes the readers that have bytes to read. Append does not: its
// callers kick once per batch of appends (an event loop at the end of
// its round, as Valkey writes its replicas' output before it sleeps), so
// a sender writes what a round appended in one go rather than waking
// for every command.
func (b *Buffer) Kick() {
	b.mu.Lock()
	for _, r := range b.readers {
		if r.pos <= b.end {
			select {
			case r.ready <- struct{}{}:
			default:
			}
		}
	}
	b.mu.Unlock()
}

// trim drops the oldest blocks that neither the backlog nor a reader
// needs. Under mu.
func (b *Buffer) trim() {
	keep := b.end + 1 - b.size // the backlog's first byte
	for _, r := range b.readers {
		keep = min(keep, r.pos)
	}
	for b.head != nil && b.head.next != nil && b.head.next.start <= keep {
		b.head = b.head.next
	}
}

// End is the offset of the last byte appended (master_repl_offset).
func (b *Buffer) End() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.end
}

// First is the offset of the oldest byte held (repl_backlog_first_byte_offset;
// End()+1 while nothing is held).
func (b *Buffer) First() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.first()
}

func (b *Buffer) first() int64 {
	if b.head == nil {
		return b.end + 1
	}
	// The backlog answers for its last size bytes; a block a slow
	// reader pins may hold older ones, which a resync may use too.
	return b.head.start
}

// HistLen is the number of bytes held (repl_backlog_histlen).
func (b *Buffer) HistLen() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.end + 1 - b.first()
}

// SetSize changes the backlog's size (CONFIG SET repl-backlog-size).
func (b *Buffer) SetSize(n int64) {
	b.mu.Lock()
	b.size = max(n, 1)
	b.trim()
	b.mu.Unlock()
}

// Has reports whether a reader could start at off: the bytes from off
// to the end are all held (off == End()+1: nothing to send yet).
func (b *Buffer) Has(off int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return off >= b.first() && off <= b.end+1
}

// Reader reads the stream from off (the next byte it will return), or
// returns nil when those bytes are no longer held.
func (b *Buffer) Reader(off int64) *Reader {
	b.mu.Lock()
	defer b.mu.Unlock()
	if off < b.first() || off > b.end+1 {
		return nil
	}
	r := &Reader{b: b, pos: off, ready: make(chan struct{}, 1)}
	b.readers = append(b.readers, r)
	return r
}

// Readers is the number of open readers.
func (b *Buffer) Readers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.readers)
}

// Reader is one replica's position in a Buffer. Its methods are for one
// goroutine, except Close and Lag, which any goroutine may call.
type Reader struct {
	b      *Buffer
	pos    int64 // next offset to return; under b.mu
	blk    *block
	ready  chan struct{}
	closed bool // under b.mu
}

// Next returns the bytes held after the reader's position (up to the end
// of one block) and moves past them; nil when it has read everything
// appended, or after Close. The slice stays valid and unchanged.
func (r *Reader) Next() []byte {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.closed || r.pos > b.end {
		return nil
	}
	k := r.blk
	if k == nil || r.pos < k.start {
		k = b.head
	}
	for k != nil && r.pos >= k.start+int64(len(k.data)) {
		k = k.next
	}
	if k == nil {
		return nil
	}
	r.blk = k
	p := k.data[r.pos-k.start:]
	r.pos += int64(len(p))
	return p
}

// Ready is signalled by Kick when there is something to read; Next may
// still return nil (the reader took the bytes already).
func (r *Reader) Ready() <-chan struct{} { return r.ready }

// Pos is the offset of the next byte the reader returns.
func (r *Reader) Pos() int64 {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	return r.pos
}

// Lag is how many appended bytes the reader has not taken yet.
func (r *Reader) Lag() int64 {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	return r.b.end + 1 - r.pos
}

// Close releases the reader: it pins no more bytes and Next returns nil.
// It wakes a goroutine waiting on Ready. Idempotent; any goroutine.
func (r *Reader) Close() {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	for i, x := range b.readers {
		if x == r {
			b.readers = append(b.readers[:i], b.readers[i+1:]...)
			break
		}
	}
	select {
	case r.ready <- struct{}{}:
	default:
	}
	b.trim()
}

// Closed reports whether Close was called.
func (r *Reader) Closed() bool {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	return r.closed
}

// Mem is the memory the buffer's blocks take.
func (b *Buffer) Mem() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := int64(0)
	for k := b.head; k != nil; k = k.next {
		n += int64(cap(k.data))
	}
	return n
}
