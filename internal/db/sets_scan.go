package db

import (
	"math"
	"strconv"

	"github.com/corvid-kv/corvid/internal/ds"
)

// SSCAN key cursor [MATCH pattern] [COUNT count]
func sscanCommand(c *Ctx) { c.scanCollection(TypeSet, scanSet) }

// ZSCAN key cursor [MATCH pattern] [COUNT count] [NOSCORES]
func zscanCommand(c *Ctx) { c.scanCollection(TypeZSet, scanZSet) }

// emptyScan is the reply to a scan of a missing key: cursor 0, no items.
const emptyScan = "*2\r\n$1\r\n0\r\n*0\r\n"

// scanCollection is Valkey's scanGenericCommand for a set or sorted set
// key: the cursor is checked first, then the key, then the options (so a
// bad option on a missing key is not reported). Compact encodings are
// returned whole with cursor 0; hashtables are scanned with the Dict's
// reverse-binary cursor, visiting about COUNT elements (at most 10*COUNT
// buckets).
func (c *Ctx) scanCollection(t Type, kind scanKind) {
	cursor, ok := c.scanCursor(2)
	if !ok {
		return
	}
	o := c.LookupRead(c.Argv[1])
	if o == nil {
		c.W.Raw([]byte(emptyScan))
		return
	}
	if o.Type != t {
		c.W.Error(ErrWrongType)
		return
	}
	args, ok := c.parseScanArgs(3, kind)
	if !ok {
		return
	}
	count, noScores, match := args.count, args.noScores, args.match

	var items [][]byte
	add := func(b []byte) { items = append(items, append([]byte(nil), b...)) }
	var next uint64
	switch v := o.Value().(type) {
	case *setDict:
		next = scanSteps(cursor, count, oneEach(count), func(c uint64) uint64 {
			return v.Scan(c, func(k, _ []byte) {
				if match(k) {
					items = append(items, k)
				}
			})
		})
	case *ds.ZSkip:
		next = scanSteps(cursor, count, oneEach(count), func(c uint64) uint64 {
			return v.Scan(c, func(n *ds.ZNode) {
				if m := n.Member(); match(m) {
					items = append(items, m)
					if !noScores {
						// A skiplist's scores print as ld2string(%.17Lg).
						s := n.Score()
						if math.IsInf(s, 0) {
							items = append(items, []byte(infString(s)))
						} else {
							items = append(items, strconv.AppendFloat(nil, s, 'g', 17, 64))
						}
					}
				}
			})
		})
	case *ds.ZPack:
		for off := v.First(); off >= 0; off = v.Next(off) {
			m, s, _ := v.At(off)
			if match(m) {
				add(m)
				if !noScores {
					// A listpack stores scores as d2string wrote them.
					items = append(items, appendScore(nil, s))
				}
			}
		}
	default:
		setRange(o, func(m []byte) bool {
			if match(m) {
				add(m)
			}
			return true
		})
	}
	c.W.ArrayLen(2)
	c.W.Bulk(strconv.AppendUint(nil, next, 10))
	c.W.ArrayLen(len(items))
	for _, it := range items {
		c.W.Bulk(it)
	}
}

func infString(f float64) string {
	if f > 0 {
		return "inf"
	}
	return "-inf"
}

// scanSteps calls step (one Scan call: it returns the next cursor) until
// the cursor is 0, enough(calls so far) reports that about COUNT elements
// were collected, or 10*count more calls were made, as Valkey's scan loop.
func scanSteps(cursor uint64, count int64, enough func(calls int64) bool, step func(uint64) uint64) uint64 {
	maxIter := count * 10
	for calls := int64(1); ; calls++ {
		cursor = step(cursor)
		if cursor == 0 || maxIter == 0 || enough(calls) {
			return cursor
		}
		maxIter--
	}
}

// oneEach is scanSteps' enough for scans that visit one element per call
// (StrMap.Scan, ZSkip.Scan): COUNT calls visited COUNT elements.
func oneEach(count int64) func(calls int64) bool {
	return func(calls int64) bool { return calls >= count }
}
