package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// special holds the custom behaviour of SPECIAL_CONFIG directives. The
// parsed value lives in val.x (or val.s for dir) and is never mutated after
// it is stored: set always builds a fresh value.
type special struct {
	def     func(dir string) val
	set     func(cur val, args []string, ld *loader) (val, string)
	get     func(v val) string
	rewrite func(e *entry, v val, rs *rewriteState)
}

// ---- save ------------------------------------------------------------------

// SavePoint is one "save <seconds> <changes>" rule.
type SavePoint struct {
	Seconds int64
	Changes int
}

func savePoints(v val) []SavePoint {
	p, _ := v.x.([]SavePoint)
	return p
}

func saveString(v val) string {
	var b strings.Builder
	for i, p := range savePoints(v) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(p.Seconds, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(p.Changes))
	}
	return b.String()
}

var specialSave = &special{
	// Valkey's default: after 3600 s with a change, 300 s with 100, 60 s
	// with 10000.
	def: func(string) val { return val{x: []SavePoint{{3600, 1}, {300, 100}, {60, 10000}}} },
	set: func(cur val, args []string, ld *loader) (val, string) {
		points := savePoints(cur)
		if len(args) == 1 && args[0] == "" { // save "" clears the rules
			points = nil
			args = nil
		}
		if len(args)%2 != 0 {
			return cur, "Invalid save parameters"
		}
		for j, a := range args {
			v, rest, _ := strtoll(a, 10)
			if rest != "" || (j%2 == 0 && v < 1) || (j%2 == 1 && v < 0) {
				return cur, "Invalid save parameters"
			}
		}
		// CONFIG SET replaces the rules. While reading a file, the first
		// "save" line replaces the defaults and later lines append.
		if ld == nil {
			points = nil
		} else if !ld.saveLoaded {
			ld.saveLoaded = true
			points = nil
		}
		out := append([]SavePoint(nil), points...)
		for j := 0; j < len(args); j += 2 {
			sec, _, _ := strtoll(args[j], 10)
			ch, _, _ := strtoll(args[j+1], 10)
			out = append(out, SavePoint{Seconds: sec, Changes: int(int32(ch))})
		}
		return val{x: out}, ""
	},
	get: saveString,
	rewrite: func(e *entry, v val, rs *rewriteState) {
		// An explicit save "" keeps the defaults from coming back on
		// restart; otherwise one line per rule (rewriteConfigSaveOption).
		points := savePoints(v)
		if len(points) == 0 {
			rs.rewriteLine(e.name, e.name+` ""`, true)
		}
		for _, p := range points {
			rs.rewriteLine(e.name, e.name+" "+strconv.FormatInt(p.Seconds, 10)+" "+strconv.Itoa(p.Changes), true)
		}
		rs.markProcessed(e.name)
	},
}

// ---- client-output-buffer-limit ---------------------------------------------

// OutputBufferLimit is the limit for one client class.
type OutputBufferLimit struct {
	HardBytes   uint64
	SoftBytes   uint64
	SoftSeconds int64
}

// Client classes of client-output-buffer-limit, in Valkey's order.
const (
	ClientNormal  = 0
	ClientReplica = 1
	ClientPubSub  = 2
)

var obufDefaults = [3]OutputBufferLimit{
	{0, 0, 0},
	{256 << 20, 64 << 20, 60},
	{32 << 20, 8 << 20, 60},
}

func obufLimits(v val) [3]OutputBufferLimit {
	l, _ := v.x.([3]OutputBufferLimit)
	return l
}

// clientClass is getClientTypeByName; "master" is recognised but refused.
func clientClass(name string) int {
	switch strings.ToLower(name) {
	case "normal":
		return ClientNormal
	case "slave", "replica":
		return ClientReplica
	case "pubsub":
		return ClientPubSub
	case "master", "primary":
		return 3
	}
	return -1
}

var obufNames = [3]string{"normal", "slave", "pubsub"}

var specialObuf = &special{
	def: func(string) val { return val{x: obufDefaults} },
	set: func(cur val, args []string, _ *loader) (val, string) {
		if len(args)%4 != 0 {
			return cur, "Wrong number of arguments in buffer limit configuration."
		}
		out := obufLimits(cur)
		for j := 0; j < len(args); j += 4 {
			class := clientClass(args[j])
			if class < 0 || class > ClientPubSub {
				return cur, "Invalid client class specified in buffer limit configuration."
			}
			hard, okH := memtoull(args[j+1])
			soft, okS := memtoull(args[j+2])
			secs, rest, _ := strtoll(args[j+3], 10)
			if !okH || !okS || secs < 0 || rest != "" {
				return cur, "Error in hard, soft or soft_seconds setting in buffer limit configuration."
			}
			out[class] = OutputBufferLimit{hard, soft, secs}
		}
		return val{x: out}, ""
	},
	get: func(v val) string {
		l := obufLimits(v)
		parts := make([]string, 0, 3)
		for i, x := range l {
			parts = append(parts, obufNames[i]+" "+strconv.FormatUint(x.HardBytes, 10)+" "+
				strconv.FormatUint(x.SoftBytes, 10)+" "+strconv.FormatInt(x.SoftSeconds, 10))
		}
		return strings.Join(parts, " ")
	},
	rewrite: func(e *entry, v val, rs *rewriteState) {
		l := obufLimits(v)
		for i, x := range l {
			name := obufNames[i]
			if name == "slave" {
				name = "replica"
			}
			line := e.name + " " + name + " " + formatMemory(int64(x.HardBytes)) + " " +
				formatMemory(int64(x.SoftBytes)) + " " + strconv.FormatInt(x.SoftSeconds, 10)
			rs.rewriteLine(e.name, line, x != obufDefaults[i])
		}
	},
}

// ---- oom-score-adj-values ----------------------------------------------------

var oomDefaults = [3]int{0, 200, 800}

func oomValues(v val) [3]int {
	o, _ := v.x.([3]int)
	return o
}

func oomString(v val) string {
	o := oomValues(v)
	return strconv.Itoa(o[0]) + " " + strconv.Itoa(o[1]) + " " + strconv.Itoa(o[2])
}

var specialOOM = &special{
	def: func(string) val { return val{x: oomDefaults} },
	set: func(cur val, args []string, _ *loader) (val, string) {
		if len(args) != 3 {
			return cur, "wrong number of arguments"
		}
		var out [3]int
		for i, a := range args {
			v, rest, _ := strtoll(a, 10)
			if rest != "" || v < -2000 || v > 2000 {
				return cur, "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
			}
			out[i] = int(v)
		}
		return val{x: out}, ""
	},
	get: oomString,
	rewrite: func(e *entry, v val, rs *rewriteState) {
		rs.rewriteLine(e.name, e.name+" "+oomString(v), oomValues(v) != oomDefaults)
	},
}

// ---- notify-keyspace-events ----------------------------------------------

// Keyspace notification classes (NOTIFY_* in server.h).
const (
	NotifyKeyspace = 1 << 0  // K
	NotifyKeyevent = 1 << 1  // E
	NotifyGeneric  = 1 << 2  // g
	NotifyString   = 1 << 3  // $
	NotifyList     = 1 << 4  // l
	NotifySet      = 1 << 5  // s
	NotifyHash     = 1 << 6  // h
	NotifyZset     = 1 << 7  // z
	NotifyExpired  = 1 << 8  // x
	NotifyEvicted  = 1 << 9  // e
	NotifyStream   = 1 << 10 // t
	NotifyKeyMiss  = 1 << 11 // m
	NotifyLoaded   = 1 << 12 // module only
	NotifyModule   = 1 << 13 // d
	NotifyNew      = 1 << 14 // n
	NotifyAll      = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash |
		NotifyZset | NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule // A
)

func notifyFlags(s string) (int64, bool) {
	var f int64
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'A':
			f |= NotifyAll
		case 'g':
			f |= NotifyGeneric
		case '$':
			f |= NotifyString
		case 'l':
			f |= NotifyList
		case 's':
			f |= NotifySet
		case 'h':
			f |= NotifyHash
		case 'z':
			f |= NotifyZset
		case 'x':
			f |= NotifyExpired
		case 'e':
			f |= NotifyEvicted
		case 'K':
			f |= NotifyKeyspace
		case 'E':
			f |= NotifyKeyevent
		case 't':
			f |= NotifyStream
		case 'm':
			f |= NotifyKeyMiss
		case 'd':
			f |= NotifyModule
		case 'n':
			f |= NotifyNew
		default:
			return 0, false
		}
	}
	return f, true
}

// notifyString is keyspaceEventsFlagsToString; note 'n' is dropped when 'A'
// is printed, as upstream does.
func notifyString(f int64) string {
	var b strings.Builder
	if f&NotifyAll == NotifyAll {
		b.WriteByte('A')
	} else {
		for _, p := range []struct {
			bit int64
			c   byte
		}{
			{NotifyGeneric, 'g'}, {NotifyString, '$'}, {NotifyList, 'l'}, {NotifySet, 's'},
			{NotifyHash, 'h'}, {NotifyZset, 'z'}, {NotifyExpired, 'x'}, {NotifyEvicted, 'e'},
			{NotifyStream, 't'}, {NotifyModule, 'd'}, {NotifyNew, 'n'},
		} {
			if f&p.bit != 0 {
				b.WriteByte(p.c)
			}
		}
	}
	if f&NotifyKeyspace != 0 {
		b.WriteByte('K')
	}
	if f&NotifyKeyevent != 0 {
		b.WriteByte('E')
	}
	if f&NotifyKeyMiss != 0 {
		b.WriteByte('m')
	}
	return b.String()
}

var specialNotify = &special{
	def: func(string) val { return val{} },
	set: func(cur val, args []string, _ *loader) (val, string) {
		if len(args) != 1 {
			return cur, "wrong number of arguments"
		}
		f, ok := notifyFlags(args[0])
		if !ok {
			return cur, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
		return val{n: f}, ""
	},
	get: func(v val) string { return notifyString(v.n) },
	rewrite: func(e *entry, v val, rs *rewriteState) {
		rs.rewriteLine(e.name, e.name+" "+repr(notifyString(v.n)), v.n != 0)
	},
}

// ---- bind -----------------------------------------------------------------

var bindDefault = []string{"*", "-::*"}

func bindAddrs(v val) []string {
	b, _ := v.x.([]string)
	return b
}

var specialBind = &special{
	def: func(string) val { return val{x: bindDefault} },
	set: func(cur val, args []string, _ *loader) (val, string) {
		if len(args) > 16 {
			return cur, "Too many bind addresses specified."
		}
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		return val{x: append([]string{}, args...)}, ""
	},
	get: func(v val) string { return strings.Join(bindAddrs(v), " ") },
	rewrite: func(e *entry, v val, rs *rewriteState) {
		b := bindAddrs(v)
		if strings.Join(b, "\x00") == strings.Join(bindDefault, "\x00") {
			rs.markProcessed(e.name)
			return
		}
		addrs := `""`
		if len(b) > 0 {
			addrs = strings.Join(b, " ")
		}
		rs.rewriteLine(e.name, e.name+" "+addrs, true)
	},
}

// ---- replicaof --------------------------------------------------------------

// Primary is the replicaof target; a nil *Primary means "no one".
type Primary struct {
	Host string
	Port int
}

func primaryOf(v val) *Primary {
	p, _ := v.x.(*Primary)
	return p
}

var specialReplicaOf = &special{
	def: func(string) val { return val{x: (*Primary)(nil)} },
	set: func(cur val, args []string, _ *loader) (val, string) {
		if len(args) != 2 {
			return cur, "wrong number of arguments"
		}
		if strings.EqualFold(args[0], "no") && strings.EqualFold(args[1], "one") {
			return val{x: (*Primary)(nil)}, ""
		}
		port, rest, ok := strtoll(args[1], 10)
		if !ok || port < 0 || port > 65535 || rest != "" {
			return cur, "Invalid primary port"
		}
		return val{x: &Primary{Host: args[0], Port: int(port)}}, ""
	},
	get: func(v val) string {
		if p := primaryOf(v); p != nil {
			return p.Host + " " + strconv.Itoa(p.Port)
		}
		return ""
	},
	rewrite: func(e *entry, v val, rs *rewriteState) {
		p := primaryOf(v)
		if p == nil || rs.clusterEnabled {
			rs.markProcessed(e.name)
			return
		}
		rs.rewriteLine(e.name, e.name+" "+p.Host+" "+strconv.Itoa(p.Port), true)
	},
}

// ---- latency-tracking-info-percentiles -----------------------------------

func percentiles(v val) []float64 {
	p, _ := v.x.([]float64)
	return p
}

func percentilesString(v val) string {
	p := percentiles(v)
	parts := make([]string, len(p))
	for i, f := range p {
		parts[i] = trimDouble(f)
	}
	return strings.Join(parts, " ")
}

var specialPercentiles = &special{
	def: func(string) val { return val{x: []float64{50, 99, 99.9}} },
	set: func(cur val, args []string, _ *loader) (val, string) {
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		out := make([]float64, 0, len(args))
		for _, a := range args {
			f, ok := string2d(a)
			if !ok {
				return cur, "Invalid latency-tracking-info-percentiles parameters"
			}
			if f > 100 || f < 0 {
				return cur, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
			}
			out = append(out, f)
		}
		return val{x: out}, ""
	},
	get: percentilesString,
	rewrite: func(e *entry, v val, rs *rewriteState) {
		line := e.name + ` ""`
		if len(percentiles(v)) > 0 {
			line = e.name + " " + percentilesString(v)
		}
		rs.rewriteLine(e.name, line, true)
	},
}

// ---- dir -----------------------------------------------------------------

// Valkey's "dir" chdir()s the process. A library must not change the
// process-wide working directory behind its caller's back, so Corvid stores
// the absolute directory instead (relative values resolve against the
// current "dir", as successive chdir calls would) and the server applies it
// (os.Chdir at start-up, or an OnChange("dir") hook).
var specialDir = &special{
	def: func(dir string) val { return val{s: dir} },
	set: func(cur val, args []string, _ *loader) (val, string) {
		if len(args) != 1 {
			return cur, "wrong number of arguments"
		}
		if args[0] == "" {
			return cur, "dir can't be empty"
		}
		p := args[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(cur.s, p)
		}
		p = filepath.Clean(p)
		fi, err := os.Stat(p)
		if err != nil {
			return cur, strerror(err)
		}
		if !fi.IsDir() {
			return cur, "Not a directory"
		}
		return val{s: p}, ""
	},
	get: func(v val) string { return v.s },
	rewrite: func(e *entry, v val, rs *rewriteState) {
		if v.s == "" {
			rs.markProcessed(e.name)
			return
		}
		rs.rewriteLine(e.name, e.name+" "+repr(v.s), true)
	},
}
