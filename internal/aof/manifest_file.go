package aof

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadManifest reads and parses dir/<name>.manifest. A missing manifest
// is an error matching fs.ErrNotExist.
func ReadManifest(dir, name string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName(name)))
	if err != nil {
		return nil, err
	}
	return ParseManifest(data)
}

// WriteManifest replaces dir/<name>.manifest with m atomically, as
// Valkey's writeAofManifestFile: the text goes to temp-<name>.manifest,
// which is fsynced and renamed over the manifest, then the directory is
// fsynced (the rename, and any file created since, survive a crash).
func WriteManifest(dir, name string, m *Manifest) error {
	final := filepath.Join(dir, ManifestName(name))
	tmp := filepath.Join(dir, tempPrefix+ManifestName(name))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("aof: can't open the AOF manifest file %s: %w", filepath.Base(tmp), err)
	}
	_, err = f.Write(m.AppendText(nil))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("aof: write the temporary AOF manifest file %s: %w", filepath.Base(tmp), err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("aof: rename the temporary AOF manifest file %s into %s: %w",
			filepath.Base(tmp), filepath.Base(final), err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("aof: fsync AOF directory %s: %w", dir, err)
	}
	return nil
}

// syncDir fsyncs a directory, making renames and creations in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// isNotExist reports a missing file or directory.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
