package main

import (
	"fmt"
	"time"
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
func purge(c *conn) {
	if _, err := c.do("MEMORY", "PURGE"); err != nil {
		logf("  MEMORY PURGE: %v", err)
	}
}

func takeSample(c *conn, pid int) (sample, error) {
	used, err := usedMemory(c)
	if err != nil {
		return sample{}, err
	}
	rss, err := readRSS(pid)
	if err != nil {
		return sample{}, err
	}
	return sample{used: used, rss: rss}, nil
}

// measureCase runs one case on one server; ctl is a connection to it
// that stays open from the first sample to the last.
func measureCase(srv *server, ctl *conn, spec caseSpec, o loadOptions) (m measurement, err error) {
	if _, err = ctl.do("FLUSHALL"); err != nil {
		return m, err
	}
	time.Sleep(o.settle)
	purge(ctl)
	if m.before, err = takeSample(ctl, srv.pid()); err != nil {
		return m, err
	}

	start := time.Now()
	if err = load(srv.addr(), spec, o); err != nil {
		return m, fmt.Errorf("%s %s load: %w", srv.name, spec.name, err)
	}
	m.load = time.Since(start)

	time.Sleep(o.settle)
	if m.settledRSS, err = readRSS(srv.pid()); err != nil {
		return m, err
	}
	purge(ctl)
	if m.after, err = takeSample(ctl, srv.pid()); err != nil {
		return m, err
	}

	if err = checkCount(ctl, spec); err != nil {
		return m, fmt.Errorf("%s %s: %w", srv.name, spec.name, err)
	}
	enc, err := ctl.do("OBJECT", "ENCODING", spec.keyName(0))
	if err != nil {
		return m, err
	}
	m.encoding = enc.str
	if m.usage, err = ctl.doInt("MEMORY", "USAGE", spec.keyName(0), "SAMPLES", "0"); err != nil {
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
	g := newGenerator(spec, o.per, o.size, o.seed)
	var buf []byte
	for {
		buf = buf[:0]
		n := 0
		for n < o.batch {
			var ok bool
			if buf, ok = g.next(buf); !ok {
				break
			}
			n++
		}
		if n == 0 {
			return nil
		}
		if err := c.pipeline(buf, n); err != nil {
			return err
		}
	}
}

// checkCount verifies that the server holds every element written.
func checkCount(c *conn, spec caseSpec) error {
	if spec.keys > 1 {
		n, err := c.doInt("DBSIZE")
		if err != nil {
			return err
		}
		if n != int64(spec.keys) {
			return fmt.Errorf("DBSIZE = %d, want %d", n, spec.keys)
		}
	}
	n, err := c.doInt(spec.countCommand()...)
	if err != nil {
		return err
	}
	if n != int64(spec.perKey) {
		return fmt.Errorf("%v = %d, want %d", spec.countCommand(), n, spec.perKey)
	}
	return nil
}
