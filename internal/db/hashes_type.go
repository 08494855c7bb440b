package db

import "github.com/corvid-kv/corvid/internal/ds"

// A hash's Object.Value() is one of two encodings, chosen as Valkey's t_hash.c
// chooses them so that OBJECT ENCODING agrees:
//
//   - *ds.Listpack ("listpack"): field, value, field, value, ... in
//     insertion order, while there are at most hash-max-listpack-entries
//     fields and no field or value is longer than hash-max-listpack-value;
//   - *hashDict ("hashtable"): a ds.StrMap from field to value; a field
//     and its value share one record.
//
// A hash never converts back to a listpack, and an empty hash is never
// stored: the command that removes the last field deletes the key.
type hashDict = ds.StrMap

// newHashDict returns an empty hashtable-encoded hash sized for hint
// fields.
func newHashDict(hint int) *hashDict { return ds.NewStrMap(hint) }

// hashLen returns the number of fields.
func hashLen(o *Object) int {
	switch h := o.Value().(type) {
	case *ds.Listpack:
		return h.Len() / 2
	case *hashDict:
		return h.Len()
	}
	panic("db: not a hash")
}

// lpFindField returns the offset of field in a listpack hash, or -1.
func lpFindField(lp *ds.Listpack, field []byte) int {
	for p := 0; p < lp.End(); {
		f, vp := lp.Next(p)
		if string(f) == string(field) {
			return p
		}
		p = lp.Skip(vp)
	}
	return -1
}

// hashGet returns the value of field. The slice aliases the hash and is
// valid until it changes.
func hashGet(v any, field []byte) ([]byte, bool) {
	switch h := v.(type) {
	case *ds.Listpack:
		p := lpFindField(h, field)
		if p < 0 {
			return nil, false
		}
		val, _ := h.Next(h.Skip(p))
		return val, true
	case *hashDict:
		return h.Get(field)
	}
	panic("db: not a hash")
}

// hashTryConversion is hashTypeTryConversion: before setting the pairs in
// args (field, value, ...), convert a listpack that they would make too
// big.
func hashTryConversion(s *settings, o *Object, args [][]byte) {
	lp, ok := o.Value().(*ds.Listpack)
	if !ok {
		return
	}
	if int64(len(args)/2) > s.hashEntries.Load() {
		hashToDict(o, lp, len(args)/2)
		return
	}
	maxv := s.hashValue.Load()
	for _, a := range args {
		if int64(len(a)) > maxv {
			// Sized for the pairs about to be set: the table's records
			// are carved from slabs, and the first is sized by this.
			hashToDict(o, lp, len(args)/2)
			return
		}
	}
}

// hashToDict converts a listpack hash to the hashtable encoding, sized for
// extra more fields.
func hashToDict(o *Object, lp *ds.Listpack, extra int) *hashDict {
	d := newHashDict(lp.Len()/2 + extra)
	for p := 0; p < lp.End(); {
		f, vp := lp.Next(p)
		val, next := lp.Next(vp)
		d.Set(f, val)
		p = next
	}
	o.SetValue(d)
	return d
}

// hashSet is hashTypeSet: set field to value, converting the encoding
// when the pair or the new length exceeds the listpack limits. It reports
// whether the field already existed.
func hashSet(s *settings, o *Object, field, value []byte) (update bool) {
	if lp, ok := o.Value().(*ds.Listpack); ok {
		maxv := s.hashValue.Load()
		if int64(len(field)) > maxv || int64(len(value)) > maxv {
			hashToDict(o, lp, 1)
		} else {
			if p := lpFindField(lp, field); p >= 0 {
				o.SetValue(lp.Replace(lp.Skip(p), value))
				return true
			}
			lp = lp.Append(field).Append(value)
			o.SetValue(lp)
			if int64(lp.Len()/2) > s.hashEntries.Load() {
				hashToDict(o, lp, 0)
			}
			return false
		}
	}
	return !o.Value().(*hashDict).Set(field, value)
}

// hashDelete removes field and reports whether it existed.
func hashDelete(o *Object, field []byte) bool {
	switch h := o.Value().(type) {
	case *ds.Listpack:
		p := lpFindField(h, field)
		if p < 0 {
			return false
		}
		o.SetValue(h.Delete(p, 2))
		return true
	case *hashDict:
		return h.Delete(field)
	}
	panic("db: not a hash")
}

// hashRange calls fn for every field and value in encoding order (the
// listpack's insertion order; the StrMap's owners, last first) until fn returns
// false.
func hashRange(v any, fn func(field, value []byte) bool) {
	switch h := v.(type) {
	case *ds.Listpack:
		for p := 0; p < h.End(); {
			f, vp := h.Next(p)
			val, next := h.Next(vp)
			if !fn(f, val) {
				return
			}
			p = next
		}
	case *hashDict:
		h.Range(fn)
	}
}

// hashCopy duplicates a hash for COPY, keeping its encoding.
func hashCopy(o *Object) any {
	switch h := o.Value().(type) {
	case *ds.Listpack:
		return h.Clone()
	case *hashDict:
		d := newHashDict(h.Len())
		h.Range(func(k, v []byte) bool {
			d.Set(k, v)
			return true
		})
		return d
	}
	return nil
}

// hashEncoding is OBJECT ENCODING of a hash.
func hashEncoding(v any) string {
	if _, ok := v.(*ds.Listpack); ok {
		return "listpack"
	}
	return "hashtable"
}
