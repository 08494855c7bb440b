package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// bigKey holds the slow reader's value.
const bigKey = "hostile:big"

// slowReader SETs a c.value byte value, then a client sends c.gets GETs of
// it in one write and reads nothing for c.hold while the prober runs;
// then it reads every reply. With limit, client-output-buffer-limit is
// set to it first.
func slowReader(c *config, s *benchproc.Server, r *result, limit string) error {
	ctl, err := dial(s.Addr)
	if err != nil {
		return err
	}
	defer ctl.Close()
	if limit != "" {
		if _, err := do(ctl, c.timeout, "CONFIG", "SET", "client-output-buffer-limit", limit); err != nil {
			return err
		}
	}
	if _, err := do(ctl, c.timeout, "SET", bigKey, strings.Repeat("x", c.value)); err != nil {
		return err
	}
	disc0, err := obufDisconnections(ctl, c.timeout)
	if err != nil {
		return err
	}
	a, err := startAttack(c, s, r)
	if err != nil {
		return err
	}
	defer a.close()
	p, nc, peak := a.p, a.nc, a.peak
	_ = nc.SetDeadline(time.Now().Add(c.timeout))
	if _, err := nc.Write(repeatCommand(c.gets, "GET", bigKey)); err != nil {
		return fmt.Errorf("slow reader: %w", err)
	}
	done := make(chan struct{})
	time.AfterFunc(c.hold, func() { close(done) })
	busy, n, perr := p.until(done)
	<-done
	r.busyPing, r.pingSamples = busy, n

	want := int64(c.gets) * bulkReplyLen(c.value)
	start := time.Now()
	got, readErr := io.CopyN(io.Discard, nc, want)
	r.wall = time.Since(start)
	r.rssGrowth = peak.Stop() - r.rssBase
	kept := got == want && pingsBack(nc)
	r.client, r.closed = clientOutcome(got, want, readErr, kept), !kept
	if r.cpu, err = cpuSince(s, a.ticks0); err != nil {
		return err
	}
	disc1, err := obufDisconnections(ctl, c.timeout)
	if err != nil {
		return err
	}
	if disc0 >= 0 && disc1 >= 0 {
		r.obufDisc = disc1 - disc0
	}
	return perr
}

// pingsBack reports whether nc still answers PING with +PONG.
func pingsBack(nc net.Conn) bool {
	if _, err := nc.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	buf := make([]byte, 7)
	_, err := io.ReadFull(nc, buf)
	return err == nil && string(buf) == "+PONG\r\n"
}

// clientOutcome words what happened to the slow reader: it read got of
// want bytes, the read ended with err, and alive says whether it then
// answered a PING.
func clientOutcome(got, want int64, err error, alive bool) string {
	switch {
	case got == want && alive:
		return fmt.Sprintf("kept, read all %s", mib(got))
	case got == want:
		return fmt.Sprintf("read all %s, then closed", mib(got))
	case err == io.EOF || isReset(err):
		return fmt.Sprintf("closed after %s of %s", mib(got), mib(want))
	default:
		return fmt.Sprintf("read %s of %s: %v", mib(got), mib(want), err)
	}
}

// isReset reports whether err is the peer resetting the connection.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET)
}
