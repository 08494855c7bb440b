package acl

import (
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
)

// Every command and subcommand of the table has an id indexing a
// selector's command bitmap, as Valkey's ACLGetCommandID. One more bit,
// futureBit, is set only by +@all (allcommands): it says the selector was
// built by subtracting from everything, which is how ACL LIST knows to
// begin with +@all rather than -@all.
var (
	cmdIDs    map[*command.Meta]int
	cmdByID   []*command.Meta
	futureBit int
	// bitWords is initialised by initIDs, so that package variables that
	// build selectors (deletedPerms) are initialised after the ids.
	bitWords = initIDs()
)

func initIDs() int {
	cmdIDs = make(map[*command.Meta]int)
	for _, m := range command.All() {
		if !visible(m) {
			continue
		}
		addID(m)
		for _, s := range m.Subcommands() {
			addID(s)
		}
	}
	futureBit = len(cmdByID)
	return (futureBit + 1 + 63) / 64
}

func addID(m *command.Meta) {
	cmdIDs[m] = len(cmdByID)
	cmdByID = append(cmdByID, m)
}

// visible reports whether the command exists for ACLs: Valkey leaves
// sentinel-only commands out of a server's command table.
func visible(m *command.Meta) bool { return m.Flags&command.FlagOnlySentinel == 0 }

// commandID returns m's bit, or -1 for a command the ACL table does not
// know.
func commandID(m *command.Meta) int {
	if id, ok := cmdIDs[m]; ok {
		return id
	}
	return -1
}

// lookupCommand resolves "name" or "container|sub" (case-insensitive) as
// Valkey's ACLLookupCommand: nil for unknown names, for a|b when a has no
// subcommand b, and for more than one '|'.
func lookupCommand(name string) *command.Meta {
	m := command.LookupFullName([]byte(name))
	if m == nil || !visible(m) {
		return nil
	}
	return m
}

// CategoryCommands lists the full names of the commands in category name
// (without '@', case-insensitive), containers before their subcommands; ok
// is false for an unknown category (ACL CAT <category>).
func CategoryCommands(name string) (names []string, ok bool) {
	cat := command.ACLCatByName(name)
	if cat == 0 {
		return nil, false
	}
	names = []string{}
	for _, m := range cmdByID {
		if m.ACL&cat != 0 {
			names = append(names, m.FullName)
		}
	}
	return names, true
}

// Categories lists the category names in ACL CAT order.
func Categories() []string { return command.ACLCategoryNames() }

func lower(s string) string { return strings.ToLower(s) }
