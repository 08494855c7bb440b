// Package compat holds differential tests against valkey-server 8.0.1,
// Corvid's reference: the same command scripts (testdata/*.txt,
// TestScripts) and seeded random command sequences (TestRandomDifferential)
// are sent to corvid-server and to Valkey, and the replies must be
// identical, byte for byte, except where Corvid intentionally differs
// (a Valkey bug it does not copy): corvidDifferences in differences.go for
// the scripts, knownDifference in random_test.go for the sequences, each
// entry with its reason.
//
// TestScriptsRedis runs the same scripts against redis-server 7.0.15
// (Debian) and Valkey, and proves redisDifferences, the commented list of
// where Redis 7.0 differs from Valkey 8.0.1.
//
// The tests skip when a peer is missing; CI sets CORVID_REQUIRE_VALKEY and
// CORVID_REQUIRE_REDIS so they cannot silently skip.
package compat
