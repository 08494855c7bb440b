package ds

// LZF as liblzf 3.6 in Valkey's src/lzf_c.c and lzf_d.c, built with
// Valkey's lzfP.h settings: HLOG 16, VERY_FAST, hash slots holding offsets
// from the input start. The compressor is a transcription, so that for the
// same input it chooses the same matches (with a hash table starting
// empty; Valkey's starts with whatever is on its stack, which can only
// make it find other, equally valid, matches). The RDB writer compresses
// strings with it (rdbcompression) and the quicklist its interior nodes
// (list-compress-depth, quicklist_compress.go).

const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
	// LZFMaxRatio bounds decompressed/compressed size: a 3-byte back
	// reference expands to at most 264 bytes.
	LZFMaxRatio = 88
)

func lzfIdx(h uint32) uint32 { return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1) }

// LZFTable is the compressor's hash table (256 KiB), reused across calls
// without clearing it: a slot holds base+pos+1 for input position pos of
// the call that started at base, so slots from earlier calls (at most
// base) read as empty, exactly like the zeroed table of a fresh call.
type LZFTable struct {
	h    [lzfHSize]uint32
	base uint32
}

// start prepares the table for an input of n bytes.
func (t *LZFTable) start(n int) {
	if uint64(t.base)+uint64(n)+2 > 1<<32-1 {
		t.h = [lzfHSize]uint32{}
		t.base = 0
	}
}

// get returns the position stored for a slot, or 0 (no match possible:
// liblzf requires ref > in_data).
func (t *LZFTable) get(i uint32) int {
	if v := t.h[i]; v > t.base {
		return int(v - t.base - 1)
	}
	return 0
}

func (t *LZFTable) set(i uint32, pos int) { t.h[i] = t.base + uint32(pos) + 1 }

// LZFCompress compresses in into at most outLen bytes and returns them
// (in out's storage if it is large enough), or nil if the result would
// not fit (lzf_compress returning 0).
func LZFCompress(in []byte, outLen int, htab *LZFTable, out []byte) []byte {
	inLen := len(in)
	if inLen < 2 || outLen <= 0 {
		// FRST reads two bytes; liblzf would read past a 1-byte input.
		// Valkey never compresses fewer than 21 bytes.
		return nil
	}
	htab.start(inLen)
	defer func() { htab.base += uint32(inLen) + 1 }()
	if cap(out) < outLen+8 {
		out = make([]byte, outLen+8) // slack: the checks below keep the result within outLen
	}
	out = out[:outLen+8]
	ip, op, lit := 0, 1, 0 // op++: start run
	outEnd := outLen
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < inLen-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := lzfIdx(hval)
		ref := htab.get(slot)
		htab.set(slot, ip)
		off := ip - ref - 1
		if ref < ip && off < lzfMaxOff && ref > 0 &&
			in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			l := 2
			maxlen := inLen - ip - l
			if maxlen > lzfMaxRef {
				maxlen = lzfMaxRef
			}
			if op+3+1 >= outEnd {
				if op-b2i(lit == 0)+3+1 >= outEnd {
					return nil
				}
			}
			out[op-lit-1] = byte(lit - 1) // stop run
			op -= b2i(lit == 0)           // undo run if length is zero
			done := false
			if maxlen > 16 {
				for range 16 {
					l++
					if in[ref+l] != in[ip+l] {
						done = true
						break
					}
				}
			}
			if !done {
				for {
					l++
					if !(l < maxlen && in[ref+l] == in[ip+l]) {
						break
					}
				}
			}
			l -= 2 // l is now #octets - 1
			ip++
			if l < 7 {
				out[op] = byte(off>>8) + byte(l<<5)
				op++
			} else {
				out[op] = byte(off>>8) + 7<<5
				out[op+1] = byte(l - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += l + 1
			if ip >= inLen-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			htab.set(lzfIdx(hval), ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab.set(lzfIdx(hval), ip)
			ip++
		} else {
			if op >= outEnd {
				return nil
			}
			lit++
			out[op] = in[ip]
			op++
			ip++
			if lit == lzfMaxLit {
				out[op-lit-1] = byte(lit - 1)
				lit = 0
				op++
			}
		}
	}
	if op+3 > outEnd {
		return nil
	}
	for ip < inLen {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	op -= b2i(lit == 0)
	if op > outLen {
		return nil
	}
	return out[:op]
}

// LZFDecompress expands in into exactly n bytes; ok is false if the input
// is malformed or does not expand to exactly n bytes.
func LZFDecompress(in []byte, n int) (out []byte, ok bool) {
	out = make([]byte, n)
	if !lzfDecompressTo(out, in) {
		return nil, false
	}
	return out, true
}

// lzfDecompressTo expands in into out, which it must fill exactly.
func lzfDecompressTo(out, in []byte) bool {
	n := len(out)
	ip, op := 0, 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 { // literal run
			ctrl++
			if op+ctrl > n || ip+ctrl > len(in) {
				return false
			}
			copy(out[op:], in[ip:ip+ctrl])
			op += ctrl
			ip += ctrl
			continue
		}
		l := ctrl >> 5
		ref := op - (ctrl&0x1f)<<8 - 1
		if ip >= len(in) {
			return false
		}
		if l == 7 {
			l += int(in[ip])
			ip++
			if ip >= len(in) {
				return false
			}
		}
		ref -= int(in[ip])
		ip++
		l += 2
		if op+l > n || ref < 0 {
			return false
		}
		// The copy may overlap what it writes (a run repeating the last
		// op-ref bytes): copy from the window out[ref:op], which doubles
		// each time and always ends on a whole period.
		for l > 0 {
			k := copy(out[op:op+l], out[ref:op])
			op += k
			l -= k
		}
	}
	return op == n
}
