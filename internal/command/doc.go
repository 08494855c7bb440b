// Package command is Corvid's command table: the single source of truth for
// every command's arity, flags, ACL categories, command tips, key specs,
// subcommands and argument shapes, as declared by Valkey 8.0.1.
//
// The table is data. specs_gen.go is generated from Valkey's JSON command
// specs by ./gen and holds facts only (names, numbers, flags, key specs,
// argument names/types/tokens, big-O complexity, replaced_by, the versions
// in a command's history); Valkey's prose (summaries, history texts,
// argument descriptions, key spec notes) is not copied. The one-line
// summaries and history notes COMMAND DOCS reports are Corvid's own, written
// in summaries.go and history.go and keyed by full name; the package's tests
// check that every command has them and that none is Valkey's sentence. The
// JSON directory is not needed to build or test this package.
//
// Every command and subcommand is an exported *Meta variable named after its
// full name in CamelCase: Get, ClientList, ClientNoEvict, SortRo (see ident
// in ./gen). These variables are how procedures are bound to commands: a
// package implementing commands lists (spec, procedure, lock mode) triples
// such as db.Handler{Spec: command.Get, Proc: getCommand}, and the server
// builds its dispatch table from those bindings, taking each command's name
// from its spec. A misspelt command is therefore a compile error, and no
// name is joined to metadata by string at start-up. Lookup by name remains
// for what arrives by name: argv from the wire, and COMMAND INFO/DOCS.
//
// Derived facts are computed once, when the package is initialised, exactly
// as Valkey computes them at startup:
//   - ACL categories get Valkey's implicit rules (setImplicitACLCategories);
//   - FlagMovableKeys is set when the key specs cannot be expressed as one
//     legacy (first, last, step) range (populateCommandLegacyRangeSpec);
//   - the legacy (first, last, step) triple reported by COMMAND INFO.
//
// Invariants:
//   - The table, and every *Meta, KeySpec and Arg reachable from it, is
//     immutable after package initialisation. Callers must not modify them,
//     nor assign to the spec variables; this makes every function here safe
//     for concurrent use without locks.
//   - Lookup, Meta.Sub and Meta.KeyPositions (given a dst with capacity) do
//     not allocate; they sit on the per-command dispatch path.
//   - Key positions are indexes into the full argv, where argv[0] is the
//     command name (and argv[1] the subcommand name for subcommands), the
//     same convention as Valkey's key specs. Key extraction never panics on
//     malformed argv: like Valkey's getKeysUsingKeySpecs, an out-of-range spec
//     yields no keys (and the custom get-keys function, if any, is consulted).
//   - The table contains every command in the JSON specs, including
//     sentinel-only ones; which commands are served is the server's decision.
package command

//go:generate go run ./gen -specs ../../../shared/valkey-8.0.1-commands -out specs_gen.go
