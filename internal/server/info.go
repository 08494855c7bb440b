package server

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/pubsub"
)

// INFO [section ...]
//
// Field names, order and formats follow Valkey 8.0's genValkeyInfoString so
// that redis_exporter, valkey-cli and dashboards parse the reply unchanged.
// Fields for subsystems Corvid does not have yet (persistence, replication,
// scripting, pub/sub, tracking) report their idle values. Corvid adds
// corvid_version and go_version to the server section.

// defaultInfoSections is what INFO and INFO default show.
var defaultInfoSections = []string{
	"server", "clients", "memory", "persistence", "stats", "replication",
	"cpu", "module_list", "errorstats", "cluster", "keyspace",
}

// infoRequest is the parsed section list (genInfoSectionDict).
type infoRequest struct {
	sections   map[string]bool // lower-case names
	all        bool
	everything bool
}

func parseInfoSections(args [][]byte) infoRequest {
	r := infoRequest{sections: map[string]bool{}}
	if len(args) == 0 {
		for _, s := range defaultInfoSections {
			r.sections[s] = true
		}
		return r
	}
	for _, a := range args {
		name := strings.ToLower(string(a))
		switch name {
		case "default":
			for _, s := range defaultInfoSections {
				r.sections[s] = true
			}
		case "all":
			r.all = true
		case "everything":
			r.all, r.everything = true, true
		default:
			r.sections[name] = true
		}
	}
	return r
}

func (r infoRequest) want(names ...string) bool {
	if r.all {
		return true
	}
	for _, n := range names {
		if r.sections[n] {
			return true
		}
	}
	return false
}

func infoCommand(c *Client) {
	req := parseInfoSections(c.ctx.Argv[1:])
	c.w.Verbatim("txt", c.srv.genInfo(req, c))
}

// infoWriter builds the reply: "# Section" headers separated by an empty
// line, every line ending in CRLF.
type infoWriter struct {
	b        strings.Builder
	sections int
}

func (w *infoWriter) section(title string) {
	if w.sections > 0 {
		w.b.WriteString("\r\n")
	}
	w.sections++
	w.b.WriteString("# ")
	w.b.WriteString(title)
	w.b.WriteString("\r\n")
}

func (w *infoWriter) str(k, v string) {
	w.b.WriteString(k)
	w.b.WriteByte(':')
	w.b.WriteString(v)
	w.b.WriteString("\r\n")
}

func (w *infoWriter) int(k string, v int64) { w.str(k, strconv.FormatInt(v, 10)) }

func (w *infoWriter) float(k string, v float64) { w.str(k, strconv.FormatFloat(v, 'f', 2, 64)) }

// genInfo renders the requested sections. c is the calling client: its
// own state is read directly and it tells whether the stripes are already
// held (INFO inside EXEC), in which case no stripe is locked again.
func (s *Server) genInfo(req infoRequest, c *Client) string {
	var w infoWriter
	e := s.ext()
	now := time.Now()
	uptime := int64(now.Sub(s.start) / time.Second)
	trackClients, trackKeys, trackItems, trackPrefixes := s.trackingInfo()

	if req.want("server") {
		w.section("Server")
		w.str("redis_version", RedisVersion)
		w.str("server_name", "valkey")
		w.str("valkey_version", Version)
		w.str("corvid_version", CorvidVersion)
		w.str("go_version", runtime.Version())
		w.str("redis_git_sha1", "00000000")
		w.int("redis_git_dirty", 0)
		w.str("redis_build_id", "0")
		mode := "server_mode"
		if s.cfg.ExtendedRedisCompatibility() {
			mode = "redis_mode"
		}
		w.str(mode, "standalone")
		w.str("os", osString())
		w.int("arch_bits", 64)
		w.str("monotonic_clock", "POSIX clock_gettime")
		w.str("multiplexing_api", "epoll")
		w.str("atomicvar_api", "c11-builtin")
		w.str("gcc_version", "0.0.0")
		w.int("process_id", int64(os.Getpid()))
		sup := s.supervised
		if sup == "" {
			sup = "no"
		}
		w.str("process_supervised", sup)
		w.str("run_id", s.runID)
		w.int("tcp_port", s.port.Load())
		w.int("server_time_usec", now.UnixMicro())
		w.int("uptime_in_seconds", uptime)
		w.int("uptime_in_days", uptime/(3600*24))
		w.int("hz", int64(s.cfg.Hz()))
		w.int("configured_hz", int64(s.cfg.Hz()))
		w.int("lru_clock", int64(db.LRUClock()))
		exe, _ := os.Executable()
		w.str("executable", exe)
		w.str("config_file", s.cfg.ConfigFile())
		w.int("io_threads_active", 0)
		if s.port.Load() != 0 {
			w.str("listener0", s.listenerInfo())
		}
		if l := s.tlsListenerInfo(); l != "" {
			w.str("listener2", l)
		}
	}

	if req.want("clients") {
		blocked, timeouts, watching := 0, 0, 0
		clients := s.clientsSnapshot()
		for _, o := range clients {
			if o.blocked.Load() {
				blocked++
				if o.timed.Load() {
					timeouts++
				}
			} else if o.postponed.Load() {
				blocked++ // no timeout: not in the timeout table
			}
			n := 0
			if o == c {
				n = c.watchCount()
			} else {
				o.mu.Lock()
				n = int(o.mu.watchCount)
				o.mu.Unlock()
			}
			if n > 0 {
				watching++
			}
		}
		w.section("Clients")
		w.int("connected_clients", s.connectedClients())
		w.int("cluster_connections", 0)
		w.int("maxclients", int64(s.cfg.MaxClients()))
		w.int("client_recent_max_input_buffer", s.recentMaxInput(time.Now(), clients))
		w.int("client_recent_max_output_buffer", 0)
		w.int("blocked_clients", int64(blocked))
		w.int("tracking_clients", trackClients)
		w.int("pubsub_clients", int64(s.pubsub.Clients()))
		w.int("watching_clients", int64(watching))
		w.int("clients_in_timeout_table", int64(timeouts))
		w.int("total_watched_keys", int64(s.ks.WatchingKeys()))
		w.int("total_blocking_keys", 0)
		w.int("total_blocking_keys_on_nokey", 0)
	}

	if req.want("memory") {
		// used_memory is Corvid's own count (memory_cmds.go): dataset,
		// clients and start-up base; the allocator_* fields are the Go
		// runtime's view of the heap.
		r := s.memReport(c.keysHeld())
		m := r.alloc
		used, peak, rss := r.used, r.peak, r.rss
		maxmem := s.cfg.MaxMemory()
		sysMem := totalSystemMemory()
		startup := r.startup
		overhead := r.overhead()
		dataset := r.dataset
		net := max(1, used-startup)
		w.section("Memory")
		w.int("used_memory", used)
		w.str("used_memory_human", bytesToHuman(used))
		w.int("used_memory_rss", rss)
		w.str("used_memory_rss_human", bytesToHuman(rss))
		w.int("used_memory_peak", peak)
		w.str("used_memory_peak_human", bytesToHuman(peak))
		w.str("used_memory_peak_perc", fmt.Sprintf("%.2f%%", ratio(used, peak)*100))
		w.int("used_memory_overhead", overhead)
		w.int("used_memory_startup", startup)
		w.int("used_memory_dataset", dataset)
		w.str("used_memory_dataset_perc", fmt.Sprintf("%.2f%%", min(100, float64(dataset)*100/float64(net))))
		w.int("allocator_allocated", m.used)
		w.int("allocator_active", m.active)
		w.int("allocator_resident", m.resident)
		w.int("allocator_muzzy", 0)
		w.int("total_system_memory", sysMem)
		w.str("total_system_memory_human", bytesToHuman(sysMem))
		w.int("used_memory_lua", 0)
		w.int("used_memory_vm_eval", 0)
		w.str("used_memory_lua_human", bytesToHuman(0))
		// The scripts' and libraries' code (gopher-lua's heap is the Go
		// heap: the VM fields stay 0).
		evalMem, fnMem := s.scripts.Memory(), s.scripts.FunctionsMemory()
		libs, funcs := s.scripts.FunctionCounts()
		w.int("used_memory_scripts_eval", evalMem)
		w.int("number_of_cached_scripts", int64(s.scripts.Count()))
		w.int("number_of_functions", int64(funcs))
		w.int("number_of_libraries", int64(libs))
		w.int("used_memory_vm_functions", 0)
		w.int("used_memory_vm_total", 0)
		w.str("used_memory_vm_total_human", bytesToHuman(0))
		w.int("used_memory_functions", fnMem)
		w.int("used_memory_scripts", evalMem+fnMem)
		w.str("used_memory_scripts_human", bytesToHuman(evalMem+fnMem))
		w.int("maxmemory", maxmem)
		w.str("maxmemory_human", bytesToHuman(maxmem))
		w.str("maxmemory_policy", s.cfg.MaxMemoryPolicy())
		w.float("allocator_frag_ratio", ratio(m.active, m.used))
		w.int("allocator_frag_bytes", m.active-m.used)
		w.float("allocator_rss_ratio", ratio(m.resident, m.active))
		w.int("allocator_rss_bytes", m.resident-m.active)
		w.float("rss_overhead_ratio", ratio(rss, m.resident))
		w.int("rss_overhead_bytes", rss-m.resident)
		// Named for backward compatibility: the whole RSS overhead.
		w.float("mem_fragmentation_ratio", ratio(rss, used))
		w.int("mem_fragmentation_bytes", rss-used)
		w.int("mem_not_counted_for_evict", 0)
		// The replication buffer: the backlog's share, and what replicas
		// hold beyond it (Valkey 7's shared buffer counts the same way).
		replTotal, replBacklog := s.replBufferMem()
		w.int("mem_replication_backlog", replBacklog)
		w.int("mem_total_replication_buffers", replTotal)
		w.int("mem_clients_slaves", replTotal-replBacklog)
		w.int("mem_clients_normal", r.clients)
		w.int("mem_cluster_links", 0)
		w.int("mem_aof_buffer", 0)
		w.str("mem_allocator", "go-"+runtime.Version())
		w.int("mem_overhead_db_hashtable_rehashing", 0)
		w.int("active_defrag_running", 0)
		w.int("lazyfree_pending_objects", 0)
		w.int("lazyfreed_objects", 0)
	}

	if req.want("persistence") {
		// The RDB fields (persist.go), then the AOF's (aof.go).
		w.section("Persistence")
		s.persistenceInfo(&w)
		s.aofInfo(&w)
		s.loadingInfo(&w)
	}

	if req.want("stats") {
		ks := &s.ks.Stats
		w.section("Stats")
		w.int("total_connections_received", s.stats.connsReceived.Load())
		w.int("total_commands_processed", s.stats.commands.Load())
		w.int("instantaneous_ops_per_sec", e.ops.rate())
		w.int("total_net_input_bytes", s.stats.netInput.Load())
		w.int("total_net_output_bytes", s.stats.netOutput.Load())
		w.int("total_net_repl_input_bytes", s.stats.netReplInput.Load())
		w.int("total_net_repl_output_bytes", s.stats.netReplOutput.Load())
		w.float("instantaneous_input_kbps", float64(e.netIn.rate())/1024)
		w.float("instantaneous_output_kbps", float64(e.netOut.rate())/1024)
		w.float("instantaneous_input_repl_kbps", 0)
		w.float("instantaneous_output_repl_kbps", 0)
		w.int("rejected_connections", s.stats.rejectedConns.Load())
		w.int("sync_full", s.repl.fullSyncs.Load())
		w.int("sync_partial_ok", s.repl.partialOK.Load())
		w.int("sync_partial_err", s.repl.partialErr.Load())
		w.int("expired_keys", ks.ExpiredKeys.Load())
		w.float("expired_stale_perc", 0)
		w.int("expired_time_cap_reached_count", 0)
		w.int("expire_cycle_cpu_milliseconds", ks.ExpireCycleTime.Load()/1000)
		w.int("evicted_keys", ks.EvictedKeys.Load())
		w.int("evicted_clients", s.stats.evictedClients.Load())
		w.int("evicted_scripts", 0)
		exceeded, current := s.ks.EvictionExceededTime()
		w.int("total_eviction_exceeded_time", exceeded)
		w.int("current_eviction_exceeded_time", current)
		w.int("keyspace_hits", ks.KeyspaceHits.Load())
		w.int("keyspace_misses", ks.KeyspaceMisses.Load())
		w.int("pubsub_channels", int64(s.pubsub.NumChannels(pubsub.Channel)))
		w.int("pubsub_patterns", int64(s.pubsub.NumPat()))
		w.int("pubsubshard_channels", int64(s.pubsub.NumChannels(pubsub.Shard)))
		w.int("latest_fork_usec", 0)
		w.int("total_forks", 0)
		w.int("migrate_cached_sockets", s.migrateCachedSockets())
		w.int("slave_expires_tracked_keys", 0)
		// Compaction after a release moves string values (shrink.go):
		// each is a value and a key moved, none refused.
		w.int("active_defrag_hits", s.ext().defragHits.Load())
		w.int("active_defrag_misses", 0)
		w.int("active_defrag_key_hits", s.ext().defragHits.Load())
		w.int("active_defrag_key_misses", 0)
		w.int("total_active_defrag_time", s.ext().defragTime.Load()/1000)
		w.int("current_active_defrag_time", 0)
		w.int("tracking_total_keys", trackKeys)
		w.int("tracking_total_items", trackItems)
		w.int("tracking_total_prefixes", trackPrefixes)
		w.int("unexpected_error_replies", s.stats.unexpectedErrs.Load())
		w.int("total_error_replies", s.totalErrorReplies())
		w.int("dump_payload_sanitizations", 0)
		w.int("total_reads_processed", s.stats.reads.Load())
		w.int("total_writes_processed", s.stats.writes.Load())
		w.int("io_threaded_reads_processed", 0)
		w.int("io_threaded_writes_processed", 0)
		w.int("client_query_buffer_limit_disconnections", s.stats.qbufLimitDisc.Load())
		w.int("client_output_buffer_limit_disconnections", s.stats.obufLimitDisc.Load())
		w.int("reply_buffer_shrinks", s.rbufs.shrinks.Load())
		w.int("reply_buffer_expands", s.rbufs.expands.Load())
		w.int("eventloop_cycles", 0)
		w.int("eventloop_duration_sum", 0)
		w.int("eventloop_duration_cmd_sum", 0)
		w.int("instantaneous_eventloop_cycles_per_sec", 0)
		w.int("instantaneous_eventloop_duration_usec", 0)
		w.int("acl_access_denied_auth", s.acl.Log.AuthFailures.Load())
		w.int("acl_access_denied_cmd", s.acl.Log.CommandDenials.Load())
		w.int("acl_access_denied_key", s.acl.Log.KeyDenials.Load())
		w.int("acl_access_denied_channel", s.acl.Log.ChannelDenials.Load())
		// Corvid's own: commands that panicked (a bug) and were confined
		// to their client (docs/architecture.md, "Failure containment").
		w.int("contained_panics", s.stats.panics.Load())
	}

	if req.want("replication") {
		s.replicationInfo(&w)
	}

	if req.want("cpu") {
		var self, children syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
		w.section("CPU")
		w.str("used_cpu_sys", tvString(self.Stime))
		w.str("used_cpu_user", tvString(self.Utime))
		w.str("used_cpu_sys_children", tvString(children.Stime))
		w.str("used_cpu_user_children", tvString(children.Utime))
		// Valkey reports its main thread here; Corvid's commands run on
		// every core, so the process totals are the honest equivalent.
		w.str("used_cpu_sys_main_thread", tvString(self.Stime))
		w.str("used_cpu_user_main_thread", tvString(self.Utime))
	}

	if req.want("module_list", "modules") || req.everything {
		w.section("Modules") // Corvid loads no modules
	}

	if req.want("commandstats") {
		w.section("Commandstats")
		for _, cm := range s.sortedCommands() {
			calls, usec, rejected, failed := cm.stats.total()
			if calls == 0 && rejected == 0 && failed == 0 {
				continue
			}
			per := 0.0
			if calls > 0 {
				per = float64(usec) / float64(calls)
			}
			fmt.Fprintf(&w.b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
				safeInfoString(cm.name), calls, usec, per, rejected, failed)
		}
	}

	if req.want("errorstats") {
		w.section("Errorstats")
		counts := s.errs.snapshot()
		codes := make([]string, 0, len(counts))
		for k := range counts {
			codes = append(codes, k)
		}
		slices.Sort(codes)
		for _, k := range codes {
			w.str("errorstat_"+safeInfoString(k), "count="+strconv.FormatInt(counts[k], 10))
		}
	}

	if req.want("latencystats") {
		w.section("Latencystats")
		if s.cfg.LatencyTracking() {
			pcts := s.cfg.LatencyTrackingInfoPercentiles()
			for _, cm := range s.sortedCommands() {
				h := e.hists[cm].merged()
				if h == nil {
					continue
				}
				w.b.WriteString("latency_percentiles_usec_" + safeInfoString(cm.name) + ":")
				for i, p := range pcts {
					if i > 0 {
						w.b.WriteByte(',')
					}
					fmt.Fprintf(&w.b, "p%s=%.3f", strconv.FormatFloat(p, 'f', -1, 64), float64(h.valueAtPercentile(p))/1000)
				}
				w.b.WriteString("\r\n")
			}
		}
	}

	if req.want("cluster") {
		w.section("Cluster")
		w.int("cluster_enabled", s.clusterEnabledInt())
	}

	if req.want("keyspace") {
		w.section("Keyspace")
		keys, expires := s.keyCounts(c.keysHeld())
		for i := range keys {
			if keys[i] > 0 || expires[i] > 0 {
				fmt.Fprintf(&w.b, "db%d:keys=%d,expires=%d,avg_ttl=0\r\n", i, keys[i], expires[i])
			}
		}
	}
	return w.b.String()
}

// keyCounts returns keys and keys-with-TTL per database. Inside EXEC every
// stripe is already held by the caller, and Keyspace.KeyCounts would lock
// them again, so the counts are gathered through the held variants instead
// (keys with a TTL that has passed but not been collected are then not
// counted as expiring).
//
// TODO(db): a KeyCounts(held bool) would make this exact and O(stripes).
func (s *Server) keyCounts(held bool) (keys, expires []int) {
	if !held {
		return s.ks.KeyCounts()
	}
	n := s.ks.Databases()
	keys, expires = make([]int, n), make([]int, n)
	now := time.Now().UnixMilli()
	for d := 0; d < n; d++ {
		keys[d] = s.ks.DBSize(d, true)
		if keys[d] == 0 {
			continue
		}
		var cursor uint64
		for {
			cursor = s.ks.Scan(d, cursor, 1024, now, true, func(_ string, o *db.Object) {
				if o.HasTTL() {
					expires[d]++
				}
			})
			if cursor == 0 {
				break
			}
		}
	}
	return keys, expires
}

// totalErrorReplies is total_error_replies: every error reply counted by
// the error statistics.
func (s *Server) totalErrorReplies() int64 {
	var n int64
	for _, v := range s.errs.snapshot() {
		n += v
	}
	return max(n, s.stats.totalErrors.Load())
}

// sortedCommands lists every implemented command, each container followed
// by its subcommands, by name (Valkey walks its command dict recursively).
func (s *Server) sortedCommands() []*cmd {
	top := s.table.all()
	slices.SortFunc(top, func(a, b *cmd) int { return strings.Compare(a.name, b.name) })
	out := make([]*cmd, 0, len(top)*2)
	for _, cm := range top {
		out = append(out, cm)
		out = append(out, sortedSubs(cm)...)
	}
	return out
}

func sortedSubs(cm *cmd) []*cmd {
	if len(cm.subs) == 0 {
		return nil
	}
	subs := make([]*cmd, 0, len(cm.subs))
	for _, sub := range cm.subs {
		subs = append(subs, sub)
	}
	slices.SortFunc(subs, func(a, b *cmd) int { return strings.Compare(a.name, b.name) })
	return subs
}

// safeInfoString replaces the characters that would break INFO's
// "key:value" lines, as Valkey's getSafeInfoString does.
func safeInfoString(s string) string {
	if !strings.ContainsAny(s, "#:\r\n") {
		return s
	}
	return strings.NewReplacer("#", "_", ":", "_", "\r", "_", "\n", "_").Replace(s)
}

// listenerInfo is getListensInfoString's "name=tcp,bind=...,port=..." value.
func (s *Server) listenerInfo() string { return s.listenerLine("tcp", s.port.Load()) }

// listenerLine is one listener's "name=...,bind=...,port=..." value.
func (s *Server) listenerLine(name string, port int64) string {
	var b strings.Builder
	b.WriteString("name=")
	b.WriteString(name)
	binds := s.cfg.Bind()
	if len(binds) == 0 {
		binds = []string{"127.0.0.1"}
	}
	for _, a := range binds {
		b.WriteString(",bind=")
		b.WriteString(a)
	}
	b.WriteString(",port=")
	b.WriteString(strconv.FormatInt(port, 10))
	return b.String()
}

func tvString(tv syscall.Timeval) string {
	return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec)
}

func osString() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return runtime.GOOS
	}
	str := func(a [65]int8) string {
		b := make([]byte, 0, len(a))
		for _, ch := range a {
			if ch == 0 {
				break
			}
			b = append(b, byte(ch))
		}
		return string(b)
	}
	return str(u.Sysname) + " " + str(u.Release) + " " + str(u.Machine)
}

func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// bytesToHuman is Valkey's bytesToHuman: B, then K/M/G/T/P with two
// decimals.
func bytesToHuman(n int64) string {
	if n < 0 {
		n = 0
	}
	units := []string{"K", "M", "G", "T", "P"}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	d := float64(n)
	for _, u := range units {
		d /= 1024
		if d < 1024 {
			return strconv.FormatFloat(d, 'f', 2, 64) + u
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// memStats are the Go runtime's heap figures standing in for the
// allocator's: used is live heap objects (what used_memory reports),
// active adds the free space inside in-use spans, resident is what the
// runtime holds from the OS.
type memStats struct{ used, active, resident int64 }

func readMemStats() memStats {
	v := runtimeMetrics(
		"/memory/classes/heap/objects:bytes",
		"/memory/classes/heap/unused:bytes",
		"/memory/classes/total:bytes",
		"/memory/classes/heap/released:bytes",
	)
	obj, unused, total, released := v[0], v[1], v[2], v[3]
	return memStats{used: obj, active: obj + unused, resident: total - released}
}

// heapBytes is used_memory.
func heapBytes() int64 { return readMemStats().used }

// startupMem is used_memory_startup: the heap when the extras were first
// built (server start-up in practice).
func (e *serverExtras) startupMem() int64 {
	if v := e.startup.Load(); v != 0 {
		return v
	}
	e.startup.CompareAndSwap(0, heapBytes())
	return e.startup.Load()
}

var pageSize = int64(os.Getpagesize())

// processRSS reads the resident set size from /proc/self/statm.
func processRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return n * pageSize
}

// totalSystemMemory reads MemTotal from /proc/meminfo.
func totalSystemMemory() int64 {
	fh, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
