package compat

// valkeyOverrides lists commands whose reply from Valkey 8.0.1 (and so
// Corvid) intentionally differs from Redis 7.0.15's. The key is the script
// line exactly as written; the value is the reply Corvid must give, in the
// canonical form of testutil.Raw. Each entry says why.
var valkeyOverrides = map[string]string{
	// (Entries are added as scripts exercise Valkey-8-only behaviour; see
	// the list of known differences in docs/compatibility.md.)
}

// ignoredPrefixes are reply fields that legitimately differ between any two
// servers (ids, addresses, versions) and are compared only by type.
var ignoredCommands = map[string]bool{
	"CLIENT ID": true,
	"TIME":      true,
}
