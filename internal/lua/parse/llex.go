package parse

import (
	"io"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/lua/num"
)

// The lexer of Lua 5.1 (llex.c), byte for byte: the tokens it reads, the
// errors it raises and the text those errors quote are Lua 5.1's, in the C
// locale (Valkey does not set LC_CTYPE), with LUA_COMPAT_LSTR 1 (a nested
// "[[" inside a [[long string]] is an error).

// Tokens: a single-byte token is its byte; the others follow (llex.h's
// RESERVED, in its order).
const firstReserved = 257

const (
	tkAnd = firstReserved + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	// other terminal symbols
	tkConcat
	tkDots
	tkEq
	tkGE
	tkLE
	tkNE
	tkNumber
	tkName
	tkString
	tkEOS
)

// numReserved is the number of reserved words (tkAnd..tkWhile).
const numReserved = tkWhile - firstReserved + 1

// tokenNames is luaX_tokens.
var tokenNames = [...]string{
	"and", "break", "do", "else", "elseif",
	"end", "false", "for", "function", "if",
	"in", "local", "nil", "not", "or", "repeat",
	"return", "then", "true", "until", "while",
	"..", "...", "==", ">=", "<=", "~=",
	"<number>", "<name>", "<string>", "<eof>",
}

var reserved = func() map[string]int {
	m := make(map[string]int, numReserved)
	for i := 0; i < numReserved; i++ {
		m[tokenNames[i]] = firstReserved + i
	}
	return m
}()

// eoz is the end of the input (EOZ).
const eoz = -1

// maxSrc is llex.c's MAXSRC: syntax errors quote the chunk's name in up to
// 80 bytes (runtime errors in LUA_IDSIZE, 60).
const maxSrc = 80

// IDSize is LUA_IDSIZE, the room runtime errors give a chunk's name.
const IDSize = 60

// token is a token and its semantic value: a name's or a string's text,
// a number's source text.
type token struct {
	tok int
	sem string
}

// lexState is LexState.
type lexState struct {
	src        string
	pos        int       // the index of the byte after current
	reader     io.Reader // where more of src comes from, nil when none
	rbuf       []byte
	current    int // the current byte, or eoz
	linenumber int
	lastline   int // the line of the last token consumed
	t          token
	lookahead  token // tok is tkEOS when there is none
	buf        []byte
	source     string // the chunk's name, as given
	nCcalls    int    // the parser's nesting (L->nCcalls)
}

// Error is a syntax error, worded as Lua 5.1 words it
// ("chunk:line: message near 'token'").
type Error struct {
	Line    int
	Message string // the whole text
}

func (e *Error) Error() string { return e.Message }

func (ls *lexState) init(src, source string) {
	ls.src = src
	ls.source = source
	ls.lookahead.tok = tkEOS
	ls.linenumber = 1
	ls.lastline = 1
	ls.next()
}

func (ls *lexState) next() {
	if ls.pos >= len(ls.src) && !ls.fill() {
		ls.current = eoz
		return
	}
	ls.current = int(ls.src[ls.pos])
	ls.pos++
}

// fill reads the next piece of the chunk from the reader, as luaZ_fill
// does (Lua reads a chunk as it parses it: load's reader function is
// called for each piece); false at its end.
func (ls *lexState) fill() bool {
	if ls.reader == nil {
		return false
	}
	if ls.rbuf == nil {
		ls.rbuf = make([]byte, 4096)
	}
	for {
		n, err := ls.reader.Read(ls.rbuf)
		if n > 0 {
			ls.src, ls.pos = string(ls.rbuf[:n]), 0
			return true
		}
		if err != nil {
			if err != io.EOF {
				panic(readError{err})
			}
			ls.reader = nil
			return false
		}
	}
}

// readError carries a reader's error out of the parser.
type readError struct{ err error }

func (ls *lexState) currIsNewline() bool { return ls.current == '\n' || ls.current == '\r' }

func (ls *lexState) save(c int) { ls.buf = append(ls.buf, byte(c)) }

func (ls *lexState) saveAndNext() {
	ls.save(ls.current)
	ls.next()
}

// token2str is luaX_token2str.
func token2str(tok int) string {
	if tok < firstReserved {
		if isCntrl(tok) {
			return "char(" + strconv.Itoa(tok) + ")"
		}
		return string([]byte{byte(tok)})
	}
	return tokenNames[tok-firstReserved]
}

// txtToken is what an error quotes for tok: a name's, a string's or a
// number's text as read (the buffer holds the last token read, up to a
// NUL as C reads it), or the token's name.
func (ls *lexState) txtToken(tok int) string {
	switch tok {
	case tkName, tkString, tkNumber:
		return cString(string(ls.buf))
	default:
		return token2str(tok)
	}
}

// lexError is luaX_lexerror: it raises msg at the current line, near tok
// (no token for 0).
func (ls *lexState) lexError(msg string, tok int) {
	msg = ChunkID(ls.source, maxSrc) + ":" + strconv.Itoa(ls.linenumber) + ": " + msg
	if tok != 0 {
		msg += " near '" + ls.txtToken(tok) + "'"
	}
	panic(&Error{Line: ls.linenumber, Message: msg})
}

// syntaxError is luaX_syntaxerror: near the current token.
func (ls *lexState) syntaxError(msg string) { ls.lexError(msg, ls.t.tok) }

func (ls *lexState) inclinenumber() {
	old := ls.current
	ls.next() // skip '\n' or '\r'
	if ls.currIsNewline() && ls.current != old {
		ls.next() // skip "\n\r" or "\r\n"
	}
	ls.linenumber++
}

func (ls *lexState) checkNext(set string) bool {
	if ls.current == eoz || !strings.ContainsRune(set, rune(ls.current)) {
		return false
	}
	ls.saveAndNext()
	return true
}

// readNumeral reads a number as Lua 5.1 does: digits and dots, an
// exponent's sign, then any letters, digits and underscores, and the
// whole must be a number to strtod ("0x10" is, "3..2" and "1e" are not).
func (ls *lexState) readNumeral(seminfo *token) {
	for {
		ls.saveAndNext()
		if !isDigit(ls.current) && ls.current != '.' {
			break
		}
	}
	if ls.checkNext("Ee") {
		ls.checkNext("+-")
	}
	for isAlnum(ls.current) || ls.current == '_' {
		ls.saveAndNext()
	}
	if _, ok := num.Str2Number(string(ls.buf)); !ok {
		ls.lexError("malformed number", tkNumber)
	}
	seminfo.sem = string(ls.buf)
}

// skipSep reads "[=*[" or "]=*]": the number of '=' when the bracket is
// repeated, else -(count)-1.
func (ls *lexState) skipSep() int {
	count := 0
	s := ls.current
	ls.saveAndNext()
	for ls.current == '=' {
		ls.saveAndNext()
		count++
	}
	if ls.current == s {
		return count
	}
	return -count - 1
}

// readLongString reads a long string (seminfo != nil) or a long comment.
func (ls *lexState) readLongString(seminfo *token, sep int) {
	ls.saveAndNext() // skip the second '['
	if ls.currIsNewline() {
		ls.inclinenumber() // a string starting with a newline skips it
	}
loop:
	for {
		switch ls.current {
		case eoz:
			if seminfo != nil {
				ls.lexError("unfinished long string", tkEOS)
			}
			ls.lexError("unfinished long comment", tkEOS)
		case '[':
			if ls.skipSep() == sep {
				ls.saveAndNext() // skip the second '['
				if sep == 0 {
					ls.lexError("nesting of [[...]] is deprecated", '[')
				}
			}
		case ']':
			if ls.skipSep() == sep {
				ls.saveAndNext() // skip the second ']'
				break loop
			}
		case '\n', '\r':
			ls.save('\n')
			ls.inclinenumber()
			if seminfo == nil {
				ls.buf = ls.buf[:0]
			}
		default:
			if seminfo != nil {
				ls.saveAndNext()
			} else {
				ls.next()
			}
		}
	}
	if seminfo != nil {
		seminfo.sem = string(ls.buf[2+sep : len(ls.buf)-(2+sep)])
	}
}

// readString reads a quoted string with Lua 5.1's escapes (\a \b \f \n \r
// \t \v, \ddd in decimal, a backslash before a newline, any other
// character as itself).
func (ls *lexState) readString(del int, seminfo *token) {
	ls.saveAndNext()
	for ls.current != del {
		switch ls.current {
		case eoz:
			ls.lexError("unfinished string", tkEOS)
		case '\n', '\r':
			ls.lexError("unfinished string", tkString)
		case '\\':
			var c int
			ls.next() // the backslash is not saved
			switch ls.current {
			case 'a':
				c = '\a'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			case '\n', '\r':
				ls.save('\n')
				ls.inclinenumber()
				continue
			case eoz:
				continue // the error comes next round
			default:
				if !isDigit(ls.current) {
					ls.saveAndNext() // \\, \", \', \? and the others
				} else {
					c = 0
					for i := 0; ; {
						c = 10*c + (ls.current - '0')
						ls.next()
						i++
						if i >= 3 || !isDigit(ls.current) {
							break
						}
					}
					if c > 255 {
						ls.lexError("escape sequence too large", tkString)
					}
					ls.save(c)
				}
				continue
			}
			ls.save(c)
			ls.next()
		default:
			ls.saveAndNext()
		}
	}
	ls.saveAndNext() // the closing delimiter
	seminfo.sem = string(ls.buf[1 : len(ls.buf)-1])
}

// llex reads the next token.
func (ls *lexState) llex(seminfo *token) int {
	ls.buf = ls.buf[:0]
	for {
		switch ls.current {
		case '\n', '\r':
			ls.inclinenumber()
			continue
		case '-':
			ls.next()
			if ls.current != '-' {
				return '-'
			}
			// a comment
			ls.next()
			if ls.current == '[' {
				sep := ls.skipSep()
				ls.buf = ls.buf[:0]
				if sep >= 0 {
					ls.readLongString(nil, sep)
					ls.buf = ls.buf[:0]
					continue
				}
			}
			for !ls.currIsNewline() && ls.current != eoz {
				ls.next()
			}
			continue
		case '[':
			sep := ls.skipSep()
			if sep >= 0 {
				ls.readLongString(seminfo, sep)
				return tkString
			} else if sep == -1 {
				return '['
			}
			ls.lexError("invalid long string delimiter", tkString)
		case '=':
			ls.next()
			if ls.current != '=' {
				return '='
			}
			ls.next()
			return tkEq
		case '<':
			ls.next()
			if ls.current != '=' {
				return '<'
			}
			ls.next()
			return tkLE
		case '>':
			ls.next()
			if ls.current != '=' {
				return '>'
			}
			ls.next()
			return tkGE
		case '~':
			ls.next()
			if ls.current != '=' {
				return '~'
			}
			ls.next()
			return tkNE
		case '"', '\'':
			ls.readString(ls.current, seminfo)
			return tkString
		case '.':
			ls.saveAndNext()
			if ls.checkNext(".") {
				if ls.checkNext(".") {
					return tkDots
				}
				return tkConcat
			} else if !isDigit(ls.current) {
				return '.'
			}
			ls.readNumeral(seminfo)
			return tkNumber
		case eoz:
			return tkEOS
		default:
			switch {
			case isSpace(ls.current):
				ls.next()
				continue
			case isDigit(ls.current):
				ls.readNumeral(seminfo)
				return tkNumber
			case isAlpha(ls.current) || ls.current == '_':
				for {
					ls.saveAndNext()
					if !isAlnum(ls.current) && ls.current != '_' {
						break
					}
				}
				if tok, ok := reserved[string(ls.buf)]; ok {
					return tok
				}
				seminfo.sem = string(ls.buf)
				return tkName
			default:
				c := ls.current
				ls.next()
				return c // a single-byte token
			}
		}
	}
}

// luaXNext is luaX_next.
func (ls *lexState) luaXNext() {
	ls.lastline = ls.linenumber
	if ls.lookahead.tok != tkEOS {
		ls.t = ls.lookahead
		ls.lookahead.tok = tkEOS
	} else {
		ls.t.sem = ""
		ls.t.tok = ls.llex(&ls.t)
	}
}

// luaXLookahead is luaX_lookahead.
func (ls *lexState) luaXLookahead() {
	ls.lookahead.sem = ""
	ls.lookahead.tok = ls.llex(&ls.lookahead)
}

// ChunkID is luaO_chunkid: how messages name a chunk whose name is
// source, in at most bufflen-1 bytes. "=name" is name, "@file" is the
// file (its last part if long), and any other source is the chunk's
// text, `[string "first line..."]`. Like C, it reads source up to a NUL.
func ChunkID(source string, bufflen int) string {
	source = cString(source)
	switch {
	case strings.HasPrefix(source, "="):
		s := source[1:]
		if len(s) > bufflen-1 {
			s = s[:bufflen-1]
		}
		return s
	case strings.HasPrefix(source, "@"):
		s := source[1:]
		bufflen -= len(" '...' ") + 1
		if len(s) > bufflen {
			return "..." + s[len(s)-bufflen:]
		}
		return s
	default:
		l := strings.IndexAny(source, "\n\r")
		if l < 0 {
			l = len(source)
		}
		bufflen -= len(` [string "..."] `) + 1
		if l > bufflen {
			l = bufflen
		}
		if l < len(source) {
			return `[string "` + source[:l] + `..."]`
		}
		return `[string "` + source + `"]`
	}
}

// cString is s as C reads it: up to its first NUL byte.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// The C locale's character classes.

func isDigit(c int) bool { return c >= '0' && c <= '9' }
func isAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c int) bool { return isAlpha(c) || isDigit(c) }
func isSpace(c int) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func isCntrl(c int) bool { return c >= 0 && c < 32 || c == 127 }
