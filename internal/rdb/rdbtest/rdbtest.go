package rdbtest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// Normalize returns a copy of e with sets sorted, hash fields sorted by
// field and sorted-set members in Valkey's order, so that entries holding
// the same data compare equal field by field.
func Normalize(e *rdb.Entry) *rdb.Entry {
	c := *e
	c.Set = slices.Clone(e.Set)
	slices.SortFunc(c.Set, bytes.Compare)
	c.Hash = slices.Clone(e.Hash)
	slices.SortFunc(c.Hash, func(a, b rdb.HashField) int { return bytes.Compare(a.Field, b.Field) })
	c.ZSet = slices.Clone(e.ZSet)
	slices.SortFunc(c.ZSet, func(a, b rdb.ZMember) int {
		if a.Score != b.Score {
			if a.Score < b.Score {
				return -1
			}
			return 1
		}
		return bytes.Compare(a.Member, b.Member)
	})
	return &c
}

// Diff describes how two entries differ in data (DB, key, kind, value,
// expiry, idle time, frequency), or returns "" if they hold the same.
func Diff(a, b *rdb.Entry) string {
	a, b = Normalize(a), Normalize(b)
	var d []string
	if a.DB != b.DB {
		d = append(d, fmt.Sprintf("db %d != %d", a.DB, b.DB))
	}
	if !bytes.Equal(a.Key, b.Key) {
		d = append(d, fmt.Sprintf("key %q != %q", a.Key, b.Key))
	}
	if a.Kind != b.Kind {
		return strings.Join(append(d, fmt.Sprintf("kind %v != %v", a.Kind, b.Kind)), "; ")
	}
	if a.ExpireMs != b.ExpireMs {
		d = append(d, fmt.Sprintf("expire %d != %d", a.ExpireMs, b.ExpireMs))
	}
	if a.Idle != b.Idle || a.Freq != b.Freq {
		d = append(d, fmt.Sprintf("idle/freq %d/%d != %d/%d", a.Idle, a.Freq, b.Idle, b.Freq))
	}
	switch a.Kind {
	case rdb.KindString:
		if !bytes.Equal(a.String, b.String) {
			d = append(d, fmt.Sprintf("string %s != %s", short(a.String), short(b.String)))
		}
	case rdb.KindList:
		d = append(d, listDiff("list", a.List, b.List)...)
	case rdb.KindSet:
		d = append(d, listDiff("set", a.Set, b.Set)...)
	case rdb.KindZSet:
		if len(a.ZSet) != len(b.ZSet) {
			d = append(d, fmt.Sprintf("zset len %d != %d", len(a.ZSet), len(b.ZSet)))
			break
		}
		for i := range a.ZSet {
			x, y := a.ZSet[i], b.ZSet[i]
			if !bytes.Equal(x.Member, y.Member) || math.Float64bits(x.Score) != math.Float64bits(y.Score) {
				d = append(d, fmt.Sprintf("zset[%d] %s/%v != %s/%v", i, short(x.Member), x.Score, short(y.Member), y.Score))
				break
			}
		}
	case rdb.KindHash:
		if len(a.Hash) != len(b.Hash) {
			d = append(d, fmt.Sprintf("hash len %d != %d", len(a.Hash), len(b.Hash)))
			break
		}
		for i := range a.Hash {
			x, y := a.Hash[i], b.Hash[i]
			if !bytes.Equal(x.Field, y.Field) || !bytes.Equal(x.Value, y.Value) {
				d = append(d, fmt.Sprintf("hash[%d] %s=%s != %s=%s", i, short(x.Field), short(x.Value), short(y.Field), short(y.Value)))
				break
			}
		}
	case rdb.KindStream:
		// fmt prints nil and empty slices alike.
		if x, y := fmt.Sprintf("%+v", a.Stream), fmt.Sprintf("%+v", b.Stream); x != y {
			d = append(d, fmt.Sprintf("stream %s != %s", short([]byte(x)), short([]byte(y))))
		}
	}
	return strings.Join(d, "; ")
}

func listDiff(what string, a, b [][]byte) []string {
	if len(a) != len(b) {
		return []string{fmt.Sprintf("%s len %d != %d", what, len(a), len(b))}
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return []string{fmt.Sprintf("%s[%d] %s != %s", what, i, short(a[i]), short(b[i]))}
		}
	}
	return nil
}

func short(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%q...(%d bytes)", b[:40], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// gen makes values from a seeded source.
type gen struct{ r *rand.Rand }

func (g gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return b
}

// text is compressible: words from a small alphabet.
func (g gen) text(n int) []byte {
	words := []string{"corvid", "valkey", "raven", "crow", "jay", "magpie", " ", "-", "0"}
	var b []byte
	for len(b) < n {
		b = append(b, words[g.r.IntN(len(words))]...)
	}
	return b[:n]
}

func (g gen) intStr() []byte {
	switch g.r.IntN(6) {
	case 0:
		return strconv.AppendInt(nil, int64(g.r.IntN(256))-128, 10)
	case 1:
		return strconv.AppendInt(nil, int64(g.r.IntN(1<<16))-1<<15, 10)
	case 2:
		return strconv.AppendInt(nil, int64(g.r.Int32()), 10)
	case 3:
		return strconv.AppendInt(nil, g.r.Int64()-1<<62, 10)
	case 4:
		return []byte{'0' + byte(g.r.IntN(10))}
	}
	return strconv.AppendInt(nil, int64(g.r.IntN(10000)), 10)
}

// elem is a random element: an integer, short text, binary, or a long
// (compressible or not) string, with sizes up to maxLen.
func (g gen) elem(maxLen int) []byte {
	switch g.r.IntN(8) {
	case 0, 1:
		return g.intStr()
	case 2:
		return g.bytes(g.r.IntN(min(maxLen, 16) + 1))
	case 3:
		return g.text(g.r.IntN(maxLen + 1))
	case 4:
		b := g.text(g.r.IntN(maxLen + 1))
		return append([]byte("x"), b...)
	case 5:
		return g.bytes(g.r.IntN(maxLen + 1))
	}
	return []byte(fmt.Sprintf("e%d", g.r.IntN(1000000)))
}

func (g gen) score() float64 {
	switch g.r.IntN(8) {
	case 0:
		return float64(g.r.IntN(100))
	case 1:
		return float64(g.r.IntN(1000)) / 4
	case 2:
		return g.r.NormFloat64() * 1e6
	case 3:
		return []float64{math.Inf(1), math.Inf(-1), 0, 1e-7, 1e20, 2.5e-5, -3.75, 1e17, 1.7976931348623157e308}[g.r.IntN(9)]
	case 4:
		return float64(g.r.Int64())
	}
	return g.r.Float64()
}

// uniq returns n distinct elements from mk.
func uniq(n int, mk func() []byte) [][]byte {
	seen := map[string]bool{}
	out := make([][]byte, 0, n)
	for tries := 0; len(out) < n && tries < 100*n+100; tries++ {
		v := mk()
		if !seen[string(v)] {
			seen[string(v)] = true
			out = append(out, v)
		}
	}
	return out
}

// RandomEntry returns a random non-empty entry with key key in db. size
// scales collection lengths and element sizes (1 small ... 4 large).
func RandomEntry(r *rand.Rand, db int, key []byte, size int) *rdb.Entry {
	g := gen{r}
	maxN := []int{0, 8, 140, 700, 1500}[min(max(size, 1), 4)]
	maxL := []int{0, 16, 80, 300, 2500}[min(max(size, 1), 4)]
	n := 1 + r.IntN(maxN)
	var e *rdb.Entry
	switch r.IntN(5) {
	case 0:
		e = rdb.NewEntry(db, key, rdb.KindString)
		e.String = g.elem(maxL * 4)
	case 1:
		e = rdb.NewEntry(db, key, rdb.KindList)
		for range n {
			e.List = append(e.List, g.elem(maxL))
		}
	case 2:
		e = rdb.NewEntry(db, key, rdb.KindSet)
		if r.IntN(2) == 0 {
			e.Set = uniq(n, g.intStr)
		} else {
			e.Set = uniq(n, func() []byte { return g.elem(maxL) })
		}
	case 3:
		e = rdb.NewEntry(db, key, rdb.KindZSet)
		for _, m := range uniq(n, func() []byte { return g.elem(maxL) }) {
			e.ZSet = append(e.ZSet, rdb.ZMember{Member: m, Score: g.score()})
		}
	default:
		e = rdb.NewEntry(db, key, rdb.KindHash)
		for _, f := range uniq(n, func() []byte { return g.elem(maxL) }) {
			e.Hash = append(e.Hash, rdb.HashField{Field: f, Value: g.elem(maxL)})
		}
	}
	if r.IntN(4) == 0 {
		e.ExpireMs = 4102444800000 + int64(r.IntN(1e9)) // in 2100
	}
	return e
}

// RandomDataset returns n random entries with distinct keys over dbs
// databases, grouped by database (as a writer needs them).
func RandomDataset(r *rand.Rand, n, dbs, size int) []*rdb.Entry {
	out := make([]*rdb.Entry, 0, n)
	for i := range n {
		db := i * dbs / max(n, 1)
		key := []byte(fmt.Sprintf("k:%d:%d", db, i))
		if r.IntN(5) == 0 {
			key = strconv.AppendInt(nil, int64(i), 10) // integer-encoded keys
		}
		out = append(out, RandomEntry(r, db, key, size))
	}
	return out
}
