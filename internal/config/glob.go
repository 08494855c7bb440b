package config

// globMatch is a port of Valkey's stringmatchlen (util.c), which CONFIG GET
// uses case-insensitively: '*', '?', '[...]' with '^' negation and a-z
// ranges, and '\' escapes. The skipLonger short-cut keeps patterns such as
// "*a*a*a*...b" linear instead of exponential, exactly as upstream does.
func globMatch(pattern, str string, nocase bool) bool {
	skip := false
	return globImpl(pattern, str, nocase, &skip, 0)
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func globImpl(pat, str string, nocase bool, skipLonger *bool, nesting int) bool {
	if nesting > 1000 {
		return false
	}
	// p and s index pat and str; reading past the end yields 0 like a C string.
	at := func(b string, i int) byte {
		if i >= 0 && i < len(b) {
			return b[i]
		}
		return 0
	}
	p, s := 0, 0
	for p < len(pat) && s < len(str) {
		switch pat[p] {
		case '*':
			for p < len(pat) && at(pat, p+1) == '*' {
				p++
			}
			if p == len(pat)-1 {
				return true
			}
			for s < len(str) {
				if globImpl(pat[p+1:], str[s:], nocase, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				s++
			}
			*skipLonger = true
			return false
		case '?':
			s++
		case '[':
			p++
			not := at(pat, p) == '^'
			if not {
				p++
			}
			match := false
			for {
				switch {
				case at(pat, p) == '\\' && len(pat)-p >= 2:
					p++
					if pat[p] == str[s] {
						match = true
					}
				case at(pat, p) == ']' && p < len(pat):
					goto closed
				case p >= len(pat):
					p--
					goto closed
				case len(pat)-p >= 3 && pat[p+1] == '-':
					start, end, c := pat[p], pat[p+2], str[s]
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lowerByte(start), lowerByte(end), lowerByte(c)
					}
					p += 2
					if c >= start && c <= end {
						match = true
					}
				default:
					if !nocase {
						if pat[p] == str[s] {
							match = true
						}
					} else if lowerByte(pat[p]) == lowerByte(str[s]) {
						match = true
					}
				}
				p++
			}
		closed:
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s++
		case '\\':
			if len(pat)-p >= 2 {
				p++
			}
			fallthrough
		default:
			if !nocase {
				if pat[p] != str[s] {
					return false
				}
			} else if lowerByte(pat[p]) != lowerByte(str[s]) {
				return false
			}
			s++
		}
		p++
		if s == len(str) {
			for p < len(pat) && pat[p] == '*' {
				p++
			}
			break
		}
	}
	return p >= len(pat) && s == len(str)
}
