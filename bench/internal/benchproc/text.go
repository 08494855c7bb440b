package benchproc

import (
	"fmt"
	"io"
	"strings"
)

// ShellQuote quotes s for a POSIX shell where needed.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+^", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin quotes args for a POSIX shell, separated by spaces (the
// command lines the reports show).
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = ShellQuote(a)
	}
	return strings.Join(out, " ")
}

// Tail is the last n bytes of b, trimmed of white space (the end of a
// log, for an error message).
func Tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// WriteComments writes each line as a "# " comment line (the header above
// a CSV file's table).
func WriteComments(w io.Writer, lines []string) error {
	for _, h := range lines {
		if _, err := fmt.Fprintf(w, "# %s\n", h); err != nil {
			return err
		}
	}
	return nil
}
