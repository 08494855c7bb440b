// Package compat holds differential tests: the same command scripts are
// sent to corvid-server and to redis-server 7.0.15 (Debian), and the
// replies must be identical, except where Valkey 8.0.1 (Corvid's reference)
// differs from Redis 7.0; those cases are listed, with the reason, in
// differences.go. The tests skip when redis-server is not installed (CI
// installs it and sets CORVID_REQUIRE_REDIS=1 so they cannot silently skip).
package compat
