package wire

import (
	"strconv"
	"strings"
)

// Placeholders recognised inside --command arguments.
const (
	KeyPlaceholder  = "__key__"
	DataPlaceholder = "__data__"
)

type segKind uint8

const (
	segLit segKind = iota
	segKey
	segData
)

type segment struct {
	kind segKind
	lit  []byte
}

// arg is one command argument: either fully literal (pre-encoded) or a
// sequence of literal/key/data segments.
type arg struct {
	encoded []byte // non-nil for a literal argument: "$n\r\n...\r\n"
	segs    []segment
	litLen  int
	nKey    int
	nData   int
}

// Template is a parsed --command: its arguments with __key__ and __data__
// placeholders, which may appear alone or inside a larger argument
// ("user:__key__"). Every placeholder in one request gets the same key and
// the same data, as in memtier.
type Template struct {
	Name    string // first argument, upper-cased ("SET")
	args    []arg
	header  []byte // "*N\r\n"
	HasKey  bool
	HasData bool
}

// Compile builds a template from already split arguments.
func Compile(args []string) *Template {
	t := &Template{header: []byte("*" + strconv.Itoa(len(args)) + "\r\n")}
	if len(args) > 0 {
		t.Name = strings.ToUpper(args[0])
	}
	for _, a := range args {
		if !strings.Contains(a, KeyPlaceholder) && !strings.Contains(a, DataPlaceholder) {
			t.args = append(t.args, arg{encoded: []byte("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")})
			continue
		}
		var x arg
		for a != "" {
			ki := strings.Index(a, KeyPlaceholder)
			di := strings.Index(a, DataPlaceholder)
			i, kind, plen := -1, segLit, 0
			switch {
			case ki >= 0 && (di < 0 || ki < di):
				i, kind, plen = ki, segKey, len(KeyPlaceholder)
			case di >= 0:
				i, kind, plen = di, segData, len(DataPlaceholder)
			}
			if i < 0 {
				x.segs = append(x.segs, segment{kind: segLit, lit: []byte(a)})
				x.litLen += len(a)
				break
			}
			if i > 0 {
				x.segs = append(x.segs, segment{kind: segLit, lit: []byte(a[:i])})
				x.litLen += i
			}
			x.segs = append(x.segs, segment{kind: kind})
			if kind == segKey {
				x.nKey++
				t.HasKey = true
			} else {
				x.nData++
				t.HasData = true
			}
			a = a[i+plen:]
		}
		t.args = append(t.args, x)
	}
	return t
}

// Append encodes the request for key and data onto dst.
func (t *Template) Append(dst, key, data []byte) []byte {
	dst = append(dst, t.header...)
	for i := range t.args {
		a := &t.args[i]
		if a.encoded != nil {
			dst = append(dst, a.encoded...)
			continue
		}
		n := a.litLen + a.nKey*len(key) + a.nData*len(data)
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, '\r', '\n')
		for _, s := range a.segs {
			switch s.kind {
			case segLit:
				dst = append(dst, s.lit...)
			case segKey:
				dst = append(dst, key...)
			case segData:
				dst = append(dst, data...)
			}
		}
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// Expand renders the request as plain arguments (for tests and debugging).
func (t *Template) Expand(key, data []byte) []string {
	out := make([]string, 0, len(t.args))
	for _, a := range t.args {
		if a.encoded != nil {
			// strip "$n\r\n" and the trailing CRLF
			s := string(a.encoded)
			s = s[strings.Index(s, "\r\n")+2 : len(s)-2]
			out = append(out, s)
			continue
		}
		var b strings.Builder
		for _, s := range a.segs {
			switch s.kind {
			case segLit:
				b.Write(s.lit)
			case segKey:
				b.Write(key)
			case segData:
				b.Write(data)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// AppendCommand encodes a literal command (control path; allocates only if
// dst must grow).
func AppendCommand(dst []byte, args ...string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}
