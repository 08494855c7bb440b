package cmdfuzz

import (
	"strconv"
	"strings"
)

// knownDifference returns why a difference between Corvid's reply and the
// reference's is intended, or "" when it is a finding. Every entry names
// its reason; the list should stay tiny.
func knownDifference(env *Env, argv []string, corvid, ref Reply) string {
	// COMMAND GETKEYS and GETKEYSANDFLAGS of a command Corvid does not
	// serve yet: Corvid treats it as unknown ("Invalid command
	// specified"), consistently with its COMMAND INFO, COUNT and LIST,
	// which leave it out. Not a difference of a built command.
	if len(argv) >= 3 && strings.EqualFold(argv[0], "command") &&
		(strings.EqualFold(argv[1], "getkeys") || strings.EqualFold(argv[1], "getkeysandflags")) &&
		corvid.IsErr() && corvid.Str == "ERR Invalid command specified" {
		if n := resolveName(argv[2:]); n != "" && !env.Implemented[n] {
			return "COMMAND GETKEYS of a command Corvid does not serve yet"
		}
	}
	// A Valkey 8.0.1 bug Corvid does not copy: LSET passes its index to
	// listTypeReplaceAtIndex as an int, so an index beyond 32 bits wraps
	// (LSET biglist 4294967296 x sets element 0) where LINDEX, with a
	// long, finds nothing. Corvid answers "index out of range".
	if len(argv) == 4 && strings.EqualFold(argv[0], "lset") && corvid.IsErr() && !ref.IsErr() &&
		corvid.Str == "ERR index out of range" {
		if n, err := strconv.ParseInt(argv[2], 10, 64); err == nil && n != int64(int32(n)) {
			return "Valkey's LSET truncates its index to 32 bits (not copied)"
		}
	}
	return ""
}
