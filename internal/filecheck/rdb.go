package filecheck

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// RDBReport is what CheckRDB found in an RDB file (or an AOF's RDB
// preamble).
type RDBReport struct {
	File    string // the file's name
	Size    int64  // bytes in the file
	Version int    // RDB version of the header (0 if unreadable)
	Aux     []Aux  // AUX fields, in file order

	Keys      int64            // keys read (empty collections, which Valkey skips, are not counted)
	Types     map[string]int64 // keys per type ("string", "list", ...)
	DBs       []DBCount        // keys per database, by database number
	Expires   int64            // keys with an expiry
	Expired   int64            // of which already past at the time of the check
	Functions int              // function libraries

	// Checksum is the trailer's CRC64: verified when not 0 (0: the writer
	// had rdbchecksum off; files before RDB 5 have no trailer).
	Checksum uint64
	// End is the offset just past the RDB (past its checksum): where an
	// AOF's RESP tail starts. Set only when the RDB is sound.
	End int64

	Verdict Verdict // Valid, Damaged or Unsupported
	Problem *Problem
}

// Aux is one AUX field.
type Aux struct{ Key, Value string }

// DBCount counts one database's keys.
type DBCount struct {
	DB      int
	Keys    int64
	Expires int64
	// HintKeys and HintExpires are the file's RESIZEDB hint, or -1.
	HintKeys, HintExpires int64
}

// CheckRDB checks the RDB file at path. The error is for a file that
// cannot be opened or read; what is wrong with its contents is in the
// report.
func CheckRDB(path string) (*RDBReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	return checkRDB(f, st.Size(), filepath.Base(path), time.Now()), nil
}

// checkRDB checks the RDB that starts at offset 0 of f (size bytes).
// Keys expiring before now count as already expired.
func checkRDB(f io.ReaderAt, size int64, name string, now time.Time) *RDBReport {
	rep := &RDBReport{File: name, Size: size, Types: map[string]int64{}}
	dbs := map[int]*DBCount{}
	db := func(n int) *DBCount {
		c := dbs[n]
		if c == nil {
			c = &DBCount{DB: n, HintKeys: -1, HintExpires: -1}
			dbs[n] = c
		}
		return c
	}
	var prog rdb.Progress
	// lastEnd is where the last record the loader delivered ends: the
	// record at fault starts there or after it.
	lastEnd, curDB := int64(-1), 0
	nowMs := now.UnixMilli()
	l := rdb.Loader{
		OnEntry: func(e *rdb.Entry) error {
			lastEnd, curDB = prog.Offset(), e.DB
			rep.Keys++
			rep.Types[e.Kind.String()]++
			c := db(e.DB)
			c.Keys++
			if e.ExpireMs >= 0 {
				rep.Expires++
				c.Expires++
				if e.ExpireMs < nowMs {
					rep.Expired++
				}
			}
			return nil
		},
		OnAux: func(k, v []byte) error {
			lastEnd = prog.Offset()
			rep.Aux = append(rep.Aux, Aux{Key: string(k), Value: string(v)})
			return nil
		},
		OnResizeDB: func(n int, keys, expires uint64) error {
			lastEnd, curDB = prog.Offset(), n
			c := db(n)
			c.HintKeys, c.HintExpires = int64(min(keys, 1<<63-1)), int64(min(expires, 1<<63-1))
			return nil
		},
		OnFunction: func([]byte) error {
			lastEnd = prog.Offset()
			rep.Functions++
			return nil
		},
	}
	info, err := l.LoadProgress(io.NewSectionReader(f, 0, size), &prog)
	rep.Version, rep.Checksum = info.Version, info.Checksum
	for _, c := range dbs {
		rep.DBs = append(rep.DBs, *c)
	}
	slices.SortFunc(rep.DBs, func(a, b DBCount) int { return a.DB - b.DB })
	if err == nil {
		rep.End = prog.Offset()
		return rep
	}
	rep.Verdict = Damaged
	p := &Problem{File: name, Offset: prog.Offset(), What: err.Error(), Err: err}
	rep.Problem = p
	var fe *rdb.FormatError
	if !errors.As(err, &fe) {
		p.What = "read error: " + err.Error()
		return rep
	}
	p.Offset, p.What = fe.Offset, fe.Msg
	switch {
	case errors.Is(err, rdb.ErrUnsupported):
		rep.Verdict = Unsupported
		p.What += " (Corvid does not load it)"
	case errors.Is(err, rdb.ErrChecksum):
		p.What = "checksum mismatch: " + fe.Msg
		p.Doing = "checking the CRC64 trailer"
		return rep
	}
	if lastEnd < 0 {
		if fe.Offset < 9 || errors.Is(err, rdb.ErrVersion) {
			p.Doing = "reading the header"
			return rep
		}
		lastEnd = 9 // right after "REDIS" and the version
	}
	p.Doing = recordAt(f, size, lastEnd, curDB, fe.Offset, rep.Verdict == Unsupported)
	return rep
}

// recordAt describes the record of an RDB (in f, size bytes) in which the
// loader failed at offset bad, the last good record having ended at from.
// An unsupported value is reported at its type byte, before the key.
func recordAt(f io.ReaderAt, size, from int64, db int, bad int64, unsupported bool) string {
	h, err := rdb.ReadKeyHeader(io.NewSectionReader(f, from, size-from))
	if h.Offset < 0 {
		return fmt.Sprintf("reading the record after the last good one, which ends at offset %d", from)
	}
	if h.DB >= 0 {
		db = h.DB
	}
	start := from + h.Offset
	if err != nil || (from+h.ValueOffset > bad && !unsupported) {
		return fmt.Sprintf("reading the key of the %s record at offset %d, db %d", h.Type, start, db)
	}
	return fmt.Sprintf("reading the value of key %q (%s, db %d), whose record starts at offset %d",
		h.Key, h.Type, db, start)
}
