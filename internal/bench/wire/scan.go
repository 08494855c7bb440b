package wire

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Kind classifies a reply for the statistics: hits and misses, errors, and
// cluster redirections.
type Kind uint8

// Reply kinds.
const (
	KindOK    Kind = iota // any non-nil, non-error reply
	KindNil               // $-1, *-1 or RESP3 null: a miss for GET-like commands
	KindError             // -ERR ... or !n bulk error
	KindMoved             // -MOVED slot host:port
	KindAsk               // -ASK slot host:port
)

// ErrProtocol means the server sent bytes that are not RESP.
var ErrProtocol = errors.New("resp: protocol error")

const maxDepth = 64

// Scan measures the first complete reply in buf. It returns its length in
// bytes (0 when buf holds only part of a reply), its kind, and for an error
// reply the message without the leading '-' (a slice of buf).
func Scan(buf []byte) (n int, kind Kind, msg []byte, err error) {
	return scan(buf, 0)
}

func scan(buf []byte, depth int) (int, Kind, []byte, error) {
	if depth > maxDepth {
		return 0, 0, nil, fmt.Errorf("%w: nesting deeper than %d", ErrProtocol, maxDepth)
	}
	if len(buf) == 0 {
		return 0, 0, nil, nil
	}
	eol := bytes.IndexByte(buf, '\n')
	if eol < 0 {
		return 0, 0, nil, nil
	}
	if eol < 2 || buf[eol-1] != '\r' {
		return 0, 0, nil, fmt.Errorf("%w: line without CRLF", ErrProtocol)
	}
	line := buf[1 : eol-1]
	head := eol + 1
	switch buf[0] {
	case '+', ':', ',', '#', '(':
		return head, KindOK, nil, nil
	case '_':
		return head, KindNil, nil, nil
	case '-':
		k := KindError
		if bytes.HasPrefix(line, []byte("MOVED ")) {
			k = KindMoved
		} else if bytes.HasPrefix(line, []byte("ASK ")) {
			k = KindAsk
		}
		return head, k, line, nil
	case '$', '!', '=':
		l, ok := Atoi(line)
		if !ok {
			return 0, 0, nil, fmt.Errorf("%w: bad bulk length %q", ErrProtocol, line)
		}
		if l < 0 {
			return head, KindNil, nil, nil
		}
		end := head + l + 2
		if len(buf) < end {
			return 0, 0, nil, nil
		}
		if buf[0] == '!' {
			return end, KindError, buf[head : head+l], nil
		}
		return end, KindOK, nil, nil
	case '*', '~', '>', '%', '|':
		cnt, ok := Atoi(line)
		if !ok {
			return 0, 0, nil, fmt.Errorf("%w: bad aggregate length %q", ErrProtocol, line)
		}
		if cnt < 0 {
			return head, KindNil, nil, nil
		}
		if buf[0] == '%' || buf[0] == '|' {
			cnt *= 2
		}
		off := head
		for i := 0; i < cnt; i++ {
			m, _, _, err := scan(buf[off:], depth+1)
			if err != nil || m == 0 {
				return 0, 0, nil, err
			}
			off += m
		}
		if buf[0] == '|' {
			// An attribute precedes the real reply.
			m, k, msg, err := scan(buf[off:], depth+1)
			if err != nil || m == 0 {
				return 0, 0, nil, err
			}
			return off + m, k, msg, nil
		}
		return off, KindOK, nil, nil
	}
	return 0, 0, nil, fmt.Errorf("%w: unexpected type byte %q", ErrProtocol, buf[0])
}

// Atoi parses a signed decimal of at most 18 digits without allocating.
func Atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	neg := false
	if b[0] == '-' {
		neg, b = true, b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Redirect parses "MOVED 3999 127.0.0.1:6381" or "ASK ..." messages.
func Redirect(msg []byte) (slot int, addr string, ok bool) {
	f := bytes.Fields(msg)
	if len(f) != 3 {
		return 0, "", false
	}
	s, err := strconv.Atoi(string(f[1]))
	if err != nil || s < 0 || s >= 16384 {
		return 0, "", false
	}
	return s, string(f[2]), true
}
