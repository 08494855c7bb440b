// Command gen generates the command table (specs_gen.go) of package command
// from Valkey's JSON command specs:
//
//	go run ./internal/command/gen -specs /path/to/valkey/src/commands -out internal/command/specs_gen.go
//
// Only facts are emitted: names, container, group, since, arity, flags, ACL
// categories, tips, key specs, doc flags, deprecation version, complexity
// (a big-O bound), replaced_by (the command to use instead), the versions of
// the history entries, the custom get-keys function name and the argument
// grammar (name, type, token, display, flags, key_spec_index, since). Prose
// is deliberately dropped: the summaries, the history entries' texts, the
// argument summaries and the key-spec notes, as well as the reply schema.
// Corvid's own summaries and history texts are hand-written in package
// command (summaries.go, history.go), keyed by full command name. Unknown
// JSON fields are an error so that a new fact in a later Valkey version is
// not lost silently.
//
// Every command and subcommand becomes one exported *Meta variable named
// after its full name in CamelCase (see ident): command.Get,
// command.ClientList. Procedures are bound to these variables, so a
// misspelt command is a compile error rather than a start-up panic.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	specs := flag.String("specs", "", "directory holding Valkey's commands/*.json")
	out := flag.String("out", "specs_gen.go", "output Go file")
	flag.Parse()
	if *specs == "" {
		log.Fatal("gen: -specs is required")
	}
	cmds, err := load(*specs)
	if err != nil {
		log.Fatalf("gen: %v", err)
	}
	src, err := emit(cmds)
	if err != nil {
		log.Fatalf("gen: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatalf("gen: %v", err)
	}
}

// cmd is one command as read from JSON, with its subcommands attached.
type cmd struct {
	name  string // lower case
	ident string // Go identifier of its variable (see ident)
	file  string
	spec  jsonCmd
	subs  []*cmd
}

type jsonCmd struct {
	Group           string        `json:"group"`
	Since           string        `json:"since"`
	Arity           *int          `json:"arity"`
	Container       string        `json:"container"`
	GetKeysFunction string        `json:"get_keys_function"`
	CommandFlags    []string      `json:"command_flags"`
	ACLCategories   []string      `json:"acl_categories"`
	CommandTips     []string      `json:"command_tips"`
	KeySpecs        []jsonKeySpec `json:"key_specs"`
	Arguments       []jsonArg     `json:"arguments"`
	DocFlags        []string      `json:"doc_flags"`
	DeprecatedSince string        `json:"deprecated_since"`
	Complexity      string        `json:"complexity"`
	ReplacedBy      string        `json:"replaced_by"`
	// History is a list of [version, text] pairs; only the versions are
	// kept (the texts are prose).
	History [][]string `json:"history"`
}

// knownFields lists every top-level field: true for facts decoded into
// jsonCmd, false for the ones dropped on purpose.
var knownFields = map[string]bool{
	"group": true, "since": true, "arity": true, "container": true,
	"get_keys_function": true, "command_flags": true, "acl_categories": true,
	"command_tips": true, "key_specs": true, "arguments": true,
	"doc_flags": true, "deprecated_since": true, "complexity": true,
	"replaced_by": true, "history": true, // history: versions only
	// Dropped: prose, the C function name and the reply schema.
	"summary": false, "function": false, "reply_schema": false,
}

type jsonKeySpec struct {
	Flags       []string                   `json:"flags"`
	BeginSearch map[string]json.RawMessage `json:"begin_search"`
	FindKeys    map[string]json.RawMessage `json:"find_keys"`
	Notes       string                     `json:"notes"` // prose, dropped
}

type jsonArg struct {
	Name            string    `json:"name"`
	Type            string    `json:"type"`
	Token           string    `json:"token"`
	Display         string    `json:"display"`
	Optional        jsonBool  `json:"optional"`
	Multiple        jsonBool  `json:"multiple"`
	MultipleToken   jsonBool  `json:"multiple_token"`
	KeySpecIndex    *int      `json:"key_spec_index"`
	Since           string    `json:"since"`
	DeprecatedSince string    `json:"deprecated_since"`
	Summary         string    `json:"summary"` // prose, dropped
	Arguments       []jsonArg `json:"arguments"`
}

// jsonBool accepts a JSON boolean or the strings "true"/"false": one spec
// (client-capa.json) writes "multiple": "true", which Valkey's own Python
// generator reads as true.
type jsonBool bool

func (b *jsonBool) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true", `"true"`:
		*b = true
	case "false", `"false"`, "null":
		*b = false
	default:
		return fmt.Errorf("not a boolean: %s", data)
	}
	return nil
}

var knownArgFields = map[string]bool{
	"name": true, "type": true, "token": true, "display": true, "optional": true,
	"multiple": true, "multiple_token": true, "key_spec_index": true,
	"since": true, "deprecated_since": true, "summary": true, "arguments": true,
}

func load(dir string) ([]*cmd, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.json in %s", dir)
	}
	var all []*cmd
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for name, raw := range top {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(raw, &fields); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			for k := range fields {
				if _, ok := knownFields[k]; !ok {
					return nil, fmt.Errorf("%s: unknown field %q", f, k)
				}
			}
			c := &cmd{name: strings.ToLower(name), file: filepath.Base(f)}
			if err := json.Unmarshal(raw, &c.spec); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if err := checkArgFields(raw); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if c.spec.Arity == nil {
				return nil, fmt.Errorf("%s: no arity", f)
			}
			all = append(all, c)
		}
	}

	byName := map[string]*cmd{}
	for _, c := range all {
		if c.spec.Container != "" {
			continue
		}
		if byName[c.name] != nil {
			return nil, fmt.Errorf("duplicate command %s", c.name)
		}
		byName[c.name] = c
	}
	var tops []*cmd
	for _, c := range all {
		if c.spec.Container == "" {
			tops = append(tops, c)
			continue
		}
		parent := byName[strings.ToLower(c.spec.Container)]
		if parent == nil {
			return nil, fmt.Errorf("%s: unknown container %s", c.file, c.spec.Container)
		}
		for _, s := range parent.subs {
			if s.name == c.name {
				return nil, fmt.Errorf("%s: duplicate subcommand %s|%s", c.file, parent.name, c.name)
			}
		}
		parent.subs = append(parent.subs, c)
	}
	sort.Slice(tops, func(i, j int) bool { return tops[i].name < tops[j].name })
	for _, c := range tops {
		sort.Slice(c.subs, func(i, j int) bool { return c.subs[i].name < c.subs[j].name })
	}
	return tops, nil
}

// checkArgFields rejects unknown argument fields anywhere in the tree.
func checkArgFields(raw json.RawMessage) error {
	var c struct {
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return err
	}
	for _, a := range c.Arguments {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(a, &fields); err != nil {
			return err
		}
		for k := range fields {
			if !knownArgFields[k] {
				return fmt.Errorf("unknown argument field %q", k)
			}
		}
		if err := checkArgFields(a); err != nil {
			return err
		}
	}
	return nil
}

var flagIdents = map[string]string{
	"WRITE": "FlagWrite", "READONLY": "FlagReadonly", "DENYOOM": "FlagDenyOOM",
	"MODULE": "FlagModule", "ADMIN": "FlagAdmin", "PUBSUB": "FlagPubsub",
	"NOSCRIPT": "FlagNoScript", "BLOCKING": "FlagBlocking", "LOADING": "FlagLoading",
	"STALE": "FlagStale", "SKIP_MONITOR": "FlagSkipMonitor", "SKIP_SLOWLOG": "FlagSkipSlowlog",
	"ASKING": "FlagAsking", "FAST": "FlagFast", "NO_AUTH": "FlagNoAuth",
	"MAY_REPLICATE": "FlagMayReplicate", "SENTINEL": "FlagSentinel",
	"ONLY_SENTINEL": "FlagOnlySentinel", "NO_MANDATORY_KEYS": "FlagNoMandatoryKeys",
	"PROTECTED": "FlagProtected", "NO_ASYNC_LOADING": "FlagNoAsyncLoading",
	"NO_MULTI": "FlagNoMulti", "ALLOW_BUSY": "FlagAllowBusy",
	"TOUCHES_ARBITRARY_KEYS": "FlagTouchesArbitraryKeys",
}

var aclIdents = map[string]string{
	"KEYSPACE": "ACLKeyspace", "READ": "ACLRead", "WRITE": "ACLWrite", "SET": "ACLSet",
	"SORTEDSET": "ACLSortedSet", "LIST": "ACLList", "HASH": "ACLHash", "STRING": "ACLString",
	"BITMAP": "ACLBitmap", "HYPERLOGLOG": "ACLHyperLogLog", "GEO": "ACLGeo",
	"STREAM": "ACLStream", "PUBSUB": "ACLPubsub", "ADMIN": "ACLAdmin", "FAST": "ACLFast",
	"SLOW": "ACLSlow", "BLOCKING": "ACLBlocking", "DANGEROUS": "ACLDangerous",
	"CONNECTION": "ACLConnection", "TRANSACTION": "ACLTransaction", "SCRIPTING": "ACLScripting",
}

var keyFlagIdents = map[string]string{
	"RO": "KeyRO", "RW": "KeyRW", "OW": "KeyOW", "RM": "KeyRM", "ACCESS": "KeyAccess",
	"UPDATE": "KeyUpdate", "INSERT": "KeyInsert", "DELETE": "KeyDelete",
	"NOT_KEY": "KeyNotKey", "INCOMPLETE": "KeyIncomplete", "VARIABLE_FLAGS": "KeyVariableFlags",
}

var docFlagIdents = map[string]string{"DEPRECATED": "DocDeprecated", "SYSCMD": "DocSyscmd"}

var argTypes = map[string]bool{
	"string": true, "integer": true, "double": true, "key": true, "pattern": true,
	"unix-time": true, "pure-token": true, "oneof": true, "block": true,
}

// idents maps JSON flag names to a Go expression ("0" when empty).
func idents(names []string, table map[string]string, what string) (string, error) {
	if len(names) == 0 {
		return "0", nil
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		id, ok := table[n]
		if !ok {
			return "", fmt.Errorf("unknown %s %q", what, n)
		}
		parts = append(parts, id)
	}
	return strings.Join(parts, " | "), nil
}

type writer struct {
	bytes.Buffer
	err error
}

func (w *writer) p(format string, args ...any) { fmt.Fprintf(&w.Buffer, format, args...) }

func (w *writer) fail(c *cmd, err error) {
	if w.err == nil && err != nil {
		w.err = fmt.Errorf("%s: %w", c.file, err)
	}
}

func emit(tops []*cmd) ([]byte, error) {
	w := &writer{}
	w.p("// Code generated by internal/command/gen from Valkey 8.0.1's JSON command specs; DO NOT EDIT.\n")
	w.p("// Facts only: no summaries, history texts or argument descriptions (see\n")
	w.p("// summaries.go and history.go for Corvid's own).\n\n")
	w.p("package command\n\n")
	if err := assignIdents(tops); err != nil {
		return nil, err
	}
	w.p("// generatedSpecs returns the declared top-level commands sorted by name,\n")
	w.p("// each holding its subcommands. Derived facts (full names, parents,\n")
	w.p("// effective ACL categories, movablekeys) are filled in by buildTable.\n")
	w.p("func generatedSpecs() []*Meta {\n\treturn []*Meta{\n")
	for _, c := range tops {
		w.p("%s,\n", c.ident)
	}
	w.p("\t}\n}\n")
	for _, c := range tops {
		emitVar(w, c, "")
		for _, sub := range c.subs {
			emitVar(w, sub, c.name)
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	src, err := format.Source(w.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	return src, nil
}

// ident is the Go identifier of the spec with the given full name: the
// name in CamelCase, every part delimited by '|', '-', '_' or '.' starting
// with an upper-case letter ("get" is Get, "client|no-evict" ClientNoEvict,
// "sort_ro" SortRo). Initialisms are not upper-cased, so that ACL CAT
// (AclCat) cannot be confused with the type ACLCat.
func ident(full string) (string, error) {
	var b strings.Builder
	upper := true
	for i := 0; i < len(full); i++ {
		ch := full[i]
		switch {
		case ch == '|' || ch == '-' || ch == '_' || ch == '.':
			upper = true
			continue
		case 'a' <= ch && ch <= 'z':
			if upper {
				ch -= 'a' - 'A'
			}
		case '0' <= ch && ch <= '9':
			if b.Len() == 0 {
				return "", fmt.Errorf("command %q: no identifier starts with a digit", full)
			}
		default:
			return "", fmt.Errorf("command %q: no identifier for byte %q", full, ch)
		}
		upper = false
		b.WriteByte(ch)
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("command %q: empty identifier", full)
	}
	return b.String(), nil
}

// assignIdents names every spec's variable and rejects two specs that
// would share one.
func assignIdents(tops []*cmd) error {
	owner := map[string]string{}
	set := func(c *cmd, full string) error {
		id, err := ident(full)
		if err != nil {
			return err
		}
		if other, dup := owner[id]; dup {
			return fmt.Errorf("commands %q and %q would both be %s", other, full, id)
		}
		owner[id] = full
		c.ident = id
		return nil
	}
	for _, c := range tops {
		if err := set(c, c.name); err != nil {
			return err
		}
		for _, sub := range c.subs {
			if err := set(sub, c.name+"|"+sub.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// emitVar writes c's exported variable; parent is the container's name for
// a subcommand, "" for a top-level command.
func emitVar(w *writer, c *cmd, parent string) {
	display := strings.ToUpper(c.name)
	if parent != "" {
		display = strings.ToUpper(parent) + " " + display
	}
	w.p("\n// %s is the spec of %s.\nvar %s = ", c.ident, display, c.ident)
	emitCmd(w, c)
	w.p("\n")
}

func emitCmd(w *writer, c *cmd) {
	s := &c.spec
	// Valkey reports the JSON group "sorted_set" as "sorted-set"
	// (COMMAND_GROUP_STR); store the reported spelling.
	group := strings.ReplaceAll(s.Group, "_", "-")
	w.p("&Meta{Name: %s, Group: %s, Since: %s, Arity: %d", q(c.name), q(group), q(s.Since), *s.Arity)
	flags, err := idents(s.CommandFlags, flagIdents, "command flag")
	w.fail(c, err)
	if flags != "0" {
		w.p(",\nFlags: %s", flags)
	}
	acl, err := idents(s.ACLCategories, aclIdents, "ACL category")
	w.fail(c, err)
	if acl != "0" {
		w.p(",\nACL: %s", acl)
	}
	if len(s.CommandTips) > 0 {
		tips := make([]string, len(s.CommandTips))
		for i, t := range s.CommandTips {
			tips[i] = q(strings.ToLower(t)) // Valkey reports tips lower case
		}
		w.p(",\nTips: []string{%s}", strings.Join(tips, ", "))
	}
	if len(s.DocFlags) > 0 {
		df, err := idents(s.DocFlags, docFlagIdents, "doc flag")
		w.fail(c, err)
		w.p(",\nDocFlags: %s", df)
	}
	if s.DeprecatedSince != "" {
		w.p(",\nDeprecatedSince: %s", q(s.DeprecatedSince))
	}
	if s.Complexity != "" {
		w.p(",\nComplexity: %s", q(s.Complexity))
	}
	if s.ReplacedBy != "" {
		w.p(",\nReplacedBy: %s", q(s.ReplacedBy))
	}
	if len(s.History) > 0 {
		vs := make([]string, len(s.History))
		for i, h := range s.History {
			if len(h) != 2 || h[0] == "" {
				w.fail(c, fmt.Errorf("bad history entry %q", h))
				continue
			}
			vs[i] = "{Since: " + q(h[0]) + "}"
		}
		w.p(",\nHistory: []HistoryEntry{%s}", strings.Join(vs, ", "))
	}
	if s.GetKeysFunction != "" {
		w.p(",\nGetKeysFunc: %s", q(s.GetKeysFunction))
	}
	if len(s.KeySpecs) > 0 {
		w.p(",\nKeySpecs: []KeySpec{\n")
		for _, ks := range s.KeySpecs {
			w.fail(c, emitKeySpec(w, ks))
		}
		w.p("}")
	}
	if len(s.Arguments) > 0 {
		w.p(",\nArgs: ")
		emitArgs(w, c, s.Arguments)
	}
	if len(c.subs) > 0 {
		w.p(",\nSubs: map[string]*Meta{\n")
		for _, sub := range c.subs {
			w.p("%s: %s,\n", q(sub.name), sub.ident)
		}
		w.p("}")
	}
	w.p("}")
}

func emitKeySpec(w *writer, ks jsonKeySpec) error {
	flags, err := idents(ks.Flags, keyFlagIdents, "key spec flag")
	if err != nil {
		return err
	}
	w.p("{Flags: %s", flags)
	if len(ks.BeginSearch) != 1 || len(ks.FindKeys) != 1 {
		return fmt.Errorf("key spec needs exactly one begin_search and find_keys")
	}
	for kind, raw := range ks.BeginSearch {
		switch kind {
		case "index":
			var v struct {
				Pos *int `json:"pos"`
			}
			if err := strictUnmarshal(raw, &v); err != nil || v.Pos == nil {
				return fmt.Errorf("bad begin_search index: %s", raw)
			}
			w.p(", BeginKind: BeginIndex, Pos: %d", *v.Pos)
		case "keyword":
			var v struct {
				Keyword   string `json:"keyword"`
				StartFrom *int   `json:"startfrom"`
			}
			if err := strictUnmarshal(raw, &v); err != nil || v.Keyword == "" || v.StartFrom == nil {
				return fmt.Errorf("bad begin_search keyword: %s", raw)
			}
			w.p(", BeginKind: BeginKeyword, Keyword: %s, StartFrom: %d", q(v.Keyword), *v.StartFrom)
		case "unknown":
			w.p(", BeginKind: BeginUnknown")
		default:
			return fmt.Errorf("unknown begin_search %q", kind)
		}
	}
	for kind, raw := range ks.FindKeys {
		switch kind {
		case "range":
			var v struct {
				LastKey *int `json:"lastkey"`
				Step    *int `json:"step"`
				Limit   *int `json:"limit"`
			}
			if err := strictUnmarshal(raw, &v); err != nil || v.LastKey == nil || v.Step == nil || v.Limit == nil {
				return fmt.Errorf("bad find_keys range: %s", raw)
			}
			if *v.Step < 1 || (*v.Limit != 0 && *v.LastKey != -1) {
				return fmt.Errorf("unsupported find_keys range: %s", raw)
			}
			w.p(", FindKind: FindRange, LastKey: %d, Step: %d, Limit: %d", *v.LastKey, *v.Step, *v.Limit)
		case "keynum":
			var v struct {
				KeynumIdx *int `json:"keynumidx"`
				FirstKey  *int `json:"firstkey"`
				Step      *int `json:"step"`
			}
			if err := strictUnmarshal(raw, &v); err != nil || v.KeynumIdx == nil || v.FirstKey == nil || v.Step == nil {
				return fmt.Errorf("bad find_keys keynum: %s", raw)
			}
			if *v.Step < 1 {
				return fmt.Errorf("unsupported find_keys keynum: %s", raw)
			}
			w.p(", FindKind: FindKeynum, KeynumIdx: %d, FirstKey: %d, KeyStep: %d", *v.KeynumIdx, *v.FirstKey, *v.Step)
		case "unknown":
			w.p(", FindKind: FindUnknown")
		default:
			return fmt.Errorf("unknown find_keys %q", kind)
		}
	}
	w.p("},\n")
	return nil
}

func strictUnmarshal(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

func emitArgs(w *writer, c *cmd, args []jsonArg) {
	w.p("[]Arg{\n")
	for _, a := range args {
		if a.Name == "" || !argTypes[a.Type] {
			w.fail(c, fmt.Errorf("bad argument %q of type %q", a.Name, a.Type))
		}
		// A pure-token without a token exists (sentinel-simulate-failure.json);
		// Valkey keeps it as is, and so do we.
		nested := a.Type == "oneof" || a.Type == "block"
		if nested != (len(a.Arguments) > 0) {
			w.fail(c, fmt.Errorf("argument %q: type %s with %d children", a.Name, a.Type, len(a.Arguments)))
		}
		ksi := -1
		if a.KeySpecIndex != nil {
			ksi = *a.KeySpecIndex
			if ksi < 0 || ksi >= len(c.spec.KeySpecs) {
				w.fail(c, fmt.Errorf("argument %q: key_spec_index %d out of range", a.Name, ksi))
			}
		}
		// Valkey's generate-command-code.py lower-cases names and display
		// texts and upper-cases tokens ("normal" is reported as token
		// NORMAL), and COMMAND DOCS reports them so.
		w.p("{Name: %s, Type: %s", q(strings.ToLower(a.Name)), q(a.Type))
		if a.Token != "" {
			w.p(", Token: %s", q(strings.ToUpper(a.Token)))
		}
		if a.Display != "" {
			w.p(", Display: %s", q(strings.ToLower(a.Display)))
		}
		if a.Optional {
			w.p(", Optional: true")
		}
		if a.Multiple {
			w.p(", Multiple: true")
		}
		if a.MultipleToken {
			w.p(", MultipleToken: true")
		}
		w.p(", KeySpecIndex: %d", ksi)
		if a.Since != "" {
			w.p(", Since: %s", q(a.Since))
		}
		if a.DeprecatedSince != "" {
			w.p(", DeprecatedSince: %s", q(a.DeprecatedSince))
		}
		if nested {
			w.p(", Args: ")
			emitArgs(w, c, a.Arguments)
		}
		w.p("},\n")
	}
	w.p("}")
}

func q(s string) string { return strconv.Quote(s) }
