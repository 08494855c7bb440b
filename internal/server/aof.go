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
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
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
// group fsync covers every writer waiting. everysec and no only write(2)
// the buffer first, as Valkey's beforeSleep does; their fsync is the
// writer's background job. Tickets are the server's, not a writer's: a
// generation (aofGen) maps its writer's tickets above the last ticket of
// the writers before it, so a client's aofSeen stays meaningful when the
// AOF is turned off and on again.
//
// BGREWRITEAOF takes a snapshot (package snapshot) whose AtStart hook
// switches the writer to its new incr file while every stripe is held,
// writes it as the new base (an RDB preamble, or with
// aof-use-rdb-preamble no the commands of aof.CommandWriter) and commits
// the rewrite. With
// appendonly no it writes a base alone (aof.RewriteOff), as Valkey 7+.
// One snapshot runs at a time (RDB saves and rewrites share the
// keyspace's PreWriter): a BGSAVE during a rewrite gets Valkey's "Another
// child process is active" error, a rewrite during a BGSAVE is scheduled.
//
// CONFIG SET appendonly yes is Valkey's startAppendOnly: aof.Enable opens
// a temp incr file, and a rewrite's snapshot AtStart attaches the writer
// to the effects stream (every stripe held: db.Ctx.StartProp makes every
// later unit reach it), so base plus incr replay the dataset; aof_enabled
// is 1 from the CONFIG SET on, the directory describes the dataset from
// the rewrite's commit on. A failed enable closes that writer and the
// cron tries again (aof_rewrite_scheduled). CONFIG SET appendonly no
// aborts a rewrite, detaches, flushes, fsyncs and closes the writer.
// The writer's other settings (appendfsync, aof-use-rdb-preamble, ...)
// cannot change while the AOF is on (Valkey can; Corvid not yet).

// aofState is the server's AOF bookkeeping.
type aofState struct {
	// gen is the writer in use, nil while the AOF is off (or while
	// CONFIG SET appendonly yes waits for its rewrite to start).
	gen     atomic.Pointer[aofGen]
	enabled atomic.Bool  // aof_enabled: appendonly is yes (on, or waiting for its rewrite)
	pending atomic.Bool  // appendonly yes waits for a snapshot to end: the cron starts it
	on      atomic.Bool  // replies wait for the writer (Client.flush)
	last    atomic.Int64 // the last server ticket appended (under Stream.mu)
	// durable is a ticket known to be covered (by an event loop's wait);
	// loops skip their wait when nothing was appended since.
	durable atomic.Int64

	// cfgMu serializes turning the AOF on and off (CONFIG SET, the cron,
	// shutdown); it is taken before rdbState.begin, never with stripes held.
	cfgMu sync.Mutex

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

// aofGen is one writer's life, from start-up or CONFIG SET appendonly yes
// to shutdown or CONFIG SET appendonly no.
type aofGen struct {
	w      *aof.Writer
	base   int64 // server ticket = base + writer ticket
	always bool  // appendfsync always: a failed wait is fatal
	detach func()
}

// ticket converts a server ticket to this writer's (<= 0: before it).
func (g *aofGen) ticket(t int64) aof.Ticket { return aof.Ticket(t - g.base) }

// aofSink appends each committed unit to the writer and remembers its
// ticket (tickets only grow: the stream serializes its sinks).
type aofSink struct {
	s *Server
	g *aofGen
}

func (k aofSink) Write(u *effects.Unit) {
	t := k.g.w.AppendUnit(u)
	k.s.aof.last.Store(k.g.base + int64(t))
}

var (
	errRewriteInProgress = errors.New("ERR Background append only file rewriting already in progress")
	errChildActive       = errors.New("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible")
)

func (s *Server) aofDir() string { return filepath.Join(s.cfg.Dir(), s.cfg.AppendDirname()) }

// aofConfigHooks turns the AOF on and off with CONFIG SET appendonly and
// makes the writer's settings immutable while it is on (see the file
// comment).
func (s *Server) aofConfigHooks() {
	for _, name := range []string{"stop-writes-on-bgsave-error", "save"} {
		s.cfg.OnChange(name, func(*config.Config) error { s.updateDiskDeny(); return nil })
	}
	s.cfg.OnChange("appendonly", func(c *config.Config) error {
		if c.AppendOnly() {
			return s.enableAOF()
		}
		s.disableAOF()
		return nil
	})
	fixed := func(name string, get func() string) {
		s.cfg.SetUnsupported(name, func(v string) string {
			if s.aof.enabled.Load() && v != get() {
				return fmt.Sprintf("CONFIG SET %s at run time while appendonly is yes is not supported by Corvid yet: set it with appendonly no, or restart the server with the new value", name)
			}
			return ""
		})
	}
	fixed("appendfsync", s.cfg.AppendFsync)
	fixed("aof-use-rdb-preamble", func() string { return yesNo(s.cfg.AOFUseRDBPreamble()) })
	fixed("aof-timestamp-enabled", func() string { return yesNo(s.cfg.AOFTimestampEnabled()) })
	fixed("aof-disable-auto-gc", func() string { return yesNo(s.cfg.AOFDisableAutoGC()) })
	fixed("no-appendfsync-on-rewrite", func() string { return yesNo(s.cfg.NoAppendfsyncOnRewrite()) })
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// aofOptions are a new writer's options from the configuration.
func (s *Server) aofOptions() (aof.Options, error) {
	policy, err := aof.ParseFsyncPolicy(s.cfg.AppendFsync())
	if err != nil {
		return aof.Options{}, err
	}
	return aof.Options{
		Fsync:            policy,
		Timestamps:       s.cfg.AOFTimestampEnabled(),
		RDBPreamble:      s.cfg.AOFUseRDBPreamble(),
		DisableAutoGC:    s.cfg.AOFDisableAutoGC(),
		NoFsyncOnRewrite: s.cfg.NoAppendfsyncOnRewrite(),
		Logf:             s.log.notice,
		OnFailing:        func(bool) { s.updateDiskDeny() },
	}, nil
}

// startAOF loads the AOF (upgrading an old single-file one first), then
// opens the writer and attaches it. Errors are fatal, as in Valkey.
func (s *Server) startAOF() error {
	dir, name := s.aofDir(), s.cfg.AppendFilename()
	if _, err := aof.UpgradeOldStyle(s.cfg.Dir(), s.cfg.AppendDirname(), name, s.log.notice); err != nil {
		return fmt.Errorf("Fatal error upgrading the append only file: %v", err)
	}
	start := time.Now()
	loaded, expired, err := s.loadAOF(s.fakeClient(), s.ks.LoadEntry)
	switch {
	case errors.Is(err, aof.ErrNotExist):
		// Nothing to load: Open creates an empty base.
	case err != nil:
		s.log.warn("%v", err)
		return fmt.Errorf("Fatal error loading the DB from the append only file, check server logs. Exiting.")
	default:
		s.rdb.loaded.Store(loaded)
		s.rdb.expired.Store(expired)
		s.log.notice("DB loaded from append only file: %.3f seconds", time.Since(start).Seconds())
	}
	opts, err := s.aofOptions()
	if err != nil {
		return err
	}
	// opts.Snapshot nil: Open writes an empty base only when nothing was
	// loaded, and the dataset is empty then.
	w, err := aof.Open(dir, name, opts)
	if err != nil {
		return fmt.Errorf("Can't open the append-only file: %v", err)
	}
	s.attachGen(s.newGen(w, opts))
	s.aof.enabled.Store(true)
	s.aof.baseSize.Store(s.aofSize())
	return nil
}

// newGen makes the generation of writer w, opened with opts; its tickets
// start above every ticket so far.
func (s *Server) newGen(w *aof.Writer, opts aof.Options) *aofGen {
	return &aofGen{w: w, base: s.aof.last.Load(), always: opts.Fsync == aof.FsyncAlways}
}

// attachGen makes g the writer in use: units committed from now on are
// appended to it and replies wait for it. Run where no unit can commit
// meanwhile (before serving, or at a snapshot's start).
func (s *Server) attachGen(g *aofGen) {
	g.detach = s.ks.Effects.Attach(aofSink{s: s, g: g})
	s.aof.gen.Store(g)
	s.aof.on.Store(true)
}

// loadAOF loads dir/appenddirname into the keyspace through c (a fake
// client), its RDB base through load. An EXEC that never came
// (RevertedMulti) leaves its commands queued on c, unapplied: dropping c
// discards them.
func (s *Server) loadAOF(c *Client, load func(e *rdb.Entry, nowMs int64) (bool, error)) (loaded, expired int64, err error) {
	dir := s.aofDir()
	if m, err := aof.ReadManifest(dir, s.cfg.AppendFilename()); err == nil {
		var total int64
		for _, f := range m.Files() {
			if st, err := os.Stat(filepath.Join(dir, f.Name)); err == nil {
				total += st.Size()
			}
		}
		s.rdb.loadTotal.Store(total) // INFO loading_total_bytes
	}
	_, err = aof.Load(dir, s.cfg.AppendFilename(), aof.LoadOptions{
		Truncated: s.cfg.AOFLoadTruncated(),
		RDB: func(file string, r io.Reader) error {
			// nowMs 0: nothing expires while loading; the AOF holds the
			// deletions of keys that expired after the base was written.
			// (r must stay an io.ByteReader: package rdb then reads no
			// byte past the RDB, so it is not wrapped to count.)
			n, e, err := s.loadRDBWith(r, true, 0, load)
			if st, serr := os.Stat(filepath.Join(dir, file)); serr == nil {
				s.rdb.loadRead.Add(st.Size())
			}
			loaded, expired = loaded+n, expired+e
			if err == nil {
				s.log.notice("Done loading RDB, keys loaded: %d, keys expired: %d.", n, e)
			}
			return err
		},
		Command: func(argv [][]byte) error {
			n := 16 // about the header and framing of the command
			for _, a := range argv {
				n += len(a) + 8
			}
			s.rdb.loadRead.Add(int64(n))
			if s.rdb.abortLoad.Load() {
				return errLoadAborted
			}
			return c.replayOne(argv)
		},
		Logf: s.log.notice,
	})
	return loaded, expired, err
}

// enableAOF is CONFIG SET appendonly yes (startAppendOnly): a rewrite
// whose snapshot start attaches a new writer; while a BGSAVE runs, the
// cron starts it once the save ends.
func (s *Server) enableAOF() error {
	a := &s.aof
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	if a.enabled.Load() {
		return nil
	}
	a.enabled.Store(true)
	s.rdb.begin.Lock()
	defer s.rdb.begin.Unlock()
	if s.saveRunning() {
		a.pending.Store(true)
		s.log.notice("AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
		return nil
	}
	if running, _ := s.rewriteRunning(); running {
		// A rewrite of the AOF while it was off: this one waits for it.
		a.pending.Store(true)
		return nil
	}
	if err := s.startEnableLocked(); err != nil {
		a.enabled.Store(false)
		return errors.New("Unable to turn on AOF. Check server logs.")
	}
	return nil
}

// startEnableLocked starts the rewrite of CONFIG SET appendonly yes.
// Called with cfgMu and rdbState.begin held and no snapshot running.
func (s *Server) startEnableLocked() error {
	a := &s.aof
	opts, err := s.aofOptions()
	if err != nil {
		return err
	}
	w, rw, err := aof.Enable(s.aofDir(), s.cfg.AppendFilename(), opts)
	if err != nil {
		a.lastRwOK.Store(false)
		s.log.warn("Can't rewrite append only file in background: %v", err)
		s.log.warn("The server needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
		return err
	}
	g := s.newGen(w, opts)
	// At the snapshot's start every stripe is held: units after it reach
	// the new writer, the snapshot holds everything before.
	atStart := func() { s.attachGen(g) }
	s.runRewrite(rw, atStart, func(err error) {
		if err == nil {
			return // runRewrite recorded the new base's size
		}
		s.dropGen(g)
		if a.enabled.Load() {
			a.pending.Store(true) // try again from the cron
		}
	})
	return nil
}

// disableAOF is CONFIG SET appendonly no (stopAppendOnly).
func (s *Server) disableAOF() {
	a := &s.aof
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	a.enabled.Store(false)
	a.pending.Store(false)
	a.scheduled.Store(false)
	s.stopAOF()
	s.updateDiskDeny()
}

// stopAOF aborts a rewrite, detaches the writer and closes it (a flush
// and fsync), as Valkey's shutdown and stopAppendOnly do.
func (s *Server) stopAOF() {
	a := &s.aof
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
	if g := a.gen.Load(); g != nil {
		s.log.notice("Calling fsync() on the AOF file.")
		s.dropGen(g)
	}
}

// dropGen ends generation g if it is still the current one: replies stop
// waiting, the sink is detached, the writer closed (flushed and fsynced).
func (s *Server) dropGen(g *aofGen) {
	a := &s.aof
	if !a.gen.CompareAndSwap(g, nil) {
		return
	}
	a.on.Store(false)
	if g.detach != nil {
		g.detach()
	}
	if err := g.w.Close(); err != nil && !errors.Is(err, aof.ErrEnableAborted) {
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
	if g := a.gen.Load(); g != nil {
		c.srv.waitGen(g, t)
	}
	c.aofSeen = t
}

// waitGen waits for ticket t on generation g; see waitAOF.
func (s *Server) waitGen(g *aofGen, t int64) {
	if err := g.w.WaitDurable(context.Background(), g.ticket(t)); err != nil {
		if errors.Is(err, aof.ErrClosed) || errors.Is(err, aof.ErrEnableAborted) || !g.always {
			return // turned off or shutting down (the close fsyncs), or not fatal
		}
		s.log.warn("Can't persist AOF for fsync error when the AOF fsync policy is 'always': %v. Exiting...", err)
		os.Exit(1)
	}
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
	if g := a.gen.Load(); g != nil {
		s.waitGen(g, t)
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
	g := s.aof.gen.Load()
	if g == nil {
		return 0
	}
	var n int64
	for _, f := range g.w.Manifest().Files() {
		if st, err := os.Stat(filepath.Join(g.w.Dir(), f.Name)); err == nil {
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

// bgrewrite starts an AOF rewrite: of the writer in use, or of a base
// alone while the AOF is off. Called with s.rdb.mu not held.
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
	var rw *aof.Rewrite
	var err error
	var atStart func()
	if g := a.gen.Load(); g != nil {
		if rw, err = g.w.PrepareRewrite(); err == nil {
			atStart = rw.Switch
		}
	} else if a.enabled.Load() {
		return errRewriteInProgress // appendonly yes waits for its own rewrite
	} else {
		var opts aof.Options
		if opts, err = s.aofOptions(); err == nil {
			rw, err = aof.RewriteOff(s.aofDir(), s.cfg.AppendFilename(), opts)
		}
	}
	if err != nil {
		a.lastRwOK.Store(false)
		a.consecFails.Add(1)
		s.log.warn("Can't rewrite append only file in background: %v", err)
		return fmt.Errorf("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
	}
	s.runRewrite(rw, atStart, nil)
	return nil
}

// runRewrite takes the rewrite's snapshot (atStart runs at its point in
// time, every stripe held) and writes and commits it on a goroutine of
// its own; then done, if set, learns the outcome. Called with
// rdbState.begin held and no snapshot running.
func (s *Server) runRewrite(rw *aof.Rewrite, atStart func(), done func(error)) {
	a := &s.aof
	opts := s.rdbOptions()
	opts.RDB.AOFBase = true
	opts.RDB.Repl = nil
	opts.AtStart = atStart
	if !s.cfg.AOFUseRDBPreamble() {
		// A base of commands (the writers' options name it .base.aof);
		// aof-use-rdb-preamble cannot change while a writer runs.
		ts := s.cfg.AOFTimestampEnabled()
		opts.Writer = func(w io.Writer) snapshot.EntryWriter { return aof.NewCommandWriter(w, ts) }
	}
	snap := snapshot.Begin(s.ks, opts)
	a.mu.Lock()
	a.rewriting, a.rwDone, a.rwStart = snap, make(chan struct{}), time.Now()
	a.running.Store(true)
	end, start := a.rwDone, a.rwStart
	a.mu.Unlock()
	s.log.notice("Background append only file rewriting started")
	go func() {
		err := s.writeRewrite(rw, snap)
		a.mu.Lock()
		a.rewriting = nil
		a.running.Store(false)
		a.mu.Unlock()
		a.lastRwSecs.Store(int64(time.Since(start).Seconds()))
		a.lastRwOK.Store(err == nil)
		if err != nil {
			a.consecFails.Add(1)
			a.lastTry.Store(time.Now().Unix())
			s.log.warn("Background AOF rewrite failed: %v", err)
		} else {
			a.consecFails.Store(0)
			a.rewrites.Add(1)
			a.baseSize.Store(s.aofSize())
		}
		if done != nil {
			done(err)
		}
		close(end)
	}()
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

// rewriteCron starts what waits for a snapshot to end (CONFIG SET
// appendonly yes, a BGREWRITEAOF scheduled while a save ran), or a
// rewrite that auto-aof-rewrite-percentage/min-size call for (serverCron's
// rule; after failures it waits a minute per consecutive failure, up to
// an hour, as Valkey's rewrite limiter delays retries).
func (s *Server) rewriteCron(now time.Time) {
	a := &s.aof
	if s.saveRunning() {
		return
	}
	if running, _ := s.rewriteRunning(); running {
		return
	}
	limited := false
	if f := a.consecFails.Load(); f > 0 && now.Unix()-a.lastTry.Load() < 60*min(f, 60) {
		limited = true
	}
	if a.pending.Load() && !limited {
		a.cfgMu.Lock()
		s.rdb.begin.Lock()
		if a.pending.Load() && a.enabled.Load() && a.gen.Load() == nil && !s.saveRunning() {
			if running, _ := s.rewriteRunning(); !running {
				a.pending.Store(false)
				if s.startEnableLocked() != nil {
					a.pending.Store(true)
					a.consecFails.Add(1)
					a.lastTry.Store(now.Unix())
				}
			}
		}
		s.rdb.begin.Unlock()
		a.cfgMu.Unlock()
		return
	}
	if a.scheduled.Load() {
		if err := s.bgrewrite(); err == nil || err == errRewriteInProgress {
			a.scheduled.Store(false)
		}
		return
	}
	perc := s.cfg.AutoAOFRewritePercentage()
	if perc <= 0 || a.gen.Load() == nil || limited {
		return
	}
	size := s.aofSize()
	if size <= s.cfg.AutoAOFRewriteMinSize() {
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

// DEBUG LOADAOF: flush the AOF, empty the dataset and load the AOF
// directory again, as Valkey's (its tests check that every encoding
// survives the round trip). Every stripe is held throughout, so no
// client runs meanwhile, and nothing is propagated; a snapshot in
// progress is waited for first. A directory that does not load leaves
// what loaded and gets Valkey's error.
func debugLoadAOF(c *Client) {
	s := c.srv
	if c.ctx.Locked {
		c.w.Error("ERR DEBUG LOADAOF is not allowed inside a transaction in Corvid")
		return
	}
	s.rdb.begin.Lock()
	defer s.rdb.begin.Unlock()
	for {
		s.rdb.mu.Lock()
		saveDone := s.rdb.curDone
		if s.rdb.cur == nil {
			saveDone = nil
		}
		s.rdb.mu.Unlock()
		running, rwDone := s.rewriteRunning()
		switch {
		case saveDone != nil:
			<-saveDone
		case running:
			<-rwDone
		default:
			s.loadAOFHeld(c)
			return
		}
	}
}

func (s *Server) loadAOFHeld(c *Client) {
	ks := s.ks
	ks.LockAll()
	defer ks.UnlockAll()
	if g := s.aof.gen.Load(); g != nil {
		// Every unit committed so far is in the buffer: write it out.
		if err := g.w.Flush(true); err != nil {
			s.log.warn("DEBUG LOADAOF: %v", err)
		}
	}
	ks.FlushDB(-1)
	fc := s.fakeClient()
	fc.ctx.Locked = true
	_, _, err := s.loadAOF(fc, ks.LoadEntryHeld)
	if err != nil { // a missing directory too, as Valkey's AOF_NOT_EXIST
		s.log.warn("DEBUG LOADAOF: %v", err)
		c.w.Error("ERR Error trying to load the AOF files, check server logs.")
		return
	}
	s.log.notice("Append Only File loaded by DEBUG LOADAOF")
	c.w.OK()
}

// aofInfo fills the AOF fields of INFO persistence, in Valkey's order.
func (s *Server) aofInfo(w *infoWriter) {
	a := &s.aof
	g := a.gen.Load()
	enabled := a.enabled.Load()
	a.mu.Lock()
	cur, start := a.rewriting, a.rwStart
	a.mu.Unlock()
	curSecs := int64(-1)
	if cur != nil {
		curSecs = int64(time.Since(start).Seconds())
	}
	okStatus, writeStatus := "ok", "ok"
	if !a.lastRwOK.Load() {
		okStatus = "err"
	}
	if g != nil && g.w.Failing() {
		writeStatus = "err"
	}
	w.int("aof_enabled", b2i(enabled))
	w.int("aof_rewrite_in_progress", b2i(cur != nil))
	w.int("aof_rewrite_scheduled", b2i(a.scheduled.Load() || a.pending.Load()))
	w.int("aof_last_rewrite_time_sec", a.lastRwSecs.Load())
	w.int("aof_current_rewrite_time_sec", curSecs)
	w.str("aof_last_bgrewrite_status", okStatus)
	w.int("aof_rewrites", a.rewrites.Load())
	w.int("aof_rewrites_consecutive_failures", a.consecFails.Load())
	w.str("aof_last_write_status", writeStatus)
	w.int("aof_last_cow_size", a.lastCow.Load())
	w.int("module_fork_in_progress", 0)
	w.int("module_fork_last_cow_size", 0)
	if enabled {
		var st aof.Stats
		if g != nil {
			st = g.w.Stats()
		}
		w.int("aof_current_size", s.aofSize())
		w.int("aof_base_size", a.baseSize.Load())
		w.int("aof_pending_rewrite", b2i(a.scheduled.Load() || a.pending.Load()))
		w.int("aof_buffer_length", int64(st.Buffered))
		w.int("aof_pending_bio_fsync", 0)
		w.int("aof_delayed_fsync", st.DelayedFsync)
	}
}
