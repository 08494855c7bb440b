package command

import (
	"fmt"
	"sort"
)

// table is the immutable command table built once from the generated specs.
type table struct {
	all    []*Meta   // top-level commands sorted by name
	byName nameIndex // name -> top-level command
}

// tbl is built during package initialisation (not by init-time
// registration: the data comes from one generated function) and never
// modified afterwards. Go initialises every spec variable (Get,
// ClientList, ...) before tbl, since generatedSpecs refers to them, so no
// other package can see a spec whose derived facts are not filled in yet.
var tbl = buildTable(generatedSpecs())

// buildTable links parents, applies Valkey's derivations and indexes the
// commands. It completes the generated spec variables in place, so it runs
// once. It panics on inconsistent specs: that is a generator bug caught by
// any test run.
func buildTable(specs []*Meta) *table {
	t := &table{all: specs}
	sort.Slice(t.all, func(i, j int) bool { return t.all[i].Name < t.all[j].Name })
	t.byName = newNameIndex(t.all) // panics on duplicates
	for _, m := range t.all {
		m.FullName = m.Name
		derive(m)
		for name, sub := range m.Subs {
			if sub.Name != name {
				panic(fmt.Sprintf("command: subcommand key %q holds %q", name, sub.Name))
			}
			sub.Parent = m
			sub.FullName = m.Name + "|" + sub.Name
			derive(sub)
			m.subList = append(m.subList, sub)
		}
		sort.Slice(m.subList, func(i, j int) bool { return m.subList[i].Name < m.subList[j].Name })
		if m.subList != nil {
			m.subIndex = newNameIndex(m.subList)
		}
	}
	return t
}

// derive fills in the facts Valkey computes at startup in
// populateCommandStructure, and attaches Corvid's own documentation text
// (summary and history notes) to the generated facts.
func derive(m *Meta) {
	m.Summary = summaries[m.FullName]
	attachHistory(m, historyNotes[m.FullName])
	m.ACL = effectiveACL(m.ACL, m.Flags)
	m.first, m.last, m.step = legacyRange(m)
	for _, ks := range m.KeySpecs {
		if ks.Flags&KeyNotKey == 0 {
			m.hasKeySpec = true
		}
		if ks.Flags&KeyVariableFlags != 0 {
			m.varKeys = true
		}
	}
	if m.GetKeysFunc != "" {
		fn, ok := customGetKeys[m.GetKeysFunc]
		if !ok {
			panic(fmt.Sprintf("command: %s: no Go port of %s", m.FullName, m.GetKeysFunc))
		}
		m.getKeys = fn
	}
}

// legacyRange ports populateCommandLegacyRangeSpec: it merges consecutive
// index+range specs with step 1 into one (first, last, step) triple and sets
// FlagMovableKeys when any spec cannot be part of it (or is incomplete). The
// returned last is absolute when >= 0 (as COMMAND INFO reports it) and
// counts from the end of argv when negative.
func legacyRange(m *Meta) (first, last, step int) {
	specs := m.KeySpecs
	if len(specs) == 0 {
		return 0, 0, 0
	}
	if len(specs) == 1 && specs[0].BeginKind == BeginIndex && specs[0].FindKind == FindRange {
		// Quick win: exactly one range spec.
		if specs[0].Flags&KeyIncomplete != 0 {
			m.Flags |= FlagMovableKeys
		}
		first, last = specs[0].Pos, specs[0].LastKey
		if last >= 0 {
			last += first
		}
		return first, last, specs[0].Step
	}

	const noKey = int(^uint(0) >> 1)
	firstKey, lastKey, prevLast := noKey, 0, 0
	for _, ks := range specs {
		if ks.BeginKind != BeginIndex || ks.FindKind != FindRange {
			m.Flags |= FlagMovableKeys
			continue
		}
		if ks.Step != 1 || (prevLast != 0 && prevLast != ks.Pos-1) {
			// Not plain, or not consecutive to the previous spec.
			m.Flags |= FlagMovableKeys
			continue
		}
		if ks.Flags&KeyIncomplete != 0 {
			m.Flags |= FlagMovableKeys
		}
		firstKey = min(firstKey, ks.Pos)
		abs := ks.LastKey
		if abs >= 0 {
			abs += ks.Pos
		}
		// Valkey compares as unsigned so that a negative (from-the-end)
		// last key wins over any absolute one.
		if uint32(int32(abs)) > uint32(int32(lastKey)) {
			lastKey = abs
		}
		prevLast = lastKey
	}
	if firstKey == noKey {
		m.Flags |= FlagMovableKeys
		return 0, 0, 0
	}
	return firstKey, lastKey, 1
}

// attachHistory gives m's generated history entries the notes written for
// them, when the notes list the same versions in the same order. On any
// mismatch the entries keep no text (COMMAND DOCS then shows an empty one)
// and TestHistoryNotes fails: init never panics over documentation.
func attachHistory(m *Meta, notes []HistoryEntry) {
	if len(notes) != len(m.History) {
		return
	}
	for i := range notes {
		if notes[i].Since != m.History[i].Since {
			return
		}
	}
	for i := range notes {
		m.History[i].Changes = notes[i].Changes
	}
}
