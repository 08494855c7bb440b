package server

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/netloop"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Memory: what used_memory counts, how maxmemory is enforced before a
// command runs, the Go runtime's memory limit, and the MEMORY command.
// The design is in docs/architecture.md, "Memory accounting and eviction".
//
// used_memory = the dataset (counted incrementally by package db, see
// db/mem.go) + the clients' buffers and goroutines + a fixed base measured
// at start-up. All three live in the keyspace's counters (the latter two
// declared with Keyspace.AddOverhead), so the maxmemory check before every
// command is two atomic loads.

// oomError is Valkey's shared.oomerr.
const oomError = "OOM command not allowed when used memory > 'maxmemory'."

// clientFixedMem is what a connection costs besides its buffers: the
// Client struct, its request reader and reply writer, and on an event
// loop the loop's connection; clientStackMem is added on the goroutine
// path for the connection's goroutine and its stack (an estimate: stacks
// start at a few KiB and the connection loop's call depth keeps them near
// 8 KiB).
const (
	clientFixedMem = int64(unsafe.Sizeof(Client{}) + unsafe.Sizeof(resp.Reader{}) + unsafe.Sizeof(resp.Writer{}) + unsafe.Sizeof(netloop.Conn{}))
	clientStackMem = 8 << 10
)

// initMemory measures the start-up base (used_memory_startup) and declares
// it to the keyspace. The base is the live heap objects after a
// collection (the command table, the configuration, the stripes' arrays,
// the pools), as Valkey's is what zmalloc handed out: the runtime's own
// metadata (span structures, GC bitmaps) and the goroutines' stacks are
// not allocations of the server's, as jemalloc's metadata and the threads'
// stacks are not in Valkey's, and they do not count against maxmemory.
func (s *Server) initMemory() {
	runtime.GC()
	base := runtimeHeapObjects()
	s.ext().startup.Store(base)
	s.ks.AddOverhead(base)
}

// runtimeMetrics reads the runtime/metrics values named, in order, each
// as an int64 (0 for one this runtime does not report as a uint64).
func runtimeMetrics(names ...string) []int64 {
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	v := make([]int64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s[i].Value.Uint64())
		}
	}
	return v
}

// runtimeHeapObjects is the bytes of live and not yet swept heap objects
// (/memory/classes/heap/objects:bytes); right after a collection, the
// live ones.
func runtimeHeapObjects() int64 { return runtimeMetrics("/memory/classes/heap/objects:bytes")[0] }

// runtimeTotalLess is the runtime's total mapped memory
// (/memory/classes/total:bytes) minus the given memory classes.
func runtimeTotalLess(classes ...string) int64 {
	v := runtimeMetrics(append([]string{"/memory/classes/total:bytes"}, classes...)...)
	n := v[0]
	for _, c := range v[1:] {
		n -= c
	}
	return n
}

// noteMem brings the client's declared memory up to date: its fixed cost
// plus the current capacity of its query and reply buffers. It runs on the
// connection's goroutine, once per batch and before the maxmemory check.
func (c *Client) noteMem() {
	m := clientFixedMem + int64(c.rd.Cap()) + int64(c.w.Cap())
	if c.nc != nil {
		m += int64(c.nc.Queued()) // replies a loop client has not read yet
	} else {
		m += clientStackMem
	}
	if om := c.omem(); om != c.omemPub.Load() {
		c.omemPub.Store(om)
	}
	if d := m - c.memAcct.Load(); d != 0 {
		c.memAcct.Store(m)
		c.srv.ks.AddOverhead(d)
		if d > 0 {
			if lim := c.srv.hot.maxMemClients.Load(); lim > 0 && c.srv.clientsMem() >= lim {
				c.srv.evictClients(lim)
			}
		}
	}
}

// evictClients is Valkey's client eviction (maxmemory-clients): while the
// clients' memory is at or above the limit, disconnect the client using the
// most, skipping those with CLIENT NO-EVICT on. Valkey picks from its
// memory-usage buckets; Corvid sorts the candidates, which only happens
// once the limit is crossed. An evicted client's memory stays counted until
// its connection closes, so it is held in evictPending meanwhile and not
// counted twice (releaseMem takes it out under the same mutex). Each
// eviction is counted in evicted_clients and logged.
func (s *Server) evictClients(limit int64) {
	s.evictMu.Lock()
	defer s.evictMu.Unlock()
	if s.clientsMem()-s.evictPending < limit {
		return
	}
	var cands []*Client
	for _, o := range s.clientsSnapshot() {
		o.mu.Lock()
		exempt := o.mu.noEvict
		o.mu.Unlock()
		if !exempt && !o.evicted && !o.killed.Load() {
			cands = append(cands, o)
		}
	}
	slices.SortFunc(cands, func(a, b *Client) int { return cmp.Compare(b.memAcct.Load(), a.memAcct.Load()) })
	for _, o := range cands {
		if s.clientsMem()-s.evictPending < limit {
			return
		}
		m := o.memAcct.Load()
		o.mu.Lock()
		name := o.mu.name
		o.mu.Unlock()
		o.evicted, o.evictedMem = true, m
		s.evictPending += m
		s.stats.evictedClients.Add(1)
		s.log.notice("Evicting client: id=%d addr=%s laddr=%s name=%s tot-mem=%d", o.id, o.peerAddr(), o.localAddr(), name, m)
		o.kill()
	}
}

// releaseMem withdraws the client's declared memory when it disconnects.
func (c *Client) releaseMem() {
	s := c.srv
	s.evictMu.Lock()
	if c.evicted {
		s.evictPending -= c.evictedMem
		c.evicted = false
	}
	s.ks.AddOverhead(-c.memAcct.Swap(0))
	s.evictMu.Unlock()
}

// clientsMem is mem_clients_normal: the overhead declared beyond the base.
func (s *Server) clientsMem() int64 { return s.ks.Overhead() - s.ext().startup.Load() }

// oomRefused is processCommand's maxmemory step, run when maxmemory is set:
// evict if used memory is above the limit, and if that cannot free enough
// (EvictFail), refuse DENYOOM commands, and inside MULTI every command but
// EXEC, DISCARD, QUIT and RESET (queueing costs memory too). EXEC is
// refused when a queued command is DENYOOM. Reads and DEL keep working.
func (c *Client) oomRefused(cm *cmd) bool {
	s := c.srv
	c.noteMem()
	// Valkey does not evict while clients are paused
	// (isSafeToPerformEvictions), so nothing is refused then either.
	if s.pause.active.Load() || s.ks.PerformEvictions() != db.EvictFail {
		return false
	}
	refuse := cm.meta.Flags&command.FlagDenyOOM != 0
	if c.multi != nil {
		switch cm.name {
		case "exec":
			queued, _ := c.execFlags(cm)
			refuse = refuse || queued&command.FlagDenyOOM != 0
		case "discard", "quit", "reset":
		default:
			refuse = true
		}
	}
	if refuse {
		c.reject(cm, oomError)
	}
	return refuse
}

// applyMemoryConfig pushes maxmemory, the policy and the eviction tuning
// into the keyspace and sets the Go runtime's memory limit. applyConfig
// calls it at start-up and after every CONFIG SET.
func (s *Server) applyMemoryConfig() {
	maxmem := s.cfg.MaxMemory()
	s.ks.SetEvictionTuning(s.cfg.MaxmemorySamples(), s.cfg.MaxmemoryEvictionTenacity())
	if p, ok := db.ParsePolicy(s.cfg.MaxMemoryPolicy()); ok && p != s.ks.EvictionPolicy() {
		s.ks.SetEvictionPolicy(p)
	}
	if maxmem != s.ks.MaxMemory() {
		s.ks.SetMaxMemory(maxmem)
		if maxmem > 0 && maxmem < s.ks.UsedMemory() {
			s.log.warn("WARNING: the new maxmemory value set via CONFIG SET (%d) is smaller than the current memory usage (%d). This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.", maxmem, s.ks.UsedMemory())
		}
	}
	setGoMemoryLimit(maxmem)
}

// The Go runtime's soft memory limit follows maxmemory, so that the
// collector runs more often as the heap nears the limit instead of letting
// it grow to twice the live data (GOGC=100). The limit is
//
//	maxmemory + runtime overhead + maxmemory/goLimitHeadroom + goLimitFixed
//
// The runtime overhead is what the process holds beside its objects and
// free pages: span structures (~2% of the heap), other GC metadata (~2%),
// the unused tails of spans (~3% once eviction has freed objects all over
// the heap). used_memory counts objects only, as Valkey's counts what
// jemalloc hands out, so eviction keeps the objects near maxmemory and
// the overhead comes on top. It is measured (runtime/metrics) every 100 ms
// by tuneGoMemoryLimit and counted whole: no collection can lower it (the
// unused room in partly used spans is reusable by new objects, never
// returned while one object of the span lives), so a limit below it only
// makes the collector run back to back. (Capped at maxmemory/8, it did:
// after CONFIG SET lowered maxmemory to a tenth of a 1.1 GB dataset,
// eviction left 543 MB of such room and the idle server burned 1.2 cores
// in collections that freed nothing.) The rest,
// maxmemory/16 + 4 MB, is room for garbage between collections, of which
// the runtime keeps 3% of the limit unused itself (its heap goal stays
// that far below the limit): with maxmemory/32, the collector had about
// 4 MB of garbage room at 256mb and ran 3-7 times a second under ZADD.
//
// The first design's fixed margin (maxmemory/16 + 4 MB) was eaten by the
// overhead: at the limit the objects alone filled the
// runtime's budget, so the collector ran back to back even on an idle
// server (0.8 of a core with no client connected; ZADD at 512mb ran at
// 0.78x Redis at 1.65x its CPU, docs/benchmarks.md). RSS at the limit is
// now about maxmemory plus 7-10%. With maxmemory 0 the limit is off. A
// GOMEMLIMIT in the environment always wins.
const (
	goLimitHeadroom = 16 // 1/16 = 6.25%
	goLimitFixed    = 4 << 20
)

var goLimit struct {
	sync.Mutex
	env    bool
	set    bool
	maxmem int64
	value  int64
}

// goMemLimitFor is the runtime limit for a maxmemory and a measured
// runtime overhead (math.MaxInt64: none).
func goMemLimitFor(maxmem, overhead int64) int64 {
	if maxmem <= 0 {
		return math.MaxInt64
	}
	return maxmem + max(overhead, 0) + maxmem/goLimitHeadroom + goLimitFixed
}

// runtimeOverhead is the memory the Go runtime holds beside heap objects,
// free heap pages and pages returned to the OS.
func runtimeOverhead() int64 {
	return runtimeTotalLess("/memory/classes/heap/released:bytes",
		"/memory/classes/heap/objects:bytes", "/memory/classes/heap/free:bytes")
}

// setGoMemoryLimit sets the runtime limit for a new maxmemory.
func setGoMemoryLimit(maxmem int64) {
	goLimit.Lock()
	defer goLimit.Unlock()
	goLimit.maxmem = maxmem
	applyGoMemoryLimit(runtimeOverhead())
}

// tuneGoMemoryLimit follows the runtime overhead (every 100 ms).
func tuneGoMemoryLimit() {
	goLimit.Lock()
	defer goLimit.Unlock()
	if goLimit.maxmem > 0 {
		applyGoMemoryLimit(runtimeOverhead())
	}
}

// applyGoMemoryLimit sets the limit when it moved by more than 1/256
// (goLimit held).
func applyGoMemoryLimit(overhead int64) {
	if !goLimit.set {
		goLimit.set = true
		goLimit.env = os.Getenv("GOMEMLIMIT") != ""
	}
	if goLimit.env {
		return
	}
	// v is at least goLimitFixed, so a first call (value 0) and a switch
	// to or from no limit (math.MaxInt64) always differ by more.
	v := goMemLimitFor(goLimit.maxmem, overhead)
	if d := v - goLimit.value; max(d, -d) < v/256 {
		return
	}
	goLimit.value = v
	debug.SetMemoryLimit(v)
}

// memReport is getMemoryOverheadData: the figures behind INFO memory,
// MEMORY STATS and MEMORY DOCTOR, exact (the stripes are summed under their
// locks; held says the caller holds them all, inside EXEC).
type memReport struct {
	used, peak, startup, clients int64
	dictOverhead, dataset        int64 // dataset = used - overhead
	lut, rehashing, rehashCount  int64
	keys                         int64
	rss                          int64
	alloc                        memStats
	dbs                          []db.DBMemStats
}

func (s *Server) memReport(held bool) memReport {
	ks := s.ks
	var r memReport
	dataset := ks.DatasetBytes(held)
	r.startup = s.ext().startup.Load()
	r.clients = max(s.clientsMem(), 0)
	r.used = dataset + ks.Overhead()
	s.ext().notePeak(r.used)
	r.peak = s.ext().peakMem.Load()
	r.dbs = ks.MemStats(held)
	for _, d := range r.dbs {
		r.dictOverhead += d.Main + d.ExpiresOverhead
		r.lut += d.LUT
		r.rehashing += d.Rehashing
		r.rehashCount += d.RehashingCount
		r.keys += d.Keys
	}
	r.dataset = max(dataset-r.dictOverhead, 0)
	r.rss = processRSS()
	r.alloc = readMemStats()
	return r
}

func (r *memReport) overhead() int64 { return r.used - r.dataset }

// usedMemory is used_memory as the maxmemory check sees it (cheap, within
// ~1.6% of the exact figure).
func (s *Server) usedMemory() int64 { return s.ks.UsedMemory() }

// MEMORY USAGE key [SAMPLES count]
//
// Values are measured exactly in O(1) (their sizes are kept up to date as
// they change), so SAMPLES is validated but not needed.
func memoryUsageCommand(c *Client) {
	argv := c.ctx.Argv
	for j := 3; j < len(argv); j++ {
		if db.EqualFold(argv[j], "samples") && j+1 < len(argv) {
			n, ok := db.ParseInt(argv[j+1])
			if !ok {
				c.w.Error(db.ErrNotInt)
				return
			}
			if n < 0 {
				c.w.Error(db.ErrSyntax)
				return
			}
			j++
			continue
		}
		c.w.Error(db.ErrSyntax)
		return
	}
	var n int64
	var ok bool
	c.withKey(argv[2], func() { n, ok = c.srv.ks.KeyMemUsage(c.ctx.DB, argv[2]) })
	if !ok {
		c.w.Null()
		return
	}
	c.w.Int(n)
}

// MEMORY STATS
func memoryStatsCommand(c *Client) {
	s := c.srv
	r := s.memReport(c.keysHeld())
	w := c.w
	ndb := 0
	for _, d := range r.dbs {
		if d.Keys > 0 || d.Expires > 0 {
			ndb++
		}
	}
	w.MapLen(31 + ndb)
	kv := func(k string, v int64) {
		w.BulkString(k)
		w.Int(v)
	}
	kf := func(k string, v float64) {
		w.BulkString(k)
		w.Double(v)
	}
	kv("peak.allocated", r.peak)
	kv("total.allocated", r.used)
	kv("startup.allocated", r.startup)
	kv("replication.backlog", 0)
	kv("clients.slaves", 0)
	kv("clients.normal", r.clients)
	kv("cluster.links", 0)
	kv("aof.buffer", 0)
	kv("lua.caches", 0)
	kv("functions.caches", 0)
	for i, d := range r.dbs {
		if d.Keys == 0 && d.Expires == 0 {
			continue
		}
		w.BulkString("db." + strconv.Itoa(i))
		w.MapLen(2)
		kv("overhead.hashtable.main", d.Main)
		kv("overhead.hashtable.expires", d.ExpiresOverhead)
	}
	kv("overhead.db.hashtable.lut", r.lut)
	kv("overhead.db.hashtable.rehashing", r.rehashing)
	kv("overhead.total", r.overhead())
	kv("db.dict.rehashing.count", r.rehashCount)
	kv("keys.count", r.keys)
	perKey := int64(0)
	if r.keys > 0 {
		perKey = (r.used - r.startup) / r.keys
	}
	kv("keys.bytes-per-key", perKey)
	kv("dataset.bytes", r.dataset)
	kf("dataset.percentage", pct(r.dataset, r.used-r.startup))
	kf("peak.percentage", pct(r.used, r.peak))
	a := r.alloc
	kv("allocator.allocated", a.used)
	kv("allocator.active", a.active)
	kv("allocator.resident", a.resident)
	kv("allocator.muzzy", 0)
	kf("allocator-fragmentation.ratio", ratio(a.active, a.used))
	kv("allocator-fragmentation.bytes", a.active-a.used)
	kf("allocator-rss.ratio", ratio(a.resident, a.active))
	kv("allocator-rss.bytes", a.resident-a.active)
	kf("rss-overhead.ratio", ratio(r.rss, a.resident))
	kv("rss-overhead.bytes", r.rss-a.resident)
	kf("fragmentation", ratio(r.rss, r.used))
	kv("fragmentation.bytes", r.rss-r.used)
}

func pct(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return min(100, float64(a)*100/float64(b))
}

// MEMORY DOCTOR: the checks of Valkey's getMemoryDoctorReport that apply
// to a Go process (peak, fragmentation, RSS overhead, client buffers).
func memoryDoctorCommand(c *Client) {
	s := c.srv
	r := s.memReport(c.keysHeld())
	var issues []string
	a := r.alloc
	switch {
	case r.dataset+r.dictOverhead < 5<<20:
		// Measured on the dataset, not used_memory: the Go runtime's
		// start-up base alone is a few MiB.
		c.w.Verbatim("txt", "Hi Sam, this instance is empty or is using very little memory, "+
			"my issues detector can't be used in these conditions. "+
			"Please, leave for your mission on Earth and fill it with some data. "+
			"The new Sam and I will be back to our programming as soon as I finished rebooting.\n")
		return
	}
	if float64(r.peak)/float64(max(r.used, 1)) > 1.5 {
		issues = append(issues, " * Peak memory: used memory was once more than 150% of what it is now. "+
			"The Go runtime returns freed pages to the system over a few minutes; MEMORY PURGE does it at once.")
	}
	if ratio(r.rss, r.used) > 1.4 && r.rss-r.used > 10<<20 {
		issues = append(issues, fmt.Sprintf(" * High total RSS: the resident set is %.2f times used_memory. "+
			"Garbage waiting for the collector and freed pages not yet returned count here; "+
			"with maxmemory set the runtime's memory limit keeps this in check.", ratio(r.rss, r.used)))
	}
	if ratio(a.active, a.used) > 1.1 && a.active-a.used > 10<<20 {
		issues = append(issues, fmt.Sprintf(" * High allocator fragmentation: %.2f (free space inside the heap's spans).", ratio(a.active, a.used)))
	}
	if ratio(a.resident, a.active) > 1.1 && a.resident-a.active > 10<<20 {
		issues = append(issues, fmt.Sprintf(" * High allocator RSS overhead: %.2f (free heap pages not yet returned to the system).", ratio(a.resident, a.active)))
	}
	if n := s.nclients.Load(); n > 0 && r.clients/n > 200<<10 {
		issues = append(issues, fmt.Sprintf(" * Big client buffers: %d clients use %s on average for their query and reply buffers.", n, bytesToHuman(r.clients/n)))
	}
	if len(issues) == 0 {
		c.w.Verbatim("txt", "Hi Sam, I can't find any memory issue in your instance. "+
			"I can only account for what occurs on this base.\n")
		return
	}
	c.w.Verbatim("txt", "Sam, I detected a few issues in this Valkey instance memory implants:\n\n"+
		strings.Join(issues, "\n\n")+"\n\nI'm here to keep you safe, Sam. I want to help you.\n")
}

// MEMORY MALLOC-STATS: the Go runtime's memory classes (Valkey prints
// jemalloc's statistics here).
func memoryMallocStatsCommand(c *Client) {
	all := metrics.All()
	var samples []metrics.Sample
	for _, d := range all {
		if strings.HasPrefix(d.Name, "/memory/classes/") || strings.HasPrefix(d.Name, "/gc/heap/") || d.Name == "/gc/gomemlimit:bytes" || d.Name == "/gc/gogc:percent" {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	var b strings.Builder
	b.WriteString("___ Begin Go runtime memory statistics (" + runtime.Version() + ") ___\n")
	for _, sm := range samples {
		switch sm.Value.Kind() {
		case metrics.KindUint64:
			fmt.Fprintf(&b, "%s %d\n", sm.Name, sm.Value.Uint64())
		case metrics.KindFloat64:
			fmt.Fprintf(&b, "%s %g\n", sm.Name, sm.Value.Float64())
		}
	}
	b.WriteString("--- End Go runtime memory statistics ---\n")
	c.w.Verbatim("txt", b.String())
}

// flushReleaseMin is the accounted memory a FLUSHDB or FLUSHALL must drop
// before releaseAfterFlush hands it back to the operating system at once.
const flushReleaseMin = 16 << 20

// releaseAfterFlush returns the memory a large FLUSHDB/FLUSHALL dropped to
// the operating system. Valkey's allocator gives freed pages back within
// seconds (jemalloc's decay); Go's would hold them until the next
// collection, which comes only once the program has allocated as much
// again, or after the runtime's two-minute forced GC: an emptied server
// would go on showing its old RSS. It runs debug.FreeOSMemory (a full
// collection, then a release of every free page) on its own goroutine, at
// most one at a time, so the flushing command does not wait (the
// keyspace calls it with every stripe locked). A flush while a release
// runs makes that goroutine release once more afterwards: a run of
// FLUSHALLs (a benchmark emptying the server between runs) once left the
// second dataset's 280 MB in RSS because its release was skipped.
func (s *Server) releaseAfterFlush(freed int64) {
	if freed < flushReleaseMin {
		return
	}
	s.releaseMemory(freed)
}

// releaseMemory runs debug.FreeOSMemory on the release goroutine (see
// releaseAfterFlush; also asked for by noteShrink).
func (s *Server) releaseMemory(freed int64) {
	e := s.ext()
	e.lastRelease.Store(time.Now().UnixNano())
	e.releases.Add(1)
	if !e.releasing.CompareAndSwap(false, true) {
		return // the running goroutine sees the new request and goes again
	}
	go func() {
		for {
			e.releasedUpTo.Store(e.releases.Load())
			debug.FreeOSMemory()
			if s.afterRelease() {
				debug.FreeOSMemory()
			}
			e.releasing.Store(false)
			// A flush that came while FreeOSMemory ran (its pages were
			// maybe not yet free when the scavenger passed) asks again.
			if e.releasedUpTo.Load() == e.releases.Load() || !e.releasing.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}

// MEMORY PURGE: return free heap pages to the operating system now.
func memoryPurgeCommand(c *Client) {
	debug.FreeOSMemory()
	c.w.OK()
}

var memoryHelp = []string{
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
}

// MEMORY HELP
func memoryHelpCommand(c *Client) { c.writeHelp("MEMORY", memoryHelp) }
