package lualib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Seeded random differential cases: Lua values for cjson.encode and
// cmsgpack.pack, JSON texts (valid and broken) for cjson.decode, msgpack
// bytes (valid and broken) for cmsgpack.unpack. Every result is a string
// compared byte for byte with Valkey's; decoded values are shown by
// packing them with cmsgpack, which keeps numbers' exact bits and maps'
// Lua order.

// randomCases is how many cases each random test makes.
const randomCases = 300

// valueGen writes random Lua values as source text.
type valueGen struct {
	r *rand.Rand
	// special allows NaN and infinities (cjson refuses them).
	special bool
	// noNull leaves cjson.null out: msgpack packs it as nil, and a map
	// pair with a nil value leaves a dead key in the table Valkey unpacks
	// it into, which can change the order of the other keys (gopher-lua
	// keeps no trace of such keys).
	noNull bool
}

// luaQuote writes s as a Lua string literal, every byte outside printable
// ASCII (and the quote and backslash) as a three-digit escape.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// str makes a random string: mostly short ASCII, with control, quote,
// slash and backslash bytes, UTF-8 and invalid high bytes mixed in.
func (g *valueGen) str() string {
	n := g.r.IntN(12)
	if g.r.IntN(10) == 0 {
		n = g.r.IntN(300)
	}
	const pool = "abcXYZ019 _-/\\\"'\t\n\r\x00\x01\x1f\x7f"
	var b strings.Builder
	for b.Len() < n {
		switch g.r.IntN(8) {
		case 0:
			b.WriteByte(byte(g.r.IntN(256)))
		case 1:
			b.WriteString([]string{"é", "€", "😀", "日本"}[g.r.IntN(4)])
		default:
			b.WriteByte(pool[g.r.IntN(len(pool))])
		}
	}
	return b.String()
}

// number makes a random number literal (an expression for the values a
// literal cannot write).
func (g *valueGen) number() string {
	switch g.r.IntN(12) {
	case 0:
		return strconv.Itoa(g.r.IntN(256) - 128)
	case 1:
		return strconv.FormatInt(g.r.Int64N(1<<40)-1<<39, 10)
	case 2:
		return strconv.FormatFloat(float64(g.r.Int64()>>g.r.IntN(63)), 'g', -1, 64)
	case 3:
		return []string{"65535", "65536", "4294967295", "4294967296", "2147483647", "-2147483648",
			"-2147483649", "9007199254740993", "9.223372036854776e+18", "1.8446744073709552e+19", "-9.223372036854776e+18"}[g.r.IntN(11)]
	case 4:
		return strconv.FormatFloat(g.r.Float64()*math.Pow(10, float64(g.r.IntN(40)-20)), 'g', -1, 64)
	case 5:
		return strconv.FormatFloat(-g.r.Float64(), 'g', -1, 64)
	case 6:
		f := math.Float64frombits(g.r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 1.5
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case 7:
		return strconv.FormatFloat(float64(float32(g.r.NormFloat64()*1000)), 'g', -1, 64)
	case 8:
		return []string{"0.1", "1/3", "-2/3", "1e300", "5e-324", "1e-5", "123456.789", "0.5", "NZ", "3.4028234663852886e38", "1e39"}[g.r.IntN(11)]
	case 9:
		if g.special {
			return []string{"(1/0)", "(-1/0)", "(0/0)", "(-(0/0))"}[g.r.IntN(4)]
		}
		return "0"
	}
	return strconv.Itoa(g.r.IntN(100000))
}

// value makes a random value, tables nested up to depth.
func (g *valueGen) value(depth int) string {
	k := g.r.IntN(10)
	if depth <= 0 && k >= 7 {
		k = g.r.IntN(7)
	}
	switch k {
	case 0:
		return []string{"true", "false"}[g.r.IntN(2)]
	case 1, 2:
		return g.number()
	case 3, 4, 5:
		return luaQuote(g.str())
	case 6:
		if g.r.IntN(3) == 0 && !g.noNull {
			return "cjson.null"
		}
		return luaQuote(g.str())
	case 7:
		// An array, sometimes with holes.
		n := g.r.IntN(6)
		if g.r.IntN(8) == 0 {
			n = 16 + g.r.IntN(8)
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = g.value(depth - 1)
			if g.r.IntN(15) == 0 {
				parts[i] = "nil"
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	case 8:
		// A table built key by key: string keys mostly, some numbers.
		n := 1 + g.r.IntN(8)
		if g.r.IntN(8) == 0 {
			n = 16 + g.r.IntN(20)
		}
		parts := make([]string, 0, 2*n)
		for i := 0; i < n; i++ {
			var key string
			switch g.r.IntN(6) {
			case 0:
				// Not positive integers: gopher-lua keeps those apart, and
				// when they were set among the others is lost (see
				// tableEntries).
				key = []string{"0", "-1", "0.5", "2^31", "1e15", "-7"}[g.r.IntN(6)]
			case 1:
				key = luaQuote(g.str())
			default:
				key = luaQuote(fmt.Sprintf("%s%d", []string{"k", "name", "id", "x", ""}[g.r.IntN(5)], g.r.IntN(50)))
			}
			parts = append(parts, key, g.value(depth-1))
		}
		return "I(" + strings.Join(parts, ",") + ")"
	}
	// A constructor with a sparse or mixed shape.
	return fmt.Sprintf("{[%d]=%s, %s}", 1+g.r.IntN(30), g.value(depth-1), g.value(depth-1))
}

func TestRandomCJSONEncode(t *testing.T) {
	d := newDiffer(t, startPeer(t))
	g := &valueGen{r: rand.New(rand.NewPCG(1, 2))}
	for i := 0; i < randomCases; i++ {
		g.special = i%10 == 0
		d.check("cjson.encode("+g.value(3)+")", "")
	}
}

func TestRandomCmsgpackPack(t *testing.T) {
	d := newDiffer(t, startPeer(t))
	g := &valueGen{r: rand.New(rand.NewPCG(3, 4)), special: true}
	for i := 0; i < randomCases; i++ {
		d.check("cmsgpack.pack("+g.value(3)+")", "")
		if i%3 == 0 {
			// Through unpack and back.
			g.noNull = true
			d.check("cmsgpack.pack(cmsgpack.unpack(cmsgpack.pack("+g.value(3)+")))", "")
			g.noNull = false
		}
	}
}

// jsonGen writes random JSON texts, with the liberties cjson takes (hex,
// inf, nan, leading zeros) now and then.
type jsonGen struct{ r *rand.Rand }

func (g *jsonGen) ws() string {
	if g.r.IntN(4) != 0 {
		return ""
	}
	return []string{" ", "\n", "\t", "\r\n  ", "  "}[g.r.IntN(5)]
}

func (g *jsonGen) number() string {
	switch g.r.IntN(10) {
	case 0:
		return "-0"
	case 1:
		return strconv.FormatFloat(g.r.NormFloat64()*1e6, 'f', g.r.IntN(8), 64)
	case 2:
		return strconv.FormatFloat(g.r.NormFloat64(), 'e', g.r.IntN(17), 64)
	case 3:
		return fmt.Sprintf("%dE%+d", g.r.IntN(1000), g.r.IntN(700)-350)
	case 4:
		return []string{"0x1F", "-0x10", "1.", "-.5", "007", "+3", "inf", "-Infinity", "NaN", "1e400", "123456789012345678901234567890"}[g.r.IntN(11)]
	}
	return strconv.FormatInt(g.r.Int64N(1<<53)>>g.r.IntN(53)-int64(g.r.IntN(2))<<10, 10)
}

func (g *jsonGen) str() string {
	var b strings.Builder
	b.WriteByte('"')
	n := g.r.IntN(10)
	for i := 0; i < n; i++ {
		switch g.r.IntN(10) {
		case 0:
			b.WriteString([]string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`}[g.r.IntN(8)])
		case 1:
			fmt.Fprintf(&b, `\u%04x`, g.r.IntN(0xD800))
		case 2:
			hi, lo := 0xD800+g.r.IntN(0x400), 0xDC00+g.r.IntN(0x400)
			fmt.Fprintf(&b, `\u%04X\u%04x`, hi, lo)
		case 3:
			b.WriteString([]string{"é", "€", "😀", "\x7f", "\xff"}[g.r.IntN(5)])
		default:
			b.WriteByte("abcdefXYZ 0123456789-_/"[g.r.IntN(23)])
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g *jsonGen) value(depth int) string {
	k := g.r.IntN(9)
	if depth <= 0 && k >= 6 {
		k = g.r.IntN(6)
	}
	switch k {
	case 0:
		return []string{"true", "false", "null"}[g.r.IntN(3)]
	case 1, 2:
		return g.number()
	case 3, 4, 5:
		return g.str()
	case 6, 7:
		n := g.r.IntN(5)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = g.ws() + g.value(depth-1) + g.ws()
		}
		return "[" + strings.Join(parts, ",") + g.ws() + "]"
	}
	n := g.r.IntN(6)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.ws() + g.str() + g.ws() + ":" + g.ws() + g.value(depth-1)
	}
	return "{" + strings.Join(parts, ",") + g.ws() + "}"
}

// mutate breaks a text now and then: a byte dropped, changed or inserted,
// or the text cut short.
func mutate(r *rand.Rand, s string) string {
	if len(s) == 0 || r.IntN(3) != 0 {
		return s
	}
	i := r.IntN(len(s))
	switch r.IntN(4) {
	case 0:
		return s[:i] + s[i+1:]
	case 1:
		return s[:i] + string(rune(r.IntN(128))) + s[i+1:]
	case 2:
		return s[:i] + string([]byte{byte(r.IntN(256))}) + s[i:]
	}
	return s[:i]
}

func TestRandomCJSONDecode(t *testing.T) {
	d := newDiffer(t, startPeer(t))
	r := rand.New(rand.NewPCG(5, 6))
	g := &jsonGen{r: r}
	for i := 0; i < randomCases; i++ {
		text := mutate(r, g.ws()+g.value(4)+g.ws())
		d.check("cmsgpack.pack(cjson.decode("+luaQuote(text)+"))", "")
		if i%4 == 0 {
			d.check("cjson.encode(cjson.decode("+luaQuote(text)+"))", "")
		}
	}
}

func TestRandomCmsgpackUnpack(t *testing.T) {
	d := newDiffer(t, startPeer(t))
	r := rand.New(rand.NewPCG(7, 8))
	L := newTestState()
	defer L.Close()
	g := &valueGen{r: r, special: true}
	for i := 0; i < randomCases; i++ {
		// Valid bytes from a random value, then maybe broken, or random
		// bytes outright.
		var data string
		if r.IntN(5) == 0 {
			b := make([]byte, r.IntN(12))
			for j := range b {
				b[j] = byte(r.IntN(256))
			}
			data = string(b)
		} else {
			packed := runLocal(L, wrap("cmsgpack.pack("+g.value(3)+")"))
			s, err := strconv.Unquote(packed)
			if err != nil {
				t.Fatalf("pack: %s", packed)
			}
			data = mutate(r, s)
		}
		// Broken input can make maps with any keys in any order, so
		// the decoded values are compared through D, which does not
		// depend on the order of next().
		d.check("D(L(cmsgpack.unpack("+luaQuote(data)+")))", "")
		if i%4 == 0 {
			d.check("D(L(cmsgpack.unpack_one("+luaQuote(data)+")))", "")
		}
	}
}
