package db

import (
	"bytes"
	"math"
	"slices"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// SortCommands are SORT and SORT_RO. Their BY and GET patterns name keys
// that only the values being sorted reveal, so they run with every stripe
// locked (LockAll).
var SortCommands = []Handler{
	{Spec: command.Sort, Proc: sortCommand, Lock: LockAll},
	{Spec: command.SortRo, Proc: sortroCommand, Lock: LockAll},
}

// SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC | DESC] [ALPHA] [STORE destination]
func sortCommand(c *Ctx) { c.sortGeneric(false) }

// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC | DESC] [ALPHA]
func sortroCommand(c *Ctx) { c.sortGeneric(true) }

// KeyAccessChecker is implemented by a client whose ACL user may not read
// every key: SORT's BY and GET patterns name keys the key specs cannot
// see, so Valkey accepts them only from a user who may read any key.
type KeyAccessChecker interface {
	// FullReadAccess reports whether the running command's user may
	// read every key.
	FullReadAccess() bool
}

func (c *Ctx) fullKeyAccess() bool {
	k, ok := c.Client.(KeyAccessChecker)
	return !ok || k.FullReadAccess()
}

// sortElem is one element being sorted (Valkey's redisSortObject).
type sortElem struct {
	obj   []byte
	score float64
	cmp   []byte // the BY value for ALPHA sorting; nil when missing
}

// sortGeneric is Valkey's sortCommandGeneric.
func (c *Ctx) sortGeneric(readonly bool) {
	argv := c.Argv
	desc, alpha, dontsort := false, false, false
	var limitStart, limitCount int64 = 0, -1
	var sortby, storekey []byte
	var gets [][]byte
	for j := 2; j < len(argv); j++ {
		left := len(argv) - j - 1
		a := argv[j]
		switch {
		case EqualFold(a, "ASC"):
			desc = false
		case EqualFold(a, "DESC"):
			desc = true
		case EqualFold(a, "ALPHA"):
			alpha = true
		case EqualFold(a, "LIMIT") && left >= 2:
			var ok bool
			if limitStart, ok = c.IntArg(j + 1); !ok {
				return
			}
			if limitCount, ok = c.IntArg(j + 2); !ok {
				return
			}
			j += 2
		case !readonly && EqualFold(a, "STORE") && left >= 1:
			storekey = argv[j+1]
			j++
		case EqualFold(a, "BY") && left >= 1:
			sortby = argv[j+1]
			// A pattern without '*' names no key per element: keep the
			// native order ("BY nosort").
			dontsort = bytes.IndexByte(cstr(sortby), '*') < 0
			if !dontsort && !c.fullKeyAccess() {
				c.W.Error("ERR BY option of SORT denied due to insufficient ACL permissions.")
				return
			}
			j++
		case EqualFold(a, "GET") && left >= 1:
			if !c.fullKeyAccess() {
				c.W.Error("ERR GET option of SORT denied due to insufficient ACL permissions.")
				return
			}
			gets = append(gets, argv[j+1])
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}

	o := c.LookupRead(argv[1])
	if o != nil && o.Type != TypeSet && o.Type != TypeList && o.Type != TypeZSet {
		c.W.Error(ErrWrongType)
		return
	}
	// A set has no order of its own: when the result is stored (or
	// replicated) it is sorted by member so that it is deterministic.
	if dontsort && o != nil && o.Type == TypeSet && storekey != nil {
		dontsort, alpha, sortby = false, true, nil
	}
	// Valkey sorts a listpack sorted set after converting it to a skiplist
	// in place, which OBJECT ENCODING shows afterwards.
	if o != nil && o.Type == TypeZSet {
		if _, ok := o.Value().(*ds.ZPack); ok {
			zsetToSkiplist(o, 0)
			c.remeasure(argv[1]) // a read that grows the value (mem.go)
		}
	}

	vlen := 0
	if o != nil {
		switch o.Type {
		case TypeList:
			vlen = listOf(o).Len()
		case TypeSet:
			vlen = setLen(o)
		case TypeZSet:
			vlen = zsetLen(o)
		}
	}
	start := min(max(limitStart, 0), int64(vlen))
	limitCount = min(max(limitCount, -1), int64(vlen))
	end := int64(vlen) - 1
	if limitCount >= 0 {
		end = start + limitCount - 1
	}
	if start >= int64(vlen) {
		start, end = int64(vlen)-1, int64(vlen)-2
	}
	if end >= int64(vlen) {
		end = int64(vlen) - 1
	}

	// Lists and sorted sets left in their own order load only the
	// requested range.
	var vec []sortElem
	direct := dontsort && o != nil && (o.Type == TypeList || o.Type == TypeZSet)
	switch {
	case o == nil:
	case direct:
		if end >= start {
			n := int(end - start + 1)
			vec = make([]sortElem, 0, n)
			if o.Type == TypeList {
				ql := listOf(o)
				from := int(start)
				if desc {
					from = ql.Len() - int(start) - 1
				}
				ql.Range(from, n, desc, func(v []byte) {
					vec = append(vec, sortElem{obj: append([]byte(nil), v...)})
				})
			} else {
				r := int(start)
				if desc {
					r = vlen - 1 - int(start)
				}
				for z := zsetAtRank(o, r); z.valid() && len(vec) < n; z.step(desc) {
					m, _ := z.get()
					vec = append(vec, sortElem{obj: append([]byte(nil), m...)})
				}
			}
			end -= start
			start = 0
		}
	case o.Type == TypeList:
		vec = make([]sortElem, 0, vlen)
		listOf(o).Scan(false, func(v []byte) bool {
			vec = append(vec, sortElem{obj: append([]byte(nil), v...)})
			return true
		})
	case o.Type == TypeSet:
		vec = make([]sortElem, 0, vlen)
		setRange(o, func(m []byte) bool {
			vec = append(vec, sortElem{obj: append([]byte(nil), m...)})
			return true
		})
	case o.Type == TypeZSet:
		// Valkey walks the member dict here; the sort below decides the
		// order, so the skiplist's order does as well.
		vec = make([]sortElem, 0, vlen)
		for it := o.Value().(*ds.ZSkip).IterAt(0); it.Valid(); it.Next() {
			n := it.Node()
			vec = append(vec, sortElem{obj: append([]byte(nil), n.Member()...)})
		}
	}

	convErr := false
	if !dontsort {
		for i := range vec {
			e := &vec[i]
			by := e.obj
			if sortby != nil {
				v, ok := c.sortLookup(sortby, e.obj)
				if !ok {
					continue
				}
				by = v
			}
			if alpha {
				if sortby != nil {
					e.cmp = append([]byte{}, by...)
				}
				continue
			}
			s, ok := sortScore(by)
			if !ok {
				convErr = true
			}
			e.score = s
		}
		cmp := func(a, b sortElem) int {
			var r int
			switch {
			case !alpha:
				switch {
				case a.score > b.score:
					r = 1
				case a.score < b.score:
					r = -1
				default:
					// Equal scores fall back to the elements, so the
					// result is deterministic.
					r = bytes.Compare(a.obj, b.obj)
				}
			case sortby != nil:
				switch {
				case a.cmp == nil && b.cmp == nil:
					r = 0
				case a.cmp == nil:
					r = -1
				case b.cmp == nil:
					r = 1
				default:
					r = bytes.Compare(a.cmp, b.cmp)
				}
			default:
				r = bytes.Compare(a.obj, b.obj)
			}
			if desc {
				return -r
			}
			return r
		}
		// glibc's qsort is a merge sort: stable, like this one.
		slices.SortStableFunc(vec, cmp)
	}

	n := max(int(end-start+1), 0)
	var out []sortElem
	if n > 0 {
		out = vec[start : end+1]
	}
	outLen := n
	if len(gets) > 0 {
		outLen = len(gets) * n
	}
	switch {
	case convErr:
		c.W.Error("ERR One or more scores can't be converted into double")
	case storekey == nil:
		c.W.ArrayLen(outLen)
		for _, e := range out {
			if len(gets) == 0 {
				c.W.Bulk(e.obj)
			}
			for _, g := range gets {
				if v, ok := c.sortLookup(g, e.obj); ok {
					c.W.Bulk(v)
				} else {
					c.W.Null()
				}
			}
		}
	default:
		ql := ds.NewQuicklist()
		for _, e := range out {
			if len(gets) == 0 {
				c.listPush(ql, e.obj, false)
			}
			for _, g := range gets {
				v, _ := c.sortLookup(g, e.obj) // missing: an empty string
				c.listPush(ql, v, false)
			}
		}
		if outLen > 0 {
			d := c.Create(storekey, TypeList)
			d.SetValue(ql)
			c.SignalReady(storekey)
			c.touchN(storekey, outLen)
			c.Notify(NotifyList, "sortstore", storekey)
		} else {
			c.dropStored(storekey)
		}
		c.W.Int(int64(outLen))
	}
}

// sortScore parses a SORT weight as strtod does there: leading white space
// is allowed, anything after the number, an out-of-range value or NaN is
// not.
func sortScore(b []byte) (float64, bool) {
	v, n, rangeErr := strtod(b)
	if (n < len(b) && b[n] != 0) || rangeErr || math.IsNaN(v) {
		return v, false
	}
	return v, true
}

// cstr is b up to its first NUL byte: what C string functions see.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// sortLookup is lookupKeyByPattern: "#" is the element itself; otherwise
// the first '*' of pattern is replaced by the element and the resulting
// key is read, as a string or, with "->field" after the '*', as a hash
// field. ok is false when there is no such value.
func (c *Ctx) sortLookup(pattern, elem []byte) ([]byte, bool) {
	p := cstr(pattern)
	if len(p) == 1 && p[0] == '#' {
		return elem, true
	}
	star := bytes.IndexByte(p, '*')
	if star < 0 {
		return nil, false
	}
	// A hash field: "->" after the '*' followed by a non-empty name. The
	// field runs to the end of the whole argument (sdslen in Valkey).
	var field []byte
	keyEnd := len(pattern)
	if f := bytes.Index(p[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(p) {
		keyEnd = star + 1 + f
		field = pattern[keyEnd+2:]
	}
	key := make([]byte, 0, keyEnd+len(elem))
	key = append(key, pattern[:star]...)
	key = append(key, elem...)
	key = append(key, pattern[star+1:keyEnd]...)
	o := c.LookupRead(key)
	if o == nil {
		return nil, false
	}
	if field != nil {
		if o.Type != TypeHash {
			return nil, false
		}
		return hashGet(o.Value(), field)
	}
	if o.Type != TypeString {
		return nil, false
	}
	return o.Str(), true
}
