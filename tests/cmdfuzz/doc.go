// Package cmdfuzz is a command fuzzer driven by the command table: for
// every command and subcommand of Valkey 8.0.1's specs (internal/command)
// it generates argument vectors from the argument grammar (tokens, oneofs,
// blocks, optional and multiple arguments, keys from a small keyspace of
// every type) and mutates them (extreme and non-canonical numbers, special
// floats, empty, binary and 1 MB strings, wrong arity both ways, repeated
// and misplaced tokens, keys of the wrong type). It sends them to real
// corvid-server processes on loopback (the default network path, and
// net-engine goroutine) and, when valkey-server is at hand, to Valkey 8.0.1 in
// lockstep (one command at a time, or in half of the batches in pipelines
// of up to 8), and checks:
//
//   - the process never exits and never panics (a recovered command panic
//     answers "ERR internal error" and logs PANIC; the race detector's
//     reports count too);
//   - every reply is well-formed RESP for the connection's protocol,
//     parsed strictly (ReadReply), with nothing unrequested after it, and
//     the connection stays open and in step;
//   - no reply takes longer than ReplyTimeout (a stall);
//   - differentially: when Valkey answers an error Corvid answers the same
//     text, and when Valkey answers anything else Corvid answers no error.
//     Payloads are not compared. Commands Corvid does not implement (its
//     COMMAND LIST) go to Corvid only. Intended differences are listed in
//     knownDifference.
//
// Invariants:
//   - Determinism: a run is a seed. Batch b of seed s (its commands and
//     its pipelines) is a pure function of (s, b, Env): Gen never looks at
//     replies (it models MULTI itself) and Env holds facts of the Corvid
//     build, so a failing batch replays exactly (-cmdfuzz.seed,
//     -cmdfuzz.batch) and can be minimized (replayed one command at a
//     time). A difference that does not happen again on replay (a TTL of
//     a few milliseconds, SPOP's choice) is logged, not failed.
//   - Isolation: every batch starts on a fresh connection to each server,
//     after FLUSHALL, with the safe configuration directives at their
//     defaults, and then runs the same setup commands, so no batch depends
//     on an earlier one.
//   - Safety: nothing that would end the experiment is sent (skipped:
//     SHUTDOWN, MONITOR, SUBSCRIBE..., CLIENT KILL|PAUSE, REPLICAOF...,
//     MIGRATE), CONFIG SET touches only safeConfig, DEBUG is refused by
//     both servers (enable-debug-command no), and guard rewrites blocking
//     timeouts, billion-element random counts and half-gigabyte offsets.
//     Everything listens and connects on 127.0.0.1 only.
//   - No sleeps: every wait is a read with a deadline.
package cmdfuzz
