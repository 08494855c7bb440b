// Command hostile runs the same hostile-client scenarios against
// corvid-server, valkey-server 8.0.1 and redis-server 7.0.15, one server
// at a time, and reports per scenario and server what the attack cost the
// server (wall time, CPU, RSS) and the other clients (PING round trip), in
// one markdown table (docs/architecture.md, "Resource bounds", states the
// bounds Corvid means to keep; tests/integration/resources_test.go asserts
// them for Corvid alone).
//
// Usage (from anywhere in the checkout):
//
//	go run ./bench/hostile [flags]
//	go run ./bench/hostile -n 300000 -conns 500 -gets 10   # a quick check
//	go run ./bench/hostile -scenarios multibulk -servers corvid,valkey
//
// Flags:
//
//	-n 3000000        arguments of the large RPUSH (short numeric elements)
//	-value 10485760   size of the value the slow reader GETs, bytes
//	-gets 50          GETs the slow reader sends in one write
//	-hold 2s          how long the slow reader reads nothing
//	-obuf-limit 'normal 64mb 0 0'   client-output-buffer-limit of the
//	                  "obuf limit" scenario
//	-conns 3000       idle connections
//	-pings 200        PINGs of the idle median (and of the median with the
//	                  idle connections open)
//	-ping-every 1ms   the prober's pace (0: back to back)
//	-settle 500ms     wait before the baseline RSS (and the idle scenario's
//	                  RSS after the connections are open)
//	-timeout 5m       bound of any one step (the RPUSH's reply, the drain)
//	-scenarios multibulk,slowreader,obuflimit,idle   which, in this order
//	-servers corvid,valkey,redis                    which, in this order
//	-corvid PATH      corvid-server binary (default: built from the
//	                  checkout with go build ./cmd/corvid-server)
//	-valkey PATH      valkey-server binary (default:
//	                  ../shared/bin/valkey-server beside the module root);
//	                  skipped with a note when absent
//	-redis NAME       redis-server binary, looked up in PATH; skipped with a
//	                  note when absent
//
// # Method
//
// Every scenario runs on a fresh server for each server in turn, so none
// inherits the heap, the RSS or the data of the one before; each is started
// as `BIN --port P --bind 127.0.0.1 --save "" --appendonly no` on a free
// loopback port, in its own session (bench/internal/benchproc), and
// stopped after the scenario. A second client, the prober, measures its
// PING round trip: a median of -pings PINGs while the server is idle, then
// PINGs during the attack; "PING ratio" is the attacked median over the
// idle one, both taken in the same server's run. The prober sends one PING
// every -ping-every (the next one at once when a round trip took longer),
// so its own load on the server is about the same for every server and
// does not take a core of this 2-core machine from the attack; its PINGs
// are part of the server CPU reported. Server CPU is utime+stime of
// /proc/PID/stat (clock ticks, normally 10 ms) before and after the
// attack; peak RSS is the highest VmRSS of /proc/PID/status sampled every
// 2 ms during the attack, over the RSS taken after -settle before it.
//
//   - large multibulk: one RPUSH of -n arguments ("0", "1", ...) written to
//     the socket in one Write, as fast as the socket takes it. Wall is from
//     the first byte sent to the reply (which must be :N); the prober runs
//     from the first byte to the reply. Corvid took 40-56 s for 3M
//     arguments when it re-parsed the command from its start on every read;
//     Valkey takes ~0.4 s.
//   - slow reader: SET a -value byte value; a client sends -gets GETs of it
//     in one write and reads nothing for -hold while the prober runs; then
//     it reads everything, and the byte count must be -gets replies of
//     $LEN\r\n<value>\r\n. Wall is that drain, from the first read to the
//     last byte. "kept" means the client then still answered a PING; the
//     default configuration has no output limit for normal clients, so none
//     of the servers should close it. Valkey and Redis buffer every reply
//     (-gets x -value of RSS); Corvid applies back-pressure instead
//     (docs/architecture.md, "Resource bounds", means it to hold about one
//     MiB plus one reply while the client does not read). The peak covers
//     the hold and the drain.
//   - slow reader, obuf limit: the same after CONFIG SET
//     client-output-buffer-limit (-obuf-limit). Valkey closes the client
//     once its buffered replies cross the limit; Corvid may not, as it never
//     buffers that much. "obuf disconnections" is INFO stats'
//     client_output_buffer_limit_disconnections gained during the scenario
//     ("–" for Redis 7.0, which has no such field).
//   - idle connections: -conns connections, opened one after another, each
//     sending PING and reading +PONG, then left idle. Wall and CPU are for
//     opening them all; "RSS growth" is (RSS after -settle - RSS before) /
//     -conns; the PING ratio is the median of -pings PINGs with the
//     connections open over the idle median.
//
// After each scenario's rows a "corvid/valkey" row divides Corvid's wall,
// CPU and RSS growth by Valkey's (below 1: Corvid spends less). A scenario
// that fails on a server (the server died, a reply was wrong) is reported
// in that server's row and the run goes on; the program then exits with
// status 1 and keeps the servers' logs (it names the directory).
//
// # Output
//
// Progress goes to standard error; the report (the exact command line,
// date, commit, machine and versions, then the table and its notes) goes to
// standard output, ready for docs/benchmarks.md. Every server is stopped on
// exit, on error and on Ctrl-C / SIGTERM (and gets SIGKILL should this
// process die). Everything listens and connects on 127.0.0.1 only.
package main
