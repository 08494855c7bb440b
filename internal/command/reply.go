package command

import "github.com/corvid-kv/corvid/internal/resp"

// FirstLastStep returns the legacy (first key, last key, step) triple that
// COMMAND INFO reports, computed as Valkey's populateCommandLegacyRangeSpec
// does: the union of the leading consecutive index+range specs with step 1
// (or the single index+range spec, whatever its step), last being absolute
// when >= 0 and counted from the end when negative; (0, 0, 0) when the
// command has no such spec. Commands whose keys this cannot describe carry
// FlagMovableKeys.
func FirstLastStep(m *Meta) (first, last, step int) { return m.first, m.last, m.step }

// WriteInfo writes m's COMMAND INFO entry exactly as Valkey 8 shapes it:
//
//	[name, arity, flags(set), first key, last key, step,
//	 acl categories(set), tips(set), key specs(set of maps), subcommands(array)]
//
// A nil m writes a null, as Valkey does for unknown names. Key-spec "notes"
// (prose) are not reproduced, so such specs have 3 fields instead of 4.
func WriteInfo(w *resp.Writer, m *Meta) {
	if m == nil {
		w.Null()
		return
	}
	WriteInfoSubs(w, m, m.subList)
}

// WriteInfoSubs is WriteInfo listing subs, a subset of m's subcommands in
// name order, instead of all of them: the server reports only the
// subcommands it implements. subs is ignored unless m is a container.
func WriteInfoSubs(w *resp.Writer, m *Meta, subs []*Meta) {
	if m == nil {
		w.Null()
		return
	}
	w.ArrayLen(10)
	w.BulkString(m.FullName)
	w.Int(int64(m.Arity))

	w.SetLen(m.Flags.visibleCount())
	for _, fn := range flagNames {
		if fn.visible && m.Flags&fn.flag != 0 {
			w.Simple(fn.name)
		}
	}

	w.Int(int64(m.first))
	w.Int(int64(m.last))
	w.Int(int64(m.step))

	w.SetLen(m.ACL.count())
	for i, n := range aclNames {
		if m.ACL&(1<<i) != 0 {
			w.Simple("@" + n)
		}
	}

	w.SetLen(len(m.Tips))
	for _, t := range m.Tips {
		w.BulkString(t)
	}

	w.SetLen(len(m.KeySpecs))
	for i := range m.KeySpecs {
		writeKeySpec(w, &m.KeySpecs[i])
	}

	if !m.IsContainer() {
		w.SetLen(0) // Valkey's empty-subcommands reply is an empty set
		return
	}
	w.ArrayLen(len(subs))
	for _, sub := range subs {
		WriteInfo(w, sub)
	}
}

// WriteKeyFlags writes a key-spec flag set as Valkey's
// addReplyFlagsForKeyArgs does (used by COMMAND GETKEYSANDFLAGS too).
func WriteKeyFlags(w *resp.Writer, f KeySpecFlag) {
	w.SetLen(f.count())
	for i, n := range keyFlagNames {
		if f&(1<<i) != 0 {
			w.Simple(n)
		}
	}
}

func writeKeySpec(w *resp.Writer, ks *KeySpec) {
	w.MapLen(3)
	w.BulkString("flags")
	WriteKeyFlags(w, ks.Flags)

	w.BulkString("begin_search")
	switch ks.BeginKind {
	case BeginIndex:
		writeSearch(w, "index", 1)
		writeIntField(w, "index", ks.Pos)
	case BeginKeyword:
		writeSearch(w, "keyword", 2)
		w.BulkString("keyword")
		w.BulkString(ks.Keyword)
		writeIntField(w, "startfrom", ks.StartFrom)
	default:
		writeSearch(w, "unknown", 0)
	}

	w.BulkString("find_keys")
	switch ks.FindKind {
	case FindRange:
		writeSearch(w, "range", 3)
		writeIntField(w, "lastkey", ks.LastKey)
		writeIntField(w, "keystep", ks.Step)
		writeIntField(w, "limit", ks.Limit)
	case FindKeynum:
		writeSearch(w, "keynum", 3)
		writeIntField(w, "keynumidx", ks.KeynumIdx)
		writeIntField(w, "firstkey", ks.FirstKey)
		writeIntField(w, "keystep", ks.KeyStep)
	default:
		writeSearch(w, "unknown", 0)
	}
}

// writeSearch opens a begin_search or find_keys value, {type: kind, spec:
// {...}}, whose spec map the caller fills with n fields.
func writeSearch(w *resp.Writer, kind string, n int) {
	w.MapLen(2)
	w.BulkString("type")
	w.BulkString(kind)
	w.BulkString("spec")
	w.MapLen(n)
}

// writeIntField writes one name/integer pair of a map.
func writeIntField(w *resp.Writer, name string, v int) {
	w.BulkString(name)
	w.Int(int64(v))
}

// WriteDocs writes m's COMMAND DOCS map (the value only; the caller writes
// the full name before it), with Valkey 8's addReplyCommandDocs's fields in
// its order: summary, since, group, complexity, doc_flags, deprecated_since,
// replaced_by, history, arguments, subcommands, each present only when the
// command has it. The summary and the history notes are Corvid's own words
// (summaries.go, history.go); the rest are facts from Valkey's specs.
func WriteDocs(w *resp.Writer, m *Meta) { WriteDocsSubs(w, m, m.subList) }

// WriteDocsSubs is WriteDocs listing subs, a subset of m's subcommands in
// name order, instead of all of them (see WriteInfoSubs). subs is ignored
// unless m is a container.
func WriteDocsSubs(w *resp.Writer, m *Meta, subs []*Meta) {
	n := 1 // group
	for _, s := range [...]string{m.Summary, m.Since, m.Complexity, m.DeprecatedSince, m.ReplacedBy} {
		if s != "" {
			n++
		}
	}
	if m.DocFlags != 0 {
		n++
	}
	if len(m.History) > 0 {
		n++
	}
	if len(m.Args) > 0 {
		n++
	}
	if m.IsContainer() {
		n++
	}
	w.MapLen(n)
	writeStringField(w, "summary", m.Summary)
	writeStringField(w, "since", m.Since)
	w.BulkString("group")
	w.BulkString(m.Group)
	writeStringField(w, "complexity", m.Complexity)
	if m.DocFlags != 0 {
		w.BulkString("doc_flags")
		names := m.DocFlags.Names()
		w.SetLen(len(names))
		for _, s := range names {
			w.Simple(s)
		}
	}
	writeStringField(w, "deprecated_since", m.DeprecatedSince)
	writeStringField(w, "replaced_by", m.ReplacedBy)
	if len(m.History) > 0 {
		// A set of [version, changes] pairs (addReplyCommandHistory).
		w.BulkString("history")
		w.SetLen(len(m.History))
		for _, h := range m.History {
			w.ArrayLen(2)
			w.BulkString(h.Since)
			w.BulkString(h.Changes)
		}
	}
	if len(m.Args) > 0 {
		w.BulkString("arguments")
		writeArgs(w, m.Args)
	}
	if m.IsContainer() {
		w.BulkString("subcommands")
		w.MapLen(len(subs))
		for _, sub := range subs {
			w.BulkString(sub.FullName)
			WriteDocs(w, sub)
		}
	}
}

// writeStringField writes one name/bulk-string pair of a map, nothing
// when v is empty (the field is absent, as Valkey leaves out a NULL one).
func writeStringField(w *resp.Writer, name, v string) {
	if v == "" {
		return
	}
	w.BulkString(name)
	w.BulkString(v)
}

// writeArgs ports addReplyCommandArgList. Valkey 8.0.1's specs give no
// argument a summary, so none is written.
func writeArgs(w *resp.Writer, args []Arg) {
	w.ArrayLen(len(args))
	for i := range args {
		a := &args[i]
		nested := a.Type == "oneof" || a.Type == "block"
		n := 3 // name, type, and display_text or arguments
		if a.KeySpecIndex != -1 {
			n++
		}
		if a.Token != "" {
			n++
		}
		if a.Since != "" {
			n++
		}
		if a.DeprecatedSince != "" {
			n++
		}
		flags := argFlagCount(a)
		if flags > 0 {
			n++
		}
		w.MapLen(n)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(a.Type)
		if !nested {
			w.BulkString("display_text")
			w.BulkString(a.DisplayText())
		}
		if a.KeySpecIndex != -1 {
			w.BulkString("key_spec_index")
			w.Int(int64(a.KeySpecIndex))
		}
		if a.Token != "" {
			w.BulkString("token")
			w.BulkString(a.Token)
		}
		if a.Since != "" {
			w.BulkString("since")
			w.BulkString(a.Since)
		}
		if a.DeprecatedSince != "" {
			w.BulkString("deprecated_since")
			w.BulkString(a.DeprecatedSince)
		}
		if flags > 0 {
			w.BulkString("flags")
			w.SetLen(flags)
			if a.Optional {
				w.Simple("optional")
			}
			if a.Multiple {
				w.Simple("multiple")
			}
			if a.MultipleToken {
				w.Simple("multiple_token")
			}
		}
		if nested {
			w.BulkString("arguments")
			writeArgs(w, a.Args)
		}
	}
}

func argFlagCount(a *Arg) int {
	n := 0
	for _, b := range [...]bool{a.Optional, a.Multiple, a.MultipleToken} {
		if b {
			n++
		}
	}
	return n
}
