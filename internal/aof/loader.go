package aof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// LoadOptions configure Load.
type LoadOptions struct {
	// Truncated is aof-load-truncated (Valkey's default is yes): a last
	// file that ends inside a command (or inside a transaction) is
	// truncated after the last complete one and loading succeeds.
	Truncated bool
	// RDB loads a file that starts with "REDIS" (an RDB base, or the
	// preamble of an old-style AOF). r is positioned at the "REDIS"; the
	// callback must read the RDB through its checksum and no further
	// (r is an io.ByteReader too, so a parser need not buffer): loading
	// goes on with the RESP commands after it, if any.
	RDB func(file string, r io.Reader) error
	// Command receives each command in order, MULTI and EXEC included.
	// argv is valid during the call only. An error (an unknown command,
	// a command that fails) stops the load (Valkey's "Unknown command
	// '%s' reading the append only file %s").
	Command func(argv [][]byte) error
	// Logf receives Valkey's log lines (nil: discarded).
	Logf func(format string, args ...any)
}

// LoadResult is what Load did.
type LoadResult struct {
	Manifest *Manifest
	Commands int64 // commands delivered (annotations are not commands)
	// Truncated: the last file ended inside a command or transaction and
	// was cut at TruncatedAt (aof-load-truncated).
	Truncated     bool
	TruncatedFile string
	TruncatedAt   int64
	// RevertedMulti: the last file ended inside a MULTI whose commands
	// were delivered but whose EXEC never came; the caller must discard
	// them (Valkey's "Revert incomplete MULTI/EXEC transaction"). It is
	// cut from the file too, before its MULTI.
	RevertedMulti bool
}

// Load errors; a *LoadError matches one of them with errors.Is.
var (
	// ErrNotExist: no AOF directory, no manifest, or a manifest listing no
	// base or incr file (AOF_NOT_EXIST: nothing to load, not a failure).
	ErrNotExist = errors.New("aof: no append only file")
	// ErrBadFormat: a line that is not what the format allows.
	ErrBadFormat = errors.New("aof: bad file format")
	// ErrUnexpectedEOF: a file ends inside a command or a transaction
	// and aof-load-truncated is off.
	ErrUnexpectedEOF = errors.New("aof: unexpected end of file")
	// ErrTruncatedNotLast: a file other than the last ends early.
	ErrTruncatedNotLast = errors.New("aof: the truncated file is not the last file")
	// ErrRDB: the RDB callback failed, or there is none for an RDB base.
	ErrRDB = errors.New("aof: bad RDB base")
	// ErrCommand: the Command callback refused a command.
	ErrCommand = errors.New("aof: command failed")
	// ErrRead: an I/O error, or a file the manifest lists is missing.
	ErrRead = errors.New("aof: read error")
)

// LoadError says which file failed, at which byte offset (the start of
// the command or line at fault) and why, in Valkey's words (Msg).
type LoadError struct {
	File   string
	Offset int64
	Kind   error // one of the Err* sentinels above
	Msg    string
	Err    error // the callback's or the I/O error, if any
}

func (e *LoadError) Error() string {
	s := fmt.Sprintf("aof: %s at offset %d: %s", e.File, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is matches the error's Kind.
func (e *LoadError) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying error.
func (e *LoadError) Unwrap() error { return e.Err }

// Valkey's messages (loadSingleAppendOnlyFile, loadAppendOnlyFiles).
const (
	msgBadFormat = "Bad file format reading the append only file %s: " +
		"make a backup of your AOF file, then use ./valkey-check-aof --fix <filename.manifest>"
	msgUnexpectedEOF = "Unexpected end of file reading the append only file %s. You can: " +
		"1) Make a backup of your AOF file, then use ./valkey-check-aof --fix <filename.manifest>. " +
		"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server."
	msgShortRead      = "!!! Warning: short read while loading the AOF file %s!!!"
	msgTruncating     = "!!! Truncating the AOF %s at offset %d !!!"
	msgLoadedAnyway   = "AOF %s loaded anyway because aof-load-truncated is enabled"
	msgNotLast        = "Fatal error: the truncated file is not the last file"
	msgRevertMulti    = "Revert incomplete MULTI/EXEC transaction in AOF file %s"
	msgRDBBase        = "Error reading the RDB base file %s, AOF loading aborted"
	msgRDBPreamble    = "Error reading the RDB preamble of the AOF file %s, AOF loading aborted"
	msgUnrecoverable  = "Unrecoverable error reading the append only file %s: %s"
	msgCannotStat     = "Unable to obtain the AOF file %s length. stat: %s"
	msgUnknownCommand = "Unknown command '%s' reading the append only file %s"
)

// Load replays the AOF in dir whose files are named after name, in
// manifest order (the base, then the incr files), as Valkey 8.0.1's
// loadAppendOnlyFiles and loadSingleAppendOnlyFile: empty files are
// skipped, a file starting with "REDIS" goes to opts.RDB first, "#"
// lines (the "#TS:" annotations) are skipped, every other command is
// delivered to opts.Command. A file ending inside a command or a
// MULTI/EXEC is truncated when it is the last and opts.Truncated is set
// (LoadResult says so), and an error otherwise. Lengths in the file are
// trusted only as far as the file's size: no allocation exceeds the data
// actually read.
func Load(dir, name string, opts LoadOptions) (*LoadResult, error) {
	man, err := ReadManifest(dir, name)
	if isNotExist(err) {
		return nil, ErrNotExist
	}
	if err != nil {
		return nil, err
	}
	res := &LoadResult{Manifest: man}
	files := man.Files()
	if len(files) == 0 {
		return res, ErrNotExist
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(filepath.Join(dir, f.Name))
		if err != nil {
			logf(msgCannotStat, f.Name, err)
			return res, &LoadError{File: f.Name, Kind: ErrRead, Msg: fmt.Sprintf(msgCannotStat, f.Name, err), Err: err}
		}
		total += st.Size()
	}
	if total == 0 {
		return res, nil // AOF_EMPTY
	}
	for i, f := range files {
		start := time.Now()
		l := loader{opts: opts, logf: logf, file: f.Name, last: i == len(files)-1, oldStyle: f.Name == name}
		if err := l.loadFile(filepath.Join(dir, f.Name)); err != nil {
			res.Commands += l.commands
			return res, err
		}
		res.Commands += l.commands
		if l.truncated {
			res.Truncated, res.TruncatedFile, res.TruncatedAt = true, f.Name, l.validUpTo
			res.RevertedMulti = l.reverted
		}
		kind := "incr"
		if f.Type == Base {
			kind = "base"
		}
		logf("DB loaded from %s file %s: %.3f seconds", kind, f.Name, time.Since(start).Seconds())
	}
	return res, nil
}

// loader reads one file, command by command, as loadSingleAppendOnlyFile.
type loader struct {
	opts     LoadOptions
	logf     func(format string, args ...any)
	file     string
	last     bool
	oldStyle bool // file is named appendfilename: a migrated single-file AOF

	br   *bufio.Reader
	off  int64 // bytes consumed from the file
	size int64
	eof  bool  // a read hit the end of the file (feof)
	ioe  error // a read failed otherwise

	line []byte // fgets's buffer
	data []byte // the current command's arguments, back to back
	ends []int
	argv [][]byte

	validUpTo        int64
	validBeforeMulti int64
	inMulti          bool
	commands         int64
	truncated        bool // the file was cut at validUpTo
	reverted         bool // ... inside a MULTI
}

// annotationMax is AOF_ANNOTATION_LINE_MAX_LEN: fgets reads at most 1023
// bytes of a line at a time.
const annotationMax = 1024

func (l *loader) loadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		msg := fmt.Sprintf("Fatal error: can't open the append log file %s for reading: %v", l.file, err)
		l.logf("%s", msg)
		return &LoadError{File: l.file, Kind: ErrRead, Msg: msg, Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return &LoadError{File: l.file, Kind: ErrRead, Msg: "stat", Err: err}
	}
	if st.Size() == 0 {
		return nil // AOF_EMPTY
	}
	err = l.load(f, st.Size())
	if err == nil && l.truncated {
		l.logf(msgTruncating, l.file, l.validUpTo)
		if terr := os.Truncate(path, l.validUpTo); terr != nil {
			l.logf("Error truncating the AOF file %s: %v", l.file, terr)
			msg := fmt.Sprintf(msgUnexpectedEOF, l.file)
			l.logf("%s", msg)
			return &LoadError{File: l.file, Offset: l.validUpTo, Kind: ErrUnexpectedEOF, Msg: msg, Err: terr}
		}
		l.logf(msgLoadedAnyway, l.file)
	}
	return err
}

// load parses r (size bytes). It sets l.truncated when the caller must
// cut the file at l.validUpTo; it truncates nothing itself.
func (l *loader) load(r io.Reader, size int64) error {
	l.br = bufio.NewReaderSize(r, 64<<10)
	l.size = size
	if sig, _ := l.br.Peek(5); bytes.Equal(sig, []byte("REDIS")) {
		// An old-style AOF (named appendfilename itself, moved in by
		// UpgradeOldStyle) may have an RDB preamble and a RESP tail.
		msg := fmt.Sprintf(msgRDBBase, l.file)
		if l.oldStyle {
			l.logf("Reading RDB preamble from AOF file...")
			msg = fmt.Sprintf(msgRDBPreamble, l.file)
		} else {
			l.logf("Reading RDB base file on AOF loading...")
		}
		if l.opts.RDB == nil {
			return l.fail(ErrRDB, 0, msg, errors.New("no RDB loader"))
		}
		if err := l.opts.RDB(l.file, (*countingReader)(l)); err != nil {
			return l.fail(ErrRDB, 0, msg, err)
		}
		if l.oldStyle {
			l.logf("Reading the remaining AOF tail...")
		}
		// Valkey leaves valid_up_to at 0 here, so a truncated tail after
		// an RDB preamble would cut the preamble too; keep the RDB.
		l.validUpTo = l.off
	}
	for {
		start := l.off
		line, ok := l.fgets()
		if !ok {
			if l.ioe != nil {
				return l.readErr(start)
			}
			break // EOF between commands
		}
		if line[0] == '#' {
			continue
		}
		if line[0] != '*' {
			return l.fmtErr(start)
		}
		if len(line) < 2 || line[1] == 0 {
			return l.readErr(start)
		}
		argc := atoi(cstr(line[1:]))
		if argc < 1 {
			return l.fmtErr(start)
		}
		l.data, l.ends = l.data[:0], l.ends[:0]
		for j := int32(0); j < argc; j++ {
			line, ok := l.fgets()
			if !ok {
				return l.readErr(start)
			}
			if line[0] != '$' {
				return l.fmtErr(start)
			}
			n := strtol(cstr(line[1:]))
			if n < 0 {
				// An unsigned long in Valkey: an allocation that fails.
				return l.fmtErr(start)
			}
			if n > l.size-l.off {
				// fread would come up short: the file ends inside.
				l.eof = true
				return l.readErr(start)
			}
			if !l.readN(int(n)) || !l.skipN(2) { // the CRLF is not checked, as in Valkey
				return l.readErr(start)
			}
			l.ends = append(l.ends, len(l.data))
		}
		l.argv = l.argv[:0]
		prev := 0
		for _, e := range l.ends {
			l.argv = append(l.argv, l.data[prev:e:e])
			prev = e
		}
		isMulti := bytes.EqualFold(l.argv[0], []byte("multi"))
		if isMulti && !l.inMulti {
			// Valkey moves valid_before_multi on a nested MULTI too (one
			// queued inside a transaction), so a cut there would leave the
			// outer MULTI open; a transaction starts at its first MULTI.
			l.validBeforeMulti = l.validUpTo
		}
		if l.opts.Command != nil {
			if err := l.opts.Command(l.argv); err != nil {
				msg := fmt.Sprintf(msgUnknownCommand, l.argv[0], l.file)
				return l.fail(ErrCommand, start, msg, err)
			}
		}
		l.commands++
		if isMulti {
			l.inMulti = true
		} else if l.inMulti && bytes.EqualFold(l.argv[0], []byte("exec")) {
			l.inMulti = false
		}
		l.validUpTo = l.off
	}
	if l.inMulti {
		// Well-formed, but a transaction never closed: handle it as a
		// short read.
		l.logf(msgRevertMulti, l.file)
		return l.uxeof(l.validBeforeMulti)
	}
	return nil
}

// cstr is b as C sees it: up to its first NUL.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

func (l *loader) fail(kind error, off int64, msg string, err error) error {
	l.logf("%s", msg)
	return &LoadError{File: l.file, Offset: off, Kind: kind, Msg: msg, Err: err}
}

func (l *loader) fmtErr(start int64) error {
	return l.fail(ErrBadFormat, start, fmt.Sprintf(msgBadFormat, l.file), nil)
}

// readErr is the readerr label: at the end of the file an unexpected EOF
// (the command starting at start is incomplete), otherwise a failure.
func (l *loader) readErr(start int64) error {
	if !l.eof {
		why := "Success" // strerror(0): fgets gave a line with a NUL after '*'
		if l.ioe != nil {
			why = l.ioe.Error()
		}
		return l.fail(ErrRead, start, fmt.Sprintf(msgUnrecoverable, l.file, why), l.ioe)
	}
	if l.inMulti {
		// Cut before the MULTI: its queued commands were never run
		// (Valkey cuts after the last complete one and reverts the
		// transaction on the next load).
		l.logf(msgRevertMulti, l.file)
		return l.uxeof(l.validBeforeMulti)
	}
	return l.uxeof(l.validUpTo)
}

// uxeof is the uxeof label: the file is cut at validUpTo when allowed.
func (l *loader) uxeof(validUpTo int64) error {
	l.validUpTo = validUpTo
	if l.opts.Truncated {
		l.logf(msgShortRead, l.file)
		if !l.last {
			return l.fail(ErrTruncatedNotLast, validUpTo, msgNotLast, nil)
		}
		l.truncated, l.reverted = true, l.inMulti
		return nil
	}
	return l.fail(ErrUnexpectedEOF, validUpTo, fmt.Sprintf(msgUnexpectedEOF, l.file), nil)
}

// fgets is C's fgets(buf, 1024, fp): up to 1023 bytes, through '\n'.
// ok is false when nothing could be read.
func (l *loader) fgets() (line []byte, ok bool) {
	l.line = l.line[:0]
	for len(l.line) < annotationMax-1 {
		b, err := l.br.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				l.eof = true
			} else if err != nil {
				l.ioe = err
			}
			break
		}
		b, _ = l.br.Peek(l.br.Buffered())
		k := min(len(b), annotationMax-1-len(l.line))
		done := false
		if i := bytes.IndexByte(b[:k], '\n'); i >= 0 {
			k, done = i+1, true
		}
		l.line = append(l.line, b[:k]...)
		l.br.Discard(k)
		l.off += int64(k)
		if done {
			break
		}
	}
	return l.line, len(l.line) > 0
}

// readN appends n bytes of the file to l.data (n was checked against the
// file's size, so the allocation is backed by data).
func (l *loader) readN(n int) bool {
	start := len(l.data)
	l.data = append(l.data, make([]byte, n)...)
	got, err := io.ReadFull(l.br, l.data[start:])
	l.off += int64(got)
	if err != nil {
		l.data = l.data[:start+got]
		l.noteErr(err)
		return false
	}
	return true
}

func (l *loader) skipN(n int) bool {
	got, err := l.br.Discard(n)
	l.off += int64(got)
	if err != nil {
		l.noteErr(err)
		return false
	}
	return true
}

func (l *loader) noteErr(err error) {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		l.eof = true
	} else {
		l.ioe = err
	}
}

// countingReader is the view of the file the RDB callback reads.
type countingReader loader

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.off += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.off++
	}
	return b, err
}
