package lualib

import (
	"math"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// cjson.decode: lua_cjson's tokenizer and recursive descent parser, with
// its error texts ("Expected <what> but found <token> at character <n>").

// jsonToken is a token type; its name is what errors print.
type jsonToken int

const (
	tObjBegin jsonToken = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END",
	"T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

// jsonCharTokens maps a byte to its token, tUnknown for the first byte of a
// string, number or literal (cjson's ch2token).
var jsonCharTokens = func() (t [256]jsonToken) {
	for i := range t {
		t[i] = tError
	}
	t['{'], t['}'], t['['], t[']'] = tObjBegin, tObjEnd, tArrBegin, tArrEnd
	t[','], t[':'], t[0] = tComma, tColon, tEnd
	t[' '], t['\t'], t['\n'], t['\r'] = tWhitespace, tWhitespace, tWhitespace, tWhitespace
	for _, c := range "fiInNt\"+-0123456789" {
		t[c] = tUnknown
	}
	return t
}()

// jsonUnescapes maps the byte after a backslash to the byte it stands for;
// 0 is an invalid escape, 'u' a Unicode escape.
var jsonUnescapes = func() (t [256]byte) {
	t['"'], t['\\'], t['/'] = '"', '\\', '/'
	t['b'], t['t'], t['n'], t['f'], t['r'] = '\b', '\t', '\n', '\f', '\r'
	t['u'] = 'u'
	return t
}()

// token is one token: its type, the 0-based index errors report, and its
// value.
type token struct {
	typ   jsonToken
	index int
	str   string  // tString; the error text for tError
	num   float64 // tNumber
	b     bool    // tBoolean
}

// jsonDecoder is one cjson.decode call over data.
type jsonDecoder struct {
	L     *lua.LState
	lib   *libState
	cfg   *cjsonConfig
	data  string
	pos   int
	depth int
	tmp   []byte
}

// at is the byte at i, 0 past the end: the C parser runs on a NUL-ended
// string.
func (d *jsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

// jsonDecode is cjson.decode(text).
func (lib *libState) jsonDecode(L *lua.LState, cfg *cjsonConfig) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	data := checkString(L, 1)
	if len(data) >= 2 && (data[0] == 0 || data[1] == 0) {
		raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	d := &jsonDecoder{L: L, lib: lib, cfg: cfg, data: data}
	var tok token
	d.next(&tok)
	// The argument holds one stack slot.
	v := d.value(&tok, 1)
	d.next(&tok)
	if tok.typ != tEnd {
		d.fail("the end", &tok)
	}
	L.Push(v)
	return 1
}

// fail raises json_throw_parse_error's message.
func (d *jsonDecoder) fail(expected string, tok *token) {
	found := jsonTokenNames[tok.typ]
	if tok.typ == tError {
		found = tok.str
	}
	raise(d.L, "Expected %s but found %s at character %d", expected, found, tok.index+1)
}

// setError makes tok an error token at the current position.
func (d *jsonDecoder) setError(tok *token, msg string) {
	tok.typ = tError
	tok.index = d.pos
	tok.str = msg
}

// next reads the next token into tok (json_next_token).
func (d *jsonDecoder) next(tok *token) {
	var c byte
	for {
		c = d.at(d.pos)
		tok.typ = jsonCharTokens[c]
		if tok.typ != tWhitespace {
			break
		}
		d.pos++
	}
	tok.index = d.pos
	switch tok.typ {
	case tError:
		d.setError(tok, "invalid token")
		return
	case tEnd:
		return
	case tUnknown:
	default:
		d.pos++
		return
	}
	rest := d.data[d.pos:]
	switch {
	case c == '"':
		d.stringToken(tok)
	case c == '-' || isDigit(c):
		if d.cfg.decodeInvalid == 0 && d.invalidNumber() {
			d.setError(tok, "invalid number")
			return
		}
		d.numberToken(tok)
	case len(rest) >= 4 && rest[:4] == "true":
		tok.typ, tok.b = tBoolean, true
		d.pos += 4
	case len(rest) >= 5 && rest[:5] == "false":
		tok.typ, tok.b = tBoolean, false
		d.pos += 5
	case len(rest) >= 4 && rest[:4] == "null":
		tok.typ = tNull
		d.pos += 4
	case d.cfg.decodeInvalid == 1 && d.invalidNumber():
		// Inf, NaN and hexadecimal numbers: strtod takes them.
		d.numberToken(tok)
	default:
		d.setError(tok, "invalid token")
	}
}

// invalidNumber is json_is_invalid_number: numbers strtod accepts but
// strict JSON does not (a leading '+' or zero, hex, inf, nan).
func (d *jsonDecoder) invalidNumber() bool {
	p := d.pos
	if d.at(p) == '+' {
		return true
	}
	if d.at(p) == '-' {
		p++
	}
	if c := d.at(p); c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || isDigit(c2)
	} else if c <= '9' {
		return false
	}
	rest := d.data[min(p, len(d.data)):]
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

// numberToken converts the number at pos with strtod.
func (d *jsonDecoder) numberToken(tok *token) {
	tok.typ = tNumber
	v, end := strtod(d.data, d.pos)
	if end == d.pos {
		d.setError(tok, "invalid number")
		return
	}
	tok.num = v
	d.pos = end
}

// stringToken reads the string starting at the '"' at pos.
func (d *jsonDecoder) stringToken(tok *token) {
	d.pos++
	d.tmp = d.tmp[:0]
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			d.setError(tok, "unexpected end of string")
			return
		}
		if c == '\\' {
			c = jsonUnescapes[d.at(d.pos+1)]
			if c == 'u' {
				if !d.unicodeEscape() {
					d.setError(tok, "invalid unicode escape code")
					return
				}
				continue
			}
			if c == 0 {
				d.setError(tok, "invalid escape code")
				return
			}
			d.pos++
		}
		d.tmp = append(d.tmp, c)
		d.pos++
	}
	d.pos++
	tok.typ = tString
	tok.str = string(d.tmp)
}

// hex4 decodes the four hex digits at i, -1 if any is not one.
func (d *jsonDecoder) hex4(i int) int {
	v := 0
	for j := 0; j < 4; j++ {
		c := d.at(i + j)
		var n int
		switch {
		case isDigit(c):
			n = int(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			n = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | n
	}
	return v
}

// unicodeEscape appends the UTF-8 of the \uXXXX escape (or surrogate pair
// of escapes) at pos and moves past it; false leaves pos at the backslash.
func (d *jsonDecoder) unicodeEscape() bool {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return false
	}
	n := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 { // a low surrogate first
			return false
		}
		if d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return false
		}
		low := d.hex4(d.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return false
		}
		cp = (cp&0x3FF)<<10 | low&0x3FF + 0x10000
		n = 12
	}
	switch {
	case cp <= 0x7F:
		d.tmp = append(d.tmp, byte(cp))
	case cp <= 0x7FF:
		d.tmp = append(d.tmp, byte(cp>>6)|0xC0, byte(cp&0x3F)|0x80)
	case cp <= 0xFFFF:
		d.tmp = append(d.tmp, byte(cp>>12)|0xE0, byte(cp>>6&0x3F)|0x80, byte(cp&0x3F)|0x80)
	default:
		d.tmp = append(d.tmp, byte(cp>>18)|0xF0, byte(cp>>12&0x3F)|0x80, byte(cp>>6&0x3F)|0x80, byte(cp&0x3F)|0x80)
	}
	d.pos += n
	return true
}

// descend enters an object or array: the depth limit, and the stack
// slots the C parser checks for (slots more on top of used).
func (d *jsonDecoder) descend(used, slots int) {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth || used+slots > maxCStack {
		raise(d.L, "Found too many nested data structures (%d) at character %d", d.depth, d.pos)
	}
}

// value converts the value starting with tok; used is the number of stack
// slots the C parser holds at this point.
func (d *jsonDecoder) value(tok *token, used int) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return d.lib.null
	case tObjBegin:
		return d.object(used)
	case tArrBegin:
		return d.array(used)
	}
	d.fail("value", tok)
	return nil
}

// object parses members up to '}' (the '{' is read).
func (d *jsonDecoder) object(used int) lua.LValue {
	d.descend(used, 3)
	t := d.L.NewTable()
	var tok token
	d.next(&tok)
	if tok.typ == tObjEnd {
		d.depth--
		return t
	}
	for {
		if tok.typ != tString {
			d.fail("object key string", &tok)
		}
		key := tok.str
		d.next(&tok)
		if tok.typ != tColon {
			d.fail("colon", &tok)
		}
		d.next(&tok)
		// The table and the key sit on the stack under the value.
		v := d.value(&tok, used+2)
		t.RawSetString(key, v)
		d.next(&tok)
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or object end", &tok)
		}
		d.next(&tok)
	}
}

// array parses elements up to ']' (the '[' is read).
func (d *jsonDecoder) array(used int) lua.LValue {
	d.descend(used, 2)
	t := d.L.NewTable()
	var tok token
	d.next(&tok)
	if tok.typ == tArrEnd {
		d.depth--
		return t
	}
	for i := 1; ; i++ {
		t.RawSetInt(i, d.value(&tok, used+1))
		d.next(&tok)
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or array end", &tok)
		}
		d.next(&tok)
	}
}

// isNaNKey reports whether v is a NaN number (not a valid table key).
func isNaNKey(v lua.LValue) bool {
	n, ok := v.(lua.LNumber)
	return ok && math.IsNaN(float64(n))
}
