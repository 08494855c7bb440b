package config

import (
	"strconv"
	"strings"
)

// Generic set/get/rewrite for the four standard kinds, ported from the
// boolConfig*/stringConfig*/enumConfig*/numericConfig* functions of config.c.

// defaultVal is the value an entry has before any directive is applied.
func (e *entry) defaultVal(dir string) val {
	switch e.kind {
	case kindString:
		return val{s: e.defStr, null: e.defNull}
	case kindSpecial:
		return e.special.def(dir)
	default:
		return val{n: e.def}
	}
}

// set parses args (one word unless fMultiArg) into a new value. changed
// reports whether the value differs (or the entry is volatile); msg is
// Valkey's error text when the value is refused. ld is non-nil while a
// configuration file is being read (only "save" behaves differently then).
func (e *entry) set(cur val, args []string, ld *loader) (nv val, changed bool, msg string) {
	if e.kind == kindSpecial {
		nv, msg = e.special.set(cur, args, ld)
		if msg != "" {
			return cur, false, msg
		}
		return nv, e.has(fVolatile) || e.special.get(nv) != e.special.get(cur), ""
	}
	if e.kind != kindEnum && len(args) != 1 {
		return cur, false, "wrong number of arguments"
	}
	switch e.kind {
	case kindBool:
		yn := yesNo(args[0])
		if yn < 0 {
			return cur, false, "argument must be 'yes' or 'no'"
		}
		if e.validInt != nil {
			if m := e.validInt(int64(yn)); m != "" {
				return cur, false, m
			}
		}
		nv = val{n: int64(yn)}
		return nv, e.has(fVolatile) || nv.n != cur.n, ""
	case kindString:
		s := args[0]
		if e.validStr != nil {
			if m := e.validStr(s); m != "" {
				return cur, false, m
			}
		}
		nv = val{s: s}
		if e.emptyIsNull && s == "" {
			nv = val{null: true}
		}
		return nv, e.has(fVolatile) || nv.null != cur.null || nv.s != cur.s, ""
	case kindEnum:
		v, ok := e.enumParse(args)
		if !ok {
			return cur, false, e.enumError()
		}
		if e.validInt != nil {
			if m := e.validInt(v); m != "" {
				return cur, false, m
			}
		}
		return val{n: v}, e.has(fVolatile) || v != cur.n, ""
	default: // kindNumeric
		v, m := e.numParse(args[0])
		if m != "" {
			return cur, false, m
		}
		if m := e.numBounds(v); m != "" {
			return cur, false, m
		}
		if e.validInt != nil {
			if m := e.validInt(v); m != "" {
				return cur, false, m
			}
		}
		if e.normalize != nil {
			v = e.normalize(v)
		}
		return val{n: v}, e.has(fVolatile) || v != cur.n, ""
	}
}

// format renders a value exactly as CONFIG GET shows it.
func (e *entry) format(v val) string {
	switch e.kind {
	case kindBool:
		if v.n != 0 {
			return "yes"
		}
		return "no"
	case kindString:
		return v.s
	case kindEnum:
		return e.enumName(v.n)
	case kindSpecial:
		return e.special.get(v)
	}
	switch {
	case e.nflags&nPercent != 0 && v.n < 0:
		return strconv.FormatInt(-v.n, 10) + "%"
	case e.nflags&nMemory != 0:
		return strconv.FormatUint(uint64(v.n), 10)
	case e.nflags&nOctal != 0:
		return strconv.FormatUint(uint64(v.n), 8)
	}
	if e.ntype.unsigned() {
		return strconv.FormatUint(uint64(v.n), 10)
	}
	return strconv.FormatInt(v.n, 10)
}

// enumParse is configEnumGetValue: one name, or for multi-arg enums any
// number (>0) of names OR-ed together; names are case-insensitive.
func (e *entry) enumParse(args []string) (int64, bool) {
	multi := e.has(fMultiArg)
	if len(args) == 0 || (!multi && len(args) != 1) {
		return 0, false
	}
	var v int64
	for _, a := range args {
		matched := false
		for _, it := range e.enums {
			if strings.EqualFold(a, it.name) {
				v |= it.val
				matched = true
			}
		}
		if !matched {
			return 0, false
		}
	}
	return v, true
}

func (e *entry) enumError() string {
	var b strings.Builder
	b.WriteString("argument(s) must be one of the following: ")
	for i, it := range e.enums {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.name)
	}
	s := b.String()
	if len(s) > 255 { // Valkey copies the text into a 256 byte buffer.
		s = s[:255]
	}
	return s
}

// enumName is configEnumGetName: the first exact match, or for multi-arg
// enums the names whose bits cover the value, or "unknown".
func (e *entry) enumName(v int64) string {
	multi := e.has(fMultiArg)
	var names []string
	unmatched := v
	for _, it := range e.enums {
		if v == it.val {
			return it.name
		}
		if multi && it.val != 0 && it.val == unmatched&it.val {
			names = append(names, it.name)
			unmatched &^= it.val
		}
	}
	if len(names) == 0 || unmatched != 0 {
		return "unknown"
	}
	return strings.Join(names, " ")
}

// numParse is numericParseString: memory units first, then "N%", then
// octal, then (only for plain integers) a strict integer.
func (e *entry) numParse(s string) (int64, string) {
	if e.nflags&nMemory != 0 {
		if v, ok := memtoull(s); ok {
			return int64(v), ""
		}
	}
	if e.nflags&nPercent != 0 && len(s) > 1 && s[len(s)-1] == '%' {
		if v, ok := string2ll(s[:len(s)-1]); ok && v >= 0 {
			return -v, "" // percentages are stored negated, as upstream
		}
	}
	if e.nflags&nOctal != 0 {
		if v, rest, ok := strtoll(s, 8); ok && rest == "" {
			return v, ""
		}
	}
	if e.nflags == 0 {
		if v, ok := string2ll(s); ok {
			return v, ""
		}
	}
	switch {
	case e.nflags&nMemory != 0 && e.nflags&nPercent != 0:
		return 0, "argument must be a memory or percent value"
	case e.nflags&nMemory != 0:
		return 0, "argument must be a memory value"
	case e.nflags&nOctal != 0:
		return 0, "argument couldn't be parsed as an octal number"
	}
	return 0, "argument couldn't be parsed into an integer"
}

// numBounds is numericBoundaryCheck.
func (e *entry) numBounds(v int64) string {
	if e.ntype.unsigned() {
		u, lo, hi := uint64(v), uint64(e.lower), uint64(e.upper)
		if u > hi || u < lo {
			if e.nflags&nOctal != 0 {
				return "argument must be between " + strconv.FormatUint(lo, 8) + " and " +
					strconv.FormatUint(hi, 8) + " inclusive"
			}
			return "argument must be between " + strconv.FormatUint(lo, 10) + " and " +
				strconv.FormatUint(hi, 10) + " inclusive"
		}
		return ""
	}
	if e.nflags&nPercent != 0 && v < 0 {
		if v < e.lower {
			return "percentage argument must be less or equal to " + strconv.FormatInt(-e.lower, 10)
		}
		return ""
	}
	if v > e.upper || v < e.lower {
		return "argument must be between " + strconv.FormatInt(e.lower, 10) + " and " +
			strconv.FormatInt(e.upper, 10) + " inclusive"
	}
	return ""
}

// rewrite emits the line(s) CONFIG REWRITE writes for e.
func (e *entry) rewrite(v val, rs *rewriteState) {
	name := e.name
	switch e.kind {
	case kindBool:
		line := name + " no"
		if v.n != 0 {
			line = name + " yes"
		}
		rs.rewriteLine(name, line, v.n != e.def)
	case kindString:
		if v.null {
			rs.markProcessed(name)
			return
		}
		force := !(!e.defNull && v.s == e.defStr)
		rs.rewriteLine(name, name+" "+repr(v.s), force)
	case kindEnum:
		rs.rewriteLine(name, name+" "+e.enumName(v.n), v.n != e.def)
	case kindSpecial:
		e.special.rewrite(e, v, rs)
	default:
		force := v.n != e.def
		switch {
		case e.nflags&nPercent != 0 && v.n < 0:
			rs.rewriteLine(name, name+" "+strconv.FormatInt(-v.n, 10)+"%", force)
		case e.nflags&nMemory != 0:
			rs.rewriteLine(name, name+" "+formatMemory(v.n), force)
		case e.nflags&nOctal != 0:
			rs.rewriteLine(name, name+" "+strconv.FormatUint(uint64(v.n), 8), force)
		default:
			rs.rewriteLine(name, name+" "+strconv.FormatInt(v.n, 10), force)
		}
	}
}
