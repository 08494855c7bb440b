package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/snapshot"
)

// AOF persistence (appendonly yes): at start-up the multi-part AOF in
// dir/appenddirname is loaded (package aof parses it; an RDB base goes
// through rdb.Loader, commands through the same fake client as Replay),
// then an aof.Writer is opened and attached to the keyspace's effects
// stream, so every committed unit is appended to the current incr file
// with the unit's stripes held, in commit order.
//
// Durability: a client's replies are not written before the AOF is
// durable, as the policy promises, up to the last ticket appended before
// them: with appendfsync always written and fsynced. On an event loop the
// loop waits once per round, before the round's replies are written
// (aofBeforeFlush, netloop Options.BeforeFlush), as Valkey fsyncs in
// beforeSleep; a detached or goroutine-engine client waits in Client.flush
// (waitAOF). A reply may thus also wait for other clients' writes, and one
// group fsync covers every writer waiting. everysec and no only write(2) the buffer first,
// as Valkey's beforeSleep does; their fsync is the writer's background job.
//
// BGREWRITEAOF takes a snapshot (package snapshot) whose AtStart hook
// switches the writer to its new incr file while every stripe is held,
// writes it as the new base's RDB preamble and commits the rewrite. One
// snapshot runs at a time (RDB saves and rewrites share the keyspace's
// PreWriter): a BGSAVE during a rewrite gets Valkey's "Another child
// process is active" error, a rewrite during a BGSAVE is scheduled.
//
// appendonly and the writer's settings are fixed once the server runs:
// CONFIG SET refuses to change them (Valkey can turn the AOF on and off at
// run time; Corvid not yet).

// aofState is the server's AOF bookkeeping.
type aofState struct {
	w      *aof.Writer // nil when appendonly is no
	detach func()
	on     atomic.Bool  // replies wait for the writer (Client.flush)
	always atomic.Bool  // appendfsync always: a failed wait is fatal
	last   atomic.Int64 // the last ticket appended (under Stream.mu)
	// durable is a ticket known to be covered (by an event loop's wait);
	// loops skip their wait when nothing was appended since.
	durable atomic.Int64

	mu        sync.Mutex
	rewriting *snapshot.Snapshot // the rewrite in progress, or nil
	rwDone    chan struct{}      // closed when it ends
	rwStart   time.Time
	running   atomic.Bool // rewriting != nil, read without the locks
	scheduled atomic.Bool // BGREWRITEAOF while a BGSAVE ran: the cron starts it

	lastRwOK    atomic.Bool
	lastRwSecs  atomic.Int64
	rewrites    atomic.Int64
	consecFails atomic.Int64
	lastCow     atomic.Int64
	baseSize    atomic.Int64 // aof_base_size: the AOF's size after the last rewrite or load
	lastTry     atomic.Int64 // unix seconds of the last automatic rewrite
}

// aofSink appends each committed unit to the writer and remembers its
// ticket (tickets only grow: the stream serializes its sinks).
type aofSink struct {
	s *Server
	w *aof.Writer
}

func (k aofSink) Write(u *effects.Unit) {
	t := k.w.AppendUnit(u)
	k.s.aof.last.Store(int64(t))
}

var (
	errRewriteInProgress = errors.New("ERR Background append only file rewriting already in progress")
	errChildActive       = errors.New("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible")
)

func (s *Server) aofDir() string { return filepath.Join(s.cfg.Dir(), s.cfg.AppendDirname()) }

// guardAOFConfig makes appendonly and the settings the writer was opened
// with immutable at run time (see the file comment).
func (s *Server) guardAOFConfig() {
	on := s.cfg.AppendOnly()
	if !on {
		s.cfg.SetUnsupported("appendonly", func(v string) string {
			if v == "yes" {
				return "CONFIG SET appendonly yes at run time is not supported by Corvid yet: start the server with appendonly yes"
			}
			return ""
		})
		return
	}
	fixed := func(name, want string) {
		s.cfg.SetUnsupported(name, func(v string) string {
			if v != want {
				return fmt.Sprintf("CONFIG SET %s at run time while appendonly is yes is not supported by Corvid yet: restart the server with the new value", name)
			}
			return ""
		})
	}
	fixed("appendonly", "yes")
	fixed("appendfsync", s.cfg.AppendFsync())
	fixed("aof-use-rdb-preamble", yesNo(s.cfg.AOFUseRDBPreamble()))
	fixed("aof-timestamp-enabled", yesNo(s.cfg.AOFTimestampEnabled()))
	fixed("aof-disable-auto-gc", yesNo(s.cfg.AOFDisableAutoGC()))
	fixed("no-appendfsync-on-rewrite", yesNo(s.cfg.NoAppendfsyncOnRewrite()))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// startAOF loads the AOF (upgrading an old single-file one first), then
// opens the writer and attaches it. Errors are fatal, as in Valkey.
func (s *Server) startAOF() error {
	dir, name := s.aofDir(), s.cfg.AppendFilename()
	logf := func(format string, args ...any) { s.log.notice(format, args...) }
	if _, err := aof.UpgradeOldStyle(s.cfg.Dir(), s.cfg.AppendDirname(), name, logf); err != nil {
		return fmt.Errorf("Fatal error upgrading the append only file: %v", err)
	}
	start := time.Now()
	c := s.fakeClient()
	var loaded, expired int64
	res, err := aof.Load(dir, name, aof.LoadOptions{
		Truncated: s.cfg.AOFLoadTruncated(),
		RDB: func(file string, r io.Reader) error {
			// nowMs 0: nothing expires while loading; the AOF holds the
			// deletions of keys that expired after the base was written.
			n, e, err := s.loadRDBAt(r, true, 0)
			loaded, expired = loaded+n, expired+e
			if err == nil {
				s.log.notice("Done loading RDB, keys loaded: %d, keys expired: %d.", n, e)
			}
			return err
		},
		Command: func(argv [][]byte) error { return c.replayOne(argv) },
		Logf:    logf,
	})
	switch {
	case errors.Is(err, aof.ErrNotExist):
		// Nothing to load: Open creates an empty base.
	case err != nil:
		s.log.warn("%v", err)
		return fmt.Errorf("Fatal error loading the DB from the append only file, check server logs. Exiting.")
	default:
		// An EXEC that never came (RevertedMulti) left its commands queued
		// on the fake client, unapplied: dropping the client discards them.
		_ = res
		s.rdb.loaded.Store(loaded)
		s.rdb.expired.Store(expired)
		s.log.notice("DB loaded from append only file: %.3f seconds", time.Since(start).Seconds())
	}
	policy, err := aof.ParseFsyncPolicy(s.cfg.AppendFsync())
	if err != nil {
		return err
	}
	w, err := aof.Open(dir, name, aof.Options{
		Fsync:            policy,
		Timestamps:       s.cfg.AOFTimestampEnabled(),
		RDBPreamble:      s.cfg.AOFUseRDBPreamble(),
		DisableAutoGC:    s.cfg.AOFDisableAutoGC(),
		NoFsyncOnRewrite: s.cfg.NoAppendfsyncOnRewrite(),
		// Snapshot nil: Open writes an empty base only when nothing was
		// loaded, and the dataset is empty then.
		Logf: logf,
	})
	if err != nil {
		return fmt.Errorf("Can't open the append-only file: %v", err)
	}
	s.aof.w = w
	s.aof.lastRwOK.Store(true)
	s.aof.lastRwSecs.Store(-1)
	s.aof.baseSize.Store(s.aofSize())
	s.aof.always.Store(policy == aof.FsyncAlways)
	s.aof.on.Store(true)
	s.aof.detach = s.ks.Effects.Attach(aofSink{s: s, w: w})
	return nil
}

// stopAOF aborts a rewrite, detaches the writer and closes it (a flush
// and fsync), as Valkey's shutdown does.
func (s *Server) stopAOF() {
	a := &s.aof
	if a.w == nil {
		return
	}
	s.rdb.begin.Lock() // a rewrite being started is seen
	a.mu.Lock()
	cur, done := a.rewriting, a.rwDone
	a.mu.Unlock()
	s.rdb.begin.Unlock()
	if cur != nil {
		s.log.warn("There is a child rewriting the AOF. Killing it!")
		cur.Abort()
		<-done
	}
	a.on.Store(false)
	a.detach()
	s.log.notice("Calling fsync() on the AOF file.")
	if err := a.w.Close(); err != nil {
		s.log.warn("Error closing the AOF: %v", err)
	}
}

// waitAOF blocks until the AOF is durable up to the last ticket appended,
// as the policy promises before a reply: written and fsynced with always
// (a failure is fatal, as in Valkey), written with everysec and no (the
// writer returns at once while a background fsync delays the write, as
// Valkey replies then; a failure shows in aof_last_write_status).
func (c *Client) waitAOF() {
	a := &c.srv.aof
	t := a.last.Load()
	if t <= c.aofSeen {
		return
	}
	if err := a.w.WaitDurable(context.Background(), aof.Ticket(t)); err != nil {
		if errors.Is(err, aof.ErrClosed) || !a.always.Load() {
			return // shutting down (the close fsyncs), or not fatal
		}
		c.srv.log.warn("Can't persist AOF for fsync error when the AOF fsync policy is 'always': %v. Exiting...", err)
		os.Exit(1)
	}
	c.aofSeen = t
}

// aofBarrier is waitAOF for a loop client whose collected replies are
// about to be written before the round ends (close, detach).
func (c *Client) aofBarrier() {
	if c.srv.aof.on.Load() {
		c.waitAOF()
	}
}

// aofBeforeFlush runs on every event loop at the end of each round,
// before the round's replies are written: one wait (one group fsync with
// always) covers every write the round's clients made, as Valkey's
// beforeSleep flushes the AOF before handleClientsWithPendingWrites.
func (s *Server) aofBeforeFlush() {
	a := &s.aof
	if !a.on.Load() {
		return
	}
	t := a.last.Load()
	if t <= a.durable.Load() {
		return
	}
	w := a.w
	if err := w.WaitDurable(context.Background(), aof.Ticket(t)); err != nil {
		if errors.Is(err, aof.ErrClosed) || !a.always.Load() {
			return
		}
		s.log.warn("Can't persist AOF for fsync error when the AOF fsync policy is 'always': %v. Exiting...", err)
		os.Exit(1)
	}
	for {
		d := a.durable.Load()
		if t <= d || a.durable.CompareAndSwap(d, t) {
			return
		}
	}
}

// aofSize is the size of every file the manifest lists (aof_current_size).
func (s *Server) aofSize() int64 {
	w := s.aof.w
	if w == nil {
		return 0
	}
	var n int64
	for _, f := range w.Manifest().Files() {
		if st, err := os.Stat(filepath.Join(w.Dir(), f.Name)); err == nil {
			n += st.Size()
		}
	}
	return n
}

// saveRunning reports whether an RDB save runs (a rewrite must wait).
func (s *Server) saveRunning() bool {
	s.rdb.mu.Lock()
	defer s.rdb.mu.Unlock()
	return s.rdb.cur != nil
}

// rewriteRunning reports whether an AOF rewrite runs, and its end.
func (s *Server) rewriteRunning() (bool, chan struct{}) {
	s.aof.mu.Lock()
	defer s.aof.mu.Unlock()
	return s.aof.rewriting != nil, s.aof.rwDone
}

// bgrewrite starts an AOF rewrite. Called with s.rdb.mu not held.
func (s *Server) bgrewrite() error {
	a := &s.aof
	// A save and a rewrite never both begin (rdbState.begin).
	s.rdb.begin.Lock()
	defer s.rdb.begin.Unlock()
	if s.saveRunning() {
		return errSaveInProgress
	}
	if running, _ := s.rewriteRunning(); running {
		return errRewriteInProgress
	}
	rw, err := a.w.PrepareRewrite()
	if err != nil {
		a.lastRwOK.Store(false)
		a.consecFails.Add(1)
		s.log.warn("Can't rewrite append only file in background: %v", err)
		return fmt.Errorf("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
	}
	opts := s.rdbOptions()
	opts.RDB.AOFBase = true
	opts.AtStart = rw.Switch
	snap := snapshot.Begin(s.ks, opts)
	a.mu.Lock()
	a.rewriting, a.rwDone, a.rwStart = snap, make(chan struct{}), time.Now()
	a.running.Store(true)
	done, start := a.rwDone, a.rwStart
	a.mu.Unlock()
	s.log.notice("Background append only file rewriting started")
	go func() {
		err := s.writeRewrite(rw, snap)
		a.mu.Lock()
		a.rewriting = nil
		a.running.Store(false)
		a.mu.Unlock()
		close(done)
		a.lastRwSecs.Store(int64(time.Since(start).Seconds()))
		a.lastRwOK.Store(err == nil)
		if err != nil {
			a.consecFails.Add(1)
			s.log.warn("Background AOF rewrite failed: %v", err)
			return
		}
		a.consecFails.Store(0)
		a.rewrites.Add(1)
		a.baseSize.Store(s.aofSize())
		s.log.notice("Background AOF rewrite terminated with success")
		s.log.notice("Background AOF rewrite finished successfully")
	}()
	return nil
}

// writeRewrite writes the snapshot into the rewrite's base and commits.
func (s *Server) writeRewrite(rw *aof.Rewrite, snap *snapshot.Snapshot) error {
	bw := bufio.NewWriterSize(rw.File(), 1<<16)
	stats, err := snap.Save(bw)
	if err == nil {
		err = bw.Flush()
	}
	s.aof.lastCow.Store(stats.PeakCopyBytes)
	if err != nil {
		rw.Abort()
		return err
	}
	return rw.Commit()
}

// rewriteCron starts a rewrite scheduled while a save ran, or one that
// auto-aof-rewrite-percentage/min-size call for (serverCron's rule; after
// failures it waits a minute per consecutive failure, up to an hour, as
// Valkey's rewrite limiter delays retries).
func (s *Server) rewriteCron(now time.Time) {
	a := &s.aof
	if a.w == nil || s.saveRunning() {
		return
	}
	if running, _ := s.rewriteRunning(); running {
		return
	}
	if a.scheduled.Load() {
		if err := s.bgrewrite(); err == nil || err == errRewriteInProgress {
			a.scheduled.Store(false)
		}
		return
	}
	perc := s.cfg.AutoAOFRewritePercentage()
	if perc <= 0 {
		return
	}
	size := s.aofSize()
	if size <= s.cfg.AutoAOFRewriteMinSize() {
		return
	}
	if f := a.consecFails.Load(); f > 0 && now.Unix()-a.lastTry.Load() < 60*min(f, 60) {
		return
	}
	base := max(a.baseSize.Load(), 1)
	if growth := (size*100)/base - 100; growth >= perc {
		s.log.notice("Starting automatic rewriting of AOF on %d%% growth", growth)
		a.lastTry.Store(now.Unix())
		s.bgrewrite()
	}
}

// BGREWRITEAOF
func bgrewriteaofCommand(c *Client) {
	s := c.srv
	if s.aof.w == nil {
		c.w.Error("ERR BGREWRITEAOF with appendonly no is not supported by Corvid yet")
		return
	}
	if s.aof.running.Load() {
		c.w.Error(errRewriteInProgress.Error())
		return
	}
	// Inside EXEC (the snapshot's start needs every stripe; no lock that
	// a snapshot's start holds may be taken with stripes held), or while a
	// save occupies the snapshot: the cron starts it, as Valkey's rewrite
	// scheduled behind an active child.
	if c.ctx.Locked || s.saveRunning() {
		s.aof.scheduled.Store(true)
		c.w.Simple("Background append only file rewriting scheduled")
		return
	}
	if err := s.bgrewrite(); err != nil {
		if err == errSaveInProgress {
			s.aof.scheduled.Store(true)
			c.w.Simple("Background append only file rewriting scheduled")
			return
		}
		c.w.Error(err.Error())
		return
	}
	c.w.Simple("Background append only file rewriting started")
}

// aofInfo fills the AOF fields of INFO persistence, in Valkey's order.
func (s *Server) aofInfo(w *infoWriter) {
	a := &s.aof
	on := a.w != nil
	a.mu.Lock()
	cur, start := a.rewriting, a.rwStart
	a.mu.Unlock()
	curSecs := int64(-1)
	if cur != nil {
		curSecs = int64(time.Since(start).Seconds())
	}
	lastSecs := int64(-1)
	okStatus, writeStatus := "ok", "ok"
	if on {
		lastSecs = a.lastRwSecs.Load()
		if !a.lastRwOK.Load() {
			okStatus = "err"
		}
		if a.w.Err() != nil {
			writeStatus = "err"
		}
	}
	w.int("aof_enabled", b2i(on))
	w.int("aof_rewrite_in_progress", b2i(cur != nil))
	w.int("aof_rewrite_scheduled", b2i(a.scheduled.Load()))
	w.int("aof_last_rewrite_time_sec", lastSecs)
	w.int("aof_current_rewrite_time_sec", curSecs)
	w.str("aof_last_bgrewrite_status", okStatus)
	w.int("aof_rewrites", a.rewrites.Load())
	w.int("aof_rewrites_consecutive_failures", a.consecFails.Load())
	w.str("aof_last_write_status", writeStatus)
	w.int("aof_last_cow_size", a.lastCow.Load())
	w.int("module_fork_in_progress", 0)
	w.int("module_fork_last_cow_size", 0)
	if on {
		st := a.w.Stats()
		w.int("aof_current_size", s.aofSize())
		w.int("aof_base_size", a.baseSize.Load())
		w.int("aof_pending_rewrite", b2i(a.scheduled.Load()))
		w.int("aof_buffer_length", int64(st.Buffered))
		w.int("aof_pending_bio_fsync", 0)
		w.int("aof_delayed_fsync", st.DelayedFsync)
	}
}
