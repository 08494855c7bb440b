package lualib

import (
	"fmt"
	"math"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// cjson: lua_cjson 2.1.0 as Valkey builds it (no DISABLE_INVALID_NUMBERS,
// the "." locale). The module table, its configuration functions and the
// encoder live here; the decoder is in cjson_decode.go.

// cjsonConfig is one cjson instance's configuration (json_config_t): the
// global cjson table has one, and each cjson.new() another.
type cjsonConfig struct {
	sparseConvert  int // 0 or 1
	sparseRatio    int
	sparseSafe     int
	encodeMaxDepth int
	decodeMaxDepth int
	encodeInvalid  int // 0 off, 1 on, 2 "null"
	decodeInvalid  int // 0 off, 1 on
	keepBuffer     int // 0 or 1; no visible effect beyond its value
	precision      int
	buf            []byte // the reused encode buffer (encode_keep_buffer)
}

func newCJSONConfig() *cjsonConfig {
	return &cjsonConfig{
		sparseRatio:    2,
		sparseSafe:     10,
		encodeMaxDepth: 1000,
		decodeMaxDepth: 1000,
		decodeInvalid:  1,
		keepBuffer:     1,
		precision:      14,
	}
}

// newCJSON builds a cjson module table with a configuration of its own
// (lua_cjson_new).
func (lib *libState) newCJSON(L *lua.LState) *lua.LTable {
	cfg := newCJSONConfig()
	t := L.NewTable()
	setFuncs(L, t, []libFunc{
		{"encode", func(L *lua.LState) int { return lib.jsonEncode(L, cfg) }},
		{"decode", func(L *lua.LState) int { return lib.jsonDecode(L, cfg) }},
		{"encode_sparse_array", cfg.encodeSparseArray},
		{"encode_max_depth", func(L *lua.LState) int {
			argsInit(L, 1)
			return intOption(L, 1, &cfg.encodeMaxDepth, 1, math.MaxInt32)
		}},
		{"decode_max_depth", func(L *lua.LState) int {
			argsInit(L, 1)
			return intOption(L, 1, &cfg.decodeMaxDepth, 1, math.MaxInt32)
		}},
		{"encode_number_precision", func(L *lua.LState) int {
			argsInit(L, 1)
			return intOption(L, 1, &cfg.precision, 1, 14)
		}},
		{"encode_keep_buffer", func(L *lua.LState) int {
			argsInit(L, 1)
			return enumOption(L, 1, &cfg.keepBuffer, onOff)
		}},
		{"encode_invalid_numbers", func(L *lua.LState) int {
			argsInit(L, 1)
			return enumOption(L, 1, &cfg.encodeInvalid, []string{"off", "on", "null"})
		}},
		{"decode_invalid_numbers", func(L *lua.LState) int {
			argsInit(L, 1)
			return enumOption(L, 1, &cfg.decodeInvalid, onOff)
		}},
		{"new", func(L *lua.LState) int {
			L.Push(lib.newCJSON(L))
			return 1
		}},
	})
	t.RawSetString("null", lib.null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

var onOff = []string{"off", "on"}

// argsInit is json_arg_init: at most n arguments, padded with nils.
func argsInit(L *lua.LState, n int) {
	if L.GetTop() > n {
		argError(L, n+1, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// intOption is json_integer_option: set *setting from argument i when it
// is given (a 32-bit int, as the C setting is), and push the setting. The
// range error names argument 1 whatever i is, as cjson does.
func intOption(L *lua.LState, i int, setting *int, lo, hi int) int {
	if L.Get(i) != lua.LNil {
		v := int(int32(checkInteger(L, i)))
		if v < lo || v > hi {
			argError(L, 1, fmt.Sprintf("expected integer between %d and %d", lo, hi))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
	return 1
}

// enumOption is json_enum_option with bool_true 1: set *setting from a
// boolean or one of the option names, and push it back as a boolean when
// it is off/on, else as its name.
func enumOption(L *lua.LState, i int, setting *int, options []string) int {
	if v := L.Get(i); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok {
			*setting = 0
			if b {
				*setting = 1
			}
		} else {
			*setting = checkOption(L, i, options)
		}
	}
	if *setting <= 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
	return 1
}

// encodeSparseArray is cjson.encode_sparse_array([convert[, ratio[, safe]]]).
func (cfg *cjsonConfig) encodeSparseArray(L *lua.LState) int {
	argsInit(L, 3)
	enumOption(L, 1, &cfg.sparseConvert, onOff)
	intOption(L, 2, &cfg.sparseRatio, 0, math.MaxInt32)
	intOption(L, 3, &cfg.sparseSafe, 0, math.MaxInt32)
	return 3
}

// jsonEncoder is one cjson.encode call.
type jsonEncoder struct {
	L   *lua.LState
	lib *libState
	cfg *cjsonConfig
	buf []byte
}

// jsonEncode is cjson.encode(value).
func (lib *libState) jsonEncode(L *lua.LState, cfg *cjsonConfig) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	enc := &jsonEncoder{L: L, lib: lib, cfg: cfg}
	if cfg.keepBuffer == 1 {
		enc.buf = cfg.buf[:0]
	}
	// The argument holds one stack slot.
	enc.value(L.Get(1), 0, 1)
	if cfg.keepBuffer == 1 && cap(enc.buf) <= 1<<20 {
		cfg.buf = enc.buf
	}
	L.Push(lua.LString(enc.buf))
	return 1
}

// fail raises "Cannot serialise <type>: <reason>".
func (enc *jsonEncoder) fail(v lua.LValue, reason string) {
	raise(enc.L, "Cannot serialise %s: %s", v.Type().String(), reason)
}

// value appends v. slots is how many stack slots the C encoder would hold
// with v on top, for the lua_checkstack it makes on entering a table.
func (enc *jsonEncoder) value(v lua.LValue, depth, slots int) {
	switch v := v.(type) {
	case lua.LString:
		enc.buf = appendJSONString(enc.buf, string(v))
	case lua.LNumber:
		enc.number(v)
	case lua.LBool:
		if v {
			enc.buf = append(enc.buf, "true"...)
		} else {
			enc.buf = append(enc.buf, "false"...)
		}
	case *lua.LTable:
		depth++
		if depth > enc.cfg.encodeMaxDepth || slots+3 > maxCStack {
			raise(enc.L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		es := luaOrderLazy(v)
		if n := enc.arrayLength(v, es); n > 0 {
			enc.array(v, n, depth, slots)
		} else {
			enc.object(es.ordered(), depth, slots)
		}
	case *lua.LNilType:
		enc.buf = append(enc.buf, "null"...)
	case *lua.LUserData:
		if v == enc.lib.null {
			enc.buf = append(enc.buf, "null"...)
			return
		}
		enc.fail(v, "type not supported")
	default:
		enc.fail(v, "type not supported")
	}
}

// number appends a number as %.<precision>g, or handles NaN and ±Inf as
// encode_invalid_numbers says.
func (enc *jsonEncoder) number(n lua.LNumber) {
	f := float64(n)
	switch enc.cfg.encodeInvalid {
	case 0:
		if math.IsNaN(f) || math.IsInf(f, 0) {
			enc.fail(n, "must not be NaN or Inf")
		}
	case 1:
		if math.IsNaN(f) {
			// cjson writes "nan" itself: printf may say "-nan".
			enc.buf = append(enc.buf, "nan"...)
			return
		}
	default:
		if math.IsNaN(f) || math.IsInf(f, 0) {
			enc.buf = append(enc.buf, "null"...)
			return
		}
	}
	enc.buf = appendG(enc.buf, f, enc.cfg.precision)
}

// arrayLength is lua_array_length: the largest key when every key is a
// positive integer, -1 for an object (or an excessively sparse array that
// encode_sparse_array converts), or an error for one it does not.
func (enc *jsonEncoder) arrayLength(t *lua.LTable, es *lazyOrder) int {
	max, items := int32(0), int32(0)
	keys := es.insertion()
	for pass := 0; pass < 2; pass++ {
		max, items = 0, 0
		big := false
		for _, e := range keys {
			k, ok := e.key.(lua.LNumber)
			if !ok || k == 0 || math.Floor(float64(k)) != float64(k) || k < 1 {
				return -1
			}
			if float64(k) > float64(max) {
				// cjson keeps the maximum in a C int.
				max = toInt32(float64(k))
				big = big || float64(k) >= 1<<31
			}
			items++
		}
		if !big {
			break
		}
		// A key past INT_MAX makes the result depend on the order of
		// next(): compute it again in Lua's order.
		keys = es.ordered()
	}
	cfg := enc.cfg
	if cfg.sparseRatio > 0 && max > items*int32(cfg.sparseRatio) && max > int32(cfg.sparseSafe) {
		if cfg.sparseConvert == 0 {
			enc.fail(t, "excessively sparse array")
		}
		return -1
	}
	return int(max)
}

// array appends t[1..n], nil holes as null.
func (enc *jsonEncoder) array(t *lua.LTable, n, depth, slots int) {
	enc.buf = append(enc.buf, '[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			enc.buf = append(enc.buf, ',')
		}
		enc.value(t.RawGet(lua.LNumber(i)), depth, slots+1)
	}
	enc.buf = append(enc.buf, ']')
}

// object appends the pairs of a table as members, in Lua's order.
func (enc *jsonEncoder) object(es []entry, depth, slots int) {
	enc.buf = append(enc.buf, '{')
	for i, e := range es {
		if i > 0 {
			enc.buf = append(enc.buf, ',')
		}
		switch k := e.key.(type) {
		case lua.LNumber:
			enc.buf = append(enc.buf, '"')
			enc.number(k)
			enc.buf = append(enc.buf, '"', ':')
		case lua.LString:
			enc.buf = appendJSONString(enc.buf, string(k))
			enc.buf = append(enc.buf, ':')
		default:
			enc.fail(k, "table key must be a number or string")
		}
		enc.value(e.val, depth, slots+2)
	}
	enc.buf = append(enc.buf, '}')
}

// jsonEscapes holds cjson's escape for each byte that has one: control
// characters, '"', '\\', '/' and DEL.
var jsonEscapes = func() (esc [256]string) {
	for c := 0; c < 0x20; c++ {
		esc[c] = fmt.Sprintf("\\u%04x", c)
	}
	esc['\b'], esc['\t'], esc['\n'], esc['\f'], esc['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	esc['"'], esc['\\'], esc['/'], esc[0x7f] = `\"`, `\\`, `\/`, `\u007f`
	return esc
}()

// appendJSONString appends s quoted and escaped; bytes >= 0x80 pass as they
// are (cjson does not check UTF-8).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if esc := jsonEscapes[s[i]]; esc != "" {
			b = append(b, s[start:i]...)
			b = append(b, esc...)
			start = i + 1
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// lazyOrder holds a table's pairs in insertion order and computes Lua's
// order only when asked.
type lazyOrder struct {
	es  []entry
	lua []entry
}

func luaOrderLazy(t *lua.LTable) *lazyOrder {
	return &lazyOrder{es: tableEntries(t)}
}

func (o *lazyOrder) insertion() []entry { return o.es }

func (o *lazyOrder) ordered() []entry {
	if o.lua == nil {
		o.lua = orderEntries(o.es)
	}
	return o.lua
}
