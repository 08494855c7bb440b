package uring

import (
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// newTestRing locks the test to its thread (SINGLE_ISSUER) and sets up a
// ring, or skips where io_uring is unavailable.
func newTestRing(t *testing.T, entries uint32) *Ring {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	r, err := New(entries)
	if err == ErrUnsupported {
		t.Skip("io_uring not available here")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func socketPair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fds[0]); syscall.Close(fds[1]) })
	return fds[0], fds[1]
}

type completion struct {
	ud  uint64
	res int32
}

// wait enters until n completions have arrived (or a generous deadline).
func wait(t *testing.T, r *Ring, n int) []completion {
	t.Helper()
	var got []completion
	deadline := time.Now().Add(5 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		if err := r.Enter(1, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		r.Completions(func(ud uint64, res int32) { got = append(got, completion{ud, res}) })
	}
	if len(got) != n {
		t.Fatalf("%d completions, want %d: %v", len(got), n, got)
	}
	return got
}

func TestRecvSendRead(t *testing.T) {
	r := newTestRing(t, 8)
	a, b := socketPair(t)

	// A receive queued before the data arrives completes when it does.
	buf := make([]byte, 64)
	r.Recv(Fd(a), buf, false, 1)
	r.Enter(0, 0)
	r.Completions(func(ud uint64, res int32) { t.Fatalf("completion %d (%d) before any data", ud, res) })
	syscall.Write(b, []byte("hello"))
	if c := wait(t, r, 1)[0]; c.ud != 1 || c.res != 5 || string(buf[:5]) != "hello" {
		t.Fatalf("recv: %+v %q", c, buf[:max(0, c.res)])
	}

	r.Send(Fd(a), []byte("world!"), 2)
	if c := wait(t, r, 1)[0]; c.ud != 2 || c.res != 6 {
		t.Fatalf("send: %+v", c)
	}
	got := make([]byte, 16)
	if n, _ := syscall.Read(b, got); string(got[:n]) != "world!" {
		t.Fatalf("peer read %q", got[:n])
	}

	// Polling first: data already there is received at once.
	syscall.Write(b, []byte("ready"))
	r.Recv(Fd(a), buf, true, 6)
	if c := wait(t, r, 1)[0]; c.ud != 6 || c.res != 5 || string(buf[:5]) != "ready" {
		t.Fatalf("poll-first recv: %+v %q", c, buf[:max(0, c.res)])
	}

	// End of input and errors come back as results.
	r.Recv(Fd(a), buf, true, 3)
	syscall.Shutdown(b, syscall.SHUT_WR)
	if c := wait(t, r, 1)[0]; c.ud != 3 || c.res != 0 {
		t.Fatalf("recv at end of input: %+v", c)
	}
	r.Send(Fd(-1), []byte("x"), 4)
	if c := wait(t, r, 1)[0]; c.ud != 4 || c.res != -int32(syscall.EBADF) {
		t.Fatalf("send on a bad fd: %+v", c)
	}

	// An eventfd read, as the loops wait for their inbox.
	efd, _, e := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC, 0)
	if e != 0 {
		t.Fatal(e)
	}
	defer syscall.Close(int(efd))
	var v [8]byte
	r.Read(int(efd), v[:], 5)
	one := uint64(3)
	syscall.Write(int(efd), (*[8]byte)(unsafe.Pointer(&one))[:])
	if c := wait(t, r, 1)[0]; c.ud != 5 || c.res != 8 || *(*uint64)(unsafe.Pointer(&v)) != 3 {
		t.Fatalf("eventfd read: %+v %v", c, v)
	}
}

// TestFullQueue queues more operations than the ring has entries: the
// queue submits when full, and every operation completes once, in order.
// Each send's one-byte buffer is a fresh composite literal, which escape
// analysis would put on the stack (and reuse every iteration) if the ring
// did not force buffers to the heap: the bytes would then arrive as
// "eeeeiiii...".
func TestFullQueue(t *testing.T) {
	r := newTestRing(t, 4)
	a, b := socketPair(t)
	const n = 37
	for i := range n {
		r.Send(Fd(a), []byte{byte('a' + i%26)}, uint64(100+i))
	}
	seen := map[uint64]bool{}
	for _, c := range wait(t, r, n) {
		if c.res != 1 || seen[c.ud] || c.ud < 100 || c.ud >= 100+n {
			t.Fatalf("completion %+v (seen before: %v)", c, seen[c.ud])
		}
		seen[c.ud] = true
	}
	got := make([]byte, 2*n)
	total := 0
	for total < n {
		m, err := syscall.Read(b, got[total:])
		if err != nil {
			t.Fatal(err)
		}
		total += m
	}
	for i := range n {
		if got[i] != byte('a'+i%26) {
			t.Fatalf("byte %d is %q: out of order: %q", i, got[i], got[:total])
		}
	}
}

// TestTimeout: a wait with a timeout returns without completions.
func TestTimeout(t *testing.T) {
	r := newTestRing(t, 4)
	a, _ := socketPair(t)
	r.Recv(Fd(a), make([]byte, 8), true, 1)
	if err := r.Enter(1, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	r.Completions(func(ud uint64, res int32) { t.Fatalf("completion %d (%d) with no data", ud, res) })
}

func TestAccept(t *testing.T) {
	r := newTestRing(t, 4)
	ln, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(ln)
	if err := syscall.Bind(ln, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	syscall.Listen(ln, 8)
	sa, _ := syscall.Getsockname(ln)
	r.Accept(ln, 9)
	r.Enter(0, 0)
	c, _ := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	defer syscall.Close(c)
	if err := syscall.Connect(c, sa); err != nil {
		t.Fatal(err)
	}
	got := wait(t, r, 1)[0]
	if got.ud != 9 || got.res < 0 {
		t.Fatalf("accept: %+v", got)
	}
	syscall.Close(int(got.res))
}

// TestFixedFiles: a socket installed in a slot of the registered file
// table is received from and sent to by its slot; the table's reference
// keeps it open after its descriptor is closed, until the slot is emptied;
// an empty slot fails with EBADF.
func TestFixedFiles(t *testing.T) {
	r := newTestRing(t, 8)
	if err := r.RegisterFiles(4); err != nil {
		t.Skipf("registered files not available: %v", err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := fds[0], fds[1]
	defer syscall.Close(b)
	// A broken slot must fail the test, not hang it.
	tv := syscall.NsecToTimeval(int64(5 * time.Second))
	syscall.SetsockoptTimeval(b, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	if err := r.UpdateFile(2, a); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateFile(9, a); err == nil {
		t.Fatal("slot 9 of a 4-slot table accepted")
	}

	buf := make([]byte, 16)
	r.Recv(Fixed(2), buf, false, 1)
	syscall.Write(b, []byte("ping"))
	if c := wait(t, r, 1)[0]; c.ud != 1 || c.res != 4 || string(buf[:4]) != "ping" {
		t.Fatalf("fixed recv: %+v %q", c, buf[:max(0, c.res)])
	}
	// Closing the descriptor leaves the socket open: the slot holds it.
	syscall.Close(a)
	r.Send(Fixed(2), []byte("pong"), 2)
	if c := wait(t, r, 1)[0]; c.ud != 2 || c.res != 4 {
		t.Fatalf("fixed send after close(fd): %+v", c)
	}
	got := make([]byte, 16)
	if n, _ := syscall.Read(b, got); string(got[:n]) != "pong" {
		t.Fatalf("peer read %q", got[:n])
	}
	// Emptying the slot drops the last reference: the peer sees the end.
	if err := r.UpdateFile(2, -1); err != nil {
		t.Fatal(err)
	}
	r.Enter(0, 0) // runs any release the kernel deferred to the ring's task
	if n, err := syscall.Read(b, got); n != 0 || err != nil {
		t.Fatalf("peer read after the slot was emptied: %d %v, want end of input", n, err)
	}
	r.Send(Fixed(2), []byte("x"), 3)
	if c := wait(t, r, 1)[0]; c.ud != 3 || c.res != -int32(syscall.EBADF) {
		t.Fatalf("send on an empty slot: %+v", c)
	}
}

// A receive with a provided buffer holds none while it waits: the kernel
// takes one of the group's when data arrives and names it in the
// completion; with the group empty the receive fails with ENOBUFS.
func TestRecvSelect(t *testing.T) {
	r := newTestRing(t, 8)
	a, b := socketPair(t)
	mem := make([]byte, 2*16)
	r.ProvideBuffers(mem, 16, 2, 7, 0, 9)
	if c := wait(t, r, 1)[0]; c.ud != 9 || c.res < 0 {
		t.Fatalf("provide: %+v", c)
	}
	for i, msg := range []string{"first", "second"} {
		r.RecvSelect(Fd(a), 16, 7, uint64(10+i))
		r.Enter(0, 0)
		syscall.Write(b, []byte(msg))
		var got []struct {
			ud    uint64
			res   int32
			flags uint32
		}
		deadline := time.Now().Add(5 * time.Second)
		for len(got) == 0 && time.Now().Before(deadline) {
			r.Enter(1, 100*time.Millisecond)
			r.CompletionsFlags(func(ud uint64, res int32, flags uint32) {
				got = append(got, struct {
					ud    uint64
					res   int32
					flags uint32
				}{ud, res, flags})
			})
		}
		if len(got) != 1 || got[0].res != int32(len(msg)) || got[0].flags&CQEBuffer == 0 {
			t.Fatalf("recv %d: %+v", i, got)
		}
		id := int(got[0].flags >> CQEBufferShift)
		if s := string(mem[id*16 : id*16+len(msg)]); s != msg {
			t.Fatalf("buffer %d holds %q, want %q", id, s, msg)
		}
	}
	r.RecvSelect(Fd(a), 16, 7, 20)
	syscall.Write(b, []byte("third"))
	if c := wait(t, r, 1)[0]; c.ud != 20 || c.res != -int32(syscall.ENOBUFS) {
		t.Fatalf("recv with no buffer left: %+v", c)
	}
}

// TestConsumedBuffersDropped: once the kernel has consumed an entry, the
// ring no longer references its buffer, so an idle ring does not keep the
// buffers of its last operations alive (a loop's ring after a pipelined
// client with 64 KiB receive buffers has gone).
func TestConsumedBuffersDropped(t *testing.T) {
	r := newTestRing(t, 8)
	a, b := socketPair(t)
	// More operations than entries, so the ring wraps.
	for i := range 20 {
		r.Send(Fd(a), make([]byte, 1<<10), uint64(i))
		wait(t, r, 1)
	}
	r.Recv(Fd(a), make([]byte, 64), false, 99) // consumed, still pending
	r.Enter(0, 0)
	for i, p := range r.keep {
		if p != nil {
			t.Errorf("entry %d still holds a %d-byte buffer", i, len(p))
		}
	}
	syscall.Write(b, []byte("x"))
	wait(t, r, 1)
}
