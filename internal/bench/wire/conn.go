package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Conn is a pipelined RESP connection. Requests are appended to Out and
// sent by Flush; replies are consumed in order with Next.
type Conn struct {
	nc       net.Conn
	Addr     string
	Out      []byte    // pending requests; Flush sends and truncates it
	LastRead time.Time // when the most recent read syscall returned
	// SkipPushes makes Next pass over RESP3 push frames ('>'): they are
	// never replies (CLIENT TRACKING invalidations, pub/sub messages).
	SkipPushes bool
	rbuf       []byte
	r, w       int
}

// Dial connects with a timeout.
func Dial(network, addr string, timeout time.Duration) (*Conn, error) {
	nc, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return NewConn(nc, addr), nil
}

// DialTLS connects and completes a TLS handshake, each within timeout;
// a failed handshake's error says so. Dynamic record sizing is turned off
// (on a copy of cfg if needed), so every Flush is one TLS record (see the
// package doc).
func DialTLS(network, addr string, timeout time.Duration, cfg *tls.Config) (*Conn, error) {
	if !cfg.DynamicRecordSizingDisabled {
		cfg = cfg.Clone()
		cfg.DynamicRecordSizingDisabled = true
	}
	nc, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(nc, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	return NewConn(tc, addr), nil
}

// ErrTLS is NetConn's refusal of a TLS connection.
var ErrTLS = errors.New("a TLS connection cannot be handed over as a raw socket")

// NewConn wraps an established connection.
func NewConn(nc net.Conn, addr string) *Conn {
	return &Conn{nc: nc, Addr: addr, Out: make([]byte, 0, 16<<10), rbuf: make([]byte, 64<<10)}
}

// NetConn hands over the underlying connection, for a caller that drives
// the socket itself (corvid-bench's event loops). It fails if reply bytes
// are still buffered, as they would be lost, and for a TLS connection
// (ErrTLS): its socket carries records only the tls.Conn can read.
func (c *Conn) NetConn() (net.Conn, error) {
	if _, ok := c.nc.(*tls.Conn); ok {
		return nil, ErrTLS
	}
	if c.Buffered() {
		return nil, fmt.Errorf("%w: %d unread reply bytes", ErrProtocol, c.w-c.r)
	}
	return c.nc, nil
}

// Close closes the connection; safe from another goroutine.
func (c *Conn) Close() error { return c.nc.Close() }

// SetDeadline bounds the next reads and writes (zero clears it).
func (c *Conn) SetDeadline(t time.Time) error { return c.nc.SetDeadline(t) }

// Flush writes all of Out in one Write call and empties it.
func (c *Conn) Flush() error {
	if len(c.Out) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.Out)
	c.Out = c.Out[:0]
	return err
}

// Next returns the next reply's size, kind and (for errors) message,
// reading from the socket as needed. See the package doc for the lifetime
// of msg.
func (c *Conn) Next() (n int, kind Kind, msg []byte, err error) {
	for {
		n, kind, msg, err = Scan(c.rbuf[c.r:c.w])
		if err != nil {
			return 0, 0, nil, err
		}
		if n > 0 && c.SkipPushes && c.rbuf[c.r] == '>' {
			c.r += n
			continue
		}
		if n > 0 {
			c.r += n
			return n, kind, msg, nil
		}
		if err := c.fill(); err != nil {
			return 0, 0, nil, err
		}
	}
}

// Buffered reports whether unread reply bytes are already in memory.
func (c *Conn) Buffered() bool { return c.r < c.w }

// MakeRoom prepares a read buffer holding unread bytes buf[r:w] for the
// next read: it moves them to the front and doubles the buffer when it is
// full, up to a 512 MB reply. It returns the buffer and the new end (the
// unread bytes now start at 0).
func MakeRoom(buf []byte, r, w int) ([]byte, int, error) {
	if r > 0 {
		copy(buf, buf[r:w])
		w -= r
	}
	if w == len(buf) {
		if len(buf) >= 512<<20 {
			return buf, w, fmt.Errorf("%w: reply larger than 512MB", ErrProtocol)
		}
		nb := make([]byte, 2*len(buf))
		copy(nb, buf[:w])
		buf = nb
	}
	return buf, w, nil
}

// fill reads once from the socket, compacting or growing the buffer first.
func (c *Conn) fill() error {
	var err error
	c.rbuf, c.w, err = MakeRoom(c.rbuf, c.r, c.w)
	c.r = 0
	if err != nil {
		return err
	}
	m, err := c.nc.Read(c.rbuf[c.w:])
	c.LastRead = time.Now()
	c.w += m
	if m > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// Do sends one command and decodes its reply (control path). Pending
// requests in Out are sent first; their replies must have been read.
func (c *Conn) Do(args ...string) (Value, error) {
	c.Out = AppendCommand(c.Out, args...)
	if err := c.Flush(); err != nil {
		return Value{}, err
	}
	return c.ReadValue()
}

// ReadValue decodes the next reply.
func (c *Conn) ReadValue() (Value, error) {
	for {
		v, n, err := Parse(c.rbuf[c.r:c.w])
		if err != nil {
			return Value{}, err
		}
		if n > 0 {
			c.r += n
			return v, nil
		}
		if err := c.fill(); err != nil {
			return Value{}, err
		}
	}
}

// Handshake prepares a fresh connection: AUTH (PASSWORD or USER:PASSWORD),
// HELLO for resp2/resp3, SELECT for a non-zero db.
func (c *Conn) Handshake(auth, protocol string, db int) error {
	if auth != "" {
		args := []string{"AUTH", auth}
		if u, p, ok := strings.Cut(auth, ":"); ok {
			args = []string{"AUTH", u, p}
		}
		if err := expectOK(c.Do(args...)); err != nil {
			return fmt.Errorf("AUTH: %w", err)
		}
	}
	switch protocol {
	case "resp2", "resp3":
		v, err := c.Do("HELLO", protocol[4:])
		if err == nil {
			err = v.Err()
		}
		if err != nil {
			return fmt.Errorf("HELLO %s: %w", protocol[4:], err)
		}
	}
	if db != 0 {
		if err := expectOK(c.Do("SELECT", fmt.Sprint(db))); err != nil {
			return fmt.Errorf("SELECT %d: %w", db, err)
		}
	}
	return nil
}

func expectOK(v Value, err error) error {
	if err != nil {
		return err
	}
	if e := v.Err(); e != nil {
		return e
	}
	return nil
}

// IsServerError reports whether err is an error reply (not a network error).
func IsServerError(err error) bool {
	var se *ServerError
	return errors.As(err, &se)
}
