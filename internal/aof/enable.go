package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrEnableAborted: the rewrite of an Enable was aborted or failed; the
// Writer keeps nothing durable and must be closed (enable again later).
var ErrEnableAborted = errors.New("aof: enabling the AOF failed; close the writer and enable again")

// Enable starts an AOF for a dataset that already exists (Valkey's
// startAppendOnly and its AOF_WAIT_REWRITE state, for CONFIG SET
// appendonly yes): appends go at once to a temp incr file
// (temp-<name>.incr, listed nowhere), while the caller writes the
// snapshot to the returned Rewrite's File, from the same point. The
// rewrite is switched already: take the snapshot where no append can
// slip between it and Enable (with the effects stream locked). Commit
// renames the snapshot to the next base and the temp incr file to the
// next incr file, makes every file of an older manifest history, and
// persists the manifest: only then does the directory describe the
// dataset. Until then nothing in the directory changes but temp files;
// after an Abort or a failed Commit the Writer only returns
// ErrEnableAborted and must be closed.
func Enable(dir, name string, opts Options) (*Writer, *Rewrite, error) {
	w := newWriter(dir, name, opts)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("aof: can't open or create append-only dir %s: %w", dir, err)
	}
	man, err := ReadManifest(dir, name)
	switch {
	case isNotExist(err):
		man = &Manifest{}
	case err != nil:
		return nil, nil, err
	}
	incr := tempPrefix + name + incrSuffix
	f, err := os.OpenFile(filepath.Join(dir, incr), os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("aof: can't open the append-only file %s: %w", incr, err)
	}
	tmpPath := filepath.Join(dir, fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	tmp, err := os.OpenFile(tmpPath, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		f.Close()
		os.Remove(filepath.Join(dir, incr))
		return nil, nil, fmt.Errorf("aof: opening the temp file for AOF rewrite: %w", err)
	}
	w.f, w.man, w.incrName = f, man, incr
	w.lastFsync = w.now()
	r := &Rewrite{w: w, tmp: tmp, tmpPath: tmpPath, switched: true, enabling: true}
	w.rw = r
	w.rewriting.Store(true)
	w.logf("Creating AOF incr file %s on background rewrite", incr)
	w.start()
	return w, r, nil
}

// enableFailedLocked makes the Writer of a failed Enable refuse to go on.
func (w *Writer) enableFailedLocked(cause error) error {
	err := fmt.Errorf("%w: %v", ErrEnableAborted, cause)
	w.mu.Lock()
	if w.mu.fatal == nil {
		w.mu.fatal = err
	}
	w.mu.Unlock()
	return err
}
