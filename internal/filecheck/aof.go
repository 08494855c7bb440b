package filecheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
)

// AOFOptions configure CheckAOF.
type AOFOptions struct {
	// Fix cuts the last file at the end of its valid prefix when that
	// makes the AOF valid (valkey-check-aof --fix, without the question).
	Fix bool
	// TruncateToTimestamp, when not 0, cuts the last file at its first
	// "#TS:<t>" annotation with t later than it (Unix seconds;
	// valkey-check-aof --truncate-to-timestamp).
	TruncateToTimestamp int64

	now func() time.Time // for the RDB preamble's expired keys; nil: time.Now
}

// InputKind is what CheckAOF was given, as valkey-check-aof tells them
// apart.
type InputKind int

// The kinds of input.
const (
	InputManifest    InputKind = iota // a multi-part AOF's manifest (or a directory holding one)
	InputRESP                         // a single file of commands
	InputRDBPreamble                  // a single file starting with an RDB
)

func (k InputKind) String() string {
	switch k {
	case InputManifest:
		return "multi-part AOF"
	case InputRESP:
		return "single-file AOF"
	case InputRDBPreamble:
		return "single-file AOF with an RDB preamble"
	}
	return fmt.Sprintf("input(%d)", int(k))
}

// AOFReport is what CheckAOF found.
type AOFReport struct {
	Path     string    // as given
	Input    InputKind // what path turned out to be
	Manifest string    // the manifest's path (InputManifest)
	Listed   int       // files the manifest lists for loading (base and incr), or 1
	// Files are the files checked, in load order; checking stops at the
	// first file with a problem, as valkey-check-aof.
	Files   []*AOFFile
	Options AOFOptions

	Verdict Verdict
	Problem *Problem // the first problem (also on its file), or nil
}

// AOFFile is one checked file.
type AOFFile struct {
	Name string // as the manifest lists it, or the base name
	Path string
	Role string // "base", "incr" or "aof" (a single file)
	Last bool   // the last file, the only one that may be cut
	Size int64  // before any cut

	RDB         *RDBReport // its RDB preamble, if it has one
	Commands    int64      // whole commands in the valid prefix
	Annotations int64      // "#" lines read
	// ValidUpTo ends the valid prefix: the last whole command outside a
	// transaction (the whole file when it is sound).
	ValidUpTo int64
	// CutTo is the file's new size after a cut (--fix or a timestamp),
	// or -1.
	CutTo int64

	Problem *Problem
}

// CheckAOF checks (and with opts.Fix or opts.TruncateToTimestamp repairs)
// the AOF at path: a manifest, a directory holding one manifest, or a
// single file. The error is for a path that cannot be read at all; every
// problem with the files is in the report.
func CheckAOF(path string, opts AOFOptions) (*AOFReport, error) {
	rep := &AOFReport{Path: path, Options: opts, Listed: 1}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		m, err := findManifest(path)
		if err != nil {
			return nil, err
		}
		path = m
	}
	c := &aofChecker{rep: rep, opts: opts}
	if c.opts.now == nil {
		c.opts.now = time.Now
	}
	isMan, err := fileIsManifest(path)
	if err != nil {
		return nil, err
	}
	// A file named *.manifest is read as one even when valkey-check-aof
	// would take it for commands (a first line that does not start with
	// "file"): --fix must not cut a manifest.
	if isMan || strings.HasSuffix(path, ".manifest") {
		rep.Input, rep.Manifest = InputManifest, path
		c.multiPart(path)
		return rep, nil
	}
	preamble, err := fileIsRDB(path)
	if err != nil {
		return nil, err
	}
	if preamble {
		rep.Input = InputRDBPreamble
	} else {
		rep.Input = InputRESP
	}
	c.file(&AOFFile{Name: filepath.Base(path), Path: path, Role: "aof", Last: true, CutTo: -1}, preamble)
	return rep, nil
}

// findManifest returns the one manifest in dir (temp-* files aside).
func findManifest(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".manifest") && !strings.HasPrefix(n, "temp-") {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no AOF manifest (*.manifest) in directory %s", dir)
	case 1:
		return filepath.Join(dir, found[0]), nil
	}
	return "", fmt.Errorf("several AOF manifests in directory %s (%s): name one", dir, strings.Join(found, ", "))
}

// fileIsManifest is valkey-check-aof's test: the first lines that are not
// "#" comments start with "file" (lines read 1024 bytes at a time).
func fileIsManifest(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	is := false
	for {
		b, err := br.Peek(1024)
		if len(b) == 0 {
			if err != nil && err != io.EOF {
				return false, err
			}
			return is, nil
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[:i+1]
		}
		switch {
		case b[0] == '#':
		case bytes.HasPrefix(cstr(b), []byte("file")):
			is = true
		default:
			return is, nil
		}
		br.Discard(len(b))
	}
}

// fileIsRDB is valkey-check-aof's test: at least 8 bytes, starting with
// "REDIS".
func fileIsRDB(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var sig [8]byte
	n, err := io.ReadFull(f, sig[:])
	if err != nil && n < len(sig) && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	return n == len(sig) && string(sig[:5]) == "REDIS", nil
}

// aofChecker checks the files of one AOF in order.
type aofChecker struct {
	rep  *AOFReport
	opts AOFOptions
}

// multiPart checks the files a manifest lists (checkMultiPartAof): the
// base, then the incr files; history files are not loaded, so not
// checked.
func (c *aofChecker) multiPart(path string) {
	name := filepath.Base(path)
	data, err := os.ReadFile(path)
	if err != nil {
		c.stop(&Problem{File: name, Offset: -1, What: "cannot read the manifest: " + err.Error(), Err: err}, Damaged)
		return
	}
	m, err := aof.ParseManifest(data)
	if err != nil {
		what := err.Error()
		var me *aof.ManifestError
		if errors.As(err, &me) {
			what = "bad manifest: " + me.Msg
			if me.Line > 0 {
				what = fmt.Sprintf("bad manifest: line %d (%q): %s", me.Line, me.Text, me.Msg)
			}
		}
		c.stop(&Problem{File: name, Offset: -1, What: what, Err: err}, Damaged)
		return
	}
	files := m.Files()
	c.rep.Listed = len(files)
	dir := filepath.Dir(path)
	for i, fi := range files {
		f := &AOFFile{Name: fi.Name, Path: filepath.Join(dir, fi.Name), Role: "incr", Last: i == len(files)-1, CutTo: -1}
		preamble := false
		if fi.Type == aof.Base {
			f.Role = "base"
			if preamble, err = fileIsRDB(f.Path); err != nil {
				c.rep.Files = append(c.rep.Files, f)
				c.fileProblem(f, &Problem{Offset: -1, What: "cannot open the file the manifest lists: " + err.Error(), Err: err}, Damaged)
				return
			}
		}
		if !c.file(f, preamble) {
			return
		}
	}
}

// stop records the AOF's first problem and its verdict.
func (c *aofChecker) stop(p *Problem, v Verdict) {
	if c.rep.Problem == nil {
		c.rep.Problem = p
	}
	c.rep.Verdict = v
}

func (c *aofChecker) fileProblem(f *AOFFile, p *Problem, v Verdict) {
	p.File = f.Name
	f.Problem = p
	c.stop(p, v)
}

// file checks one file (checkSingleAof) and repairs it if asked and
// allowed; false stops the check.
func (c *aofChecker) file(f *AOFFile, preamble bool) bool {
	c.rep.Files = append(c.rep.Files, f)
	fh, err := os.Open(f.Path)
	if err != nil {
		c.fileProblem(f, &Problem{Offset: -1, What: "cannot open: " + err.Error(), Err: err}, Damaged)
		return false
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		c.fileProblem(f, &Problem{Offset: -1, What: "cannot stat: " + err.Error(), Err: err}, Damaged)
		return false
	}
	f.Size = st.Size()
	if f.Size == 0 {
		return true
	}
	start := int64(0)
	if preamble {
		f.RDB = checkRDB(fh, f.Size, f.Name, c.opts.now())
		if p := f.RDB.Problem; p != nil {
			q := *p
			q.What = "RDB preamble: " + p.What
			c.fileProblem(f, &q, f.RDB.Verdict)
			return false
		}
		start = f.RDB.End
	}
	w := walkRESP(io.NewSectionReader(fh, start, f.Size-start), start, f.Size, f.Last, c.opts.TruncateToTimestamp)
	f.Commands, f.Annotations, f.ValidUpTo = w.commands, w.annotations, w.validUpTo
	switch {
	case w.tsCut >= 0:
		if !c.cut(f, w.tsCut) {
			return false
		}
		c.rep.Verdict = TimestampCut
	case w.problem != nil && w.fatal:
		c.fileProblem(f, w.problem, Damaged)
		return false
	case w.problem != nil && !f.Last:
		w.problem.What += "; only the last file may be cut, and this is not it"
		c.fileProblem(f, w.problem, Damaged)
		return false
	case w.problem != nil && w.validUpTo == 0 && !looksLikeAOF(fh):
		w.problem.What += "; the file does not start like an AOF, so it is not cut"
		w.problem.NotAOF = true
		c.fileProblem(f, w.problem, Damaged)
		return false
	case w.problem != nil && !c.opts.Fix:
		c.fileProblem(f, w.problem, Repairable)
		return false
	case w.problem != nil:
		c.fileProblem(f, w.problem, Damaged) // until the cut and the reload succeed
		if !c.cut(f, w.validUpTo) {
			return false
		}
		c.rep.Verdict = Repaired
	}
	return c.confirm(f, start)
}

// looksLikeAOF reports whether f starts as an AOF's commands do, with a
// command or an annotation. valkey-check-aof --fix would offer to cut any
// other file to nothing; without its question, Corvid does not.
func looksLikeAOF(f io.ReaderAt) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], 0)
	return err == nil && (b[0] == '*' || b[0] == '#')
}

// cut truncates the last file to n bytes.
func (c *aofChecker) cut(f *AOFFile, n int64) bool {
	if err := os.Truncate(f.Path, n); err != nil {
		c.fileProblem(f, &Problem{Offset: n, What: "cannot truncate: " + err.Error(), Err: err}, Damaged)
		return false
	}
	f.CutTo = n
	return true
}

// confirm reads the file (as cut, if it was) with the server's own
// loader: the walk's rules are stricter than the loader's, so this only
// fails on a bug, or when the file changed under the check.
func (c *aofChecker) confirm(f *AOFFile, rdbEnd int64) bool {
	opts := aof.LoadOptions{
		// The RDB preamble was checked above: skip it exactly (rdb.Loader
		// would read past its end).
		RDB: func(_ string, r io.Reader) error {
			if rdbEnd == 0 {
				return errors.New("an RDB where the check found none")
			}
			_, err := io.CopyN(io.Discard, r, rdbEnd)
			return err
		},
	}
	res, err := aof.LoadFile(f.Path, f.Last, opts)
	if err == nil && res.Truncated {
		err = fmt.Errorf("the loader would cut it at offset %d", res.TruncatedAt)
	}
	if err == nil {
		return true
	}
	p := &Problem{Offset: -1, What: "the server's AOF loader refuses it: " + err.Error(), Err: err}
	var le *aof.LoadError
	if errors.As(err, &le) {
		p.Offset = le.Offset
	}
	c.fileProblem(f, p, Damaged)
	return false
}
