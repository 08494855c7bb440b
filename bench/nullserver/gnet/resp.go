package main

import "bytes"

// reply appends one reply per complete command in buf and returns the
// number of bytes consumed. It understands just enough RESP to frame
// multibulk and inline requests; a malformed request is framed as best it
// can be (this is a measuring tool, not a server).
func reply(buf []byte, out []byte) (int, []byte) {
	used := 0
	for {
		n, isGet, ok := oneCommand(buf[used:])
		if !ok {
			return used, out
		}
		used += n
		if isGet {
			out = append(out, "$3\r\nbar\r\n"...)
		} else {
			out = append(out, "+OK\r\n"...)
		}
	}
}

// oneCommand frames the first request in b: its length, whether it is a
// GET, and whether it is complete.
func oneCommand(b []byte) (n int, isGet bool, ok bool) {
	if len(b) == 0 {
		return 0, false, false
	}
	i := bytes.IndexByte(b, '\n')
	if i < 1 {
		return 0, false, false
	}
	if b[0] != '*' {
		return i + 1, false, true
	}
	argc := atoi(b[1 : i-1])
	p := i + 1
	for a := 0; a < argc; a++ {
		j := bytes.IndexByte(b[p:], '\n')
		if j < 1 {
			return 0, false, false
		}
		l := atoi(b[p+1 : p+j-1])
		start := p + j + 1
		end := start + l + 2
		if end > len(b) {
			return 0, false, false
		}
		if a == 0 && l == 3 && (b[start]|0x20) == 'g' {
			isGet = true
		}
		p = end
	}
	return p, isGet, true
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

// connBuf is one connection's reply buffer (gnet owns the input buffer).
type connBuf struct {
	out []byte
}
