package command

import (
	"strings"

	"github.com/corvid-kv/corvid/internal/ds"
)

// ListFilter selects commands for COMMAND LIST FILTERBY. It is applied to
// top-level commands and subcommands alike, as in Valkey.
type ListFilter func(m *Meta) bool

// FilterACLCat keeps commands in the named ACL category (case-insensitive,
// without '@'). An unknown category keeps nothing, as in Valkey.
func FilterACLCat(category string) ListFilter {
	cat := ACLCatByName(category)
	return func(m *Meta) bool { return cat != 0 && m.ACL&cat != 0 }
}

// FilterPattern keeps commands whose full name ("get", "client|list")
// matches the glob pattern case-insensitively, like Valkey's
// stringmatchlen(..., nocase=1).
func FilterPattern(pattern string) ListFilter {
	return func(m *Meta) bool { return Glob(pattern, m.FullName, true) }
}

// FilterModule keeps the commands of the named module: none, since Corvid
// has no modules.
func FilterModule(string) ListFilter { return func(*Meta) bool { return false } }

// Walk calls fn for every command, each container followed by its
// subcommands, in name order.
func Walk(fn func(m *Meta)) {
	for _, m := range tbl.all {
		fn(m)
		for _, sub := range m.subList {
			fn(sub)
		}
	}
}

// Filter returns the commands and subcommands keep selects (all when keep
// is nil), in Walk order.
func Filter(keep ListFilter) []*Meta {
	var out []*Meta
	Walk(func(m *Meta) {
		if keep == nil || keep(m) {
			out = append(out, m)
		}
	})
	return out
}

// Glob reports whether s matches the glob pattern with Valkey's
// stringmatchlen semantics (see ds.MatchString), except that a pattern of
// only '*' also matches the empty string, the way KEYS and SCAN special-case
// a lone "*". Command names are never empty, so FILTERBY PATTERN is
// unaffected; the exception keeps Glob's contract for its other callers.
func Glob(pattern, s string, nocase bool) bool {
	if s == "" && pattern != "" && strings.Trim(pattern, "*") == "" {
		return true
	}
	return ds.MatchString(pattern, s, nocase)
}
