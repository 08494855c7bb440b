// Package peer finds and starts the servers a side-by-side benchmark
// compares: Corvid (as a child process of corvid-bench itself, or a named
// corvid-server binary), valkey-server and redis-server. Each is started
// on a free loopback port with the same configuration (no persistence,
// maxmemory 0 with noeviction, the scenario's io-threads) in its own
// temporary directory, and measured from outside through /proc: CPU time
// (utime+stime of /proc/PID/stat, all threads) and resident memory
// (VmRSS of /proc/PID/status).
//
// Invariants: a Proc owns its process and directory; Stop is idempotent
// and always reaps the child. Nothing here writes outside the temporary
// directories it creates.
package peer
