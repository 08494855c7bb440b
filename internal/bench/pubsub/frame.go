package pubsub

import (
	"bytes"
	"fmt"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// frameKind classifies what a subscriber reads.
type frameKind uint8

const (
	frameOther      frameKind = iota // anything else (PONG, an unsubscribe confirmation)
	frameMessage                     // message, pmessage or smessage: payload is the last element
	frameSubscribed                  // subscribe, psubscribe or ssubscribe confirmation
	frameError                       // an error reply: payload is its text
)

// frame is one parsed frame. payload points into the read buffer and is
// valid until the buffer is refilled.
type frame struct {
	kind    frameKind
	payload []byte
}

// parseFrame measures and classifies the first frame in buf: a RESP2 array
// or a RESP3 push of bulk strings and integers (the shape of every pub/sub
// message and confirmation), or an error. It returns n = 0 when buf holds
// only part of a frame. It never allocates.
func parseFrame(buf []byte) (n int, f frame, err error) {
	if len(buf) == 0 {
		return 0, frame{}, nil
	}
	switch buf[0] {
	case '*', '>':
	case '-':
		line, next, ok := readLine(buf, 0)
		if !ok {
			return 0, frame{}, nil
		}
		return next, frame{kind: frameError, payload: line[1:]}, nil
	default:
		n, _, _, err = wire.Scan(buf)
		return n, frame{}, err
	}
	line, off, ok := readLine(buf, 0)
	if !ok {
		return 0, frame{}, nil
	}
	cnt, ok := wire.Atoi(line[1:])
	if !ok {
		return 0, frame{}, fmt.Errorf("%w: bad aggregate length %q", wire.ErrProtocol, line)
	}
	var first, last []byte
	for i := 0; i < cnt; i++ {
		if off >= len(buf) {
			return 0, frame{}, nil
		}
		var elem []byte
		switch buf[off] {
		case '$':
			hdr, next, ok := readLine(buf, off)
			if !ok {
				return 0, frame{}, nil
			}
			l, ok := wire.Atoi(hdr[1:])
			if !ok || l < 0 {
				return 0, frame{}, fmt.Errorf("%w: bad bulk length %q", wire.ErrProtocol, hdr)
			}
			if len(buf) < next+l+2 {
				return 0, frame{}, nil
			}
			elem = buf[next : next+l]
			off = next + l + 2
		default: // an integer (a confirmation's count) or anything else
			m, _, _, err := wire.Scan(buf[off:])
			if err != nil || m == 0 {
				return 0, frame{}, err
			}
			elem = nil
			off += m
		}
		if i == 0 {
			first = elem
		}
		last = elem
	}
	switch string(first) {
	case "message", "pmessage", "smessage":
		if cnt < 3 {
			return off, frame{}, nil
		}
		return off, frame{kind: frameMessage, payload: last}, nil
	case "subscribe", "psubscribe", "ssubscribe":
		return off, frame{kind: frameSubscribed}, nil
	}
	return off, frame{}, nil
}

// parseInt reads one integer reply (PUBLISH's receivers). An error reply
// comes back as errMsg; n = 0 when buf holds only part of the reply.
func parseInt(buf []byte) (n int, v int64, errMsg []byte, err error) {
	line, next, ok := readLine(buf, 0)
	if !ok {
		return 0, 0, nil, nil
	}
	if len(line) == 0 {
		return 0, 0, nil, fmt.Errorf("%w: empty line where PUBLISH's reply was due", wire.ErrProtocol)
	}
	switch line[0] {
	case ':':
		x, ok := wire.Atoi(line[1:])
		if !ok {
			return 0, 0, nil, fmt.Errorf("%w: bad integer %q", wire.ErrProtocol, line)
		}
		return next, int64(x), nil, nil
	case '-':
		return next, 0, line[1:], nil
	}
	return 0, 0, nil, fmt.Errorf("%w: PUBLISH answered %q", wire.ErrProtocol, line)
}

// readLine returns the line starting at off without its CRLF, and the
// offset after it; ok is false when the line is not complete.
func readLine(buf []byte, off int) (line []byte, next int, ok bool) {
	i := bytes.IndexByte(buf[off:], '\n')
	if i < 0 {
		return nil, 0, false
	}
	end := off + i
	if end > off && buf[end-1] == '\r' {
		return buf[off : end-1], end + 1, true
	}
	return buf[off:end], end + 1, true
}
