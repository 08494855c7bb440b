package db

import "github.com/corvid-kv/corvid/internal/command"

// Proc executes one command. User-visible errors are written as replies.
type Proc func(c *Ctx)

// Lock says what the dispatcher must lock before calling a Proc.
type Lock uint8

const (
	// LockKeys locks the stripes of the keys named by the command's key
	// specs (the default).
	LockKeys Lock = iota
	// LockAll locks every stripe: the command sees a frozen keyspace.
	LockAll
	// LockNone locks nothing; the procedure locks what it needs itself
	// (SCAN walks stripe by stripe) or touches no keys.
	LockNone
)

// Handler binds one command to its procedure and lock mode: the command's
// spec (command.Get, command.ObjectEncoding), which carries its name, arity,
// flags and key specs, is the Spec value itself rather than a name looked up
// later. Each group file exports a []Handler; the server builds its command
// table from them, and its TestLockModes ties each Lock to the Spec's key
// specs.
type Handler struct {
	Spec *command.Meta
	Proc Proc
	Lock Lock
}
