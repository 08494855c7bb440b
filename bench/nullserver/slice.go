package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// setThreadSlice asks the kernel for a scheduling slice for the calling thread
// (the -slice flag), keeping its policy and nice value; it changes
// nothing for a thread under a real-time or idle policy. It reports
// whether the kernel accepted the request (kernels before 6.12 accept it
// and ignore the slice). The caller should be locked to its thread
// (runtime.LockOSThread). Corvid's loops measured no better with a slice
// than with the thread lock alone (docs/benchmarks-archive.md), so only
// this experiment has it.
func setThreadSlice(d time.Duration) bool {
	attr, err := unix.SchedGetAttr(0, 0)
	if err != nil || (attr.Policy != unix.SCHED_NORMAL && attr.Policy != unix.SCHED_BATCH) {
		return false
	}
	attr.Size = unix.SizeofSchedAttr
	attr.Runtime = uint64(d)
	attr.Flags = 0
	return unix.SchedSetAttr(0, attr, 0) == nil
}
