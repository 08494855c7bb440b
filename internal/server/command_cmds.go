package server

import (
	"slices"
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// The COMMAND family. Only commands Corvid implements are reported (those
// in the server's table), so a client that discovers commands through
// COMMAND never tries one that would fail as unknown; a container such as
// CLIENT lists only its implemented subcommands.

// topCommands returns the implemented top-level commands by name.
func (s *Server) topCommands() []*cmd {
	top := s.table.all()
	slices.SortFunc(top, func(a, b *cmd) int { return strings.Compare(a.name, b.name) })
	return top
}

// COMMAND: the same as COMMAND INFO without names.
func commandCommand(c *Client) {
	top := c.srv.topCommands()
	c.w.ArrayLen(len(top))
	for _, cm := range top {
		writeCommandInfo(c.w, cm)
	}
}

// COMMAND COUNT
func commandCountCommand(c *Client) { c.w.Int(int64(len(c.srv.table.cmds))) }

// COMMAND INFO [name ...]: one entry per name, null for unknown ones.
func commandInfoCommand(c *Client) {
	args := c.ctx.Argv[2:]
	if len(args) == 0 {
		commandCommand(c)
		return
	}
	c.w.ArrayLen(len(args))
	for _, a := range args {
		if cm := c.srv.lookupFullName(a); cm != nil {
			writeCommandInfo(c.w, cm)
		} else {
			c.w.Null()
		}
	}
}

// writeCommandInfo writes COMMAND INFO's entry for cm, a container
// listing only its implemented subcommands.
func writeCommandInfo(w *resp.Writer, cm *cmd) {
	command.WriteInfoSubs(w, cm.meta, subMetas(cm))
}

// subMetas returns the specs of cm's implemented subcommands, sorted by
// name (nil if none).
func subMetas(cm *cmd) []*command.Meta {
	var out []*command.Meta
	for _, sub := range sortedSubs(cm) {
		out = append(out, sub.meta)
	}
	return out
}

// COMMAND DOCS [name ...]: a map from full name to documentation; unknown
// names are left out.
func commandDocsCommand(c *Client) {
	s := c.srv
	args := c.ctx.Argv[2:]
	var list []*cmd
	if len(args) == 0 {
		list = s.topCommands()
	} else {
		for _, a := range args {
			if cm := s.lookupFullName(a); cm != nil {
				list = append(list, cm)
			}
		}
	}
	c.w.MapLen(len(list))
	for _, cm := range list {
		c.w.BulkString(cm.meta.FullName)
		writeCommandDocs(c.w, cm)
	}
}

// writeCommandDocs writes COMMAND DOCS's entry for cm, a container
// listing only its implemented subcommands.
func writeCommandDocs(w *resp.Writer, cm *cmd) {
	command.WriteDocsSubs(w, cm.meta, subMetas(cm))
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
func commandListCommand(c *Client) {
	argv := c.ctx.Argv
	var keep command.ListFilter
	for i := 2; i < len(argv); i++ {
		if !db.EqualFold(argv[i], "filterby") || len(argv)-1-i != 2 {
			c.w.Error(db.ErrSyntax)
			return
		}
		kind, arg := argv[i+1], string(argv[i+2])
		switch {
		case db.EqualFold(kind, "module"):
			keep = command.FilterModule(arg)
		case db.EqualFold(kind, "aclcat"):
			keep = command.FilterACLCat(arg)
		case db.EqualFold(kind, "pattern"):
			keep = command.FilterPattern(arg)
		default:
			c.w.Error(db.ErrSyntax)
			return
		}
		i += 2
	}
	var names []string
	for _, cm := range c.srv.sortedCommands() {
		if keep == nil || keep(cm.meta) {
			names = append(names, cm.meta.FullName)
		}
	}
	c.w.ArrayLen(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// COMMAND GETKEYS command [arg ...]
func commandGetkeysCommand(c *Client) { getKeys(c, false) }

// COMMAND GETKEYSANDFLAGS command [arg ...]
func commandGetkeysandflagsCommand(c *Client) { getKeys(c, true) }

// getKeys ports getKeysSubcommandImpl: resolve the command (and its
// subcommand), check it has keys and its arity, then run the key specs.
func getKeys(c *Client, withFlags bool) {
	args := c.ctx.Argv[2:]
	s := c.srv
	cm := s.table.cmds[strings.ToLower(string(args[0]))]
	if cm != nil && cm.subs != nil && len(args) >= 2 {
		cm = cm.subs[strings.ToLower(string(args[1]))]
	}
	switch {
	case cm == nil:
		c.w.Error("ERR Invalid command specified")
		return
	case !cm.meta.HasKeys():
		c.w.Error("ERR The command has no key arguments")
		return
	case !cm.meta.CheckArity(len(args)):
		c.w.Error("ERR Invalid number of arguments specified for command")
		return
	}
	refs := cm.meta.KeyPositionsWithFlags(args)
	if len(refs) == 0 {
		if cm.meta.Flags&command.FlagNoMandatoryKeys != 0 {
			c.w.ArrayLen(0)
		} else {
			c.w.Error("ERR Invalid arguments specified for command")
		}
		return
	}
	c.w.ArrayLen(len(refs))
	for _, r := range refs {
		if !withFlags {
			c.w.Bulk(args[r.Pos])
			continue
		}
		c.w.ArrayLen(2)
		c.w.Bulk(args[r.Pos])
		command.WriteKeyFlags(c.w, r.Flags)
	}
}

var commandHelp = []string{
	"(no subcommand)",
	"    Reply with COMMAND INFO for every command.",
	"COUNT",
	"    Reply with the number of commands.",
	"DOCS [<command-name> ...]",
	"    Reply with the documentation of the given commands (default: all).",
	"GETKEYS <full-command>",
	"    Reply with the keys a complete command line names.",
	"GETKEYSANDFLAGS <full-command>",
	"    Like GETKEYS, with each key's access flags.",
	"INFO [<command-name> ...]",
	"    Reply with the details of the given commands (default: all).",
	"LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
	"    Reply with the names of the commands, optionally filtered.",
}

// COMMAND HELP
func commandHelpCommand(c *Client) { c.writeHelp("COMMAND", commandHelp) }
