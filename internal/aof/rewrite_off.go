package aof

import (
	"fmt"
	"os"
	"path/filepath"
)

// RewriteOff begins a rewrite while the AOF is off (BGREWRITEAOF with
// appendonly no, as Valkey 7+ does it): there is no incr file and no
// Switch. The caller writes its snapshot to File; Commit installs it as
// the new base of a manifest that lists only it, and every file of the
// former manifest becomes history (deleted unless DisableAutoGC). The
// returned Rewrite owns the directory until Commit or Abort, like a
// Writer (see Files).
func RewriteOff(dir, name string, opts Options) (*Rewrite, error) {
	w := newWriter(dir, name, opts)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("aof: can't open or create append-only dir %s: %w", dir, err)
	}
	man, err := ReadManifest(dir, name)
	switch {
	case isNotExist(err):
		man = &Manifest{}
	case err != nil:
		return nil, err
	}
	tmpPath := filepath.Join(dir, fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	tmp, err := os.OpenFile(tmpPath, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("aof: opening the temp file for AOF rewrite: %w", err)
	}
	w.man = man
	r := &Rewrite{w: w, tmp: tmp, tmpPath: tmpPath, switched: true}
	w.rw = r
	w.rewriting.Store(true)
	return r, nil
}
