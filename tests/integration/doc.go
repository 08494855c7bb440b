// Package integration drives the real corvid-server binary over loopback,
// with github.com/redis/go-redis/v9 (RESP2 and RESP3) and with raw RESP
// (testutil.Raw), the way users and client libraries will.
//
// Invariants: every test starts its own server process (testutil.StartCorvid
// kills it in t.Cleanup), so tests never share state and may run in any
// order; servers listen on 127.0.0.1 only; every network wait is bounded by
// a context, a deadline or testutil.Raw's read timeout, and every loop by a
// count or a deadline. Tests that need a tool (redis-server, redis-cli,
// redis-benchmark) skip with a reason when it is not installed.
package integration
