package server

import (
	"os"
	"runtime/debug"
	"sync"
)

// The collector's heap floor. Go collects when the heap has grown by GOGC
// percent (100) over what the last cycle found live, so a fresh or freshly
// flushed server filling up collects at 4, 8, 16, 32 MB and so on: a
// cycle every time its data doubles, most of them while it is small. Each
// cycle's mark phase also runs "idle" mark workers on every P the runtime
// sees as idle; with the event loop holding its own P, that is a whole
// core the runtime believes free, which on a machine shared with clients
// (the benchmark's load generator) it is not. Measured with corvid-bench
// --rate-limiting at an equal 60k SADD/s on a fresh server
// (docs/benchmarks-archive.md, "Equal-load latency"), those early cycles took p99
// from Redis's 0.8 ms to 2-5 ms.
//
// So while the live heap is small the GOGC percentage is raised until the
// collector's goal is gcHeapFloor: no collection until the heap reaches 64
// MB, then the usual GOGC=100 once the live data is half of that. The
// price is up to that much garbage held by a small server (RSS up to ~70
// MB where it would stay near its data). The memory limit (maxmemory,
// setGoMemoryLimit) still applies on top and wins: near it the collector
// runs as often as it must. A GOGC in the environment turns the floor off.
const gcHeapFloor = 64 << 20

// runtimeHeapMinimum is the Go runtime's minimum heap goal at GOGC=100
// (defaultHeapMinimum in runtime/mgcpacer.go); it scales with GOGC.
const runtimeHeapMinimum = 4 << 20

var gcFloor struct {
	sync.Mutex
	checked, env bool
	pct          int // the percentage set last (0: none yet)
}

// gcPercentFor is the GOGC percentage for a live heap: 100 once the live
// heap is half the floor, else the percentage whose goal is the floor.
//
// A live heap under 4 MB counts as 4 MB (percentage 1500): the runtime
// never collects below a minimum heap of 4 MB x GOGC/100, so a larger
// percentage would raise the floor past gcHeapFloor (6300, for 1 MB, put
// it at 252 MB: a fresh server held 225 MB without one collection).
func gcPercentFor(live int64) int {
	live = max(live, runtimeHeapMinimum)
	if 2*live >= gcHeapFloor {
		return 100
	}
	return int(gcHeapFloor*100/live) - 100
}

// tuneGCPercent follows the live heap (every 100 ms, beside
// tuneGoMemoryLimit). It sets the percentage only when it moved by more
// than 1/8 (SetGCPercent briefly stops the world).
func tuneGCPercent() {
	gcFloor.Lock()
	defer gcFloor.Unlock()
	if !gcFloor.checked {
		gcFloor.checked = true
		gcFloor.env = os.Getenv("GOGC") != ""
	}
	if gcFloor.env {
		return
	}
	pct := gcPercentFor(runtimeMetrics("/gc/heap/live:bytes")[0])
	if d := pct - gcFloor.pct; gcFloor.pct != 0 && max(d, -d) <= gcFloor.pct/8 {
		return
	}
	gcFloor.pct = pct
	debug.SetGCPercent(pct)
}
