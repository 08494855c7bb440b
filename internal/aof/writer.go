package aof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
	"golang.org/x/sys/unix"
)

// FsyncPolicy is appendfsync. The zero value is everysec, Valkey's default.
type FsyncPolicy int

// The appendfsync policies.
const (
	// FsyncEverysec writes before the reply and fsyncs in the background
	// at most once a second.
	FsyncEverysec FsyncPolicy = iota
	// FsyncAlways writes and fsyncs before the reply, one fsync for every
	// writer waiting when it starts (group commit).
	FsyncAlways
	// FsyncNo writes before the reply and leaves fsync to the OS.
	FsyncNo
)

func (p FsyncPolicy) String() string {
	switch p {
	case FsyncAlways:
		return "always"
	case FsyncNo:
		return "no"
	}
	return "everysec"
}

// ParseFsyncPolicy parses an appendfsync value (any case).
func ParseFsyncPolicy(s string) (FsyncPolicy, error) {
	switch {
	case equalFoldASCII(s, "always"):
		return FsyncAlways, nil
	case equalFoldASCII(s, "everysec"):
		return FsyncEverysec, nil
	case equalFoldASCII(s, "no"):
		return FsyncNo, nil
	}
	return 0, fmt.Errorf("aof: unknown appendfsync policy %q", s)
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// Options configure a Writer; each field mirrors a Valkey setting or is a
// test hook.
type Options struct {
	Fsync FsyncPolicy // appendfsync
	// Timestamps writes "#TS:<unix>" annotations (aof-timestamp-enabled).
	Timestamps bool
	// RDBPreamble names new base files .base.rdb rather than .base.aof
	// (aof-use-rdb-preamble); the snapshot writer chooses the content.
	RDBPreamble bool
	// DisableAutoGC keeps history files (aof-disable-auto-gc).
	DisableAutoGC bool
	// NoFsyncOnRewrite skips fsyncs while a rewrite is in progress
	// (no-appendfsync-on-rewrite).
	NoFsyncOnRewrite bool
	// Snapshot writes the base file Open creates when the manifest lists
	// no file (Valkey rewrites the dataset then). Nil writes an empty
	// dataset: an empty RESP file, or an empty RDB with RDBPreamble.
	Snapshot func(w io.Writer) error
	// SyncFile makes a file's data durable; nil is fdatasync(2), as
	// valkey_fsync on Linux. A hook for tests (counting, blocking).
	SyncFile func(f *os.File) error
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Logf receives Valkey's log lines (nil: discarded).
	Logf func(format string, args ...any)
	// OnFailing, if set, is called when the writer starts or stops
	// failing (Failing), outside its locks: a server refuses writes
	// meanwhile (Valkey's MISCONF). Calls may race; read Failing.
	OnFailing func(failing bool)
	// FlushInterval is how often a background goroutine flushes what no
	// caller waited for and runs everysec's fsync (Valkey's serverCron
	// and beforeSleep). 0 means 100ms; negative, no background goroutine
	// (tests drive the writer themselves).
	FlushInterval time.Duration
}

// Errors of the Writer.
var (
	ErrClosed            = errors.New("aof: writer closed")
	ErrRewriteInProgress = errors.New("aof: a rewrite is already in progress")
)

// Ticket identifies the end of an Append in the writer's stream of
// bytes; WaitDurable(t) returns once everything up to t is durable.
type Ticket int64

// emptyRDB is an RDB of no keys: "REDIS0011", the EOF opcode and a zero
// checksum (which Valkey reads as "saved with checksum disabled").
var emptyRDB = []byte("REDIS0011\xff\x00\x00\x00\x00\x00\x00\x00\x00")

// Writer appends to the current incr file of a multi-part AOF directory
// and keeps its manifest. See the package documentation for the
// concurrency contract.
type Writer struct {
	dir, name string
	opts      Options
	now       func() time.Time
	logf      func(format string, args ...any)
	syncFile  func(f *os.File) error

	// wmu serializes file I/O: the write(2) of the buffer, the fsync of
	// the always policy, switching incr files, manifest updates. Taken
	// before mu, never while mu is held.
	wmu            sync.Mutex
	f              *os.File // current incr file
	incrName       string
	man            *Manifest
	incrSize       int64     // bytes in the current incr (aof_last_incr_size)
	incrFsynced    int64     // of which fsynced (aof_last_incr_fsync_offset)
	lastFsync      time.Time // aof_last_fsync
	postponedStart time.Time // aof_flush_postponed_start
	spare          []byte    // the buffer not in use, swapped with mu.buf
	rw             *Rewrite
	rewriting      atomic.Bool
	failing        atomic.Bool // Err() != nil, other than ErrClosed (noteStatus)

	mu struct {
		sync.Mutex
		buf      []byte // appended, not yet written
		appended int64  // ticket of the last byte appended
		written  int64  // tickets up to here are in the OS
		durable  int64  // tickets up to here satisfy the policy
		flushing bool   // a WaitDurable caller is flushing
		done     chan struct{}
		fatal    error // the writer can't continue (always' write/fsync failed, closed)
		writeErr error // the last write or background fsync failed (everysec/no)
		enc      Encoder
		curTS    int64 // aof_cur_timestamp
		closed   bool
		// A switch to a new incr file (Rewrite.Switch): the bytes up to
		// ticket switchAt go to the current file, the rest to next.
		next     *os.File
		nextName string
		switchAt int64
	}

	// The background fsync worker (Valkey's bio AOF thread): fsyncs and
	// fsync-and-close of replaced incr files, in order.
	jobs      chan bioJob
	bioDone   chan struct{}
	bgPending atomic.Int32 // fsync jobs queued or running (aofFsyncInProgress)

	stop     chan struct{}
	loopDone chan struct{}

	fsyncs       atomic.Int64
	delayedFsync atomic.Int64
}

type bioJob struct {
	f     *os.File
	close bool
}

// Open opens the multi-part AOF in dir (appenddirname) with file names
// derived from name (appendfilename), as Valkey does at start-up
// (aofOpenIfNeededOnServerStart, then aofDelHistoryFiles): the directory
// and manifest are created when missing; when the manifest lists no file a
// base is created (opts.Snapshot); the last incr file is opened for
// appending, or a new one created; the manifest is persisted; history
// files are deleted unless DisableAutoGC. A manifest Valkey would refuse
// is a *ManifestError.
func Open(dir, name string, opts Options) (*Writer, error) {
	w := newWriter(dir, name, opts)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("aof: can't open or create append-only dir %s: %w", dir, err)
	}
	man, err := ReadManifest(dir, name)
	dirty := false
	switch {
	case isNotExist(err):
		man, dirty = &Manifest{}, true
	case err != nil:
		return nil, err
	}
	if man.Base == nil && len(man.Incr) == 0 {
		base := man.newBase(name, opts.RDBPreamble)
		if err := w.writeBase(base); err != nil {
			return nil, err
		}
		dirty = true
		w.logf("Creating AOF base file %s on server start", base)
	}
	incr := ""
	created := len(man.Incr) == 0
	if created {
		incr = man.newIncr(name)
		dirty = true
	} else {
		incr = man.Incr[len(man.Incr)-1].Name
	}
	f, err := os.OpenFile(filepath.Join(dir, incr), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("aof: can't open the append-only file %s: %w", incr, err)
	}
	if dirty {
		if err := WriteManifest(dir, name, man); err != nil {
			f.Close()
			return nil, err
		}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	w.f, w.man, w.incrName = f, man, incr
	w.incrSize, w.incrFsynced = st.Size(), st.Size()
	w.lastFsync = w.now()
	if created {
		w.logf("Creating AOF incr file %s on server start", incr)
	} else {
		w.logf("Opening AOF incr file %s on server start", incr)
	}
	if err := w.delHistory(); err != nil {
		w.logf("%v", err) // as Valkey: a failed deletion is not fatal
	}
	w.start()
	return w, nil
}

// start runs the fsync worker and the background flusher.
func (w *Writer) start() {
	w.jobs = make(chan bioJob, 1024)
	w.bioDone = make(chan struct{})
	go w.bio()
	w.stop = make(chan struct{})
	w.loopDone = make(chan struct{})
	if w.opts.FlushInterval >= 0 {
		iv := w.opts.FlushInterval
		if iv == 0 {
			iv = 100 * time.Millisecond
		}
		go w.loop(iv)
	} else {
		close(w.loopDone)
	}
}

func newWriter(dir, name string, opts Options) *Writer {
	w := &Writer{dir: dir, name: name, opts: opts, now: opts.Now, logf: opts.Logf, syncFile: opts.SyncFile}
	if w.now == nil {
		w.now = time.Now
	}
	if w.logf == nil {
		w.logf = func(string, ...any) {}
	}
	if w.syncFile == nil {
		w.syncFile = fdatasync
	}
	return w
}

// writeBase writes a new base file through a temp file renamed into place
// (rewriteAppendOnlyFile), with opts.Snapshot or an empty dataset.
func (w *Writer) writeBase(base string) error {
	tmp := filepath.Join(w.dir, fmt.Sprintf("temp-rewriteaof-%d.aof", os.Getpid()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("aof: opening the temp file for AOF rewrite: %w", err)
	}
	switch {
	case w.opts.Snapshot != nil:
		err = w.opts.Snapshot(f)
	case w.opts.RDBPreamble:
		_, err = f.Write(emptyRDB)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(w.dir, base))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("aof: write base file %s: %w", base, err)
	}
	return nil
}

func fdatasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

// Dir and Name are the directory and the appendfilename.
func (w *Writer) Dir() string  { return w.dir }
func (w *Writer) Name() string { return w.name }

// Manifest returns a copy of the current manifest.
func (w *Writer) Manifest() *Manifest {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.man.Clone()
}

// Append queues p, complete RESP commands, for the current incr file and
// returns its ticket. It never blocks on I/O: it copies p under a short
// mutex, so it may run in an effects.Sink. The writer's SELECT tracking is
// reset (the next Write selects its database again), as p may select.
// With Timestamps a "#TS:" annotation precedes p when the second changed
// since the last one.
func (w *Writer) Append(p []byte) Ticket {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mu.closed {
		return Ticket(w.mu.appended + 1) // never durable: WaitDurable says ErrClosed
	}
	n := len(w.mu.buf)
	w.timestampLocked()
	w.mu.buf = append(w.mu.buf, p...)
	w.mu.enc.Reset()
	w.mu.appended += int64(len(w.mu.buf) - n)
	return Ticket(w.mu.appended)
}

// AppendUnit queues u's ops rendered as Valkey writes them (see Encoder:
// SELECT when the database changes, MULTI/EXEC around a wrapped unit) and
// returns the ticket.
func (w *Writer) AppendUnit(u *effects.Unit) Ticket {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mu.closed {
		return Ticket(w.mu.appended + 1)
	}
	if u.Len() == 0 {
		return Ticket(w.mu.appended)
	}
	n := len(w.mu.buf)
	w.timestampLocked()
	w.mu.buf = w.mu.enc.AppendUnit(w.mu.buf, u)
	w.mu.appended += int64(len(w.mu.buf) - n)
	return Ticket(w.mu.appended)
}

// Write makes the Writer an effects.Sink: AppendUnit without the ticket
// (the committing client then waits with Sync).
func (w *Writer) Write(u *effects.Unit) { w.AppendUnit(u) }

var _ effects.Sink = (*Writer)(nil)

func (w *Writer) timestampLocked() {
	if !w.opts.Timestamps {
		return
	}
	if now := w.now().Unix(); w.mu.curTS < now {
		w.mu.curTS = now
		w.mu.buf = AppendTimestamp(w.mu.buf, now)
	}
}

// Sync waits until everything appended before the call is durable.
func (w *Writer) Sync(ctx context.Context) error {
	w.mu.Lock()
	t := Ticket(w.mu.appended)
	w.mu.Unlock()
	return w.WaitDurable(ctx, t)
}

// WaitDurable returns once the bytes up to t are durable as the policy
// promises before a reply: fsynced with always (one fsync covers every
// append made before it started: callers that arrive while an fsync runs
// wait for it, then one of them flushes and fsyncs for all), written to
// the OS with everysec and no. With everysec, while a background fsync is
// in progress the write is postponed for up to two seconds and
// WaitDurable returns at once, as Valkey replies then (its
// aof_delayed_fsync rule). An error is a failed write or fsync; with
// always it is final (Valkey exits).
func (w *Writer) WaitDurable(ctx context.Context, t Ticket) error {
	for {
		w.mu.Lock()
		if int64(t) > w.mu.appended {
			if w.mu.closed { // an append after Close: dropped
				w.mu.Unlock()
				return ErrClosed
			}
			t = Ticket(w.mu.appended) // nothing beyond was ever appended
		}
		if w.mu.durable >= int64(t) {
			w.mu.Unlock()
			return nil
		}
		if err := w.mu.fatal; err != nil {
			w.mu.Unlock()
			return err
		}
		if w.mu.flushing {
			ch := w.mu.done
			w.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		ch := make(chan struct{})
		w.mu.flushing, w.mu.done = true, ch
		w.mu.Unlock()

		w.wmu.Lock()
		postponed, err := w.flushLocked(false)
		w.wmu.Unlock()

		w.mu.Lock()
		w.mu.flushing = false
		close(ch)
		w.mu.Unlock()
		if postponed {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// flushLocked is Valkey's flushAppendOnlyFile: write the buffer, then
// fsync per the policy. postponed is true when everysec delays the write
// behind a background fsync. A switch to a new incr file marked by
// Rewrite.Switch happens here: the bytes appended before it go to the
// old file, which is then fsynced (always) or fsynced and closed in the
// background, and the rest to the new one. Called with wmu held.
func (w *Writer) flushLocked(force bool) (postponed bool, err error) {
	if w.f == nil {
		return false, ErrClosed
	}
	now := w.now()
	w.mu.Lock()
	if w.mu.fatal != nil {
		err := w.mu.fatal
		w.mu.Unlock()
		return false, err
	}
	pending := len(w.mu.buf)
	if w.mu.next != nil {
		force = true // Valkey flushes with force before switching files
	}
	w.mu.Unlock()
	if _, err := w.switchIfDueLocked(now); err != nil {
		return false, err
	}
	policy := w.opts.Fsync
	syncing := false
	if pending == 0 {
		switch {
		case policy == FsyncEverysec && w.incrFsynced != w.incrSize &&
			now.Sub(w.lastFsync) >= time.Second && w.bgPending.Load() == 0:
		case policy == FsyncAlways && w.incrFsynced != w.incrSize:
		default:
			return false, nil
		}
		return false, w.fsyncLocked(now, false)
	}
	if policy == FsyncEverysec {
		syncing = w.bgPending.Load() != 0
	}
	if policy == FsyncEverysec && !force && syncing {
		if w.postponedStart.IsZero() {
			w.postponedStart = now
			return true, nil
		}
		if now.Sub(w.postponedStart) < 2*time.Second {
			return true, nil
		}
		w.delayedFsync.Add(1)
		w.logf("Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer " +
			"without waiting for fsync to complete, this may slow down the server.")
	}
	for {
		if err := w.writeBufLocked(); err != nil {
			return false, err
		}
		switched, err := w.switchIfDueLocked(now)
		if err != nil {
			return false, err
		}
		if !switched {
			break
		}
		syncing = false // the background fsync in progress is the old file's
	}
	w.postponedStart = time.Time{}
	return false, w.fsyncLocked(now, syncing)
}

// writeBufLocked writes the buffered bytes that belong to the current
// file (up to a pending switch, if any) with one write(2). On failure the
// unwritten bytes stay buffered; with always the error is final.
func (w *Writer) writeBufLocked() error {
	w.mu.Lock()
	buf, start := w.mu.buf, w.mu.written
	n := len(buf)
	if w.mu.next != nil {
		n = int(w.mu.switchAt - start)
	}
	if n == 0 {
		w.mu.Unlock()
		return nil
	}
	part := buf[:n]
	if n == len(buf) {
		w.mu.buf = w.spare[:0]
	} else {
		w.mu.buf = append(w.spare[:0], buf[n:]...)
	}
	w.spare = nil
	w.mu.Unlock()

	nw, werr := w.f.Write(part)
	if werr != nil {
		if nw > 0 {
			// Remove the partial write, so the file ends at a command.
			if terr := w.f.Truncate(w.incrSize); terr == nil {
				nw = 0
			} else {
				w.logf("Could not remove short write from the append-only file. The server may refuse "+
					"to load the AOF the next time it starts.  ftruncate: %v", terr)
			}
		}
		w.incrSize += int64(nw)
		werr = fmt.Errorf("aof: error writing to the AOF file %s: %w", w.f.Name(), werr)
		w.mu.Lock()
		w.mu.written += int64(nw)
		// Keep what was not written in front of what came since.
		w.mu.buf = append(append([]byte(nil), part[nw:]...), w.mu.buf...)
		if w.opts.Fsync == FsyncAlways {
			// Valkey exits: acknowledged writes could not be kept.
			w.mu.fatal = werr
		} else {
			w.mu.writeErr = werr
		}
		w.mu.Unlock()
		w.noteStatus()
		w.logf("Error writing to the AOF file: %v", werr)
		if w.opts.Fsync == FsyncAlways {
			w.logf("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
		}
		return werr
	}
	w.incrSize += int64(nw)
	if cap(buf) < 4<<20 {
		w.spare = buf[:0]
	}
	w.mu.Lock()
	solved := w.mu.writeErr != nil
	w.mu.writeErr = nil
	w.mu.written = start + int64(n)
	if w.opts.Fsync != FsyncAlways {
		w.mu.durable = w.mu.written
	}
	w.mu.Unlock()
	if solved {
		w.noteStatus()
		w.logf("AOF write error looks solved. The server can write again.")
	}
	return nil
}

// switchIfDueLocked makes the incr file prepared by a rewrite current once
// every byte appended before Rewrite.Switch is in the old one (Valkey's
// openNewIncrAofForAppend, after its forced flush): with always the old
// file is fsynced first, otherwise it is fsynced and closed in the
// background; the selected database was reset at Switch.
func (w *Writer) switchIfDueLocked(now time.Time) (bool, error) {
	w.mu.Lock()
	next, name := w.mu.next, w.mu.nextName
	due := next != nil && w.mu.written == w.mu.switchAt
	w.mu.Unlock()
	if !due {
		return false, nil
	}
	if w.opts.Fsync == FsyncAlways {
		if err := w.fsyncLocked(now, false); err != nil {
			return false, err
		}
	}
	if w.incrFsynced == w.incrSize {
		w.f.Close()
	} else {
		// everysec, no, or always skipping fsyncs during a rewrite
		// (no-appendfsync-on-rewrite): the fsync comes in the background.
		w.jobs <- bioJob{f: w.f, close: true}
	}
	w.lastFsync = now
	w.f, w.incrName = next, name
	w.incrSize, w.incrFsynced = 0, 0
	w.mu.Lock()
	w.mu.next, w.mu.nextName = nil, ""
	w.mu.Unlock()
	return true, nil
}

// fsyncLocked is the try_fsync part of flushAppendOnlyFile: with always,
// fsync now and mark everything written durable; with everysec, start a
// background fsync when the last was a second ago and none is running.
func (w *Writer) fsyncLocked(now time.Time, syncing bool) error {
	if w.opts.NoFsyncOnRewrite && w.rewriting.Load() {
		if w.opts.Fsync == FsyncAlways {
			w.mu.Lock()
			w.mu.durable = w.mu.written
			w.mu.Unlock()
		}
		return nil
	}
	switch w.opts.Fsync {
	case FsyncAlways:
		w.mu.Lock()
		target := w.mu.written
		w.mu.Unlock()
		w.fsyncs.Add(1)
		if err := w.syncFile(w.f); err != nil {
			err = fmt.Errorf("aof: can't persist AOF for fsync error when the AOF fsync policy is 'always': %w", err)
			w.logf("Can't persist AOF for fsync error when the AOF fsync policy is 'always': %v. Exiting...", err)
			w.mu.Lock()
			w.mu.fatal = err
			w.mu.Unlock()
			w.noteStatus()
			return err
		}
		w.incrFsynced = w.incrSize
		w.lastFsync = now
		w.mu.Lock()
		if target > w.mu.durable {
			w.mu.durable = target
		}
		w.mu.Unlock()
	case FsyncEverysec:
		if now.Sub(w.lastFsync) >= time.Second {
			if !syncing {
				w.bgPending.Add(1)
				w.jobs <- bioJob{f: w.f}
				w.incrFsynced = w.incrSize
			}
			w.lastFsync = now
		}
	}
	return nil
}

// bio runs the background fsyncs in order, like Valkey's bio AOF worker.
func (w *Writer) bio() {
	defer close(w.bioDone)
	for j := range w.jobs {
		w.fsyncs.Add(1)
		err := w.syncFile(j.f)
		if j.close {
			if cerr := j.f.Close(); err == nil {
				err = cerr
			}
		} else {
			w.bgPending.Add(-1)
		}
		if err != nil {
			w.logf("Fail to fsync the AOF file: %v", err)
			w.mu.Lock()
			w.mu.writeErr = fmt.Errorf("aof: background fsync: %w", err)
			w.mu.Unlock()
			w.noteStatus()
		}
	}
}

// loop flushes periodically what nobody waited for, and drives everysec.
func (w *Writer) loop(iv time.Duration) {
	defer close(w.loopDone)
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.Flush(false)
		}
	}
}

// Flush writes the buffer (and fsyncs per the policy) now. Without force,
// everysec may postpone the write behind a running background fsync.
func (w *Writer) Flush(force bool) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.f == nil {
		return ErrClosed
	}
	_, err := w.flushLocked(force)
	return err
}

// Fsync makes everything appended before the call durable on disk
// whatever the policy (WAITAOF's numlocal): the buffer is written and the
// current incr file fsynced now, rather than at everysec's next second.
// An incr file a rewrite switched away from is fsynced by the background
// worker, in order, as Close would.
func (w *Writer) Fsync() error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.f == nil {
		return ErrClosed
	}
	if _, err := w.flushLocked(true); err != nil {
		return err
	}
	w.fsyncs.Add(1)
	if err := w.syncFile(w.f); err != nil {
		return fmt.Errorf("aof: fsync: %w", err)
	}
	return nil
}

// Err is the error that makes a server refuse writes (Valkey's
// aof_last_write_status and aof_bio_fsync_status), nil when healthy.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mu.fatal != nil {
		return w.mu.fatal
	}
	return w.mu.writeErr
}

// Failing reports whether writes are failing (Err is not nil and the
// writer was not closed): one atomic load, for a check per command.
func (w *Writer) Failing() bool { return w.failing.Load() }

// noteStatus updates Failing after the error state changed and tells
// OnFailing. Called without mu held.
func (w *Writer) noteStatus() {
	err := w.Err()
	f := err != nil && !errors.Is(err, ErrClosed)
	if w.failing.Swap(f) != f && w.opts.OnFailing != nil {
		w.opts.OnFailing(f)
	}
}

// Stats are counters for INFO persistence.
type Stats struct {
	Appended     int64 // bytes appended since Open
	Written      int64 // of which written to the OS
	Durable      int64 // of which durable per the policy
	Buffered     int   // bytes waiting to be written (aof_buffer_length)
	Fsyncs       int64 // fsyncs of incr files (always and background)
	DelayedFsync int64 // aof_delayed_fsync
	IncrName     string
	IncrSize     int64 // bytes written to the current incr file
	Rewriting    bool
}

// Stats returns the current counters.
func (w *Writer) Stats() Stats {
	w.wmu.Lock()
	s := Stats{Fsyncs: w.fsyncs.Load(), DelayedFsync: w.delayedFsync.Load(),
		IncrName: w.incrName, IncrSize: w.incrSize, Rewriting: w.rw != nil}
	w.wmu.Unlock()
	w.mu.Lock()
	s.Appended, s.Written, s.Durable, s.Buffered = w.mu.appended, w.mu.written, w.mu.durable, len(w.mu.buf)
	w.mu.Unlock()
	return s
}

// Close writes what is buffered, fsyncs and closes the incr file (as
// Valkey's stopAppendOnly), after the background fsyncs finish. An
// unfinished rewrite is aborted. Later appends are dropped and waits for
// them return ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.mu.closed {
		w.mu.Unlock()
		return nil
	}
	w.mu.closed = true
	w.mu.Unlock()
	close(w.stop)
	<-w.loopDone
	if rw := w.currentRewrite(); rw != nil {
		rw.Abort()
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	_, err := w.flushLocked(true)
	w.fsyncs.Add(1)
	if serr := w.syncFile(w.f); serr != nil {
		if err == nil {
			err = fmt.Errorf("aof: fail to fsync the AOF file: %w", serr)
		}
	} else {
		w.incrFsynced = w.incrSize
	}
	close(w.jobs)
	<-w.bioDone
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	w.mu.Lock()
	if w.mu.fatal == nil {
		w.mu.fatal = ErrClosed
		if err == nil {
			w.mu.durable = w.mu.written
		}
	}
	w.mu.Unlock()
	return err
}

func (w *Writer) currentRewrite() *Rewrite {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.rw
}
