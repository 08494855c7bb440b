package aof

import (
	"fmt"
	"os"
	"path/filepath"
)

// LoadFile reads the one AOF file at path as Load reads each file of a
// manifest (last: whether it is the manifest's last file), delivering to
// opts' callbacks, but never changes the file: where Load would cut it
// (opts.Truncated), the result's Truncated and TruncatedAt say so and the
// file is left as it is. File checkers (internal/filecheck) use it to
// confirm that the server will load what they pass. An empty file loads
// nothing and is no error, as in Load.
func LoadFile(path string, last bool, opts LoadOptions) (*LoadResult, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	name := filepath.Base(path)
	res := &LoadResult{}
	f, err := os.Open(path)
	if err != nil {
		msg := fmt.Sprintf("Fatal error: can't open the append log file %s for reading: %v", name, err)
		return res, &LoadError{File: name, Kind: ErrRead, Msg: msg, Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return res, &LoadError{File: name, Kind: ErrRead, Msg: "stat", Err: err}
	}
	if st.Size() == 0 {
		return res, nil
	}
	l := loader{opts: opts, logf: logf, file: name, last: last}
	err = l.load(f, st.Size())
	res.Commands = l.commands
	if err == nil && l.truncated {
		res.Truncated, res.TruncatedFile, res.TruncatedAt = true, name, l.validUpTo
		res.RevertedMulti = l.reverted
	}
	return res, err
}
