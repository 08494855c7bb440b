package aof

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// Rewrite is an AOF rewrite in progress: appends go to a new incr file
// while the caller writes a snapshot of the dataset (as of StartRewrite)
// to File; Commit installs it as the new base.
type Rewrite struct {
	w       *Writer
	tmp     *os.File
	tmpPath string
	done    atomic.Bool // Commit or Abort ran (Close may abort concurrently)
}

// StartRewrite begins a rewrite as Valkey's rewriteAppendOnlyFileBackground
// does: what is buffered is written (and fsynced with always), a new incr
// file is created and listed in the manifest (persisted before it is
// used), the old incr is fsynced and closed in the background, and the
// next op selects its database again. The snapshot must hold exactly the
// effects appended before StartRewrite returned: take it while no unit
// can be committed, or from a point that matches (the caller's job).
func (w *Writer) StartRewrite() (*Rewrite, error) {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.f == nil {
		return nil, ErrClosed
	}
	if w.rw != nil {
		return nil, ErrRewriteInProgress
	}
	if _, err := w.flushLocked(true); err != nil {
		return nil, err
	}
	if err := w.newIncrLocked(); err != nil {
		return nil, err
	}
	tmpPath := filepath.Join(w.dir, fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	tmp, err := os.OpenFile(tmpPath, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("aof: opening the temp file for AOF rewrite: %w", err)
	}
	w.rw = &Rewrite{w: w, tmp: tmp, tmpPath: tmpPath}
	w.rewriting.Store(true)
	return w.rw, nil
}

// newIncrLocked is openNewIncrAofForAppend: create the next incr file,
// persist a manifest listing it, then switch to it. On failure nothing
// changed. Called with wmu held and the buffer written.
func (w *Writer) newIncrLocked() error {
	m := w.man.Clone()
	name := m.newIncr(w.name)
	f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_WRONLY|os.O_TRUNC|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("aof: can't open the append-only file %s: %w", name, err)
	}
	if err := WriteManifest(w.dir, w.name, m); err != nil {
		f.Close()
		return err
	}
	w.logf("Creating AOF incr file %s on background rewrite", name)
	// fsync in the background then close: with always the file is synced
	// already; with everysec the fsync may come late but it comes.
	w.jobs <- bioJob{f: w.f, close: true}
	w.lastFsync = w.now()
	w.f, w.man = f, m
	w.incrSize, w.incrFsynced = 0, 0
	w.mu.Lock()
	w.mu.enc.Reset()
	w.mu.Unlock()
	return nil
}

// File is where the snapshot goes: RESP commands (AppendCommand,
// AppendSelect, AppendTimestamp) or an RDB, as RDBPreamble names it.
func (r *Rewrite) File() io.Writer { return r.tmp }

// Commit finishes the rewrite as Valkey's backgroundRewriteDoneHandler:
// the snapshot is fsynced and renamed to the next base name, the old base
// and every incr file but the current one become history, the manifest is
// persisted, then the history files are deleted (unless DisableAutoGC) and
// the manifest persisted again. On failure the old manifest stays in
// force and the new base is removed.
func (r *Rewrite) Commit() error {
	w := r.w
	if !r.done.CompareAndSwap(false, true) {
		return fmt.Errorf("aof: rewrite already finished")
	}
	err := r.tmp.Sync()
	if cerr := r.tmp.Close(); err == nil {
		err = cerr
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	defer w.endRewriteLocked(r)
	if err != nil {
		os.Remove(r.tmpPath)
		return fmt.Errorf("aof: write the rewritten base: %w", err)
	}
	w.logf("Background AOF rewrite terminated with success")
	m := w.man.Clone()
	base := m.newBase(w.name, w.opts.RDBPreamble)
	basePath := filepath.Join(w.dir, base)
	if err := os.Rename(r.tmpPath, basePath); err != nil {
		os.Remove(r.tmpPath)
		return fmt.Errorf("aof: rename the temporary AOF base file %s into %s: %w",
			filepath.Base(r.tmpPath), base, err)
	}
	w.logf("Successfully renamed the temporary AOF base file %s into %s", filepath.Base(r.tmpPath), base)
	m.markRewrittenIncrAsHistory(w.f != nil)
	if err := WriteManifest(w.dir, w.name, m); err != nil {
		os.Remove(basePath)
		return err
	}
	w.man = m
	if err := w.delHistory(); err != nil {
		w.logf("%v", err)
	}
	w.logf("Background AOF rewrite finished successfully")
	return nil
}

// Abort drops the snapshot; the new incr file stays (as in Valkey, the
// next rewrite makes it history).
func (r *Rewrite) Abort() error {
	w := r.w
	if !r.done.CompareAndSwap(false, true) {
		return nil
	}
	r.tmp.Close()
	err := os.Remove(r.tmpPath)
	w.wmu.Lock()
	w.endRewriteLocked(r)
	w.wmu.Unlock()
	return err
}

func (w *Writer) endRewriteLocked(r *Rewrite) {
	if w.rw == r {
		w.rw = nil
		w.rewriting.Store(false)
	}
}

// delHistory is aofDelHistoryFiles: unless DisableAutoGC, delete every
// history file and persist the manifest without them. Called with wmu
// held (or before the Writer is shared).
func (w *Writer) delHistory() error {
	if w.opts.DisableAutoGC || len(w.man.History) == 0 {
		return nil
	}
	for _, f := range w.man.History {
		w.logf("Removing the history file %s in the background", f.Name)
		if err := os.Remove(filepath.Join(w.dir, f.Name)); err != nil && !isNotExist(err) {
			w.logf("Fail to remove the history file %s: %v", f.Name, err)
		}
	}
	m := w.man.Clone()
	m.History = nil
	if err := WriteManifest(w.dir, w.name, m); err != nil {
		return err
	}
	w.man = m
	return nil
}
