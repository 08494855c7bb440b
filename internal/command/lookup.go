package command

// All returns the top-level commands sorted by name. The slice is shared and
// must not be modified.
func All() []*Meta { return tbl.all }

// Count returns the number of top-level commands in the table.
func Count() int { return len(tbl.all) }

// Lookup returns the top-level command named name (ASCII case-insensitive),
// or nil. It does not allocate.
func Lookup(name []byte) *Meta { return tbl.byName.get(name) }

// Sub returns m's subcommand named name (ASCII case-insensitive), or nil. It
// does not allocate.
func (m *Meta) Sub(name []byte) *Meta { return m.subIndex.get(name) }

// LookupFullName resolves a name as COMMAND INFO and COMMAND DOCS accept it:
// "get" or "client|list" (case-insensitive). It returns nil for unknown
// names, for "a|b" when a has no subcommand b, and for more than one '|'.
func LookupFullName(name []byte) *Meta {
	for i, c := range name {
		if c != '|' {
			continue
		}
		parent := Lookup(name[:i])
		if parent == nil {
			return nil
		}
		rest := name[i+1:]
		for _, c := range rest {
			if c == '|' {
				return nil
			}
		}
		return parent.Sub(rest)
	}
	return Lookup(name)
}

// Resolve finds the command an argv invokes, descending into a subcommand
// when the top-level command is a container and argv has one. It returns
// the container itself when the subcommand is missing or unknown, so the
// caller can tell "unknown command" (nil) from "unknown subcommand"
// (IsContainer() && result is the container).
func Resolve(argv [][]byte) *Meta {
	if len(argv) == 0 {
		return nil
	}
	m := Lookup(argv[0])
	if m == nil || m.Subs == nil || len(argv) < 2 {
		return m
	}
	if sub := m.Sub(argv[1]); sub != nil {
		return sub
	}
	return m
}
