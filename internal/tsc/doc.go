// Package tsc is the clock that times commands: a tick counter that is
// cheap to read, and the conversion of tick durations to nanoseconds.
//
// Every command is timed (commandstats, latency histograms, the slowlog),
// so its clock read is on the hot path. runtime.nanotime goes through the
// vDSO and costs ~24 ns on this project's KVM machines; an unserialized
// RDTSC costs ~10 ns (BenchmarkNow). Valkey makes the same choice on x86
// (monotonic.c reads the TSC when /proc/cpuinfo has constant_tsc).
//
// Invariants: the mode is fixed in package init and never changes, so a
// start and an end reading always come from the same counter. The TSC is
// used only on amd64 when /proc/cpuinfo reports constant_tsc and
// nonstop_tsc (a rate that does not change with frequency scaling or
// sleep states); otherwise Now is runtime.nanotime and a tick is a
// nanosecond. Readings are only compared with readings from the same
// process; a duration that comes out negative (a TSC that is not
// synchronized across cores) converts to 0.
package tsc
