package filecheck

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// defaultDatabases is the databases directive's default.
const defaultDatabases = 16

// WriteText writes the report as corvid-check-rdb prints it.
func (r *RDBReport) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "checking RDB file %s (%d bytes)\n", r.File, r.Size)
	if r.Version > 0 {
		fmt.Fprintf(bw, "RDB version %d\n", r.Version)
	}
	for _, a := range r.Aux {
		fmt.Fprintf(bw, "aux %s = %q\n", a.Key, a.Value)
	}
	if r.Functions > 0 {
		fmt.Fprintf(bw, "function libraries: %d\n", r.Functions)
	}
	for _, d := range r.DBs {
		fmt.Fprintf(bw, "db %d: %d keys, %d with an expiry", d.DB, d.Keys, d.Expires)
		if d.HintKeys >= 0 {
			fmt.Fprintf(bw, " (size hint: %d keys, %d with an expiry)", d.HintKeys, d.HintExpires)
		}
		bw.WriteByte('\n')
	}
	if len(r.Types) > 0 {
		var parts []string
		for _, t := range slices.Sorted(maps.Keys(r.Types)) {
			parts = append(parts, fmt.Sprintf("%s %d", t, r.Types[t]))
		}
		fmt.Fprintf(bw, "types: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(bw, "keys: %d, with an expiry: %d, already expired: %d\n", r.Keys, r.Expires, r.Expired)
	if n := len(r.DBs); n > 0 && r.DBs[n-1].DB >= defaultDatabases {
		fmt.Fprintf(bw, "note: keys in db %d: a server loads this file only with databases above %d (the default is %d)\n",
			r.DBs[n-1].DB, r.DBs[n-1].DB, defaultDatabases)
	}
	if r.Problem == nil {
		switch {
		case r.Version > 0 && r.Version < 5:
			fmt.Fprintf(bw, "checksum: none (RDB version %d has no trailer)\n", r.Version)
		case r.Checksum == 0:
			fmt.Fprintf(bw, "checksum: not stored (written with rdbchecksum no)\n")
		default:
			fmt.Fprintf(bw, "checksum: CRC64 %016x verified\n", r.Checksum)
		}
		fmt.Fprintf(bw, "the RDB ends at offset %d", r.End)
		if extra := r.Size - r.End; extra > 0 {
			fmt.Fprintf(bw, "; %d more bytes follow it (not read)", extra)
		}
		bw.WriteByte('\n')
	} else {
		writeProblem(bw, r.Problem)
	}
	switch r.Verdict {
	case Valid:
		fmt.Fprintf(bw, "verdict: ok, the RDB file is sound\n")
	case Unsupported:
		fmt.Fprintf(bw, "verdict: unsupported, the file holds data Corvid does not load (keys read before it: %d)\n", r.Keys)
	default:
		fmt.Fprintf(bw, "verdict: bad, the RDB file is damaged (keys read before the problem: %d)\n", r.Keys)
	}
	return bw.Flush()
}

func writeProblem(w io.Writer, p *Problem) {
	if p.Offset >= 0 {
		fmt.Fprintf(w, "problem at offset %d: %s\n", p.Offset, p.What)
	} else {
		fmt.Fprintf(w, "problem: %s\n", p.What)
	}
	if p.Doing != "" {
		fmt.Fprintf(w, "  while %s\n", p.Doing)
	}
	if p.ValkeyAccepts {
		fmt.Fprintf(w, "  (valkey-check-aof lets this pass, but neither Valkey's nor Corvid's server loads it)\n")
	}
}

// WriteText writes the report as corvid-check-aof prints it.
func (r *AOFReport) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	switch r.Input {
	case InputManifest:
		fmt.Fprintf(bw, "checking %s %s: %d files to load\n", r.Input, r.Manifest, r.Listed)
	default:
		fmt.Fprintf(bw, "checking %s %s\n", r.Input, r.Path)
	}
	for _, f := range r.Files {
		fmt.Fprintf(bw, "%s %s (%d bytes)", f.Role, f.Name, f.Size)
		switch {
		case f.Problem != nil && f.Problem.Offset < 0 && f.Size == 0:
			bw.WriteString("\n")
		case f.Size == 0:
			bw.WriteString(": empty\n")
		case f.RDB != nil && f.RDB.Problem != nil:
			fmt.Fprintf(bw, ": RDB preamble, version %d, %d keys read\n", f.RDB.Version, f.RDB.Keys)
		default:
			bw.WriteString(": ")
			if f.RDB != nil {
				fmt.Fprintf(bw, "RDB preamble (version %d, %d keys, ends at offset %d), then ", f.RDB.Version, f.RDB.Keys, f.RDB.End)
			}
			fmt.Fprintf(bw, "%d commands, %d annotations; valid up to offset %d", f.Commands, f.Annotations, f.ValidUpTo)
			if rest := f.Size - f.ValidUpTo; rest > 0 && f.Problem != nil {
				fmt.Fprintf(bw, " (%d bytes after it)", rest)
			}
			bw.WriteByte('\n')
		}
		if f.Problem != nil {
			writeProblem(bw, f.Problem)
		}
	}
	if r.Problem != nil && len(r.Files) == 0 {
		writeProblem(bw, r.Problem)
	}
	last := (*AOFFile)(nil)
	if n := len(r.Files); n > 0 {
		last = r.Files[n-1]
	}
	switch r.Verdict {
	case Valid:
		if r.Options.TruncateToTimestamp != 0 {
			fmt.Fprintf(bw, "no annotation later than %d: nothing to cut\n", r.Options.TruncateToTimestamp)
		}
		fmt.Fprintf(bw, "verdict: ok, the AOF is valid\n")
	case Repairable:
		fmt.Fprintf(bw, "verdict: fixable, --fix would cut %s from %d to %d bytes (dropping %d bytes)\n",
			last.Name, last.Size, last.ValidUpTo, last.Size-last.ValidUpTo)
	case Repaired:
		fmt.Fprintf(bw, "verdict: fixed, %s was cut from %d to %d bytes (%d bytes dropped); the AOF is now valid\n",
			last.Name, last.Size, last.CutTo, last.Size-last.CutTo)
	case TimestampCut:
		fmt.Fprintf(bw, "verdict: truncated, %s was cut from %d to %d bytes, before its first annotation later than %d\n",
			last.Name, last.Size, last.CutTo, r.Options.TruncateToTimestamp)
	case Unsupported:
		fmt.Fprintf(bw, "verdict: unsupported, the AOF holds data Corvid does not load\n")
	default:
		fmt.Fprintf(bw, "verdict: bad, cutting the last file cannot resolve the problem above\n")
	}
	return bw.Flush()
}
