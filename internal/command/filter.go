package command

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
// stringmatchlen semantics: '*', '?', '[...]' classes with '^' negation,
// ranges (reversed ranges allowed) and '\' escapes; a trailing '\' and an
// unterminated class are taken literally / to the end, as Valkey does. It
// backtracks only to the last '*', so it runs in O(len(pattern)*len(s)).
func Glob(pattern, s string, nocase bool) bool {
	px, sx := 0, 0
	starPx, starSx := -1, 0
	for px < len(pattern) || sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				starPx, starSx = px, sx
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			case '[':
				if sx < len(s) {
					if ok, next := matchClass(pattern, px, s[sx], nocase); ok {
						px = next
						sx++
						continue
					}
				}
			default:
				lit, next := c, px+1
				if c == '\\' && px+1 < len(pattern) {
					lit, next = pattern[px+1], px+2
				}
				if sx < len(s) && eqByte(lit, s[sx], nocase) {
					px = next
					sx++
					continue
				}
			}
		}
		// Mismatch: let the last '*' swallow one more byte.
		if starPx >= 0 && starSx < len(s) {
			starSx++
			px, sx = starPx+1, starSx
			continue
		}
		return false
	}
	return true
}

// matchClass matches c against the class starting at pattern[px] == '['
// and returns the index just past the class.
func matchClass(pattern string, px int, c byte, nocase bool) (bool, int) {
	px++
	not := px < len(pattern) && pattern[px] == '^'
	if not {
		px++
	}
	match := false
	for {
		if px >= len(pattern) {
			break // unterminated: the class runs to the end of the pattern
		}
		p := pattern[px]
		switch {
		case p == '\\' && px+1 < len(pattern):
			px++
			if pattern[px] == c { // escapes compare case-sensitively in Valkey
				match = true
			}
		case p == ']':
			return match != not, px + 1
		case px+2 < len(pattern) && pattern[px+1] == '-':
			lo, hi, x := p, pattern[px+2], c
			if lo > hi {
				lo, hi = hi, lo
			}
			if nocase {
				lo, hi, x = lower(lo), lower(hi), lower(x)
			}
			if x >= lo && x <= hi {
				match = true
			}
			px += 2
		default:
			if eqByte(p, c, nocase) {
				match = true
			}
		}
		px++
	}
	return match != not, len(pattern)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func eqByte(a, b byte, nocase bool) bool {
	if nocase {
		return lower(a) == lower(b)
	}
	return a == b
}
