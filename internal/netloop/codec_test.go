package netloop

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// xorCodec frames bytes in units of a length byte and up to 254 bytes
// XORed with 0x5a: enough of a record layer to see that Read opens only
// whole units, keeps what does not fit, and that Write seals. A length
// byte of 255 is a unit that fails to open.
type xorCodec struct{ pending []byte }

var errXorUnit = errors.New("bad unit")

func (x *xorCodec) Open(dst, src []byte) ([]byte, int, error) {
	n := 0
	for len(src)-n >= 1 {
		l := int(src[n])
		if l == 0 { // a control unit: answer it
			x.pending = append(x.pending, 0)
			n++
			continue
		}
		if l == 255 {
			return dst, n, errXorUnit
		}
		if len(src)-n < 1+l {
			break
		}
		for _, b := range src[n+1 : n+1+l] {
			dst = append(dst, b^0x5a)
		}
		n += 1 + l
	}
	return dst, n, nil
}

func (x *xorCodec) Seal(dst, p []byte) []byte {
	dst = append(dst, x.pending...)
	x.pending = x.pending[:0]
	return xorSeal(dst, p)
}

func (x *xorCodec) HasPending() bool { return len(x.pending) > 0 }

func xorSeal(dst, p []byte) []byte {
	for len(p) > 0 {
		l := min(len(p), 254)
		dst = append(dst, byte(l))
		for _, b := range p[:l] {
			dst = append(dst, b^0x5a)
		}
		p = p[l:]
	}
	return dst
}

// xorReader decodes the server's units on the client side.
type xorReader struct {
	r    io.Reader
	left []byte
}

func (x *xorReader) Read(p []byte) (int, error) {
	if len(x.left) > 0 {
		n := copy(p, x.left)
		x.left = x.left[n:]
		return n, nil
	}
	var l [1]byte
	if _, err := io.ReadFull(x.r, l[:]); err != nil {
		return 0, err
	}
	if l[0] == 0 {
		return 0, nil
	}
	b := make([]byte, l[0])
	if _, err := io.ReadFull(x.r, b); err != nil {
		return 0, err
	}
	for i := range b {
		b[i] ^= 0x5a
	}
	n := copy(p, b)
	x.left = b[n:]
	return n, nil
}

// registerLine starts a one-loop engine and registers on it, not
// attached yet, the server side of a loopback connection served by h;
// it returns the client side (with a 10 s deadline) and the Conn.
func registerLine(t *testing.T, h *lineHandler) (net.Conn, *Conn) {
	t.Helper()
	e, err := New(Options{Loops: 1, DeferWrite: testDeferWrite, URing: testURing})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	c, fd := loopbackPair(t)
	return c, e.Register(fd, h)
}

// TestCodec: through a codec, lines longer than the handler's read buffer
// arrive whole (what did not fit is read on the handler's next run, not
// when the socket next has data), input the codec holds when the
// connection is attached is served at once, and the codec's control
// output goes out.
func TestCodec(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		c, nc := registerLine(t, newLineHandler())
		// Buffered at attach time: a handshake's leftover.
		nc.SetCodec(&xorCodec{}, xorSeal(nil, []byte("echo early\n")))
		nc.Attach()
		r := bufio.NewReader(&xorReader{r: c})
		expectLine(t, r, "early")

		// Three long lines in one write: far more than one 4 KiB read.
		var want []string
		var msg []byte
		for i := range 3 {
			arg := strings.Repeat(string(rune('a'+i)), 5000)
			want = append(want, arg)
			msg = append(msg, "echo "+arg+"\n"...)
		}
		if _, err := c.Write(xorSeal(nil, msg)); err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			got, err := r.ReadString('\n')
			if err != nil || got != w+"\n" {
				t.Fatalf("long line %d: %d bytes, %v; want %d", i, len(got), err, len(w)+1)
			}
		}

		// A control unit is answered before the next reply.
		if _, err := c.Write(append([]byte{0}, xorSeal(nil, []byte("echo after\n"))...)); err != nil {
			t.Fatal(err)
		}
		var ctl [1]byte
		if _, err := io.ReadFull(c, ctl[:]); err != nil || ctl[0] != 0 {
			t.Fatalf("control answer %v, %v", ctl, err)
		}
		expectLine(t, r, "after")

		// Detached and attached again: writes are sealed, blocking.
		if _, err := c.Write(xorSeal(nil, []byte("detachnow gone\n"))); err != nil {
			t.Fatal(err)
		}
		expectLine(t, r, "gone")
		if _, err := c.Write(xorSeal(nil, []byte("echo back\n"))); err != nil {
			t.Fatal(err)
		}
		expectLine(t, r, "back")
	})
}

// TestCodecPartialUnit: input that ends inside a unit does not make the
// loop run the handler again before the socket has more (only the socket
// can complete the unit), and a unit that fails to open closes the
// connection even though nothing follows it.
func TestCodecPartialUnit(t *testing.T) {
	writeModes(t, func(t *testing.T) {
		h := newLineHandler()
		c, nc := registerLine(t, h)
		nc.SetCodec(&xorCodec{}, nil)
		nc.Attach()
		r := bufio.NewReader(&xorReader{r: c})

		// One run answers "a"; the next unit's first 10 of 22 bytes wait.
		second := xorSeal(nil, []byte("runs and some more\n"))
		if _, err := c.Write(append(xorSeal(nil, []byte("echo a\n")), second[:10]...)); err != nil {
			t.Fatal(err)
		}
		expectLine(t, r, "a")
		if _, err := c.Write(second[10:]); err != nil {
			t.Fatal(err)
		}
		// Run 2 is the one the rest of the unit started (a run in
		// between would have found nothing to open).
		expectLine(t, r, "2")

		if _, err := c.Write(append(xorSeal(nil, []byte("echo b\n")), 255, 1, 2, 3, 4, 5)); err != nil {
			t.Fatal(err)
		}
		expectLine(t, r, "b")
		select {
		case <-h.closed:
		case <-time.After(10 * time.Second):
			t.Fatal("a unit that failed to open did not close the connection")
		}
	})
}
