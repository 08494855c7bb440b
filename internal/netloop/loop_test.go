package netloop

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// lineHandler answers each line: "echo X" with X, "big N" with N bytes of
// 'x' and a newline, "detach X" with X written from a detached goroutine
// once the test closes release, "quit" by closing after the reply.
type lineHandler struct {
	buf     []byte
	closed  chan struct{}
	onClose sync.Once

	// "detach X": detached receives once the detached goroutine runs,
	// which then waits for release to be closed.
	detached, release chan struct{}

	// "burst N K": K lines of N bytes, one per call, the rest through
	// Conn.Again (back-pressure); produced counts them, drains counts
	// OnDrained.
	burstSize, burstLeft int
	produced, drains     atomic.Int64

	// runs counts OnReadable calls; "runs" answers the count so far.
	runs int
}

func (h *lineHandler) OnDrained(*Conn) { h.drains.Add(1) }

func newLineHandler() *lineHandler {
	return &lineHandler{closed: make(chan struct{}), detached: make(chan struct{}, 1), release: make(chan struct{})}
}

func (h *lineHandler) OnReadable(c *Conn) {
	h.runs++
	if h.burstLeft > 0 {
		if h.burstOne(c); h.burstLeft > 0 {
			return
		}
	}
	var tmp [4096]byte
	n, err := c.Read(tmp[:])
	h.buf = append(h.buf, tmp[:n]...)
	for {
		i := bytes.IndexByte(h.buf, '\n')
		if i < 0 {
			break
		}
		line := string(h.buf[:i])
		h.buf = h.buf[i+1:]
		cmd, arg, _ := strings.Cut(line, " ")
		switch cmd {
		case "echo":
			c.Write([]byte(arg + "\n"))
		case "runs":
			c.Write([]byte(strconv.Itoa(h.runs) + "\n"))
		case "now": // the round's clock
			c.Write([]byte(strconv.FormatInt(c.RoundMillis(), 10) + "\n"))
		case "tid": // the OS thread running the handler
			c.Write([]byte(strconv.Itoa(unix.Gettid()) + "\n"))
		case "big":
			c.Write(append(bytes.Repeat([]byte("x"), atoiT(arg)), '\n'))
		case "blocks": // WriteBlocks: blockLine's blocks
			n, k, _ := strings.Cut(arg, " ")
			c.WriteBlocks(lineBlocks(atoiT(n), atoiT(k)))
		case "detachblocks":
			n, k, _ := strings.Cut(arg, " ")
			c.Detach(func() {
				c.WriteBlocks(lineBlocks(atoiT(n), atoiT(k)))
				c.Attach()
			})
			return
		case "burst":
			n, k, _ := strings.Cut(arg, " ")
			h.burstSize, h.burstLeft = atoiT(n), atoiT(k)
			if h.burstOne(c); h.burstLeft > 0 {
				return // the rest of h.buf waits for the burst
			}
		case "quit":
			c.Write([]byte("bye\n"))
			c.CloseWhenFlushed()
			return
		case "detachnow":
			c.Detach(func() {
				c.Write([]byte(arg + "\n"))
				c.Attach()
			})
			return
		case "detach":
			c.Detach(func() {
				h.detached <- struct{}{}
				<-h.release // the loop must not wait for this
				c.Write([]byte(arg + "\n"))
				c.Attach()
			})
			return
		}
	}
	if err != nil && err != ErrWouldBlock {
		c.Close()
	}
}

// lineBlocks returns k blocks of n bytes, block i of the letter i mod 26,
// the last ending in a newline: one line, blockLine(n, k).
func lineBlocks(n, k int) [][]byte {
	bs := make([][]byte, k)
	for i := range bs {
		bs[i] = bytes.Repeat([]byte{byte('a' + i%26)}, n)
	}
	bs[k-1] = append(bs[k-1], '\n')
	return bs
}

func blockLine(n, k int) string { return string(bytes.Join(lineBlocks(n, k), nil)) }

// burstOne writes the next line of a burst and asks to run again.
func (h *lineHandler) burstOne(c *Conn) {
	c.Write(append(bytes.Repeat([]byte("x"), h.burstSize), '\n'))
	h.produced.Add(1)
	if h.burstLeft--; h.burstLeft > 0 {
		c.Again()
	}
}

func (h *lineHandler) OnClose(*Conn) { h.onClose.Do(func() { close(h.closed) }) }

func atoiT(s string) int {
	n := 0
	for _, ch := range s {
		n = n*10 + int(ch-'0')
	}
	return n
}

// acceptFD accepts one connection on ln and takes its fd (TakeConn).
func acceptFD(t testing.TB, ln net.Listener) int {
	t.Helper()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := TakeConn(c.(*net.TCPConn))
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// testDeferWrite and testURing are the Options.DeferWrite and URing of
// serve's engines; writeModes runs a test on epoll with writes at once and
// deferred, and on io_uring (where the kernel has it).
var testDeferWrite, testURing bool

func writeModes(t *testing.T, test func(t *testing.T)) {
	for _, m := range []string{"immediate", "deferred", "uring"} {
		t.Run(m, func(t *testing.T) {
			if m == "uring" {
				skipWithoutURing(t)
			}
			testDeferWrite, testURing = m != "immediate", m == "uring"
			defer func() { testDeferWrite, testURing = false, false }()
			test(t)
		})
	}
}

// backends runs a test on epoll and on io_uring (where the kernel has it).
func backends(t *testing.T, test func(t *testing.T, ring bool)) {
	for _, ring := range []bool{false, true} {
		t.Run(map[bool]string{false: "epoll", true: "uring"}[ring], func(t *testing.T) {
			if ring {
				skipWithoutURing(t)
			}
			test(t, ring)
		})
	}
}

func skipWithoutURing(t *testing.T) {
	t.Helper()
	if !URingAvailable() {
		t.Skip("io_uring not available (kernel, sandbox, or the race detector)")
	}
}

// serve starts an engine and a listener whose connections go to it.
func serve(t testing.TB, loops int) (addr string, handlers chan *lineHandler, conns chan *Conn) {
	t.Helper()
	return serveOpts(t, Options{Loops: loops, Tick: 10 * time.Millisecond, DeferWrite: testDeferWrite, URing: testURing})
}

// serveOpts is serve with the engine's options given.
func serveOpts(t testing.TB, opts Options) (addr string, handlers chan *lineHandler, conns chan *Conn) {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if e.URing() != (opts.URing && URingAvailable()) {
		t.Fatalf("Engine.URing() = %v with Options.URing %v", e.URing(), opts.URing)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	handlers = make(chan *lineHandler, 16)
	conns = make(chan *Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fd, err := TakeConn(c.(*net.TCPConn))
			if err != nil {
				t.Error(err)
				return
			}
			h := newLineHandler()
			nc := e.Register(fd, h)
			handlers <- h
			conns <- nc
			nc.Attach()
		}
	}()
	t.Cleanup(func() { ln.Close(); e.Close() })
	return ln.Addr().String(), handlers, conns
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	return testutil.DialConn(t, addr)
}

func expectLine(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	got, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading %q: %v", want, err)
	}
	if got != want+"\n" {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestEchoAndPipeline(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		for _, loops := range []int{1, 3} {
			addr, _, _ := serve(t, loops)
			for range 4 {
				c, r := dial(t, addr)
				c.Write([]byte("echo a\necho b\nech"))
				expectLine(t, r, "a")
				expectLine(t, r, "b")
				c.Write([]byte("o c\n"))
				expectLine(t, r, "c")
			}
		}
	})
}

// TestRoundMillis: a handler's RoundMillis is the wall clock of its
// round: between the client's clock before it sent and after the reply,
// and read afresh in a later round.
func TestRoundMillis(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		addr, _, _ := serve(t, 1)
		c, r := dial(t, addr)
		prev := int64(0)
		for i := range 3 {
			before := time.Now().UnixMilli()
			c.Write([]byte("now\n"))
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			after := time.Now().UnixMilli()
			got, _ := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
			if got < before || got > after {
				t.Fatalf("round %d: RoundMillis %d outside [%d, %d]", i, got, before, after)
			}
			if i > 0 && got < prev+20 {
				t.Fatalf("round %d: RoundMillis %d, 25 ms after %d: not read afresh", i, got, prev)
			}
			prev = got
			time.Sleep(25 * time.Millisecond)
		}
	})
}

// TestUnreadInput: bytes a handler leaves unread are handed to it again,
// in order: a request larger than the handler's 4 KiB read (and, on
// io_uring, than one receive), and input not yet read when the handler
// detached, delivered once it is back on the loop.
func TestUnreadInput(t *testing.T) {
	y5k, y40k, z9k := strings.Repeat("y", 5000), strings.Repeat("y", 40000), strings.Repeat("z", 9000)
	cases := []struct {
		name, in string
		want     []string
	}{
		{"large", "echo " + y5k + "\necho done\n", []string{y5k, "done"}},
		{"larger than a receive", "echo " + y40k + "\necho done\n", []string{y40k, "done"}},
		{"detach", "detachnow b\necho " + z9k + "\necho end\n", []string{"b", z9k, "end"}},
	}
	writeModes(t, func(t *testing.T) {
		addr, _, _ := serve(t, 1)
		for _, tc := range cases {
			c, r := dial(t, addr)
			c.Write([]byte(tc.in))
			for _, w := range tc.want {
				expectLine(t, r, w)
			}
		}
	})
}

// TestBackPressure sends replies larger than the socket buffers while the
// client reads nothing: the loop must queue them (EPOLLOUT) without
// blocking, keep serving another client, and deliver everything in order.
func TestBackPressure(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		addr, _, _ := serve(t, 1)
		slow, slowR := dial(t, addr)
		const size = 32 << 20
		slow.Write([]byte("big 33554432\necho after\n"))
		other, otherR := dial(t, addr)
		other.Write([]byte("echo ping\n"))
		expectLine(t, otherR, "ping") // the loop is not stuck on slow
		got, err := slowR.ReadString('\n')
		if err != nil || len(got) != size+1 {
			t.Fatalf("big reply: %d bytes, %v", len(got), err)
		}
		expectLine(t, slowR, "after")
	})
}

// TestWriteBlocks: blocks handed over (Conn.WriteBlocks) arrive whole
// and in order, after what was written before them and before what is
// written after them in the same round, attached (more than a socket
// takes at once: sent as the client reads) or detached; OnDrained runs
// once they have gone; another client is served meanwhile.
func TestWriteBlocks(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		addr, handlers, _ := serve(t, 1)
		c, r := dial(t, addr)
		h := recvWithin(t, handlers, "the handler")
		const n, k = 64 << 10, 200 // 12.5 MB
		c.Write([]byte("echo a\nblocks 65536 200\necho b\n"))
		other, otherR := dial(t, addr)
		other.Write([]byte("echo ping\n"))
		expectLine(t, otherR, "ping") // the loop is not stuck on c
		expectLine(t, r, "a")
		got, err := r.ReadString('\n')
		if err != nil || got != blockLine(n, k) {
			t.Fatalf("blocks: %d bytes (want %d), %v", len(got), n*k+1, err)
		}
		expectLine(t, r, "b")
		waitFor(t, "OnDrained", func() bool { return h.drains.Load() > 0 })
		c.Write([]byte("blocks 1000 3\necho c\ndetachblocks 70000 5\n"))
		for _, want := range []string{blockLine(1000, 3), "c\n", blockLine(70000, 5)} {
			if got, err := r.ReadString('\n'); err != nil || got != want {
				t.Fatalf("got %d bytes (want %d), %v", len(got), len(want), err)
			}
		}
		c.Write([]byte("echo d\n")) // back on the loop
		expectLine(t, r, "d")
	})
}

// TestAgain: a handler that produces its output a piece per call through
// Conn.Again is run again only as the client reads (its output never
// piles up), every piece arrives in order, and OnDrained reports the
// backlog's end; another client of the loop is served meanwhile.
func TestAgain(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		addr, handlers, _ := serve(t, 1)
		slow, slowR := dial(t, addr)
		h := <-handlers
		const size, pieces = 4 << 20, 32 // 128 MB in all
		slow.Write([]byte("burst 4194304 32\necho after\n"))
		other, otherR := dial(t, addr)
		other.Write([]byte("echo ping\n"))
		expectLine(t, otherR, "ping")
		// Not read: production stops once the socket is full (a few
		// pieces), far from all of them. Once it has begun, 200 ms of
		// running free would be plenty to produce them all.
		waitFor(t, "the burst to begin", func() bool { return h.produced.Load() > 0 })
		time.Sleep(200 * time.Millisecond)
		if p := h.produced.Load(); p >= pieces/2 {
			t.Fatalf("%d of %d pieces produced with nothing read", p, pieces)
		}
		for i := range pieces {
			got, err := slowR.ReadString('\n')
			if err != nil || len(got) != size+1 {
				t.Fatalf("piece %d: %d bytes, %v", i, len(got), err)
			}
		}
		expectLine(t, slowR, "after")
		if h.drains.Load() == 0 {
			t.Error("OnDrained never ran")
		}
	})
}

// TestDetach runs a reply on a detached goroutine while the loop goes on
// serving, then reattaches. The detached goroutine finishes only after
// the loop has served another client: a loop that waited for it would
// hang.
func TestDetach(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		addr, handlers, _ := serve(t, 1)
		a, ar := dial(t, addr)
		ha := recvWithin(t, handlers, "a's handler")
		b, br := dial(t, addr)
		a.Write([]byte("detach late\n"))
		recvWithin(t, ha.detached, "a to detach")
		b.Write([]byte("echo early\n"))
		expectLine(t, br, "early")
		close(ha.release)
		expectLine(t, ar, "late")
		a.Write([]byte("echo again\n")) // back on the loop
		expectLine(t, ar, "again")
	})
}

// TestShutdownFromElsewhere ends a connection from another goroutine; the
// loop closes it and OnClose runs.
func TestShutdownFromElsewhere(t *testing.T) {
	writeModes(t, testShutdownFromElsewhere)
}

func testShutdownFromElsewhere(t *testing.T) {
	addr, handlers, conns := serve(t, 2)
	c, r := dial(t, addr)
	c.Write([]byte("echo x\n"))
	expectLine(t, r, "x")
	h, nc := <-handlers, <-conns
	nc.Shutdown()
	recvWithin(t, h.closed, "OnClose")
	if nc.FD() != -1 {
		t.Fatal("fd not released")
	}
	if _, err := r.ReadString('\n'); err != io.EOF {
		t.Fatalf("client read after shutdown: %v", err)
	}
	nc.Shutdown() // idempotent, no fd reuse
}

func TestCloseWhenFlushedAndPeerClose(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		addr, handlers, _ := serve(t, 1)
		c, r := dial(t, addr)
		c.Write([]byte("quit\n"))
		expectLine(t, r, "bye")
		if _, err := r.ReadString('\n'); err != io.EOF {
			t.Fatalf("after quit: %v", err)
		}
		<-(<-handlers).closed

		c2, _ := dial(t, addr)
		h2 := <-handlers
		c2.Close()
		recvWithin(t, h2.closed, "the peer's close to be noticed")
	})
}

// TestDeferredOrder: replies collected in a round keep their order with
// what follows in the same batch: a detach (the collected reply is written
// before the detached goroutine's) and a close after flushing.
func TestDeferredOrder(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		addr, handlers, _ := serve(t, 1)
		c, r := dial(t, addr)
		c.Write([]byte("echo a\ndetachnow b\n"))
		expectLine(t, r, "a")
		expectLine(t, r, "b")
		c.Write([]byte("echo c\necho d\nquit\n"))
		expectLine(t, r, "c")
		expectLine(t, r, "d")
		expectLine(t, r, "bye")
		if _, err := r.ReadString('\n'); err != io.EOF {
			t.Fatalf("after quit: %v", err)
		}
		<-(<-handlers).closed
	})
}

type tickHandler struct {
	*lineHandler
	ticks atomic.Int32
}

func (h *tickHandler) OnTick(c *Conn, now time.Time) {
	if h.ticks.Add(1) == 3 {
		c.Close()
	}
}

func TestTick(t *testing.T) { backends(t, testTick) }

func testTick(t *testing.T, ring bool) {
	e, err := New(Options{Loops: 1, Tick: 5 * time.Millisecond, URing: ring})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		c, _ := net.Dial("tcp", ln.Addr().String())
		if c != nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	fd := acceptFD(t, ln)
	h := &tickHandler{lineHandler: newLineHandler()}
	e.Register(fd, h).Attach()
	recvWithin(t, h.closed, "the tick to close the idle connection")
}

// TestEngineClose closes connections still attached: their OnClose runs
// and their peers see the end of the stream.
func TestEngineClose(t *testing.T) { backends(t, testEngineClose) }

func testEngineClose(t *testing.T, ring bool) {
	e, err := New(Options{Loops: 2, URing: ring})
	if err != nil {
		t.Fatal(err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	c, _ := net.Dial("tcp", ln.Addr().String())
	defer c.Close()
	fd := acceptFD(t, ln)
	h := newLineHandler()
	e.Register(fd, h).Attach()
	e.Close()
	select {
	case <-h.closed:
	default:
		t.Fatal("Close returned before OnClose ran")
	}
	c.SetReadDeadline(time.Now().Add(hangTimeout))
	if n, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("peer of a connection closed by Engine.Close: read %d, %v", n, err)
	}
}

// TestRawWait: loops that sleep in a raw epoll_wait still serve, and do
// not hold up a stop-the-world (runtime.GC) while idle.
func TestRawWait(t *testing.T) { backends(t, testRawWait) }

func testRawWait(t *testing.T, ring bool) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("RawWait needs GOMAXPROCS > loops")
	}
	e, err := New(Options{Loops: 1, RawWait: true, URing: ring})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.RawWait() {
		t.Fatal("RawWait not in effect")
	}
	loopAsleep(t, e)
	done := make(chan struct{})
	go func() {
		for range 20 {
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangTimeout):
		t.Fatal("GC blocked by a loop in a raw wait")
	}
	c, r := attachEcho(t, e)
	for i := range 100 {
		c.Write([]byte("echo x\n"))
		expectLine(t, r, "x")
		if i%10 == 0 {
			runtime.GC()
		}
	}
}

// TestReadBlocking: a detached connection's blocking read returns data,
// end-of-file, or os.ErrDeadlineExceeded when another goroutine sets a
// past deadline while it waits.
func TestReadBlocking(t *testing.T) {
	e, err := New(Options{Loops: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	peer, _ := net.Dial("tcp", ln.Addr().String())
	defer peer.Close()
	fd := acceptFD(t, ln)
	nc := e.Register(fd, newLineHandler()) // never attached: the test owns it
	defer nc.Close()
	buf := make([]byte, 16)

	// The deadline and the data come from another goroutine once the
	// read waits in poll (or, if that is never seen, after hangTimeout,
	// which also ends the read).
	waiting := func() bool { return inSyscall("netloop.(*Conn).ReadBlocking", "unix.Poll") }
	go func() {
		poll(waiting)
		nc.SetReadDeadline(time.Now())
	}()
	if _, err := nc.ReadBlocking(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("interrupted read: %v", err)
	}
	nc.SetReadDeadline(time.Time{})
	go func() {
		poll(waiting)
		peer.Write([]byte("hi"))
	}()
	if n, err := nc.ReadBlocking(buf); err != nil || string(buf[:n]) != "hi" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	// A lower bound only: the read cannot end before its deadline.
	start := time.Now()
	nc.SetReadDeadline(start.Add(30 * time.Millisecond))
	if _, err := nc.ReadBlocking(buf); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) < 30*time.Millisecond {
		t.Fatalf("deadline read: %v after %v", err, time.Since(start))
	}
	nc.SetReadDeadline(time.Time{})
	peer.Close()
	if _, err := nc.ReadBlocking(buf); err != io.EOF {
		t.Fatalf("after peer close: %v", err)
	}
}

// attachEcho connects a client over loopback to a line handler on e and
// returns the client side.
func attachEcho(t *testing.T, e *Engine) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, fd := loopbackPair(t)
	e.Register(fd, newLineHandler()).Attach()
	return c, bufio.NewReader(c)
}

// loopbackPair connects a client over loopback and returns it (closed at
// the test's end, with a 10 s deadline) and the accepted socket's fd.
func loopbackPair(t *testing.T) (net.Conn, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, acceptFD(t, ln)
}

// BenchmarkRoundTrips measures the loop's request/reply cycle on loopback:
// 16 connections, each sending 4 pipelined lines and reading the 4
// replies, per iteration, with replies written at once and deferred to the
// end of the round (Options.DeferWrite). Compare the two in one run; the
// absolute figures depend on the machine.
func BenchmarkRoundTrips(b *testing.B) {
	for _, d := range []bool{false, true} {
		b.Run(map[bool]string{false: "immediate", true: "deferred"}[d], func(b *testing.B) {
			testDeferWrite = d
			defer func() { testDeferWrite = false }()
			addr, _, _ := serve(b, 1)
			const conns = 16
			req := []byte("echo a\necho b\necho c\necho d\n")
			cs := make([]net.Conn, conns)
			rs := make([]*bufio.Reader, conns)
			for i := range cs {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				cs[i], rs[i] = c, bufio.NewReader(c)
			}
			b.ResetTimer()
			for b.Loop() {
				for _, c := range cs {
					c.Write(req)
				}
				for _, r := range rs {
					for range 4 {
						if _, err := r.ReadSlice('\n'); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// TestLockThread: with Options.LockThread the loop's handler runs on one
// OS thread from the first request to the last, although collections (a
// stop-the-world interrupts the loop's raw wait, which then waits through
// the scheduler once) and busy goroutines give the runtime every reason to
// move it; without it, the same run moves it (reported, not asserted: the
// runtime promises nothing either way).
func TestLockThread(t *testing.T) {
	threads := func(lock bool) int {
		addr, _, _ := serveOpts(t, Options{Loops: 1, Tick: 10 * time.Millisecond, RawWait: true, LockThread: lock})
		c, r := dial(t, addr)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() { // compete for the Ps
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						runtime.Gosched()
					}
				}
			}()
		}
		seen := map[string]bool{}
		for i := range 150 {
			c.Write([]byte("tid\n"))
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			seen[line] = true
			if i%5 == 0 {
				runtime.GC()
			}
		}
		close(stop)
		wg.Wait()
		return len(seen)
	}
	if n := threads(true); n != 1 {
		t.Errorf("locked loop ran on %d threads", n)
	}
	t.Logf("unlocked loop ran on %d threads", threads(false))
}

// TestFixedFiles: on io_uring a connection's socket is used through the
// ring's registered file table; connections in slots beyond the table use
// their descriptors; both are served, and both are closed for their peers
// (the table holds a reference of its own: see loop.unfix).
func TestFixedFiles(t *testing.T) {
	skipWithoutURing(t)
	defer func(n int) { fixedFilesMax = n }(fixedFilesMax)
	fixedFilesMax = 1
	addr, handlers, conns := serveOpts(t, Options{Loops: 1, DeferWrite: true, URing: true})
	a, ar := dial(t, addr)
	a.Write([]byte("echo a\n"))
	expectLine(t, ar, "a")
	b, br := dial(t, addr)
	b.Write([]byte("echo b\n"))
	expectLine(t, br, "b")
	// Owner-only fields, read after the replies they preceded (io_uring
	// is not used under the race detector).
	ca, cb := <-conns, <-conns
	if !ca.fixed || cb.fixed {
		t.Fatalf("fixed: first connection %v, second %v; want true, false (a one-slot table)", ca.fixed, cb.fixed)
	}
	for _, c := range []struct {
		w  net.Conn
		r  *bufio.Reader
		id string
	}{{a, ar, "fixed"}, {b, br, "descriptor"}} {
		c.w.Write([]byte("quit\n"))
		expectLine(t, c.r, "bye")
		if _, err := c.r.ReadString('\n'); err != io.EOF {
			t.Fatalf("%s connection after quit: %v", c.id, err)
		}
		<-(<-handlers).closed
	}
}

// TestRxPool: on io_uring, receives take their buffers from the loop's
// pool; more connections with input at once than the pool has buffers
// (the rest find it empty: ENOBUFS, and receive into their own) are all
// served, and again once their input has been read, with the pool's
// buffers given back.
func TestRxPool(t *testing.T) {
	skipWithoutURing(t)
	testDeferWrite, testURing = true, true
	defer func() { testDeferWrite, testURing = false, false }()
	addr, handlers, ncs := serve(t, 1)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() { // the acceptor waits for these to be taken
		for {
			select {
			case <-handlers:
			case <-ncs:
			case <-done:
				return
			}
		}
	}()
	n := 3 * rxPoolBufs
	conns := make([]net.Conn, n)
	readers := make([]*bufio.Reader, n)
	for i := range conns {
		conns[i], readers[i] = dial(t, addr)
	}
	for round := range 3 {
		for i, c := range conns {
			if _, err := c.Write([]byte("echo " + strconv.Itoa(round*n+i) + "\n")); err != nil {
				t.Fatal(err)
			}
		}
		for i := range conns {
			expectLine(t, readers[i], strconv.Itoa(round*n+i))
		}
	}
}
