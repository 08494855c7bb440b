package aof

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// Rewrite is an AOF rewrite in progress: after Switch, appends go to a
// new incr file while the caller writes a snapshot of the dataset as of
// the Switch to File; Commit installs it as the new base.
type Rewrite struct {
	w        *Writer
	tmp      *os.File
	tmpPath  string
	next     *os.File // the new incr file, until Switch hands it over
	nextName string
	switched bool        // guarded by w.mu
	done     atomic.Bool // Commit or Abort ran (Close may abort concurrently)
	enabling bool        // started by Enable: appends go to the temp incr file
}

// ErrNotSwitched: Commit before Switch.
var ErrNotSwitched = errors.New("aof: rewrite committed before Switch")

// PrepareRewrite begins a rewrite as Valkey's rewriteAppendOnlyFileBackground
// does, without yet moving appends: the next incr file is created and a
// manifest listing it is persisted (an empty last incr file is harmless if
// the process dies now), and the temp file for the new base is created.
// Appends keep going to the current incr file until Switch.
func (w *Writer) PrepareRewrite() (*Rewrite, error) {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.f == nil {
		return nil, ErrClosed
	}
	if w.rw != nil {
		return nil, ErrRewriteInProgress
	}
	m := w.man.Clone()
	name := m.newIncr(w.name)
	next, err := os.OpenFile(filepath.Join(w.dir, name), os.O_WRONLY|os.O_TRUNC|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("aof: can't open the append-only file %s: %w", name, err)
	}
	tmpPath := filepath.Join(w.dir, fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	tmp, err := os.OpenFile(tmpPath, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		next.Close()
		return nil, fmt.Errorf("aof: opening the temp file for AOF rewrite: %w", err)
	}
	if err := WriteManifest(w.dir, w.name, m); err != nil {
		next.Close()
		tmp.Close()
		os.Remove(tmpPath)
		return nil, err
	}
	w.man = m
	w.logf("Creating AOF incr file %s on background rewrite", name)
	w.rw = &Rewrite{w: w, tmp: tmp, tmpPath: tmpPath, next: next, nextName: name}
	w.rewriting.Store(true)
	return w.rw, nil
}

// Switch makes every later append go to the new incr file (the bytes
// appended before it still go to the old one), and the next op select its
// database again. It does no I/O and takes only the buffer mutex, so a
// server can call it with its effects stream locked, at the very point
// its snapshot starts: base (the snapshot) plus new incr then replay the
// dataset exactly. The files change at the next flush. Idempotent.
func (r *Rewrite) Switch() {
	w := r.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.switched || w.mu.closed {
		return
	}
	r.switched = true
	w.mu.next, w.mu.nextName = r.next, r.nextName
	w.mu.switchAt = w.mu.appended
	w.mu.enc.Reset()
}

// StartRewrite is PrepareRewrite, Switch and a flush: when it returns,
// every file but the new incr is complete. For callers that stop appends
// themselves around it (or take their snapshot of what the old files
// hold).
func (w *Writer) StartRewrite() (*Rewrite, error) {
	r, err := w.PrepareRewrite()
	if err != nil {
		return nil, err
	}
	r.Switch()
	if err := w.Flush(true); err != nil {
		return r, err
	}
	return r, nil
}

// File is where the snapshot goes: RESP commands (effects.AppendCommand,
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
	w.mu.Lock()
	switched := r.switched
	w.mu.Unlock()
	if err == nil && !switched {
		err = ErrNotSwitched
	}
	if err == nil && w.f != nil {
		// The old incr file must be complete before it becomes history.
		_, err = w.flushLocked(true)
	}
	if err != nil {
		os.Remove(r.tmpPath)
		r.closeUnswitched()
		if r.enabling {
			os.Remove(filepath.Join(w.dir, w.incrName))
			return w.enableFailedLocked(err)
		}
		return fmt.Errorf("aof: rewrite: %w", err)
	}
	w.logf("Background AOF rewrite terminated with success")
	m := w.man.Clone()
	base := m.newBase(w.name, w.opts.RDBPreamble)
	basePath := filepath.Join(w.dir, base)
	if err := os.Rename(r.tmpPath, basePath); err != nil {
		os.Remove(r.tmpPath)
		err = fmt.Errorf("aof: rename the temporary AOF base file %s into %s: %w", filepath.Base(r.tmpPath), base, err)
		if r.enabling {
			os.Remove(filepath.Join(w.dir, w.incrName))
			return w.enableFailedLocked(err)
		}
		return err
	}
	w.logf("Successfully renamed the temporary AOF base file %s into %s", filepath.Base(r.tmpPath), base)
	newIncr := ""
	if r.enabling {
		// The temp incr file becomes the next incr (its descriptor stays
		// the current file).
		newIncr = m.newIncr(w.name)
		if err := os.Rename(filepath.Join(w.dir, w.incrName), filepath.Join(w.dir, newIncr)); err != nil {
			os.Remove(basePath)
			return w.enableFailedLocked(fmt.Errorf("aof: rename the temporary AOF incr file %s into %s: %w",
				w.incrName, newIncr, err))
		}
		w.logf("Successfully renamed the temporary AOF incr file %s into %s", w.incrName, newIncr)
	}
	m.markRewrittenIncrAsHistory(w.f != nil)
	if err := WriteManifest(w.dir, w.name, m); err != nil {
		os.Remove(basePath)
		if r.enabling {
			os.Remove(filepath.Join(w.dir, newIncr))
			return w.enableFailedLocked(err)
		}
		return err
	}
	w.man = m
	if r.enabling {
		w.incrName = newIncr
	}
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
	if r.enabling {
		os.Remove(filepath.Join(w.dir, w.incrName))
		w.enableFailedLocked(ErrEnableAborted)
	}
	r.closeUnswitched()
	w.endRewriteLocked(r)
	w.wmu.Unlock()
	return err
}

// closeUnswitched closes the new incr file if Switch never handed it over
// (it stays listed, empty, as after a failed rewrite in Valkey).
func (r *Rewrite) closeUnswitched() {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	if !r.switched {
		r.switched = true // no later Switch may hand over a closed file
		r.next.Close()
	}
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
