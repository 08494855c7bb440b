// Package benchproc is what the benchmark programs under bench/
// (sidebyside, keyspace, mempere, hostile) share about the processes they run and
// the machine they run on:
//
//   - FreePorts and FreePort pick free loopback ports (never 6379);
//   - Build runs `go build`, ModuleRoot finds the checkout;
//   - Start starts a server process in its own process group (so a
//     terminal's Ctrl-C reaches only the benchmark, which stops it; with
//     SIGKILL if the benchmark dies), Server.WaitReady waits until it
//     answers PING, Server.Stop stops it (SIGTERM, then SIGKILL) and
//     StopAll stops every server still running, for error and signal
//     paths;
//   - Server.RSSKiB and Server.CPUTicks read VmRSS and utime+stime from
//     /proc/PID, ClockTicks is the tick rate;
//   - Do and DoInt are the control-path commands on an
//     internal/bench/wire connection, an error reply returned as an error;
//   - NProc, CPUModel, Kernel, LoadAvg, MeminfoKiB, GitRevision and Output
//     are the facts each report's header states about the machine and the
//     build ("" or -1 where unknown: each program words that its own way);
//   - ParseInfo and InfoInt read an INFO reply's fields;
//   - ShellJoin, Tail and WriteComments are small helpers of the reports.
//
// Everything listens and connects on 127.0.0.1 only.
package benchproc
