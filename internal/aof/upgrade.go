package aof

import (
	"fmt"
	"os"
	"path/filepath"
)

// UpgradeOldStyle moves an AOF of the single-file kind (Redis before 7,
// dataDir/<name>) into the multi-part layout, as Valkey's
// loadAppendOnlyFiles does with aofUpgradePrepare before loading: when
// dataDir/<name> exists and the AOF directory dataDir/<dirName> is
// missing, or its manifest lists no file, or lists only a base of that
// very name that is not in the directory yet, the directory is created, a
// manifest listing <name> as base seq 1 is persisted, then the file is
// renamed into the directory. A crash at any step leaves a state this
// function completes on the next call. migrated reports whether it moved
// the file.
func UpgradeOldStyle(dataDir, dirName, name string, logf func(format string, args ...any)) (migrated bool, err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	old := filepath.Join(dataDir, name)
	if st, err := os.Stat(old); err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	dir := filepath.Join(dataDir, dirName)
	m, err := ReadManifest(dir, name)
	switch {
	case isNotExist(err):
		m = &Manifest{}
	case err != nil:
		return false, err
	}
	_, inDirErr := os.Stat(filepath.Join(dir, name))
	upgrade := (m.Base == nil && len(m.Incr) == 0) ||
		(m.Base != nil && len(m.Incr) == 0 && m.Base.Name == name && isNotExist(inDirErr))
	if !upgrade {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("aof: can't open or create append-only dir %s: %w", dir, err)
	}
	m.Base = &FileInfo{Name: name, Seq: 1, Type: Base}
	m.BaseSeq = 1
	if err := WriteManifest(dir, name, m); err != nil {
		return false, err
	}
	if err := os.Rename(old, filepath.Join(dir, name)); err != nil {
		return false, fmt.Errorf("aof: error trying to move the old AOF file %s into dir %s: %w", name, dirName, err)
	}
	logf("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).", name, dirName)
	return true, nil
}
