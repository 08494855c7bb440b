package wire

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// recordCounter counts the TLS records (by their 5-byte headers) in the
// raw bytes a server reads.
type recordCounter struct {
	net.Conn
	hdr     []byte
	skip    int // body bytes of the current record still to come
	records int
}

func (r *recordCounter) Read(b []byte) (int, error) {
	n, err := r.Conn.Read(b)
	for p := b[:n]; len(p) > 0; {
		if r.skip > 0 {
			m := min(r.skip, len(p))
			r.skip, p = r.skip-m, p[m:]
			continue
		}
		m := min(5-len(r.hdr), len(p))
		r.hdr, p = append(r.hdr, p[:m]...), p[m:]
		if len(r.hdr) == 5 {
			r.records++
			r.skip = int(binary.BigEndian.Uint16(r.hdr[3:5]))
			r.hdr = r.hdr[:0]
		}
	}
	return n, err
}

// Every Flush of a TLS Conn is one TLS record, from the connection's
// first write on (crypto/tls's dynamic record sizing would cut a fresh
// connection's first writes into ~1 KB records); a batch over TLS's 16 KB
// record limit is one record per 16 KB.
func TestDialTLSOneRecordPerFlush(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	pair, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const batch, batches, big = 4000, 20, 40 << 10
	type result struct {
		records []int // records per step: handshake, the batches, the big batch
		err     error
	}
	handshook := make(chan struct{})
	step, read := make(chan int), make(chan struct{})
	res := make(chan result, 1)
	go func() {
		var out result
		defer func() { res <- out }()
		raw, err := ln.Accept()
		if err != nil {
			out.err = err
			return
		}
		defer raw.Close()
		_ = raw.SetDeadline(time.Now().Add(30 * time.Second))
		rc := &recordCounter{Conn: raw}
		sc := tls.Server(rc, &tls.Config{Certificates: []tls.Certificate{pair}})
		if out.err = sc.Handshake(); out.err != nil {
			return
		}
		out.records = append(out.records, rc.records)
		close(handshook)
		for n := range step {
			before := rc.records
			if _, out.err = io.ReadFull(sc, make([]byte, n)); out.err != nil {
				return
			}
			out.records = append(out.records, rc.records-before)
			read <- struct{}{}
		}
	}()
	c, err := DialTLS("tcp", ln.Addr().String(), 5*time.Second, &tls.Config{RootCAs: f.Pool, ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.NetConn(); !errors.Is(err, ErrTLS) {
		t.Fatalf("NetConn of a TLS Conn: %v", err)
	}
	<-handshook
	for range batches {
		c.Out = append(c.Out, bytes.Repeat([]byte("x"), batch)...)
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		step <- batch
		<-read // the next flush is counted on its own
	}
	c.Out = append(c.Out, bytes.Repeat([]byte("y"), big)...)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	step <- big
	<-read
	close(step)
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	for i, n := range r.records[1 : 1+batches] {
		if n != 1 {
			t.Errorf("flush %d of %d bytes arrived as %d records", i, batch, n)
		}
	}
	if n := r.records[1+batches]; n != 3 {
		t.Errorf("a %d-byte flush arrived as %d records, want 3", big, n)
	}
}
