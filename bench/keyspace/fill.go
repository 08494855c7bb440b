package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// fillValue is the value the pipelined fill writes: size bytes.
func fillValue(size int) []byte {
	v := make([]byte, size)
	for i := range v {
		v[i] = 'a' + byte(i%26)
	}
	return v
}

// tryPopulate makes key:1 .. key:n exist with DEBUG POPULATE (n+1 keys from
// key:0, then DEL key:0). ok is false, with nothing written, when the
// server refuses POPULATE.
func tryPopulate(addr string, n int64, size int) (ok bool, err error) {
	c, err := dial(addr)
	if err != nil {
		return false, err
	}
	defer c.Close()
	if _, err := benchproc.Do(c, "DEBUG", "POPULATE", "0", "key", strconv.Itoa(size)); wire.IsServerError(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if _, err := benchproc.Do(c, "DEBUG", "POPULATE", strconv.FormatInt(n+1, 10), "key", strconv.Itoa(size)); err != nil {
		return false, err
	}
	if _, err := benchproc.Do(c, "DEL", "key:0"); err != nil {
		return false, err
	}
	return true, nil
}

// idCmd encodes the command args for an id: __key__ is the id in decimal,
// __data__ is data.
func idCmd(data []byte, args ...string) func(buf []byte, id int64) []byte {
	t := wire.Compile(args)
	var k []byte
	return func(buf []byte, id int64) []byte {
		k = strconv.AppendInt(k[:0], id, 10)
		return t.Append(buf, k, data)
	}
}

// setCmd appends SET key:<id> val.
func setCmd(val []byte) func([]byte, int64) []byte {
	return idCmd(val, "SET", "key:"+wire.KeyPlaceholder, wire.DataPlaceholder)
}

// zaddCmd appends ZADD zkey:<id> <id> member.
func zaddCmd(member []byte) func([]byte, int64) []byte {
	return idCmd(member, "ZADD", "zkey:"+wire.KeyPlaceholder, wire.KeyPlaceholder, wire.DataPlaceholder)
}

// existsCmd appends EXISTS key:<id>.
func existsCmd() func([]byte, int64) []byte {
	return idCmd(nil, "EXISTS", "key:"+wire.KeyPlaceholder)
}

// pipeSpec is one pipelined write of the ids From..To (inclusive).
type pipeSpec struct {
	From, To int64
	Batch    int
	Gen      func(buf []byte, id int64) []byte
	// Span, when set, spreads the batches evenly over that long (a batch
	// that is late goes at once); zero sends as fast as the server takes.
	Span time.Duration
}

type pipeStats struct {
	Ops      int64
	Elapsed  time.Duration
	Errors   int64
	FirstErr string
}

// numBatches is how many batches of size batch cover n ids.
func numBatches(n int64, batch int) int64 {
	if n <= 0 {
		return 0
	}
	return (n + int64(batch) - 1) / int64(batch)
}

// batchDue is when batch b of nb is due when nb batches are spread over
// span from start.
func batchDue(start time.Time, span time.Duration, b, nb int64) time.Time {
	if nb <= 0 || span <= 0 {
		return start
	}
	return start.Add(time.Duration(float64(span) * float64(b) / float64(nb)))
}

// pipeline writes the commands over one connection, batch by batch, with a
// reader goroutine consuming the replies so that a few batches are in
// flight at once.
func pipeline(ctx context.Context, addr string, p pipeSpec) (pipeStats, error) {
	var st pipeStats
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return st, err
	}
	defer nc.Close()
	// The writer writes to nc itself; rc, the reply side, belongs to the
	// reader goroutine alone (a wire.Conn is not shared between goroutines).
	rc := wire.NewConn(nc, addr)
	if p.Batch <= 0 {
		p.Batch = 1000
	}
	n := p.To - p.From + 1
	nb := numBatches(n, p.Batch)
	inflight := make(chan int, 4)
	type readRes struct {
		errs     int64
		firstErr string
		err      error
	}
	done := make(chan readRes, 1)
	go func() {
		var rr readRes
		for cnt := range inflight {
			for range cnt {
				_, kind, msg, err := rc.Next()
				if err != nil {
					rr.err = err
					nc.Close()           // fail the writer's next write
					for range inflight { // and let it finish
					}
					done <- rr
					return
				}
				if kind == wire.KindError || kind == wire.KindMoved || kind == wire.KindAsk {
					if rr.errs == 0 {
						rr.firstErr = string(msg)
					}
					rr.errs++
				}
			}
		}
		done <- rr
	}()
	start := time.Now()
	var buf []byte
	id := p.From
	var werr error
	for b := int64(0); b < nb; b++ {
		if ctx.Err() != nil {
			werr = ctx.Err()
			break
		}
		if p.Span > 0 {
			if d := time.Until(batchDue(start, p.Span, b, nb)); d > 0 {
				time.Sleep(d)
			}
		}
		buf = buf[:0]
		cnt := 0
		for ; cnt < p.Batch && id <= p.To; cnt++ {
			buf = p.Gen(buf, id)
			id++
		}
		if _, werr = nc.Write(buf); werr != nil {
			break
		}
		inflight <- cnt
		st.Ops += int64(cnt)
	}
	close(inflight)
	rr := <-done
	st.Elapsed = time.Since(start)
	st.Errors, st.FirstErr = rr.errs, rr.firstErr
	if werr != nil {
		return st, werr
	}
	if rr.err != nil {
		return st, fmt.Errorf("reading replies: %w", rr.err)
	}
	return st, nil
}
