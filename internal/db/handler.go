package db

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

// Handler binds a command's full name ("get", "object|encoding") to its
// procedure. Each group file exports a []Handler; the server joins them with
// the command table's metadata.
type Handler struct {
	Name string
	Proc Proc
	Lock Lock
}
