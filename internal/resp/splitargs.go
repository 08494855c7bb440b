package resp

import "bytes"

// SplitArgs splits a line into arguments like Valkey's sdssplitargs: spaces
// separate arguments, "double quotes" support \n \r \t \b \a \\ \" and \xHH
// escapes, 'single quotes' support \'. A closing quote must be followed by a
// space or the end. ok is false on unbalanced quotes. Quoted arguments are
// decoded in place, so the returned slices alias line.
//
// As in C, where the line is a NUL-terminated string, the line ends at its
// first NUL byte. Blanks between arguments are C's isspace (space, \t \n \v
// \f \r), but only space, \t, \n and \r end an unquoted argument: "a\vb" is
// one argument.
func SplitArgs(dst [][]byte, line []byte) (argv [][]byte, ok bool) {
	if z := bytes.IndexByte(line, 0); z >= 0 {
		line = line[:z]
	}
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return dst, true
		}
		start := i
		out := i // write position for decoded bytes
		inDQ, inSQ := false, false
		for {
			if inDQ {
				if i >= len(line) {
					return dst, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					line[out] = unhex(line[i+2])<<4 | unhex(line[i+3])
					i += 4
					out++
					continue
				case c == '\\' && i+1 < len(line):
					i++
					switch line[i] {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					default:
						c = line[i]
					}
				case c == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return dst, false
					}
					i++
					goto done
				}
				line[out] = c
				out++
				i++
			} else if inSQ {
				if i >= len(line) {
					return dst, false
				}
				c := line[i]
				if c == '\\' && i+1 < len(line) && line[i+1] == '\'' {
					i++
					c = '\''
				} else if c == '\'' {
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return dst, false
					}
					i++
					goto done
				}
				line[out] = c
				out++
				i++
			} else {
				if i >= len(line) {
					goto done
				}
				c := line[i]
				switch {
				case c == ' ' || c == '\n' || c == '\r' || c == '\t':
					goto done
				case c == '"':
					inDQ = true
				case c == '\'':
					inSQ = true
				default:
					line[out] = c
					out++
				}
				i++
			}
		}
	done:
		dst = append(dst, line[start:out:out])
	}
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
