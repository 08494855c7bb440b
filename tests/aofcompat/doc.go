// Package aofcompat checks internal/aof against Valkey 8.0.1 itself: an
// AOF directory valkey-server wrote (with a BGREWRITEAOF in the middle)
// loads with our loader into the commands expected; one our writer wrote
// passes valkey-check-aof and loads into valkey-server with the keys
// expected; and both loaders cut a truncated tail at the same offset.
// The tests skip when valkey-server is absent (see
// testutil.ValkeyServerPath).
package aofcompat
