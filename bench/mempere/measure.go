package main

import (
	"fmt"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// sample is one reading of a server's memory.
type sample struct {
	used int64 // INFO used_memory
	rss  int64 // VmRSS
}

// measurement is one server's result for one case.
type measurement struct {
	before, after sample
	settledRSS    int64 // VmRSS after loading and settling, before MEMORY PURGE
	encoding      string
	usage         int64 // MEMORY USAGE of key 0, SAMPLES 0
	load          time.Duration
}

// loadOptions are the knobs of the write load.
type loadOptions struct {
	per, batch, size int
	seed             uint64
	settle           time.Duration
}

// purge asks the server to give free memory back to the OS. Both
// servers have MEMORY PURGE; an error reply is not fatal.
func purge(c *wire.Conn) {
	if _, err := do(c, "MEMORY", "PURGE"); err != nil {
		logf("  MEMORY PURGE: %v", err)
	}
}

func takeSample(c *wire.Conn, srv *benchproc.Server) (sample, error) {
	used, err := usedMemory(c)
	if err != nil {
		return sample{}, err
	}
	rss, err := readRSS(srv)
	if err != nil {
		return sample{}, err
	}
	return sample{used: used, rss: rss}, nil
}

// readRSS is the resident set size of the server, in bytes.
func readRSS(srv *benchproc.Server) (int64, error) {
	kib, err := srv.RSSKiB()
	return kib * 1024, err
}

// measureCase runs one case on one server; ctl is a connection to it
// that stays open from the first sample to the last.
func measureCase(srv *benchproc.Server, ctl *wire.Conn, spec caseSpec, o loadOptions) (m measurement, err error) {
	if _, err = do(ctl, "FLUSHALL"); err != nil {
		return m, err
	}
	time.Sleep(o.settle)
	purge(ctl)
	if m.before, err = takeSample(ctl, srv); err != nil {
		return m, err
	}

	start := time.Now()
	if err = load(srv.Addr, spec, o); err != nil {
		return m, fmt.Errorf("%s %s load: %w", srv.Name, spec.name, err)
	}
	m.load = time.Since(start)

	time.Sleep(o.settle)
	if m.settledRSS, err = readRSS(srv); err != nil {
		return m, err
	}
	purge(ctl)
	if m.after, err = takeSample(ctl, srv); err != nil {
		return m, err
	}

	if err = checkCount(ctl, spec); err != nil {
		return m, fmt.Errorf("%s %s: %w", srv.Name, spec.name, err)
	}
	enc, err := do(ctl, "OBJECT", "ENCODING", spec.keyName(0))
	if err != nil {
		return m, err
	}
	m.encoding = enc.Str
	if m.usage, err = doInt(ctl, "MEMORY", "USAGE", spec.keyName(0), "SAMPLES", "0"); err != nil {
		return m, err
	}
	return m, nil
}

// load writes the case's data on its own connection, closed afterwards so
// its buffers do not stay in the "after" sample.
func load(addr string, spec caseSpec, o loadOptions) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	size := o.size
	if spec.size > 0 {
		size = spec.size
	}
	g := newGenerator(spec, o.per, size, o.seed)
	for {
		n := 0
		for n < o.batch {
			var ok bool
			if c.Out, ok = g.next(c.Out); !ok {
				break
			}
			n++
		}
		if n == 0 {
			return nil
		}
		if err := pipeline(c, n, spec.cmd == "SET"); err != nil {
			return err
		}
	}
}

// pipeline sends the n commands in c.Out in one write, then reads their n
// replies, which must all be integers, or with okReplies all +OK (SET).
func pipeline(c *wire.Conn, n int, okReplies bool) error {
	_ = c.SetDeadline(time.Now().Add(cmdTimeout))
	if err := c.Flush(); err != nil {
		return err
	}
	for range n {
		v, err := c.ReadValue()
		if err != nil {
			return err
		}
		switch {
		case okReplies && (v.Type != '+' || v.Text() != "OK"):
			return fmt.Errorf("pipelined write: want +OK, got %s", v.Text())
		case !okReplies && v.Type != ':':
			return fmt.Errorf("pipelined write: want an integer reply, got %s", v.Text())
		}
	}
	return nil
}

// checkCount verifies that the server holds every element written.
func checkCount(c *wire.Conn, spec caseSpec) error {
	if spec.keys > 1 {
		n, err := doInt(c, "DBSIZE")
		if err != nil {
			return err
		}
		if n != int64(spec.keys) {
			return fmt.Errorf("DBSIZE = %d, want %d", n, spec.keys)
		}
	}
	n, err := doInt(c, spec.countCommand()...)
	if err != nil {
		return err
	}
	if n != int64(spec.perKey) {
		return fmt.Errorf("%v = %d, want %d", spec.countCommand(), n, spec.perKey)
	}
	return nil
}
