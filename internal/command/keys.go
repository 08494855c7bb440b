package command

import "github.com/corvid-kv/corvid/internal/resp"

// SearchOpt modifies a raw key-spec search (Meta.SpecKeyPositions), like
// Valkey's GET_KEYSPEC_* flags.
type SearchOpt uint8

const (
	// SearchIncludeNotKeys also returns arguments of NOT_KEY specs (the
	// shard channels of SPUBLISH/SSUBSCRIBE/SUNSUBSCRIBE), which cluster
	// routing hashes like keys.
	SearchIncludeNotKeys SearchOpt = 1 << iota
	// SearchReturnPartial skips invalid and incomplete specs instead of
	// failing the whole search.
	SearchReturnPartial
)

// keyOut collects key positions and, when wantFlags is set, their flags.
// It is passed by pointer to concrete functions only (never through an
// interface or func value) so that it stays on the caller's stack.
type keyOut struct {
	pos       []int
	flags     []KeySpecFlag
	wantFlags bool
}

func (o *keyOut) add(pos int, f KeySpecFlag) {
	o.pos = append(o.pos, pos)
	if o.wantFlags {
		o.flags = append(o.flags, f)
	}
}

func (o *keyOut) truncate(n int) {
	o.pos = o.pos[:n]
	if o.wantFlags {
		o.flags = o.flags[:n]
	}
}

// KeyPositions appends to dst the argv indexes of every key the command
// line names and returns the extended slice. It follows Valkey's
// getKeysFromCommandWithSpecs: key specs first (unless the command has none
// that name real keys, or has VARIABLE_FLAGS specs); if a spec is invalid
// for this argv (bad numkeys, out of range, unknown or incomplete spec) the
// command's custom get-keys function decides, and without one there are no
// keys. It never panics and does not allocate when dst has room.
func (m *Meta) KeyPositions(argv [][]byte, dst []int) []int {
	o := keyOut{pos: dst}
	m.collect(argv, &o)
	return o.pos
}

// KeyPositionsWithFlags returns the keys with their access flags, as COMMAND
// GETKEYSANDFLAGS reports them. Keys found by a custom function carry the
// flags that function assigns (none for the purely positional ones).
func (m *Meta) KeyPositionsWithFlags(argv [][]byte) []KeyRef {
	o := keyOut{wantFlags: true}
	m.collect(argv, &o)
	if len(o.pos) == 0 {
		return nil
	}
	refs := make([]KeyRef, len(o.pos))
	for i := range refs {
		refs[i] = KeyRef{Pos: o.pos[i], Flags: o.flags[i]}
	}
	return refs
}

// SpecKeyPositions runs only the key specs (Valkey's getKeysUsingKeySpecs)
// and appends the positions to dst. ok is false when a spec is invalid for
// this argv; then dst is returned unchanged (unless SearchReturnPartial).
func (m *Meta) SpecKeyPositions(argv [][]byte, dst []int, opts SearchOpt) (keys []int, ok bool) {
	o := keyOut{pos: dst}
	ok = m.specKeys(argv, &o, opts)
	return o.pos, ok
}

// HasKeys reports whether the command may name keys at all (Valkey's
// doesCommandHaveKeys); COMMAND GETKEYS rejects commands without.
func (m *Meta) HasKeys() bool { return m.getKeys != getKeysNone || m.hasKeySpec }

func (m *Meta) collect(argv [][]byte, o *keyOut) {
	if m.hasKeySpec && !m.varKeys {
		if m.specKeys(argv, o, 0) {
			return
		}
	}
	m.customKeys(argv, o)
}

// specKeys ports getKeysUsingKeySpecs. On an invalid spec it truncates o to
// where it started and returns false, unless SearchReturnPartial is set.
func (m *Meta) specKeys(argv [][]byte, o *keyOut, opts SearchOpt) bool {
	base := len(o.pos)
	for i := range m.KeySpecs {
		ks := &m.KeySpecs[i]
		if ks.Flags&KeyNotKey != 0 && opts&SearchIncludeNotKeys == 0 {
			continue
		}
		first, last, step, res := ks.bounds(argv)
		if res == specSkip {
			continue
		}
		if res == specOK {
			for j := first; j <= last; j += step {
				o.add(j, ks.Flags)
			}
			if ks.Flags&KeyIncomplete == 0 {
				continue
			}
			// Incomplete: the keys were added (for SearchReturnPartial) but
			// the search as a whole is invalid.
		}
		if opts&SearchReturnPartial != 0 {
			continue
		}
		o.truncate(base)
		return false
	}
	return true
}

type specResult uint8

const (
	specOK      specResult = iota
	specSkip               // keyword not found: the spec names no key
	specInvalid            // syntax error, or a spec that cannot be evaluated
)

// bounds evaluates one key spec against argv. When it returns specOK,
// 1 <= first <= last < len(argv) and step >= 1.
func (ks *KeySpec) bounds(argv [][]byte) (first, last, step int, res specResult) {
	argc := len(argv)
	switch ks.BeginKind {
	case BeginIndex:
		first = ks.Pos
	case BeginKeyword:
		// Search forwards from StartFrom to the penultimate argument, or
		// backwards from argc+StartFrom down to argument 2 (Valkey's loop
		// bounds, kept exactly).
		start, end := ks.StartFrom, argc-1
		if ks.StartFrom <= 0 {
			start, end = argc+ks.StartFrom, 1
		}
		for j := start; j != end; {
			if j >= argc || j < 1 {
				break
			}
			if equalFold(argv[j], ks.Keyword) {
				first = j + 1
				break
			}
			if start <= end {
				j++
			} else {
				j--
			}
		}
		if first == 0 {
			return 0, 0, 0, specSkip
		}
	default:
		return 0, 0, 0, specInvalid
	}

	switch ks.FindKind {
	case FindRange:
		step = ks.Step
		switch {
		case ks.LastKey >= 0:
			last = first + ks.LastKey
		case ks.Limit == 0:
			last = argc + ks.LastKey
		default: // LastKey == -1 with a limit (checked by the generator)
			last = first + ((argc-first)/ks.Limit + ks.LastKey)
		}
	case FindKeynum:
		step = ks.KeyStep
		idx := first + ks.KeynumIdx
		if ks.KeynumIdx >= argc || idx >= argc {
			return 0, 0, 0, specInvalid
		}
		n, ok := resp.ParseInt(argv[idx])
		// A count larger than argv cannot fit (Valkey would truncate it to
		// int; we simply treat it as the syntax error it is).
		if !ok || n < 0 || n > int64(argc) {
			return 0, 0, 0, specInvalid
		}
		first += ks.FirstKey
		last = first + int(n) - 1
	default:
		return 0, 0, 0, specInvalid
	}
	if last >= argc || last < first || first >= argc || first < 1 || step < 1 {
		return 0, 0, 0, specInvalid
	}
	return first, last, step, specOK
}

// equalFold reports whether b equals s under ASCII case folding.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c, d := b[i], s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}
