package command

// Meta describes one command or subcommand. Everything in it is immutable
// after package initialisation (see the package doc).
type Meta struct {
	// Name is the lower-case declared name: "get", or "list" for CLIENT LIST.
	Name string
	// FullName is the name Valkey reports: "get", or "client|list" for a
	// subcommand.
	FullName string
	// Parent is the container command of a subcommand, nil at top level.
	Parent *Meta

	Group string // documentation group: "string", "generic", "server", ...
	Since string // version that introduced the command

	// Arity counts argv including the command (and subcommand) name. A
	// negative arity -N means "at least N".
	Arity int

	// Flags holds the declared command flags plus the derived FlagMovableKeys.
	Flags Flag
	// ACL holds the effective ACL categories: the declared ones plus Valkey's
	// implicit ones (see effectiveACL).
	ACL ACLCat
	// Tips are Valkey's command tips, lower case ("nondeterministic_output",
	// "request_policy:all_shards", ...).
	Tips []string

	// KeySpecs are Valkey's key specifications, in declaration order; an
	// Arg.KeySpecIndex indexes this slice.
	KeySpecs []KeySpec
	// Args is the argument grammar (names, types, tokens; no prose).
	Args []Arg

	// Subs maps lower-case subcommand names to their metas; nil if the
	// command has no subcommands.
	Subs map[string]*Meta

	// Summary is Corvid's own one-line description of the command, shown by
	// COMMAND DOCS and valkey-cli's HELP (from summaries.go; Valkey's text is
	// not copied).
	Summary string
	// Complexity is the time complexity Valkey's spec states, in big-O
	// terms ("" for a few commands that state none).
	Complexity string

	// DocFlags, DeprecatedSince and ReplacedBy (the command or form to use
	// instead of a deprecated one, as the spec names it) are COMMAND DOCS
	// facts.
	DocFlags        DocFlag
	DeprecatedSince string
	ReplacedBy      string

	// History lists the versions that changed the command, oldest first,
	// with Corvid's own note on each change (from history.go).
	History []HistoryEntry

	// GetKeysFunc is the name of Valkey's custom key-extraction function
	// ("sortGetKeys", ...) or "" when the key specs suffice. The Go port of
	// each is in keys_custom.go.
	GetKeysFunc string

	// Derived at initialisation.
	subList             []*Meta   // Subs sorted by name
	subIndex            nameIndex // Subs, for Sub
	getKeys             getKeysFn
	first, last, step   int // legacy key range, as COMMAND INFO reports it
	hasKeySpec, varKeys bool
}

// Subcommands returns the subcommands sorted by name (nil if none). The
// slice is shared; do not modify it.
func (m *Meta) Subcommands() []*Meta { return m.subList }

// IsContainer reports whether the command only dispatches to subcommands.
func (m *Meta) IsContainer() bool { return len(m.Subs) > 0 }

// CheckArity reports whether argc (argv length including the command and,
// for subcommands, the subcommand name) satisfies the declared arity.
func (m *Meta) CheckArity(argc int) bool {
	if m.Arity >= 0 {
		return argc == m.Arity
	}
	return argc >= -m.Arity
}

// HistoryEntry is one change to a command: the version that made it (a
// fact from the spec) and what changed, in Corvid's words.
type HistoryEntry struct {
	Since   string
	Changes string
}

// Arg is one node of a command's argument grammar, mirroring Valkey's
// serverCommandArg without the prose fields.
type Arg struct {
	Name  string
	Type  string // "string", "integer", "double", "key", "pattern", "unix-time", "pure-token", "oneof", "block"
	Token string // fixed token preceding the value ("" if none)
	// Display overrides Name as the display text ("" means use Name).
	Display string

	Optional, Multiple, MultipleToken bool

	// KeySpecIndex indexes Meta.KeySpecs for key arguments; -1 otherwise.
	KeySpecIndex int

	Since           string // version that added the argument, "" if original
	DeprecatedSince string

	// Args are the children of "oneof" and "block" arguments.
	Args []Arg
}

// DisplayText is the display_text COMMAND DOCS reports.
func (a *Arg) DisplayText() string {
	if a.Display != "" {
		return a.Display
	}
	return a.Name
}

// BeginKind says how a key spec finds its first key.
type BeginKind uint8

const (
	beginInvalid BeginKind = iota
	BeginIndex             // argv[Pos]
	BeginKeyword           // the argument after Keyword, searched from StartFrom
	BeginUnknown           // not describable; a custom function is needed
)

// FindKind says how a key spec finds the keys after the first one.
type FindKind uint8

const (
	findInvalid FindKind = iota
	FindRange            // LastKey/Step/Limit
	FindKeynum           // a count at KeynumIdx, keys from FirstKey every KeyStep
	FindUnknown          // not describable; a custom function is needed
)

// KeySpec mirrors Valkey's keySpec. Field meanings are those of the JSON
// specs: for BeginIndex, Pos is absolute; for BeginKeyword, StartFrom is the
// index to start the search from (negative counts from the end and searches
// backwards). For FindRange, LastKey is relative to the first key when >= 0,
// else counts from the end of argv (-1 = last); Limit > 1 with LastKey == -1
// limits the keys to 1/Limit of the remaining arguments. For FindKeynum,
// KeynumIdx and FirstKey are relative to the first key found by begin-search.
type KeySpec struct {
	Flags KeySpecFlag

	BeginKind BeginKind
	Pos       int    // BeginIndex
	Keyword   string // BeginKeyword
	StartFrom int    // BeginKeyword

	FindKind             FindKind
	LastKey, Step, Limit int // FindRange
	KeynumIdx, FirstKey  int // FindKeynum
	KeyStep              int // FindKeynum
}

// KeyRef is one key found in an argv: its index and access flags.
type KeyRef struct {
	Pos   int
	Flags KeySpecFlag
}
