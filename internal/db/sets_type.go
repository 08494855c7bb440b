package db

import (
	"math/rand/v2"
	"strconv"

	"github.com/corvid-kv/corvid/internal/ds"
)

// A set's Object.Value() is one of three encodings, chosen exactly as Valkey's
// t_set.c chooses them so that OBJECT ENCODING agrees:
//
//   - *ds.IntSet ("intset"): every member is a canonical int64 and there
//     are at most set-max-intset-entries of them;
//   - *ds.Pack ("listpack"): at most set-max-listpack-entries members of at
//     most set-max-listpack-value bytes, kept in insertion order;
//   - *ds.StrMap ("hashtable"), with empty values: anything bigger.
//
// Conversions only go towards hashtable, except where Valkey converts a
// freshly built result back (SINTERSTORE's maybeConvertToIntset).

// setDict is the hashtable encoding.
type setDict = ds.StrMap

// newSetFor is setTypeCreate: the encoding a new set gets when its first
// member is value and about sizeHint members are coming. The limits are
// those of s (all the set helpers that take a *settings are likewise).
func newSetFor(s *settings, value []byte, sizeHint int) any {
	if _, ok := ParseInt(value); ok && int64(sizeHint) <= s.intsetEntries.Load() {
		return ds.NewIntSet()
	}
	if int64(sizeHint) <= s.setEntries.Load() {
		return &ds.Pack{}
	}
	return newSetDict(sizeHint)
}

// newSetDict returns an empty hashtable-encoded set sized for hint
// members.
func newSetDict(hint int) *setDict { return ds.NewStrMap(hint) }

// setMaybeConvert is setTypeMaybeConvert: a command about to add sizeHint
// members converts a small encoding to a hashtable up front.
func setMaybeConvert(s *settings, o *Object, sizeHint int) {
	switch o.Value().(type) {
	case *ds.Pack:
		if int64(sizeHint) > s.setEntries.Load() {
			setToDict(o, sizeHint)
		}
	case *ds.IntSet:
		if int64(sizeHint) > s.intsetEntries.Load() {
			setToDict(o, sizeHint)
		}
	}
}

// packReserve makes room in a listpack-encoded set for members at once
// (ds.Pack.Reserve: one allocation of the size they need), unless they
// would not all fit a listpack (the set converts on the way then).
func packReserve(s *settings, p *ds.Pack, members [][]byte) {
	if int64(p.Len()+len(members)) > s.setEntries.Load() {
		return
	}
	size := 0
	for _, m := range members {
		if int64(len(m)) > s.setValue.Load() {
			return
		}
		size += ds.PackEntrySize(len(m))
	}
	p.Reserve(size)
}

// setLen returns the number of members.
func setLen(o *Object) int {
	switch v := o.Value().(type) {
	case *ds.IntSet:
		return v.Len()
	case *ds.Pack:
		return v.Len()
	case *setDict:
		return v.Len()
	}
	return 0
}

// setEncoding names the encoding for OBJECT ENCODING.
func setEncoding(o *Object) string {
	switch o.Value().(type) {
	case *ds.IntSet:
		return "intset"
	case *ds.Pack:
		return "listpack"
	case *setDict:
		return "hashtable"
	}
	return ""
}

// digits10 is sdigits10: the length of n in decimal, sign included.
func digits10(n int64) int {
	var b [20]byte
	return len(strconv.AppendInt(b[:0], n, 10))
}

// setAdd is setTypeAdd: it adds member (copied) and reports whether it was
// new, converting the encoding when a limit is crossed.
func setAdd(s *settings, o *Object, member []byte) bool {
	switch v := o.Value().(type) {
	case *setDict:
		return v.Add(member)
	case *ds.Pack:
		if v.Find(member) >= 0 {
			return false
		}
		if int64(v.Len()) < s.setEntries.Load() && int64(len(member)) <= s.setValue.Load() {
			v.Append(member)
			return true
		}
		d := setToDict(o, v.Len()+1)
		d.Add(member)
		return true
	case *ds.IntSet:
		if n, ok := ParseInt(member); ok {
			if !v.Add(n) {
				return false
			}
			if v.Len() > s.intsetMaxEntries() {
				setToDict(o, v.Len())
			}
			return true
		}
		// A non-integer: a listpack if the ints plus this member fit one.
		n := v.Len()
		maxLen := 0
		if n > 0 {
			maxLen = max(digits10(v.Max()), digits10(v.Min()))
		}
		lim := s.setValue.Load()
		if int64(n) < s.setEntries.Load() && int64(len(member)) <= lim && int64(maxLen) <= lim {
			p := setToPack(o)
			p.Append(member)
			p.ShrinkToFit()
			return true
		}
		d := setToDict(o, n+1)
		d.Add(member)
		return true
	}
	return false
}

// setRemove is setTypeRemove.
func setRemove(o *Object, member []byte) bool {
	switch v := o.Value().(type) {
	case *setDict:
		return v.Delete(member)
	case *ds.Pack:
		if off := v.Find(member); off >= 0 {
			v.Delete(off)
			return true
		}
	case *ds.IntSet:
		if n, ok := ParseInt(member); ok {
			return v.Remove(n)
		}
	}
	return false
}

// setHas is setTypeIsMember.
func setHas(o *Object, member []byte) bool {
	switch v := o.Value().(type) {
	case *setDict:
		return v.Has(member)
	case *ds.Pack:
		return v.Find(member) >= 0
	case *ds.IntSet:
		n, ok := ParseInt(member)
		return ok && v.Contains(n)
	}
	return false
}

// setRange calls fn for every member in the encoding's order (ascending for
// an intset, insertion order for a listpack, table order for a hashtable)
// until fn returns false. The slice is only valid during the call: intset
// members are formatted into a scratch buffer. fn must not modify the set.
func setRange(o *Object, fn func(m []byte) bool) {
	switch v := o.Value().(type) {
	case *ds.IntSet:
		var buf [20]byte
		for i := range v.Len() {
			if !fn(strconv.AppendInt(buf[:0], v.Get(i), 10)) {
				return
			}
		}
	case *ds.Pack:
		for off := 0; off < v.End(); {
			m, next := v.Entry(off)
			if !fn(m) {
				return
			}
			off = next
		}
	case *setDict:
		v.Range(func(k, _ []byte) bool { return fn(k) })
	}
}

// setToDict converts o to a hashtable pre-sized for capHint members.
func setToDict(o *Object, capHint int) *setDict {
	d := newSetDict(max(capHint, setLen(o)))
	setRange(o, func(m []byte) bool {
		d.Add(m)
		return true
	})
	o.SetValue(d)
	return d
}

// setToPack converts an intset to a listpack, keeping its order, and
// returns the listpack (o's own: SetValue copies a Pack in).
func setToPack(o *Object) *ds.Pack {
	var p ds.Pack
	setRange(o, func(m []byte) bool {
		p.Append(m)
		return true
	})
	o.SetValue(&p)
	return o.Value().(*ds.Pack)
}

// setMaybeToIntset is maybeConvertToIntset: the caller knows every member
// is an integer; the set becomes an intset if it is small enough.
func setMaybeToIntset(s *settings, o *Object) {
	if _, ok := o.Value().(*ds.IntSet); ok || setLen(o) > s.intsetMaxEntries() {
		return
	}
	is := ds.NewIntSet()
	setRange(o, func(m []byte) bool {
		n, _ := ParseInt(m)
		is.Add(n)
		return true
	})
	o.SetValue(is)
}

// setRandom returns a random member. The bytes alias the set (or a scratch
// buffer for an intset) until it is next modified.
func setRandom(o *Object, scratch []byte) []byte {
	switch v := o.Value().(type) {
	case *ds.IntSet:
		n, _ := v.Random(nil)
		return strconv.AppendInt(scratch[:0], n, 10)
	case *ds.Pack:
		m, _ := v.Entry(v.Seek(rand.IntN(v.Len())))
		return m
	case *setDict:
		k, _, _ := v.Random(nil)
		return k
	}
	return nil
}

// setPopRandom removes a random member and returns a copy of it.
func setPopRandom(o *Object) []byte {
	var scratch [20]byte
	m := append([]byte(nil), setRandom(o, scratch[:])...)
	setRemove(o, m)
	return m
}

// setCopy duplicates a set value in the same encoding (COPY).
func setCopy(o *Object) any {
	switch v := o.Value().(type) {
	case *ds.IntSet:
		is := ds.NewIntSet()
		for n := range v.All() {
			is.Add(n)
		}
		return is
	case *ds.Pack:
		return v.Clone()
	case *setDict:
		d := newSetDict(v.Len())
		v.Range(func(k, _ []byte) bool {
			d.Add(k)
			return true
		})
		return d
	}
	return nil
}
