// Package testutil starts real corvid-server, valkey-server and redis-server
// processes on free loopback ports for integration and differential tests.
//
// Invariants: every process a test starts is killed in t.Cleanup; ports are
// chosen at run time by binding port 0 and are only ever on 127.0.0.1.
package testutil
