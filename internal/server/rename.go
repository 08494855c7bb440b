package server

import (
	"errors"
	"maps"
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/config"
)

// rename-command, as Valkey applies it: a command renamed in the
// configuration file is called by its new name only (its old name is an
// unknown command), one renamed to "" cannot be called at all, by
// clients, MULTI or scripts. Only at start-up (CONFIG SET has no
// rename-command). The command keeps its own name everywhere else
// (COMMAND INFO, INFO commandstats, ACL rules, the slowlog), as Valkey's
// keeps its fullname. The stream from a primary and the AOF may name a
// command either way (Valkey's lookupCommandOrOriginal).

// CommandExists reports whether name is a Valkey 8.0.1 command, for the
// checks of rename-command at load (config.LoadOptions.CommandExists).
func CommandExists(name string) bool {
	m := command.LookupFullName([]byte(name))
	return m != nil && m.Parent == nil
}

// applyRenames renames or removes commands in the names clients use.
// The checks are Valkey's, for a configuration loaded without
// CommandExists.
func (t *table) applyRenames(rs []config.Rename) error {
	if len(rs) == 0 {
		return nil
	}
	names := maps.Clone(t.cmds)
	for _, r := range rs {
		from, to := strings.ToLower(r.From), strings.ToLower(r.To)
		c, ok := names[from]
		if !ok {
			if CommandExists(from) {
				continue // a Valkey command Corvid lacks: nothing to rename
			}
			return errors.New("No such command in rename-command")
		}
		delete(names, from)
		if to == "" {
			continue
		}
		if _, dup := names[to]; dup {
			return errors.New("Target command name already exists")
		}
		names[to] = c
	}
	t.byName = names
	return nil
}

// original finds a command by its own name, renamed or not.
func (t *table) original(name []byte) *cmd {
	return t.cmds[strings.ToLower(string(name))]
}
