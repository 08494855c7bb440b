package rdb

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"
)

// maxPrealloc bounds how many elements a count read from the input may
// reserve up front; beyond it slices grow as elements arrive.
const maxPrealloc = 1024

// value decodes the value of RDB type t (rdbLoadObject); off is where
// the type byte was. It returns nil, nil for an empty collection, which
// Valkey skips when loading.
func (d *dec) value(t byte, off int64) (*Entry, error) {
	e := &Entry{ExpireMs: -1, Idle: -1, Freq: -1}
	voff := d.in.offset()
	bad := func(msg string) error {
		return corrupt(voff, fmt.Sprintf("%s value: %s", rdbTypeName(t), msg))
	}
	switch t {
	case typeString:
		s, err := d.str("string value")
		if err != nil {
			return nil, err
		}
		e.Kind, e.String = KindString, s
		return e, nil

	case typeList:
		// RDB_TYPE_LIST (Redis before 3.2): a count and that many strings.
		e.Kind = KindList
		n, err := d.length("list length")
		if err != nil {
			return nil, err
		}
		e.List = make([][]byte, 0, min(n, maxPrealloc))
		for range n {
			s, err := d.str("list element")
			if err != nil {
				return nil, err
			}
			e.List = append(e.List, s)
		}

	case typeListQuicklist, typeListQuicklist2:
		// A node count, then per node (v2 only) its container, PLAIN for
		// one raw element or PACKED for a listpack (v2) or ziplist (v1).
		// Empty packed nodes are skipped as Valkey skips them; an empty
		// list as a whole is skipped below.
		e.Kind = KindList
		n, err := d.length("quicklist node count")
		if err != nil {
			return nil, err
		}
		for range n {
			container := uint64(containerPacked)
			if t == typeListQuicklist2 {
				if container, err = d.length("quicklist container"); err != nil {
					return nil, err
				}
				if container != containerPlain && container != containerPacked {
					return nil, bad(fmt.Sprintf("quicklist node with unknown container %d", container))
				}
			}
			boff := d.in.offset()
			blob, err := d.str("quicklist node")
			if err != nil {
				return nil, err
			}
			if container == containerPlain {
				e.List = append(e.List, blob)
				continue
			}
			add := func(v []byte) string { e.List = append(e.List, v); return "" }
			var msg string
			if t == typeListQuicklist2 {
				msg = lpDecode(blob, add)
			} else {
				msg = zlDecode(blob, add)
			}
			if msg != "" {
				return nil, corrupt(boff, msg)
			}
		}

	case typeListZiplist:
		e.Kind = KindList
		if err := d.blob(t, func(b []byte) string {
			return zlDecode(b, func(v []byte) string { e.List = append(e.List, v); return "" })
		}); err != nil {
			return nil, err
		}

	case typeSet, typeSetIntset, typeSetListpack:
		// A hashtable set is a count and strings; intsets and listpacks
		// are one blob each. Members keep the file's order.
		e.Kind = KindSet
		u := newUniq()
		add := func(v []byte) string {
			if !u.add(v) {
				return "duplicate set member"
			}
			e.Set = append(e.Set, v)
			return ""
		}
		switch t {
		case typeSet:
			n, err := d.length("set length")
			if err != nil {
				return nil, err
			}
			e.Set = make([][]byte, 0, min(n, maxPrealloc))
			for range n {
				s, err := d.str("set member")
				if err != nil {
					return nil, err
				}
				if msg := add(s); msg != "" {
					return nil, bad(msg)
				}
			}
		case typeSetIntset:
			if err := d.blob(t, func(b []byte) string {
				var msg string
				e.Set, msg = intsetDecode(b)
				return msg
			}); err != nil {
				return nil, err
			}
		default:
			if err := d.blob(t, func(b []byte) string { return lpDecode(b, add) }); err != nil {
				return nil, err
			}
		}

	case typeZSet, typeZSet2, typeZSetZiplist, typeZSetListpack:
		// Skiplists are saved greatest first with scores as strings (v1)
		// or binary doubles (v2); ziplists and listpacks hold member and
		// score alternately, the score as a string or an integer. All
		// come out in Valkey's order: by score, then member bytes.
		e.Kind = KindZSet
		u := newUniq()
		add := func(m []byte, score float64) string {
			if math.IsNaN(score) {
				return "zset with a NaN score"
			}
			if !u.add(m) {
				return "duplicate zset member"
			}
			e.ZSet = append(e.ZSet, ZMember{Member: m, Score: score})
			return ""
		}
		if t == typeZSet || t == typeZSet2 {
			n, err := d.length("zset length")
			if err != nil {
				return nil, err
			}
			e.ZSet = make([]ZMember, 0, min(n, maxPrealloc))
			for range n {
				m, err := d.str("zset member")
				if err != nil {
					return nil, err
				}
				var score float64
				if t == typeZSet2 {
					b, err := d.in.next(8, "zset score")
					if err != nil {
						return nil, err
					}
					score = math.Float64frombits(binary.LittleEndian.Uint64(b))
				} else if score, err = d.oldScore(); err != nil {
					return nil, err
				}
				if msg := add(m, score); msg != "" {
					return nil, bad(msg)
				}
			}
		} else {
			// pair receives the blob's elements one at a time and adds a
			// member at every second one.
			var member []byte
			odd := false
			pair := func(v []byte) string {
				if odd = !odd; odd {
					member = v
					return ""
				}
				score, err := strconv.ParseFloat(string(v), 64)
				if err != nil {
					return "zset score is not a number"
				}
				return add(member, score)
			}
			if err := d.blob(t, func(b []byte) string {
				var msg string
				if t == typeZSetZiplist {
					msg = zlDecode(b, pair)
				} else {
					msg = lpDecode(b, pair)
				}
				if msg == "" && odd {
					msg = "zset with an odd number of elements"
				}
				return msg
			}); err != nil {
				return nil, err
			}
		}
		slices.SortFunc(e.ZSet, zcmp)

	case typeHash, typeHashZipmap, typeHashZiplist, typeHashListpack:
		// Fields and values alternate: as string pairs after a count, or
		// inside one zipmap, ziplist or listpack blob. Fields keep the
		// file's order.
		e.Kind = KindHash
		u := newUniq()
		add := func(f, v []byte) string {
			if !u.add(f) {
				return "duplicate hash field"
			}
			e.Hash = append(e.Hash, HashField{Field: f, Value: v})
			return ""
		}
		switch t {
		case typeHash:
			n, err := d.length("hash length")
			if err != nil {
				return nil, err
			}
			e.Hash = make([]HashField, 0, min(n, maxPrealloc))
			for range n {
				f, err := d.str("hash field")
				if err != nil {
					return nil, err
				}
				v, err := d.str("hash value")
				if err != nil {
					return nil, err
				}
				if msg := add(f, v); msg != "" {
					return nil, bad(msg)
				}
			}
		case typeHashZipmap:
			if err := d.blob(t, func(b []byte) string { return zipmapDecode(b, add) }); err != nil {
				return nil, err
			}
		default:
			var field []byte
			odd := false
			pair := func(v []byte) string {
				if odd = !odd; odd {
					field = v
					return ""
				}
				return add(field, v)
			}
			if err := d.blob(t, func(b []byte) string {
				var msg string
				if t == typeHashZiplist {
					msg = zlDecode(b, pair)
				} else {
					msg = lpDecode(b, pair)
				}
				if msg == "" && odd {
					msg = "hash with an odd number of elements"
				}
				return msg
			}); err != nil {
				return nil, err
			}
		}

	case typeStreamListpacks, typeStreamListpacks2, typeStreamListpacks3:
		s, err := d.stream(t)
		if err != nil {
			return nil, err
		}
		e.Kind, e.Stream = KindStream, s
		return e, nil

	// Types this package does not model: stop with the type and the
	// offset of its type byte. There is no skipping them: a module
	// value's length is not known without decoding it.
	case typeModulePreGA, typeModule2:
		return nil, &FormatError{Offset: off, Msg: fmt.Sprintf("RDB type %d (module value) not supported", t), Err: ErrUnsupported}
	default:
		return nil, corrupt(off, fmt.Sprintf("unknown RDB object type %d", t))
	}
	if e.Len() == 0 && e.Kind != KindStream {
		return nil, nil
	}
	return e, nil
}

// blob reads a string holding a serialized structure and decodes it with
// fn, which returns a problem description or "".
func (d *dec) blob(t byte, fn func(b []byte) string) error {
	off := d.in.offset()
	b, err := d.str(rdbTypeName(t) + " blob")
	if err != nil {
		return err
	}
	if msg := fn(b); msg != "" {
		return corrupt(off, rdbTypeName(t)+" value: "+msg)
	}
	return nil
}

// oldScore reads a RDB_TYPE_ZSET score (rdbLoadDoubleValue): a length
// byte (253 nan, 254 +inf, 255 -inf) and that many ASCII bytes.
func (d *dec) oldScore() (float64, error) {
	off := d.in.offset()
	c, err := d.in.readByte("zset score")
	if err != nil {
		return 0, err
	}
	switch c {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b, err := d.in.next(int(c), "zset score")
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, corrupt(off, "zset score is not a number")
	}
	return f, nil
}

// uniq detects duplicate members or fields. Its keys are the members'
// own bytes, not copies: they are not modified while a value is decoded,
// and the map is dropped before the Entry is delivered.
type uniq map[string]struct{}

func newUniq() uniq { return uniq{} }

func (u uniq) add(b []byte) bool {
	k := ""
	if len(b) > 0 {
		k = unsafe.String(&b[0], len(b))
	}
	if _, ok := u[k]; ok {
		return false
	}
	u[k] = struct{}{}
	return true
}
