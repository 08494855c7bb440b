package ds

// maxMatchNesting bounds the recursion of Match on '*', as Valkey's
// stringmatchlen: a sub-match nested deeper than this fails (returns no
// match) instead of growing the stack. A pattern needs more than 1000
// non-adjacent '*' to reach it.
const maxMatchNesting = 1000

// Match reports whether s matches the glob pattern, with the semantics of
// Valkey's stringmatchlen (KEYS, SCAN MATCH, PSUBSCRIBE, ACL key patterns).
// In the pattern, '*' matches any run of bytes, including none; '?' matches
// any single byte; "[abc]" matches one of the listed bytes, "[^abc]" any
// other byte, and "[a-z]" a range (reversed ranges such as "[z-a]" work
// too); a backslash makes the next byte literal, inside brackets as well.
//
// nocase folds ASCII letters only, and not for escaped bytes inside
// brackets. A malformed pattern is matched the way Valkey does, not
// rejected: an unterminated "[..." behaves as if closed at the end of the
// pattern, "[]" never matches, and a trailing backslash is literal.
//
// Like Valkey, Match("*", "") is false: a star only absorbs the end of the
// string after some byte matched. KEYS and SCAN skip matching for a lone
// "*", which is how they still return the empty key; callers should do the
// same.
func Match(pattern, s []byte, nocase bool) bool {
	return MatchString(bstr(pattern), bstr(s), nocase)
}

// MatchString is Match for strings.
func MatchString(pattern, s string, nocase bool) bool {
	skipLonger := false
	return matchImpl(pattern, s, nocase, &skipLonger, 0)
}

// patAt returns pattern[i], or 0 past the end: the C original reads the NUL
// terminator there, and 0 matches none of the special bytes it tests for.
func patAt(pattern string, i int) byte {
	if i < len(pattern) {
		return pattern[i]
	}
	return 0
}

// lower folds like C tolower in the C locale.
func lower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// matchImpl is a line-by-line port of stringmatchlen_impl. p and s index the
// pattern and the string; their remaining lengths are len-p and len-s.
// Characters are widened through int8 because C's char is signed on the
// platforms Valkey ships for, which decides how ranges with bytes >= 0x80
// compare.
func matchImpl(pattern, str string, nocase bool, skipLonger *bool, nesting int) bool {
	if nesting > maxMatchNesting {
		return false
	}
	p, s := 0, 0
	for p < len(pattern) && s < len(str) {
		switch pattern[p] {
		case '*':
			for p < len(pattern) && patAt(pattern, p+1) == '*' {
				p++
			}
			if len(pattern)-p == 1 {
				return true
			}
			for s < len(str) {
				if matchImpl(pattern[p+1:], str[s:], nocase, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				s++
			}
			// The rest of the pattern matched nowhere in the rest of the
			// string, so no earlier '*' can help by consuming more: a
			// longer match there would leave a suffix of this same
			// string to the same rest of the pattern.
			*skipLonger = true
			return false
		case '?':
			s++
		case '[':
			p++
			not := patAt(pattern, p) == '^'
			if not {
				p++
			}
			match := false
			for {
				if patAt(pattern, p) == '\\' && len(pattern)-p >= 2 {
					p++
					if pattern[p] == str[s] {
						match = true
					}
				} else if patAt(pattern, p) == ']' {
					break
				} else if p == len(pattern) {
					p--
					break
				} else if len(pattern)-p >= 3 && pattern[p+1] == '-' {
					start := int(int8(pattern[p]))
					end := int(int8(pattern[p+2]))
					c := int(int8(str[s]))
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					p += 2
					if c >= start && c <= end {
						match = true
					}
				} else if !nocase {
					if pattern[p] == str[s] {
						match = true
					}
				} else if lower(int(pattern[p])) == lower(int(str[s])) {
					match = true
				}
				p++
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s++
		case '\\':
			if len(pattern)-p >= 2 {
				p++
			}
			if !matchByte(pattern[p], str[s], nocase) {
				return false
			}
			s++
		default:
			if !matchByte(pattern[p], str[s], nocase) {
				return false
			}
			s++
		}
		p++
		if s == len(str) {
			for patAt(pattern, p) == '*' {
				p++
			}
			break
		}
	}
	return p == len(pattern) && s == len(str)
}

func matchByte(pc, sc byte, nocase bool) bool {
	if !nocase {
		return pc == sc
	}
	return lower(int(pc)) == lower(int(sc))
}
