package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/snapshot"
)

// RDB persistence: SAVE, BGSAVE, save points, the final save at shutdown,
// loading at start-up, DEBUG RELOAD and INFO persistence. Saving is
// package snapshot's fork-less point-in-time walk; this file decides when,
// where (dir/dbfilename, written to a temporary file, fsynced and renamed
// as Valkey's rdbSave does) and keeps the statistics.
//
// One save runs at a time (rdbState.mu guards the in-progress pointer); a
// SAVE or BGSAVE while one runs gets Valkey's error, and SHUTDOWN aborts a
// BGSAVE before its own save.

// rdbState is the server's RDB bookkeeping.
type rdbState struct {
	// begin serializes the starts of snapshots (saves and AOF rewrites:
	// one at a time, they share the keyspace's PreWriter). It is held
	// across snapshot.Begin, which waits for every stripe, so it is never
	// taken with stripes held nor by readers (INFO); mu and aofState.mu
	// are only held briefly.
	begin   sync.Mutex
	mu      sync.Mutex
	cur     *snapshot.Snapshot // the save in progress, or nil
	curBg   bool               // it is a BGSAVE
	curDone chan struct{}      // closed when it ends
	bgStart time.Time

	// dirtyAtLast is the keyspace's dirty counter when the last
	// successful save started (rdb_changes_since_last_save counts from
	// it); dirtyAtStart the counter when the one in progress started.
	dirtyAtLast, dirtyAtStart int64

	lastTry    atomic.Int64 // unix seconds of the last BGSAVE attempt
	lastOK     atomic.Bool  // rdb_last_bgsave_status
	lastBgSecs atomic.Int64 // rdb_last_bgsave_time_sec (-1: none)
	saves      atomic.Int64 // rdb_saves
	lastCow    atomic.Int64 // rdb_last_cow_size: the copies' peak
	loaded     atomic.Int64 // rdb_last_load_keys_loaded
	expired    atomic.Int64 // rdb_last_load_keys_expired
	finalSaved atomic.Bool  // SHUTDOWN saved already: Run must not again
	scheduled  atomic.Bool  // BGSAVE inside EXEC: the cron starts it
	bgRunning  atomic.Bool  // cur != nil && curBg, read without mu (inside EXEC)

	// The start-up load (INFO loading_*): running, its start (unix s),
	// the bytes of its files and those read so far, the RDB's used-mem.
	loading   atomic.Bool
	abortLoad atomic.Bool // a shutdown during the load: stop it (errLoadAborted)
	loadStart atomic.Int64
	loadTotal atomic.Int64
	loadRead  atomic.Int64
	loadMem   atomic.Int64

	// replAux: the replication AUX fields of the file loadRDBWith read
	// last (restoreReplInfo).
	replAux replAux
}

var (
	errSaveInProgress = errors.New("ERR Background save already in progress")
	// errLoadAborted: a shutdown stopped the start-up load.
	errLoadAborted = errors.New("loading aborted by a shutdown")
)

func (s *Server) initRDB() {
	s.rdb.lastOK.Store(true)
	s.rdb.lastBgSecs.Store(-1)
	s.aof.lastRwOK.Store(true)
	s.aof.lastRwSecs.Store(-1)
}

// rdbPath is where the RDB file lives: dir/dbfilename.
func (s *Server) rdbPath() string { return filepath.Join(s.cfg.Dir(), s.cfg.Dbfilename()) }

// rdbOptions are the writer's options from the configuration.
func (s *Server) rdbOptions() snapshot.Options {
	o := s.ks.RDBOptions() // the encoding limits and rdbcompression
	o.Checksum = s.cfg.RDBChecksum()
	o.UsedMem = s.ks.UsedMemory()
	opts := snapshot.Options{RDB: o, Functions: s.scripts.LibraryCodes}
	if s.repl.buf.Load() != nil {
		// The replication history the file holds, as of its point in
		// time: after a restart a primary keeps serving partial resyncs
		// of it and a replica continues it (Valkey's rdbSaveInfo).
		info := &rdb.ReplInfo{}
		opts.RDB.Repl = info
		opts.AtStart = func() { s.fillReplInfo(info) }
	}
	return opts
}

// beginSave starts a snapshot unless one is running.
func (s *Server) beginSave(bg bool) (*snapshot.Snapshot, chan struct{}, error) {
	r := &s.rdb
	r.begin.Lock()
	defer r.begin.Unlock()
	for {
		if s.saveRunning() {
			return nil, nil, errSaveInProgress
		}
		running, done := s.rewriteRunning()
		if !running {
			break
		}
		if bg {
			return nil, nil, errChildActive
		}
		// SAVE waits for the rewrite: both are snapshots, one at a time.
		r.begin.Unlock()
		<-done
		r.begin.Lock()
	}
	dirty := s.ks.Dirty()
	snap := snapshot.Begin(s.ks, s.rdbOptions())
	r.mu.Lock()
	r.dirtyAtStart = dirty
	r.cur, r.curBg, r.curDone, r.bgStart = snap, bg, make(chan struct{}), time.Now()
	r.bgRunning.Store(bg)
	done := r.curDone
	r.mu.Unlock()
	return snap, done, nil
}

// finishSave writes snap to the RDB file and records the outcome.
func (s *Server) finishSave(snap *snapshot.Snapshot, done chan struct{}) error {
	r := &s.rdb
	err := s.writeRDB(snap)
	r.mu.Lock()
	bg, start := r.curBg, r.bgStart
	if err == nil {
		r.dirtyAtLast = r.dirtyAtStart
	}
	r.cur = nil
	r.bgRunning.Store(false)
	r.mu.Unlock()
	close(done)
	// A successful SAVE clears a BGSAVE's failure too (rdbSave sets
	// lastbgsave_status); only a BGSAVE records one.
	if bg {
		r.lastBgSecs.Store(int64(time.Since(start).Seconds()))
	}
	if bg || err == nil {
		r.lastOK.Store(err == nil)
		s.updateDiskDeny()
	}
	if err != nil {
		if bg {
			s.log.warn("Background saving error: %v", err)
		} else {
			s.log.warn("Write error saving DB on disk: %v", err)
		}
		return err
	}
	s.ext().lastSave.Store(time.Now().Unix())
	r.saves.Add(1)
	if bg {
		s.log.notice("Background saving terminated with success")
	} else {
		s.log.notice("DB saved on disk")
	}
	return nil
}

// writeRDB writes the snapshot to a temporary file in dir, syncs it and
// renames it over dbfilename (then syncs the directory), as rdbSave.
func (s *Server) writeRDB(snap *snapshot.Snapshot) error {
	dir := s.cfg.Dir()
	tmp := filepath.Join(dir, "temp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".rdb")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		snap.Abort()
		snap.Save(discard{}) // ends the snapshot (removes its PreWriter)
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %v", filepath.Base(tmp), dir, err)
	}
	stats, err := snap.Save(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	s.rdb.lastCow.Store(stats.PeakCopyBytes)
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, s.rdbPath()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("Error moving temp DB file %s on the final destination %s (in server root dir %s): %v", filepath.Base(tmp), s.cfg.Dbfilename(), dir, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	s.log.verbose("RDB: %d keys (%d from copies), peak copies %d bytes, longest stripe hold %v, %v",
		stats.Keys, stats.Copied, stats.PeakCopyBytes, stats.MaxHold, stats.Duration)
	return nil
}

// removeStaleTemps deletes the temporary files of saves and rewrites a
// killed run left behind (temp-*.rdb in dir; package aof's in the AOF
// directory), before anything is loaded or saved: their names carry the
// old pid, so nothing else would ever remove them.
func (s *Server) removeStaleTemps() {
	if tmps, err := filepath.Glob(filepath.Join(s.cfg.Dir(), "temp-*.rdb")); err == nil {
		for _, f := range tmps {
			if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() && os.Remove(f) == nil {
				s.log.notice("Removing the temporary file %s left by an earlier run", filepath.Base(f))
			}
		}
	}
	aof.RemoveTemps(s.aofDir(), s.cfg.AppendFilename(), s.log.notice)
}

// loadCounter counts the bytes read from r into n.
type loadCounter struct {
	r io.Reader
	n *atomic.Int64
}

func (l loadCounter) Read(p []byte) (int, error) {
	k, err := l.r.Read(p)
	l.n.Add(int64(k))
	return k, err
}

// loadingInfo fills the loading_* fields of INFO persistence while the
// start-up load runs, in Valkey's order and arithmetic.
func (s *Server) loadingInfo(w *infoWriter) {
	r := &s.rdb
	if !r.loading.Load() {
		return
	}
	start, total, read := r.loadStart.Load(), r.loadTotal.Load(), r.loadRead.Load()
	perc := float64(read) / float64(total+1) * 100
	elapsed := time.Now().Unix() - start
	eta := int64(1) // Valkey's figure before a second has passed
	if elapsed > 0 {
		eta = elapsed * (total - read) / (read + 1)
	}
	w.int("loading_start_time", start)
	w.int("loading_total_bytes", total)
	w.int("loading_rdb_used_mem", r.loadMem.Load())
	w.int("loading_loaded_bytes", read)
	w.float("loading_loaded_perc", perc)
	w.int("loading_eta_seconds", eta)
}

// startLeaving marks the start of a shutdown (Server.leaving).
func (s *Server) startLeaving() { s.leavingOnce.Do(func() { close(s.leaving) }) }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// saveSync is SAVE (and the final save): the snapshot on this goroutine.
func (s *Server) saveSync() error {
	snap, done, err := s.beginSave(false)
	if err != nil {
		return err
	}
	return s.finishSave(snap, done)
}

// bgsave starts a BGSAVE.
func (s *Server) bgsave() error {
	s.rdb.lastTry.Store(time.Now().Unix())
	snap, done, err := s.beginSave(true)
	if err != nil {
		return err
	}
	s.log.notice("Background saving started")
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.finishSave(snap, done)
	}()
	return nil
}

// abortSave stops a save in progress and waits for it to end.
func (s *Server) abortSave() {
	s.rdb.begin.Lock() // a save being started is seen
	defer s.rdb.begin.Unlock()
	s.rdb.mu.Lock()
	cur, done := s.rdb.cur, s.rdb.curDone
	s.rdb.mu.Unlock()
	if cur == nil {
		return
	}
	s.log.warn("There is a child saving an .rdb. Killing it!")
	cur.Abort()
	<-done
}

// saveCron starts a BGSAVE when a save point is reached (serverCron's
// rule: enough changes, enough time since the last save, and the last
// attempt succeeded or is at least 5 seconds old).
func (s *Server) saveCron(now time.Time) {
	r := &s.rdb
	if r.scheduled.Load() {
		if s.bgsave() == nil {
			r.scheduled.Store(false)
		}
		return
	}
	points := s.cfg.SavePoints()
	if len(points) == 0 {
		return
	}
	if running, _ := s.rewriteRunning(); running {
		return
	}
	r.mu.Lock()
	running, dirty := r.cur != nil, s.ks.Dirty()-r.dirtyAtLast
	r.mu.Unlock()
	if running {
		return
	}
	since := now.Unix() - s.ext().lastSave.Load()
	for _, p := range points {
		if dirty >= int64(p.Changes) && since > p.Seconds &&
			(r.lastOK.Load() || now.Unix()-r.lastTry.Load() > 5) {
			s.log.notice("%d changes in %d seconds. Saving...", p.Changes, p.Seconds)
			s.bgsave()
			return
		}
	}
}

// runSaveCron calls saveCron once a second until the server stops.
func (s *Server) runSaveCron() {
	s.every(time.Second, func(now time.Time) {
		s.saveCron(now)
		s.rewriteCron(now)
	})
}

// every calls fn every d until the server stops.
func (s *Server) every(d time.Duration, fn func(now time.Time)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			if !s.cronPaused.Load() {
				fn(now)
			}
		}
	}
}

// finalSave is the save before exiting (SHUTDOWN, SIGTERM, SIGINT) when
// save points are set; errors are logged and returned.
func (s *Server) finalSave() error {
	s.startLeaving()
	s.abortSave()
	s.log.notice("Saving the final RDB snapshot before exiting.")
	if err := s.saveSync(); err != nil {
		s.log.warn("Error trying to save the DB, can't exit.")
		return err
	}
	return nil
}

// loadRDB loads dir/dbfilename at start-up, if it exists, with Valkey's
// log lines. A file that cannot be read is fatal, as in Valkey.
func (s *Server) loadRDB() error {
	path := s.rdbPath()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB, check server logs: %v", err)
	}
	defer f.Close()
	start := time.Now()
	if st, err := f.Stat(); err == nil {
		s.rdb.loadTotal.Store(st.Size())
	}
	// Counted for INFO loading_loaded_bytes; not an io.ByteReader, so
	// package rdb reads it in chunks.
	now := time.Now().UnixMilli()
	if s.cfg.ReplicaOf() != nil {
		now = 0 // a replica keeps expired keys: its primary deletes them
	}
	n, expired, err := s.loadRDBWith(loadCounter{f, &s.rdb.loadRead}, true, now, s.ks.LoadEntry)
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB (%s): %v. Exiting.", path, err)
	}
	s.restoreReplInfo()
	s.log.notice("Done loading RDB, keys loaded: %d, keys expired: %d.", n, expired)
	s.log.notice("DB loaded from disk: %.3f seconds", time.Since(start).Seconds())
	return nil
}

// loadRDBWith loads an RDB stream into the keyspace, inserting each key
// with load (Keyspace.LoadEntry; MergeEntry for DEBUG RELOAD MERGE;
// LoadEntryHeld under every stripe) and expiring keys as of now (unix
// ms; 0 expires none, for an AOF's RDB base); it logs the AUX fields
// Valkey logs when logAux.
func (s *Server) loadRDBWith(r io.Reader, logAux bool, now int64, load func(e *rdb.Entry, nowMs int64) (bool, error)) (loaded, expired int64, err error) {
	s.rdb.replAux = replAux{}
	l := rdb.Loader{
		OnEntry: func(e *rdb.Entry) error {
			if s.rdb.abortLoad.Load() {
				return errLoadAborted
			}
			if e.DB >= s.ks.Databases() {
				return fmt.Errorf("FATAL: Data file was created with a Valkey server configured to handle more than %d databases. Exiting", s.ks.Databases())
			}
			ok, err := load(e, now)
			if err != nil {
				return err
			}
			if ok {
				loaded++
			} else {
				expired++
			}
			return nil
		},
		OnAux: func(k, v []byte) error {
			s.rdb.replAux.note(k, v)
			if !logAux {
				return nil
			}
			switch string(k) {
			case "valkey-ver", "redis-ver":
				s.log.notice("Loading RDB produced by %s version %s", map[bool]string{true: "Valkey", false: "Redis"}[string(k) == "valkey-ver"], v)
			case "ctime":
				if t, err := strconv.ParseInt(string(v), 10, 64); err == nil {
					s.log.notice("RDB age %d seconds", max(0, time.Now().Unix()-t))
				}
			case "used-mem":
				if m, err := strconv.ParseInt(string(v), 10, 64); err == nil {
					s.rdb.loadMem.Store(m)
					s.log.notice("RDB memory usage when created %.2f Mb", float64(m)/(1024*1024))
				}
			}
			return nil
		},
	}
	var libs [][]byte
	l.OnFunction = func(code []byte) error {
		libs = append(libs, append([]byte(nil), code...))
		return nil
	}
	if _, err := l.Load(r); err != nil {
		return loaded, expired, err
	}
	if len(libs) > 0 {
		// The file's libraries replace those of the same name.
		compiled, msg := s.scripts.CompileLibraries(libs)
		if msg == "" {
			msg = s.scripts.RestoreLibraries(compiled, "REPLACE")
		}
		if msg != "" {
			return loaded, expired, fmt.Errorf("failed loading the function libraries: %s", msg)
		}
	}
	s.rdb.loaded.Store(loaded)
	s.rdb.expired.Store(expired)
	return loaded, expired, nil
}

// SAVE
func saveCommand(c *Client) {
	if err := c.srv.saveSync(); err != nil {
		if err == errSaveInProgress {
			c.w.Error(err.Error())
			return
		}
		c.w.Error("ERR")
		return
	}
	c.w.OK()
}

// BGSAVE [SCHEDULE]
func bgsaveCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 1 && !(len(argv) == 2 && db.EqualFold(argv[1], "schedule")) {
		c.w.Error(db.ErrSyntax)
		return
	}
	s := c.srv
	if c.ctx.Locked {
		// Inside EXEC (whose stripes the snapshot's start needs): Valkey
		// schedules it for its cron, and so does Corvid. rdb.mu is not
		// taken with stripes held: a snapshot's start holds it while it
		// waits for every stripe.
		if s.rdb.bgRunning.Load() {
			c.w.Error(errSaveInProgress.Error())
			return
		}
		s.rdb.scheduled.Store(true)
		c.w.Simple("Background saving scheduled")
		return
	}
	if err := s.bgsave(); err != nil {
		if err == errChildActive && len(argv) == 2 {
			s.rdb.scheduled.Store(true) // BGSAVE SCHEDULE during a rewrite
			c.w.Simple("Background saving scheduled")
			return
		}
		c.w.Error(err.Error())
		return
	}
	c.w.Simple("Background saving started")
}

// persistenceInfo fills the RDB fields of INFO persistence.
func (s *Server) persistenceInfo(w *infoWriter) {
	r := &s.rdb
	r.mu.Lock()
	cur, bgStart, dirtyAtLast := r.cur, r.bgStart, r.dirtyAtLast
	r.mu.Unlock()
	var done, total, cow int64
	curSecs := int64(-1)
	if cur != nil {
		done, total = cur.Progress()
		cow = cur.CopyBytes()
		curSecs = int64(time.Since(bgStart).Seconds())
	}
	w.int("loading", b2i(r.loading.Load()))
	w.int("async_loading", 0)
	w.int("current_cow_peak", cow)
	w.int("current_cow_size", cow)
	w.int("current_cow_size_age", 0)
	w.float("current_fork_perc", 0)
	w.int("current_save_keys_processed", done)
	w.int("current_save_keys_total", total)
	w.int("rdb_changes_since_last_save", s.ks.Dirty()-dirtyAtLast)
	w.int("rdb_bgsave_in_progress", b2i(cur != nil))
	w.int("rdb_last_save_time", s.ext().lastSave.Load())
	w.str("rdb_last_bgsave_status", map[bool]string{true: "ok", false: "err"}[r.lastOK.Load()])
	w.int("rdb_last_bgsave_time_sec", r.lastBgSecs.Load())
	w.int("rdb_current_bgsave_time_sec", curSecs)
	w.int("rdb_saves", r.saves.Load())
	w.int("rdb_last_cow_size", r.lastCow.Load())
	w.int("rdb_last_load_keys_expired", r.expired.Load())
	w.int("rdb_last_load_keys_loaded", r.loaded.Load())
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save, empty the keyspace and
// load the file again (Valkey's own tests use it to check that every
// encoding survives a round trip). MERGE replaces keys that exist (with
// NOFLUSH, the file's keys merge into the dataset); without it a key
// present twice fails the load (Valkey panics).
func debugReload(c *Client) {
	s := c.srv
	if c.ctx.Locked {
		c.w.Error("ERR DEBUG RELOAD is not allowed inside a transaction in Corvid")
		return
	}
	save, flush := true, true
	load := s.ks.LoadEntry
	for _, a := range c.ctx.Argv[2:] {
		switch {
		case db.EqualFold(a, "merge"):
			load = s.ks.MergeEntry
		case db.EqualFold(a, "noflush"):
			flush = false
		case db.EqualFold(a, "nosave"):
			save = false
		default:
			c.w.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	if save {
		if err := s.saveSync(); err != nil {
			c.w.Error("ERR Error trying to save the DB")
			return
		}
	}
	if flush {
		s.ks.LockAll()
		s.ks.FlushDB(-1)
		s.ks.UnlockAll()
	}
	f, err := os.Open(s.rdbPath())
	if err == nil {
		defer f.Close()
		_, _, err = s.loadRDBWith(f, false, time.Now().UnixMilli(), load)
	}
	if err != nil {
		s.log.warn("DEBUG RELOAD: %v", err)
		c.w.Error("ERR Error trying to load the RDB dump, check server logs.")
		return
	}
	s.log.notice("DB reloaded by DEBUG RELOAD")
	c.w.OK()
}
