package wire

import (
	"strconv"
	"strings"
)

// Value is a decoded reply for the control path.
type Value struct {
	Type  byte // the RESP type byte: + - : $ * _ , # ( ! = % ~ >
	Str   string
	Int   int64
	Nil   bool
	Elems []Value // arrays, sets, pushes; maps as key, value, key, value...
}

// Err returns the error a '-' or '!' reply carries, else nil.
func (v Value) Err() error {
	if v.Type == '-' || v.Type == '!' {
		return &ServerError{Msg: v.Str}
	}
	return nil
}

// Text renders the value for messages.
func (v Value) Text() string {
	switch {
	case v.Nil:
		return "(nil)"
	case v.Type == ':':
		return strconv.FormatInt(v.Int, 10)
	case len(v.Elems) > 0:
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = e.Text()
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return v.Str
}

// ServerError is an error reply.
type ServerError struct{ Msg string }

func (e *ServerError) Error() string { return e.Msg }

// Parse decodes the first complete reply in buf; n is 0 if it is incomplete.
func Parse(buf []byte) (v Value, n int, err error) {
	n, _, _, err = Scan(buf)
	if err != nil || n == 0 {
		return Value{}, n, err
	}
	v, _ = decode(buf[:n])
	return v, n, nil
}

// decode assumes buf holds a complete, valid reply (Scan checked it).
func decode(buf []byte) (Value, int) {
	eol := 0
	for buf[eol] != '\n' {
		eol++
	}
	line := string(buf[1 : eol-1])
	head := eol + 1
	v := Value{Type: buf[0]}
	switch buf[0] {
	case '+', '-', ',', '(':
		v.Str = line
	case '#':
		v.Str = line
		if line == "t" {
			v.Int = 1
		}
	case ':':
		v.Int, _ = strconv.ParseInt(line, 10, 64)
		v.Str = line
	case '_':
		v.Nil = true
	case '$', '!', '=':
		l, _ := strconv.Atoi(line)
		if l < 0 {
			v.Nil = true
			return v, head
		}
		v.Str = string(buf[head : head+l])
		return v, head + l + 2
	case '*', '~', '>', '%', '|':
		cnt, _ := strconv.Atoi(line)
		if cnt < 0 {
			v.Nil = true
			return v, head
		}
		if buf[0] == '%' || buf[0] == '|' {
			cnt *= 2
		}
		off := head
		for i := 0; i < cnt; i++ {
			e, m := decode(buf[off:])
			v.Elems = append(v.Elems, e)
			off += m
		}
		if buf[0] == '|' {
			real, m := decode(buf[off:])
			return real, off + m
		}
		return v, off
	default: // unreachable after Scan; keep the line rather than panic
		v.Str = line
	}
	return v, head
}
