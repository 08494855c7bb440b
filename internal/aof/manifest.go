package aof

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/corvid-kv/corvid/internal/resp"
)

// FileType is the type of an AOF file in the manifest: 'b', 'h' or 'i'.
type FileType byte

// The three file types of Valkey's multi-part AOF.
const (
	// Base is the snapshot of the last rewrite (at most one, listed first).
	Base FileType = 'b'
	// History is a base or incr file made obsolete by a rewrite, to be
	// deleted (unless aof-disable-auto-gc is set).
	History FileType = 'h'
	// Incr holds the commands since the base; the last one is the file
	// being appended to.
	Incr FileType = 'i'
)

// Naming rules, as Valkey's aof.c.
const (
	baseSuffix     = ".base"
	incrSuffix     = ".incr"
	rdbSuffix      = ".rdb"
	aofSuffix      = ".aof"
	manifestSuffix = ".manifest"
	tempPrefix     = "temp-"
)

// ManifestName is the manifest's file name for appendfilename name
// ("appendonly.aof" → "appendonly.aof.manifest").
func ManifestName(name string) string { return name + manifestSuffix }

// BaseName is the name of base file seq: "<name>.<seq>.base.rdb" with an
// RDB preamble, "<name>.<seq>.base.aof" without.
func BaseName(name string, seq int64, rdb bool) string {
	suf := aofSuffix
	if rdb {
		suf = rdbSuffix
	}
	return name + "." + strconv.FormatInt(seq, 10) + baseSuffix + suf
}

// IncrName is the name of incr file seq: "<name>.<seq>.incr.aof".
func IncrName(name string, seq int64) string {
	return name + "." + strconv.FormatInt(seq, 10) + incrSuffix + aofSuffix
}

// FileInfo is one line of the manifest.
type FileInfo struct {
	Name string
	Seq  int64
	Type FileType
}

// Manifest lists the files of a multi-part AOF, as Valkey's aofManifest:
// the base (if any), the history files and the incr files in order.
type Manifest struct {
	Base    *FileInfo
	History []FileInfo
	Incr    []FileInfo
	// BaseSeq and IncrSeq are the highest sequence numbers used so far
	// (curr_base_file_seq, curr_incr_file_seq): new files get the next.
	BaseSeq int64
	IncrSeq int64
}

// Clone returns a deep copy (Valkey's aofManifestDup): a change is made
// on a copy, persisted, and only then installed.
func (m *Manifest) Clone() *Manifest {
	c := &Manifest{BaseSeq: m.BaseSeq, IncrSeq: m.IncrSeq,
		History: append([]FileInfo(nil), m.History...),
		Incr:    append([]FileInfo(nil), m.Incr...)}
	if m.Base != nil {
		b := *m.Base
		c.Base = &b
	}
	return c
}

// Files returns the files to load, in order: the base, then the incr files.
func (m *Manifest) Files() []FileInfo {
	var fs []FileInfo
	if m.Base != nil {
		fs = append(fs, *m.Base)
	}
	return append(fs, m.Incr...)
}

// newBase names the next base file and makes the current base (if any) the
// first history file (getNewBaseFileNameAndMarkPreAsHistory).
func (m *Manifest) newBase(name string, rdb bool) string {
	if m.Base != nil {
		old := *m.Base
		old.Type = History
		m.History = append([]FileInfo{old}, m.History...)
	}
	m.BaseSeq++
	m.Base = &FileInfo{Name: BaseName(name, m.BaseSeq, rdb), Seq: m.BaseSeq, Type: Base}
	return m.Base.Name
}

// newIncr names the next incr file and lists it last (getNewIncrAofName).
func (m *Manifest) newIncr(name string) string {
	m.IncrSeq++
	f := FileInfo{Name: IncrName(name, m.IncrSeq), Seq: m.IncrSeq, Type: Incr}
	m.Incr = append(m.Incr, f)
	return f.Name
}

// markRewrittenIncrAsHistory moves every incr file but the last (the one
// being written) to the head of the history list, walking from the tail
// as Valkey's markRewrittenIncrAofAsHistory does. keepLast is false when
// no incr file is open for appending.
func (m *Manifest) markRewrittenIncrAsHistory(keepLast bool) {
	n := len(m.Incr)
	if keepLast && n > 0 {
		n--
	}
	var moved []FileInfo
	for i := 0; i < n; i++ {
		f := m.Incr[i]
		f.Type = History
		moved = append(moved, f)
	}
	m.History = append(moved, m.History...)
	m.Incr = append([]FileInfo(nil), m.Incr[n:]...)
}

// AppendText appends the manifest as Valkey writes it
// (getAofManifestAsString): the base, the history files, the incr files,
// one "file <name> seq <n> type <t>\n" line each, the name quoted as
// sdscatrepr does when it holds a space, a double quote, a backslash or a
// byte that is not printable. As in Valkey, an empty name or one with a
// single quote is written bare and does not read back; Valkey never
// names its files so, nor does the Writer.
func (m *Manifest) AppendText(dst []byte) []byte {
	if m.Base != nil {
		dst = appendInfo(dst, *m.Base)
	}
	for _, f := range m.History {
		dst = appendInfo(dst, f)
	}
	for _, f := range m.Incr {
		dst = appendInfo(dst, f)
	}
	return dst
}

// String is the manifest's text.
func (m *Manifest) String() string { return string(m.AppendText(nil)) }

func appendInfo(dst []byte, f FileInfo) []byte {
	dst = append(dst, "file "...)
	if needsRepr(f.Name) {
		dst = resp.AppendRepr(dst, f.Name)
	} else {
		dst = append(dst, f.Name...)
	}
	dst = append(dst, " seq "...)
	dst = strconv.AppendInt(dst, f.Seq, 10)
	dst = append(dst, " type "...)
	dst = append(dst, byte(f.Type), '\n')
	return dst
}

// isPrint and isCSpace are C's isprint and isspace in the C locale (bytes
// of 0x80 and above, negative as a C char, are neither).
func isPrint(c byte) bool  { return c >= 0x20 && c < 0x7f }
func isCSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// needsRepr is sds's sdsneedsrepr.
func needsRepr(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' || c == '"' || !isPrint(c) || isCSpace(c) {
			return true
		}
	}
	return false
}

// The error texts of Valkey's aofLoadManifestFromFile.
const (
	msgEmptyManifest   = "Found an empty AOF manifest"
	msgTooLongLine     = "The AOF manifest file contains too long line"
	msgInvalidFormat   = "Invalid AOF manifest file format"
	msgPathNotBaseName = "File can't be a path, just a filename"
	msgDuplicateBase   = "Found duplicate base file information"
	msgNonMonotonic    = "Found a non-monotonic sequence number"
	msgUnknownType     = "Unknown AOF file type"
)

// ErrManifest is matched (errors.Is) by every *ManifestError.
var ErrManifest = errors.New("aof: bad manifest")

// ManifestError is a manifest Valkey would refuse, with its reason in
// Valkey's words (Msg) and, when Valkey shows it, the line (1-based) and
// its text as Valkey logs them ("Reading the manifest file, at line %d",
// ">>> '%s'").
type ManifestError struct {
	Line int // 0 when Valkey does not name the line
	Text string
	Msg  string
}

func (e *ManifestError) Error() string {
	if e.Line == 0 {
		return "aof: manifest: " + e.Msg
	}
	return fmt.Sprintf("aof: manifest line %d ('%s'): %s", e.Line, e.Text, e.Msg)
}

// Is makes errors.Is(err, ErrManifest) true.
func (e *ManifestError) Is(target error) bool { return target == ErrManifest }

// maxManifestLine is MANIFEST_MAX_LINE: fgets reads at most this much of
// a line at a time.
const maxManifestLine = 1024

// ParseManifest parses a manifest exactly as Valkey 8.0.1's
// aofLoadManifestFromFile: lines of at most 1024 bytes ending in '\n'
// (the last one too), '#' comment lines, key/value pairs split like
// sdssplitargs with the keys "file", "seq" and "type" (any case, in any
// order, unknown keys ignored, at least six words and an even number),
// the name a base name (no '/' or '\\'), the seq non-zero (atoll), the
// type the first byte of its value; at most one base; incr seqs strictly
// increasing. The error is a *ManifestError with Valkey's text.
func ParseManifest(data []byte) (*Manifest, error) {
	m := &Manifest{}
	var maxSeq int64
	lineNum := 0
	var argv [][]byte
	for {
		if len(data) == 0 {
			if lineNum == 0 {
				return nil, &ManifestError{Msg: msgEmptyManifest}
			}
			return m, nil
		}
		// fgets(buf, MANIFEST_MAX_LINE+1): up to 1024 bytes, through '\n'.
		n := len(data)
		if n > maxManifestLine {
			n = maxManifestLine
		}
		if i := bytes.IndexByte(data[:n], '\n'); i >= 0 {
			n = i + 1
		}
		chunk := data[:n]
		data = data[n:]
		lineNum++
		// The C code sees the chunk as a string: it ends at a NUL.
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			chunk = chunk[:i]
		}
		if len(chunk) > 0 && chunk[0] == '#' {
			continue
		}
		if bytes.IndexByte(chunk, '\n') < 0 {
			return nil, &ManifestError{Msg: msgTooLongLine}
		}
		line := bytes.Trim(chunk, " \t\r\n")
		text := string(line)
		bad := func(msg string) error { return &ManifestError{Line: lineNum, Text: text, Msg: msg} }
		if len(line) == 0 {
			return nil, bad(msgInvalidFormat)
		}
		var ok bool
		argv, ok = resp.SplitArgs(argv[:0], append([]byte(nil), line...))
		if !ok || len(argv) < 6 || len(argv)%2 != 0 {
			return nil, bad(msgInvalidFormat)
		}
		var f FileInfo
		hasName := false
		for i := 0; i < len(argv); i += 2 {
			k, v := argv[i], argv[i+1]
			switch {
			case bytes.EqualFold(k, []byte("file")):
				// sdsnew(argv[i+1]): a C string, cut at a NUL.
				if z := bytes.IndexByte(v, 0); z >= 0 {
					v = v[:z]
				}
				f.Name, hasName = string(v), true
				if bytes.IndexByte(v, '/') >= 0 || bytes.IndexByte(v, '\\') >= 0 {
					return nil, bad(msgPathNotBaseName)
				}
			case bytes.EqualFold(k, []byte("seq")):
				f.Seq = atoll(v)
			case bytes.EqualFold(k, []byte("type")):
				f.Type = 0
				if len(v) > 0 {
					f.Type = FileType(v[0])
				}
			}
		}
		if !hasName || f.Seq == 0 || f.Type == 0 {
			return nil, bad(msgInvalidFormat)
		}
		switch f.Type {
		case Base:
			if m.Base != nil {
				return nil, bad(msgDuplicateBase)
			}
			b := f
			m.Base = &b
			m.BaseSeq = f.Seq
		case History:
			m.History = append(m.History, f)
		case Incr:
			if f.Seq <= maxSeq {
				return nil, bad(msgNonMonotonic)
			}
			m.Incr = append(m.Incr, f)
			m.IncrSeq = f.Seq
			maxSeq = f.Seq
		default:
			return nil, bad(msgUnknownType)
		}
	}
}
