package filecheck

import "fmt"

// Verdict is a check's outcome.
type Verdict int

// The verdicts. RDB checks give Valid, Damaged or Unsupported.
const (
	// Valid: the file (every file of the AOF) is sound.
	Valid Verdict = iota
	// Repairable: the last AOF file is sound up to an offset, and cutting
	// it there (--fix) would make the AOF valid.
	Repairable
	// Repaired: --fix cut the last AOF file; the AOF is now valid.
	Repaired
	// TimestampCut: --truncate-to-timestamp cut the last AOF file before
	// its first annotation later than the given time.
	TimestampCut
	// Damaged: the file is bad and a cut of the last file cannot help (or
	// a file is missing, or the manifest is bad).
	Damaged
	// Unsupported: the file is well formed as far as it was read, but
	// holds data Corvid does not model (module values).
	Unsupported
)

// String is the verdict's short name, as the differential tests compare
// them: ok, fixable, fixed, truncated, bad, unsupported.
func (v Verdict) String() string {
	switch v {
	case Valid:
		return "ok"
	case Repairable:
		return "fixable"
	case Repaired:
		return "fixed"
	case TimestampCut:
		return "truncated"
	case Damaged:
		return "bad"
	case Unsupported:
		return "unsupported"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// ExitCode is the tool's exit status for v: 0 when the file is (now)
// usable, 1 otherwise, as valkey-check-rdb and valkey-check-aof.
func (v Verdict) ExitCode() int {
	switch v {
	case Valid, Repaired, TimestampCut:
		return 0
	}
	return 1
}

// Problem is the first thing found wrong with a file.
type Problem struct {
	// File is the file's name as given or as the manifest lists it.
	File string
	// Offset is the byte offset where the problem was found, or -1 when
	// it concerns the file as a whole (missing, a bad manifest).
	Offset int64
	// What says what is wrong.
	What string
	// Doing says what was being read, when known: the header, the value
	// of a named key, the command starting at some offset.
	Doing string
	// Err is the underlying error (*rdb.FormatError, *aof.ManifestError,
	// *aof.LoadError, an I/O error), if any.
	Err error
	// ValkeyAccepts marks a rule of Corvid's that valkey-check-aof does
	// not apply (a command with no arguments, which the servers' loaders
	// refuse all the same).
	ValkeyAccepts bool
	// NotAOF marks a file that does not start with a command or an
	// annotation: --fix leaves it alone (valkey-check-aof offers to cut it
	// to nothing).
	NotAOF bool
}

func (p *Problem) String() string {
	s := p.File
	if p.Offset >= 0 {
		s += fmt.Sprintf(" at offset %d", p.Offset)
	}
	s += ": " + p.What
	if p.Doing != "" {
		s += " (" + p.Doing + ")"
	}
	return s
}
