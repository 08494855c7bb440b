package rdb

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"sync"
)

// encoder serializes values into a reusable buffer exactly as Valkey
// 8.0.1's rdbSaveObject would for the encoding Valkey would have chosen.
type encoder struct {
	limits   Limits
	compress bool // rdbcompression
	buf      []byte
	htab     *lzfTable // LZF hash table, allocated on first use
	scratch  []byte
	lzfOut   []byte // compressor output, reused
}

// lzfTables recycles LZF hash tables (256 KiB each) between encoders.
var lzfTables = sync.Pool{New: func() any { return new(lzfTable) }}

// release returns the encoder's LZF table to the pool.
func (e *encoder) release() {
	if e.htab != nil {
		lzfTables.Put(e.htab)
		e.htab = nil
	}
}

// appendLen is rdbSaveLen.
func appendLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|len14<<6, byte(n))
	case n <= math.MaxUint32:
		b = append(b, len32)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	b = append(b, len64)
	return binary.BigEndian.AppendUint64(b, n)
}

// appendIntEnc is rdbEncodeInteger: the 2..5-byte integer encoding of v,
// or b unchanged and false if v does not fit 32 bits.
func appendIntEnc(b []byte, v int64) ([]byte, bool) {
	switch {
	case v >= math.MinInt8 && v <= math.MaxInt8:
		return append(b, lenEnc<<6|encInt8, byte(v)), true
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return append(b, lenEnc<<6|encInt16, byte(v), byte(v>>8)), true
	case v >= math.MinInt32 && v <= math.MaxInt32:
		b = append(b, lenEnc<<6|encInt32)
		return binary.LittleEndian.AppendUint32(b, uint32(v)), true
	}
	return b, false
}

// appendString is rdbSaveRawString: integer encoding for canonical
// integers of at most 11 bytes that fit 32 bits, LZF for strings over 20
// bytes when compression is on and saves at least 4 bytes, else verbatim.
func (e *encoder) appendString(b, s []byte) []byte {
	if len(s) <= 11 {
		if v, ok := parseInt(s); ok {
			if nb, ok := appendIntEnc(b, v); ok {
				return nb
			}
		}
	}
	if e.compress && len(s) > 20 {
		if e.htab == nil {
			e.htab = lzfTables.Get().(*lzfTable)
		}
		c := lzfCompress(s, len(s)-4, e.htab, e.lzfOut)
		if c != nil {
			if cap(c) <= 1<<20 { // keep no huge buffer between values
				e.lzfOut = c[:0]
			}
			b = append(b, lenEnc<<6|encLZF)
			b = appendLen(b, uint64(len(c)))
			b = appendLen(b, uint64(len(s)))
			return append(b, c...)
		}
	}
	b = appendLen(b, uint64(len(s)))
	return append(b, s...)
}

// appendValue appends the serialized value of en (rdbSaveObject) and
// returns the RDB type to write before the key.
func (e *encoder) appendValue(b []byte, en *Entry) ([]byte, byte, error) {
	if en.Kind != KindString && en.Kind != KindStream && en.Len() == 0 {
		return b, 0, ErrEmpty
	}
	l := &e.limits
	switch en.Kind {
	case KindString:
		return e.appendString(b, en.String), typeString, nil
	case KindList:
		if len(en.ListNodes) > 0 {
			return e.appendListNodes(b, en.List, en.ListNodes, en.ListCompress), typeListQuicklist2, nil
		}
		return e.appendList(b, en.List, en.ListCompress), typeListQuicklist2, nil
	case KindSet:
		if len(en.Set) <= intsetMaxEntries(l.SetMaxIntsetEntries) {
			if vals, ok := intsetMembers(en.Set); ok {
				return e.appendString(b, intsetBytes(vals)), typeSetIntset, nil
			}
		}
		if len(en.Set) <= l.SetMaxListpackEntries && maxLen(en.Set) <= l.SetMaxListpackValue {
			lp := newListpack(0)
			for _, m := range en.Set {
				lp.append(m)
			}
			return e.appendString(b, lp.bytes()), typeSetListpack, nil
		}
		b = appendLen(b, uint64(len(en.Set)))
		for _, m := range en.Set {
			b = e.appendString(b, m)
		}
		return b, typeSet, nil
	case KindZSet:
		zs := slices.Clone(en.ZSet)
		slices.SortFunc(zs, zcmp)
		fits := len(zs) <= l.ZSetMaxListpackEntries
		for i := 0; fits && i < len(zs); i++ {
			fits = len(zs[i].Member) <= l.ZSetMaxListpackValue
		}
		if fits {
			lp := newListpack(0)
			for _, z := range zs {
				lp.append(z.Member)
				e.scratch = appendScore(e.scratch[:0], z.Score)
				lp.append(e.scratch)
			}
			return e.appendString(b, lp.bytes()), typeZSetListpack, nil
		}
		// The skiplist is saved from its tail: greatest score first.
		b = appendLen(b, uint64(len(zs)))
		for i := len(zs) - 1; i >= 0; i-- {
			b = e.appendString(b, zs[i].Member)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(zs[i].Score))
		}
		return b, typeZSet2, nil
	case KindHash:
		fits := len(en.Hash) <= l.HashMaxListpackEntries
		for i := 0; fits && i < len(en.Hash); i++ {
			fits = len(en.Hash[i].Field) <= l.HashMaxListpackValue && len(en.Hash[i].Value) <= l.HashMaxListpackValue
		}
		if fits {
			lp := newListpack(0)
			for _, h := range en.Hash {
				lp.append(h.Field)
				lp.append(h.Value)
			}
			return e.appendString(b, lp.bytes()), typeHashListpack, nil
		}
		b = appendLen(b, uint64(len(en.Hash)))
		for _, h := range en.Hash {
			b = e.appendString(b, h.Field)
			b = e.appendString(b, h.Value)
		}
		return b, typeHash, nil
	case KindStream:
		return e.appendStream(b, en.Stream), typeStreamListpacks3, nil
	}
	return b, 0, ErrUnsupported
}

// zcmp orders sorted-set members as Valkey does: by score, then by member
// bytes.
func zcmp(a, b ZMember) int {
	switch {
	case a.Score < b.Score:
		return -1
	case a.Score > b.Score:
		return 1
	}
	return bytes.Compare(a.Member, b.Member)
}

func maxLen(vs [][]byte) int {
	m := 0
	for _, v := range vs {
		m = max(m, len(v))
	}
	return m
}

// intsetMaxEntries is Valkey's intsetMaxEntries: the limit capped at 2^30.
func intsetMaxEntries(n int) int { return min(n, 1<<30) }

// The quicklist size classes (quicklist.c optimization_level) and limits.
var optimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

const (
	sizeSafetyLimit      = 8192
	sizeEstimateOverhead = 8
)

// nodeLimit is quicklistNodeLimit: a byte limit (fill < 0) or a count
// limit (fill >= 0); the other is -1.
func nodeLimit(fill int) (size, count int) {
	if fill >= 0 {
		return -1, max(fill, 1)
	}
	off := min(-fill-1, len(optimizationLevel)-1)
	return optimizationLevel[off], -1
}

// nodeExceedsLimit is quicklistNodeExceedsLimit.
func nodeExceedsLimit(fill, sz, count int) bool {
	szl, cl := nodeLimit(fill)
	if szl >= 0 {
		return sz > szl
	}
	return sz > sizeSafetyLimit || count > cl
}

// isLargeElement is quicklist.c's isLargeElement with the default
// packed_threshold: such an element gets a PLAIN node of its own.
func isLargeElement(sz, fill int) bool {
	if fill >= 0 {
		return sz > sizeSafetyLimit
	}
	szl, _ := nodeLimit(fill)
	return sz > szl
}

// appendListNodes writes a list with the node layout it has in memory
// (Entry.ListNodes): a listpack per packed node, a plain string per
// plain node. The counts must add up to len(elems). depth is the list's
// compress depth (appendListNode).
func (e *encoder) appendListNodes(b []byte, elems [][]byte, counts []int, depth int) []byte {
	b = appendLen(b, uint64(len(counts)))
	i := 0
	for k, n := range counts {
		interior := depth > 0 && k >= depth && k < len(counts)-depth
		if n < 0 {
			b = e.appendListNode(b, containerPlain, elems[i], interior)
			i++
			continue
		}
		lp := newListpack(0)
		for _, v := range elems[i : i+n] {
			lp.append(v)
		}
		i += n
		b = e.appendListNode(b, containerPacked, lp.bytes(), interior)
	}
	return b
}

// Quicklist node compression (quicklist.c's MIN_COMPRESS_BYTES and
// MIN_COMPRESS_IMPROVE).
const (
	qlMinCompressBytes   = 48
	qlMinCompressImprove = 8
)

// appendListNode writes one quicklist node: its container, then its data
// (a listpack, or a plain node's element). An interior node (beyond the
// list's compress depth from either end) is one Valkey holds
// LZF-compressed when compressing its sz >= 48 bytes into a buffer of sz
// bytes gives fewer than sz-8 (__quicklistCompressNode), and rdbSaveObject
// writes that LZF blob whatever rdbcompression says. With compression on,
// appendString gives the same bytes (the same LZF stream, which fits its
// smaller bound); with it off, the node is compressed here.
func (e *encoder) appendListNode(b []byte, container uint64, data []byte, interior bool) []byte {
	b = appendLen(b, container)
	if !interior || e.compress || len(data) < qlMinCompressBytes {
		return e.appendString(b, data)
	}
	if e.htab == nil {
		e.htab = lzfTables.Get().(*lzfTable)
	}
	c := lzfCompress(data, len(data), e.htab, e.lzfOut)
	if c == nil || len(c)+qlMinCompressImprove >= len(data) {
		return e.appendString(b, data)
	}
	if cap(c) <= 1<<20 {
		e.lzfOut = c[:0]
	}
	b = append(b, lenEnc<<6|encLZF)
	b = appendLen(b, uint64(len(c)))
	b = appendLen(b, uint64(len(data)))
	return append(b, c...)
}

// appendList writes a list as Valkey 8.0.1 holds one built by RPUSHing its
// elements one at a time: a listpack while it stays within
// list-max-listpack-size (saved as a one-node quicklist), then a quicklist
// whose tail node takes elements while quicklist's estimate allows, and
// PLAIN nodes for elements larger than a node may be; its interior nodes
// compressed as appendListNode says for compress depth depth.
func (e *encoder) appendList(b []byte, elems [][]byte, depth int) []byte {
	fill := e.limits.ListMaxListpackSize
	type node struct {
		plain []byte
		lp    *listpack
	}
	var nodes []node
	cur := newListpack(0)
	quick := false
	for _, v := range elems {
		if !quick {
			if !nodeExceedsLimit(fill, cur.size()+len(v), cur.count+1) {
				cur.append(v)
				continue
			}
			quick = true
			if cur.count > 0 {
				nodes = append(nodes, node{lp: cur})
			}
		}
		if isLargeElement(len(v), fill) {
			nodes = append(nodes, node{plain: v})
			continue
		}
		if n := len(nodes); n > 0 && nodes[n-1].lp != nil {
			t := nodes[n-1].lp
			if !nodeExceedsLimit(fill, t.size()+len(v)+sizeEstimateOverhead, t.count+1) {
				t.append(v)
				continue
			}
		}
		lp := newListpack(0)
		lp.append(v)
		nodes = append(nodes, node{lp: lp})
	}
	if !quick {
		nodes = append(nodes, node{lp: cur})
	}
	b = appendLen(b, uint64(len(nodes)))
	for k, n := range nodes {
		interior := depth > 0 && k >= depth && k < len(nodes)-depth
		if n.lp == nil {
			b = e.appendListNode(b, containerPlain, n.plain, interior)
		} else {
			b = e.appendListNode(b, containerPacked, n.lp.bytes(), interior)
		}
	}
	return b
}
