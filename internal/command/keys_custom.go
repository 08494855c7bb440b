package command

// getKeysFn selects the Go port of a Valkey custom get-keys function. It is
// an enum rather than a func value so that calls stay direct and the
// keyOut collector does not escape to the heap.
type getKeysFn uint8

const (
	getKeysNone getKeysFn = iota
	getKeysSet
	getKeysBitfield
	getKeysSort
	getKeysSortRO
	getKeysMigrate
	getKeysGeoradius
	getKeysXread
	getKeysNumkeys1      // genericGetKeys(0, 1, 2, 1): CMD numkeys key...
	getKeysNumkeys2      // genericGetKeys(0, 2, 3, 1): CMD x numkeys key...
	getKeysStoreNumkeys2 // genericGetKeys(1, 2, 3, 1): CMD dst numkeys key...
)

// customGetKeys maps Valkey's get_keys_function names to their ports.
// buildTable panics on a name missing here.
var customGetKeys = map[string]getKeysFn{
	"setGetKeys":                  getKeysSet,
	"bitfieldGetKeys":             getKeysBitfield,
	"sortGetKeys":                 getKeysSort,
	"sortROGetKeys":               getKeysSortRO,
	"migrateGetKeys":              getKeysMigrate,
	"georadiusGetKeys":            getKeysGeoradius,
	"xreadGetKeys":                getKeysXread,
	"sintercardGetKeys":           getKeysNumkeys1,
	"zunionInterDiffGetKeys":      getKeysNumkeys1,
	"lmpopGetKeys":                getKeysNumkeys1,
	"zmpopGetKeys":                getKeysNumkeys1,
	"evalGetKeys":                 getKeysNumkeys2,
	"functionGetKeys":             getKeysNumkeys2,
	"blmpopGetKeys":               getKeysNumkeys2,
	"bzmpopGetKeys":               getKeysNumkeys2,
	"zunionInterDiffStoreGetKeys": getKeysStoreNumkeys2,
}

// customKeys runs the command's custom get-keys function, if any. Each port
// guards argv length itself because, unlike Valkey, callers may not have
// checked arity first.
func (m *Meta) customKeys(argv [][]byte, o *keyOut) {
	switch m.getKeys {
	case getKeysSet:
		setKeys(argv, o)
	case getKeysBitfield:
		bitfieldKeys(argv, o)
	case getKeysSort:
		sortKeys(argv, o)
	case getKeysSortRO:
		if len(argv) > 1 {
			o.add(1, KeyRO|KeyAccess)
		}
	case getKeysMigrate:
		migrateKeys(argv, o)
	case getKeysGeoradius:
		georadiusKeys(argv, o)
	case getKeysXread:
		xreadKeys(argv, o)
	case getKeysNumkeys1:
		genericKeys(argv, o, 0, 1, 2)
	case getKeysNumkeys2:
		genericKeys(argv, o, 0, 2, 3)
	case getKeysStoreNumkeys2:
		genericKeys(argv, o, 1, 2, 3)
	}
}

// genericKeys ports genericGetKeys (key step 1): the count at countPos is
// read with atoi, and a count that is < 1 or too large yields no keys. The
// store key, if any, comes last, as in Valkey.
func genericKeys(argv [][]byte, o *keyOut, storePos, countPos, firstPos int) {
	if countPos >= len(argv) {
		return
	}
	n := atoi(argv[countPos])
	if n < 1 || n > int64(len(argv)-firstPos) {
		return
	}
	for i := 0; i < int(n); i++ {
		o.add(firstPos+i, 0)
	}
	if storePos != 0 {
		o.add(storePos, 0)
	}
}

// setKeys ports setGetKeys: SET's key is read-write when GET is given and
// only overwritten otherwise.
func setKeys(argv [][]byte, o *keyOut) {
	if len(argv) < 2 {
		return
	}
	for _, a := range argv[min(3, len(argv)):] {
		if equalFold(a, "get") {
			o.add(1, KeyRW|KeyAccess|KeyUpdate)
			return
		}
	}
	o.add(1, KeyOW|KeyUpdate)
}

// bitfieldKeys ports bitfieldGetKeys: read-only unless a SET or INCRBY
// operation (or a syntax error) is present.
func bitfieldKeys(argv [][]byte, o *keyOut) {
	if len(argv) < 2 {
		return
	}
	readonly := true
	for i := 2; i < len(argv); i++ {
		rem := len(argv) - i - 1
		a := argv[i]
		if equalFold(a, "get") && rem >= 2 {
			i += 2
		} else if (equalFold(a, "set") || equalFold(a, "incrby")) && rem >= 3 {
			readonly = false
			break
		} else if equalFold(a, "overflow") && rem >= 1 {
			i++
		} else {
			readonly = false // syntax error: safer to assume a write
			break
		}
	}
	if readonly {
		o.add(1, KeyRO|KeyAccess)
	} else {
		o.add(1, KeyRW|KeyAccess|KeyUpdate)
	}
}

// sortKeys ports sortGetKeys: the sorted key, plus the last STORE target.
// LIMIT, GET and BY skip their arguments so that a pattern named "store" is
// not mistaken for the option.
func sortKeys(argv [][]byte, o *keyOut) {
	if len(argv) < 2 {
		return
	}
	o.add(1, KeyRO|KeyAccess)
	store := 0
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		switch {
		case equalFold(a, "limit"):
			i += 2
		case equalFold(a, "get"), equalFold(a, "by"):
			i++
		case equalFold(a, "store") && i+1 < len(argv):
			store = i + 1 // keep the last STORE, as SORT does
		}
	}
	if store != 0 {
		o.add(store, KeyOW|KeyUpdate)
	}
}

// migrateKeys ports migrateGetKeys: the key at 3, or with KEYS (which needs
// an empty key argument) every argument after KEYS.
func migrateKeys(argv [][]byte, o *keyOut) {
	argc := len(argv)
	if argc < 4 {
		return
	}
	first, num := 3, 1
	if argc > 6 {
	scan:
		for i := 6; i < argc; i++ {
			a := argv[i]
			switch {
			case equalFold(a, "keys"):
				if len(argv[3]) > 0 {
					num = 0 // syntax error left to the command
				} else {
					first, num = i+1, argc-i-1
				}
				break scan
			case equalFold(a, "auth"):
				i++
			case equalFold(a, "auth2"):
				i += 2
			}
		}
	}
	for i := 0; i < num; i++ {
		o.add(first+i, KeyRW|KeyAccess|KeyDelete)
	}
}

// georadiusKeys ports georadiusGetKeys: the key, plus the last STORE or
// STOREDIST target.
func georadiusKeys(argv [][]byte, o *keyOut) {
	if len(argv) < 2 {
		return
	}
	stored := -1
	for i := 5; i < len(argv); i++ {
		a := argv[i]
		if (equalFold(a, "store") || equalFold(a, "storedist")) && i+1 < len(argv) {
			stored = i + 1
			i++
		}
	}
	o.add(1, 0)
	if stored != -1 {
		o.add(stored, 0)
	}
}

// xreadKeys ports xreadGetKeys: the first half of the arguments after the
// STREAMS option, found by skipping the other options' arguments.
func xreadKeys(argv [][]byte, o *keyOut) {
	argc := len(argv)
	streams := -1
scan:
	for i := 1; i < argc; i++ {
		a := argv[i]
		switch {
		case equalFold(a, "block"), equalFold(a, "count"):
			i++
		case equalFold(a, "group"):
			i += 2
		case equalFold(a, "noack"):
		case equalFold(a, "streams"):
			streams = i
			break scan
		default:
			break scan // syntax error
		}
	}
	if streams == -1 {
		return
	}
	num := argc - streams - 1
	if num == 0 || num%2 != 0 {
		return
	}
	for i := streams + 1; i < streams+1+num/2; i++ {
		o.add(i, 0)
	}
}

// atoi mimics C's atoi for the count arguments genericGetKeys reads:
// leading whitespace, an optional sign, then digits up to the first
// non-digit. Values are clamped instead of overflowing.
func atoi(b []byte) int64 {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var v int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v < 1<<40 {
			v = v*10 + int64(b[i]-'0')
		}
	}
	if neg {
		return -v
	}
	return v
}
