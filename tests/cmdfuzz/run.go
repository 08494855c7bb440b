package cmdfuzz

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// Config is one fuzzing run.
type Config struct {
	Seed     uint64
	Duration time.Duration
	// Batch, when >= 0, runs only that batch of the seed (to reproduce a
	// failure) instead of batches 0, 1, 2... until Duration passes.
	Batch int64
	// BatchLen is the number of fuzzed commands per batch (after the
	// setup). It is part of what a seed means.
	BatchLen int
	// Goroutines adds a second Corvid started with net-engine goroutine
	// (one goroutine per connection) that gets the same commands, unless
	// the harness already asks for that network path.
	Goroutines bool
	// Trace logs every command and reply.
	Trace bool
	// MaxFindings ends the run early once that many distinct findings
	// were made.
	MaxFindings int
}

// DefaultBatchLen is Config.BatchLen's default.
const DefaultBatchLen = 40

// Fuzzer runs batches against the servers and collects findings.
type Fuzzer struct {
	t       testing.TB
	cfg     Config
	env     Env
	corvids []*server
	ref     *server // nil when valkey-server is not at hand
	all     []*server
	setup   []Cmd

	findings []*finding
	seen     map[string]*finding
	stats    stats
}

type stats struct {
	batches, commands, compared, corvidOnly int
	allowed                                 map[string]int
	byName                                  map[string]int
}

// finding is one distinct problem.
type finding struct {
	kind   string // crash, panic, stall, malformed, closed, extra-data, desync, log, mismatch, reference
	server string
	batch  uint64
	index  int // position in the batch, setup included
	cmd    Cmd
	got    string // the server's reply or error
	want   string // the reference's reply ("" without one)
	why    string
	seq    []Cmd // minimized reproduction (the batch prefix if not minimized)
	note   string
	flaky  bool // did not reproduce on replay
	count  int  // times seen
	log    string
}

// New starts the servers and reads Corvid's facts (implemented commands,
// accepted CONFIG SET directives).
func New(t testing.TB, cfg Config) *Fuzzer {
	t.Helper()
	if cfg.BatchLen <= 0 {
		cfg.BatchLen = DefaultBatchLen
	}
	if cfg.MaxFindings <= 0 {
		cfg.MaxFindings = 25
	}
	f := &Fuzzer{t: t, cfg: cfg, seen: map[string]*finding{},
		stats: stats{allowed: map[string]int{}, byName: map[string]int{}}}
	name, engine := "corvid", os.Getenv("CORVID_TEST_NET_ENGINE")
	if engine != "" {
		name += "(net-engine " + engine + ")"
	}
	f.corvids = append(f.corvids, &server{name: name, start: corvidStarter(t, "")})
	if cfg.Goroutines && engine != "goroutine" {
		f.corvids = append(f.corvids, &server{name: "corvid(net-engine goroutine)", start: corvidStarter(t, "goroutine")})
	}
	f.all = append([]*server(nil), f.corvids...)
	if testutil.ValkeyServerLookup() != "" {
		f.ref = &server{name: "valkey", ref: true, start: valkeyStarter(t)}
		f.all = append(f.all, f.ref)
	} else if os.Getenv("CORVID_REQUIRE_VALKEY") != "" {
		t.Fatal("valkey-server not found but CORVID_REQUIRE_VALKEY is set")
	} else {
		t.Log("valkey-server not found (CORVID_VALKEY_SERVER, ../shared/bin, PATH): " +
			"crash, stall and protocol checks only; the differential comparison is skipped")
	}
	for _, s := range f.all {
		if err := s.connect(); err != nil {
			t.Fatal(err)
		}
	}
	for _, argv := range setupCmds() {
		f.setup = append(f.setup, Cmd{Argv: argv, Name: resolveName(argv)})
	}
	f.probe()
	return f
}

// probe fills f.env from the first Corvid: COMMAND LIST names what it
// serves; CONFIG SET of each safe directive to its default says which
// ones it accepts (all servers must).
func (f *Fuzzer) probe() {
	f.env.Implemented = map[string]bool{}
	res := exchange(f.corvids[:1], Cmd{Argv: []string{"COMMAND", "LIST"}})
	if res[0].err != nil || res[0].rep.Kind != '*' {
		f.t.Fatalf("COMMAND LIST: %v %v", res[0].err, res[0].rep)
	}
	for _, e := range res[0].rep.Elems {
		f.env.Implemented[strings.ToLower(e.Str)] = true
	}
	var missing []string
	command.Walk(func(m *command.Meta) {
		if !f.env.Implemented[m.FullName] {
			missing = append(missing, m.FullName)
		}
	})
	f.t.Logf("Corvid serves %d commands and subcommands; %d of the table are not built and go to Corvid only: %s",
		len(f.env.Implemented), len(missing), strings.Join(missing, " "))
	for _, sc := range safeConfig {
		ok := true
		for _, r := range exchange(f.all, Cmd{Argv: []string{"CONFIG", "SET", sc.name, sc.def}}) {
			if r.err != nil || r.rep.Kind != '+' {
				ok = false
				f.t.Logf("CONFIG SET %s %s refused (%v %v): left out of the safe list", sc.name, sc.def, r.err, r.rep)
			}
		}
		if ok {
			f.env.SafeConfig = append(f.env.SafeConfig, sc.name)
		}
	}
}

// Run runs batches until the configured time is up (or the one batch
// asked for) and reports the findings as test errors.
func (f *Fuzzer) Run() {
	start := time.Now()
	deadline := start.Add(f.cfg.Duration)
	for b := uint64(0); ; b++ {
		if f.cfg.Batch >= 0 {
			b = uint64(f.cfg.Batch)
		}
		f.runBatch(b)
		f.stats.batches++
		if f.cfg.Batch >= 0 || time.Now().After(deadline) || len(f.seen) >= f.cfg.MaxFindings {
			break
		}
	}
	f.report(time.Since(start))
}

// Batch returns the commands of batch b of seed: the setup, then
// BatchLen generated commands.
func (f *Fuzzer) Batch(b uint64) []Cmd {
	g := NewGen(f.cfg.Seed, b, &f.env)
	seq := append([]Cmd(nil), f.setup...)
	for range f.cfg.BatchLen {
		seq = append(seq, g.Next())
	}
	return seq
}

// reset gives each server of srvs a fresh connection (restarting its
// process if it died or must be replaced), an empty keyspace and the
// default values of the safe directives.
func (f *Fuzzer) reset(srvs []*server) {
	for _, s := range srvs {
		if err := s.connect(); err != nil {
			f.t.Fatal(err)
		}
	}
	cfg := []string{"CONFIG", "SET"}
	for _, sc := range safeConfig {
		if slices.Contains(f.env.SafeConfig, sc.name) {
			cfg = append(cfg, sc.name, sc.def)
		}
	}
	for _, argv := range [][]string{{"FLUSHALL"}, cfg} {
		for i, r := range exchange(srvs, Cmd{Argv: argv}) {
			if r.err != nil || r.rep.Kind != '+' {
				f.t.Fatalf("%s: reset %s: %v %v\n%s", srvs[i].name, quoteArgs(argv), r.err, r.rep, logTail(srvs[i]))
			}
		}
	}
}

func (f *Fuzzer) runBatch(b uint64) {
	seq := f.Batch(b)
	f.reset(f.all)
	var tx txTrack
	groups := f.groups(b, seq)
	for g, i := 0, 0; g < len(groups); g++ {
		end := i + groups[g]
		cmds := seq[i:end]
		all := exchangeMany(f.all, cmds)
		for k, c := range cmds {
			if f.step(b, seq[:end], i+k, c, all[k], &tx) {
				return
			}
		}
		i = end
	}
	f.endBatch(b, seq)
}

// groups splits a batch into pipelines: the setup in one (it is small),
// then, in half of the batches, groups of 1-8 commands, single commands
// otherwise. The split is a function of the seed and the batch, like the
// commands. A SORT ends its group (staleErrnoSort may ask it again), and
// AUTH and HELLO go alone: Valkey 8.0.1 drops the reply of a failing AUTH
// when earlier replies are still pending (redis/redis#15640, since 7.2),
// which Corvid does not copy.
func (f *Fuzzer) groups(b uint64, seq []Cmd) []int {
	r := rand.New(rand.NewPCG(f.cfg.Seed^0x5bd1e995, b))
	out := []int{len(f.setup)}
	pipelined := r.IntN(2) == 0
	alone := func(c Cmd) bool { return c.Name == "auth" || c.Name == "hello" }
	for i := len(f.setup); i < len(seq); {
		n, size := 1, len(encode(seq[i].Argv))
		if pipelined && !alone(seq[i]) {
			for want := 1 + r.IntN(8); n < want && i+n < len(seq); n++ {
				if isSort(seq[i+n-1].Argv) || alone(seq[i+n]) {
					break
				}
				size += len(encode(seq[i+n].Argv))
				if size > maxPipeline {
					break
				}
			}
		}
		out = append(out, n)
		i += n
	}
	return out
}

func isSort(argv []string) bool {
	return len(argv) > 0 && (strings.EqualFold(argv[0], "sort") || strings.EqualFold(argv[0], "sort_ro"))
}

// step checks the replies to command i of the batch and reports whether
// the batch must stop (a finding was made: the servers' states may now
// differ, and the finding's minimization has reset them). seq runs to the
// end of the pipeline command i is part of.
func (f *Fuzzer) step(b uint64, seq []Cmd, i int, c Cmd, res []result, tx *txTrack) bool {
	f.stats.commands++
	f.stats.byName[c.Name]++
	if c.CorvidOnly {
		f.stats.corvidOnly++
	}
	if f.cfg.Trace {
		f.trace(b, i, c, res)
	}
	if i < len(f.setup) {
		for j, r := range res {
			if r.err != nil || r.rep.IsErr() {
				f.t.Fatalf("%s: setup %s: %v %v\n%s", f.all[j].name, quoteArgs(c.Argv), r.err, r.rep, logTail(f.all[j]))
			}
		}
	}
	failed := false
	for j, s := range f.corvids {
		if kind := s.failure(res[j]); kind != "" {
			f.transportFinding(kind, s, b, seq, i, res[j])
			failed = true
		}
	}
	if failed {
		f.scanLogs(b, seq)
		return true
	}
	if f.ref == nil || c.CorvidOnly || i < len(f.setup) {
		return false
	}
	rr := res[len(res)-1]
	if kind := f.ref.failure(rr); kind != "" {
		if kind == "malformed" && echoedCRLF(c.Argv, res[0].rep, tx) {
			// Valkey copies an argument's CR or LF into some error
			// lines (FUNCTION LIST's "Unknown argument", for one),
			// which breaks RESP; Corvid writes spaces there. The
			// reference connection is out of step: start it anew.
			f.stats.allowed["Valkey echoes an argument's CR/LF into an error line (malformed RESP; Corvid writes spaces)"]++
			f.ref.needsStart = true
			return true
		}
		f.add(&finding{kind: "reference", server: f.ref.name, batch: b, index: i, cmd: c, got: resultString(rr),
			why: "the reference server failed (" + kind + "): the fuzzer sent something it must not", seq: seq[:i+1]})
		f.ref.needsStart = true
		return true
	}
	rr.rep = f.staleErrnoSort(c, res[0].rep, rr.rep)
	queued := tx.step(c.Argv, rr.rep)
	for j, s := range f.corvids {
		why := f.compare(c.Argv, queued, res[j].rep, rr.rep)
		if why == "" {
			continue
		}
		f.mismatchFinding(s, b, seq[:i+1], res[j], rr, why)
		return true
	}
	f.stats.compared++
	return false
}

// endBatch checks that every connection is still in step (a server that
// wrote two replies for one request, or none, shows here) and scans the
// Corvid logs for panics and data races.
func (f *Fuzzer) endBatch(b uint64, seq []Cmd) {
	marker := "cmdfuzz-sync-" + strconv.FormatUint(b, 10)
	exchange(f.all, Cmd{Argv: []string{"DISCARD"}})
	res := exchange(f.all, Cmd{Argv: []string{"ECHO", marker}})
	for j, s := range f.all {
		r := res[j]
		if !r.sent || s.ref {
			continue
		}
		if r.err != nil || r.rep.Kind != '$' || r.rep.Str != marker {
			f.add(&finding{kind: "desync", server: s.name, batch: b, index: len(seq), cmd: Cmd{Argv: []string{"ECHO", marker}},
				got: resultString(r), want: strconv.Quote(marker),
				why: "after the batch (and a DISCARD) the connection is out of step", seq: seq})
			s.broken, s.needsStart = true, true
		}
	}
	f.scanLogs(b, seq)
}

// logMarkers are what a Go panic, a recovered command panic, the race
// detector and a fatal runtime error print.
var logMarkers = []string{"PANIC", "panic:", "fatal error:", "DATA RACE", "SIGSEGV"}

func (f *Fuzzer) scanLogs(b uint64, seq []Cmd) {
	for _, s := range f.corvids {
		if s.proc == nil {
			continue
		}
		out := s.proc.Output()
		if s.logSeen > len(out) {
			s.logSeen = 0
		}
		fresh := out[s.logSeen:]
		s.logSeen = len(out)
		for _, m := range logMarkers {
			if i := strings.Index(fresh, m); i >= 0 {
				f.add(&finding{kind: "log", server: s.name, batch: b, index: len(seq), cmd: Cmd{Argv: []string{"(server log)"}},
					why: "the server log shows " + strconv.Quote(m) + " (after the last command below, or earlier in the batch)",
					seq: seq, log: trunc(fresh[max(0, i-200):], 6000)})
				s.needsStart = true
				break
			}
		}
	}
}

// transportFinding records a crash, panic, stall, malformed reply or
// closed connection seen at seq[at], and minimizes the commands that lead
// to it, each candidate on a fresh process. seq runs to the end of the
// pipeline seq[at] was part of: a server that answers a pipeline in one
// write never answers the commands before the one that killed it, so the
// failure shows at the group's first command; replayed one command at a
// time, it shows at the culprit, which the finding then names.
func (f *Fuzzer) transportFinding(kind string, s *server, b uint64, seq []Cmd, at int, r result) {
	fd := &finding{kind: kind, server: s.name, batch: b, index: at, cmd: seq[at], got: resultString(r), seq: seq[:at+1]}
	fd.log = logTail(s)
	s.logSeen = len(s.proc.Output())
	s.needsStart = true
	// replay runs cand one command at a time on a fresh process and
	// returns the index of the first failure of this kind (-1: none).
	replay := func(cand []Cmd) int {
		s.needsStart = true
		f.reset([]*server{s})
		for i, c := range cand {
			res := exchange([]*server{s}, c)
			if k := s.failure(res[0]); k != "" {
				if k == kind {
					return i
				}
				return -1
			}
		}
		return -1
	}
	p := replay(seq)
	if p < 0 {
		p = replay(seq)
	}
	switch {
	case p < 0:
		fd.flaky = true
		fd.note = "did not fail again when replayed one command at a time (timing, or pipelining)"
	case p != at:
		fd.note = "seen (pipelined) at " + quoteArgs(seq[at].Argv) + "; replayed one command at a time, this command fails"
		fd.cmd, fd.index, fd.seq = seq[p], p, seq[:p+1]
	}
	if f.add(fd) && !fd.flaky {
		repro := func(cand []Cmd) bool { return replay(cand) == len(cand)-1 }
		fd.seq, fd.flaky = minimize(fd.seq, repro, 90*time.Second)
	}
	// The replays' own panics are this finding, not new ones.
	s.logSeen = len(s.proc.Output())
	s.needsStart = true
}

// mismatchFinding records a difference from the reference and minimizes
// the commands that lead to it.
func (f *Fuzzer) mismatchFinding(s *server, b uint64, seq []Cmd, got, want result, why string) {
	c := seq[len(seq)-1]
	fd := &finding{kind: "mismatch", server: s.name, batch: b, index: len(seq) - 1, cmd: c,
		got: resultString(got), want: resultString(want), why: why, seq: seq}
	if !f.add(fd) {
		return
	}
	gotClass, wantClass := replyClass(got.rep), replyClass(want.rep)
	pair := []*server{s, f.ref}
	repro := func(cand []Cmd) bool {
		f.reset(pair)
		var tx txTrack
		for i, c := range cand {
			res := exchange(pair, c)
			if s.failure(res[0]) != "" || (res[1].sent && f.ref.failure(res[1]) != "") {
				s.needsStart = true
				return false
			}
			var queued [][]string
			if res[1].sent {
				res[1].rep = f.staleErrnoSort(c, res[0].rep, res[1].rep)
				queued = tx.step(c.Argv, res[1].rep)
			}
			if i == len(cand)-1 {
				return res[1].sent && f.compare(c.Argv, queued, res[0].rep, res[1].rep) != "" &&
					replyClass(res[0].rep) == gotClass && replyClass(res[1].rep) == wantClass
			}
		}
		return false
	}
	fd.seq, fd.flaky = minimize(seq, repro, 60*time.Second)
	if fd.flaky {
		fd.note = "did not reproduce on replay (timing or randomness, e.g. SPOP, a TTL of a few ms): logged, not failed"
	}
}

// add records fd unless a finding of the same signature exists; it
// reports whether fd is new.
func (f *Fuzzer) add(fd *finding) bool {
	sig := fd.kind + "|" + fd.server + "|" + fd.cmd.Name
	switch fd.kind {
	case "mismatch":
		sig += "|" + fd.got + "|" + fd.want
	case "log", "desync":
		sig += "|" + fd.why
	}
	if old, ok := f.seen[sig]; ok {
		old.count++
		return false
	}
	fd.count = 1
	f.seen[sig] = fd
	f.findings = append(f.findings, fd)
	return true
}

// minimize shrinks seq (whose last command fails) to a shorter prefix
// that still fails the same way at its last command, removing chunks of
// halving size (a simple ddmin) within budget. flaky is set when the
// whole seq does not fail again (twice) on replay.
func minimize(seq []Cmd, repro func([]Cmd) bool, budget time.Duration) (out []Cmd, flaky bool) {
	start := time.Now()
	if !repro(seq) || !repro(seq) {
		return seq, true
	}
	last := seq[len(seq)-1]
	prefix := append([]Cmd(nil), seq[:len(seq)-1]...)
	for chunk := max(len(prefix)/2, 1); chunk >= 1; chunk /= 2 {
		for i := 0; i < len(prefix); {
			if time.Since(start) > budget {
				return append(prefix, last), false
			}
			end := min(i+chunk, len(prefix))
			cand := append(append(append([]Cmd(nil), prefix[:i]...), prefix[end:]...), last)
			if repro(cand) {
				prefix = cand[:len(cand)-1]
			} else {
				i = end
			}
		}
		if chunk == 1 {
			break
		}
	}
	return append(prefix, last), false
}

// compare compares a Corvid reply with the reference's and returns why
// they differ, or "" when they agree or differ in a known way (counted in
// the stats): when the reference answers an error Corvid must answer the
// same text; when it does not, Corvid must not answer an error. Payloads
// are not compared (random members, times, encodings and memory figures
// legitimately differ), except that an EXEC's replies are compared the
// same way one by one, against the commands queued (queued, from
// txTrack).
func (f *Fuzzer) compare(argv []string, queued [][]string, got, want Reply) string {
	why := ""
	switch {
	case want.IsErr() && !got.IsErr():
		why = "the reference answers an error, Corvid does not"
	case want.IsErr() && got.Str != want.Str:
		why = "the error texts differ"
	case !want.IsErr() && got.IsErr():
		why = "Corvid answers an error, the reference does not"
	case queued != nil && want.Kind == '*' && got.Kind == '*' && want.Len >= 0 && got.Len >= 0:
		if len(got.Elems) != len(want.Elems) || len(want.Elems) != len(queued) {
			return fmt.Sprintf("EXEC: %d replies, the reference %d, for %d queued commands", len(got.Elems), len(want.Elems), len(queued))
		}
		for i := range want.Elems {
			if d := f.compare(queued[i], nil, got.Elems[i], want.Elems[i]); d != "" {
				return fmt.Sprintf("EXEC reply %d (%s): %s", i+1, quoteArgs(queued[i]), d)
			}
		}
	}
	if why == "" {
		return ""
	}
	if reason := knownDifference(&f.env, argv, got, want); reason != "" {
		f.stats.allowed[reason]++
		return ""
	}
	return why
}

// staleErrnoSort works around a Valkey bug Corvid does not copy
// (docs/compatibility.md): SORT checks errno == ERANGE after strtod
// without clearing it first, so an earlier overflowing float parse on
// Valkey's main thread (ZADD k 1e400 m, INCRBYFLOAT k 1e400...) makes a
// numeric SORT of valid numbers fail with "One or more scores can't be
// converted into double". When Valkey answers that and Corvid does not,
// Valkey's errno is cleared (ZADD ... XX parses its score after errno = 0
// and changes nothing on a missing key) and the SORT asked again; its
// second reply is the one compared. A SORT ... STORE that failed stored
// nothing, so asking again leaves the keyspaces alike.
func (f *Fuzzer) staleErrnoSort(c Cmd, got, want Reply) Reply {
	const text = "ERR One or more scores can't be converted into double"
	if !want.IsErr() || want.Str != text || got.IsErr() || !isSort(c.Argv) {
		return want
	}
	srv := []*server{f.ref}
	exchange(srv, Cmd{Argv: []string{"ZADD", "__cmdfuzz_errno__", "XX", "1", "m"}})
	r := exchange(srv, c)[0]
	if r.err != nil {
		return want
	}
	f.stats.allowed["SORT asked again after clearing Valkey's stale errno"]++
	return r.rep
}

// txTrack follows the reference's transaction state from its replies, so
// that an EXEC's replies can be matched with the commands it ran.
type txTrack struct {
	in     bool
	queued [][]string
}

// step takes a command and the reference's reply; for an EXEC that ran
// it returns the queued commands, else nil.
func (tx *txTrack) step(argv []string, ref Reply) [][]string {
	name := strings.ToLower(argv[0])
	one := len(argv) == 1
	switch {
	case one && name == "multi" && !tx.in && ref.Kind == '+':
		tx.in, tx.queued = true, [][]string{}
	case one && (name == "exec" || name == "discard") && tx.in:
		q := tx.queued
		tx.in, tx.queued = false, nil
		if name == "exec" {
			return q
		}
	case tx.in && ref.Kind == '+' && ref.Str == "QUEUED":
		tx.queued = append(tx.queued, argv)
	}
	return nil
}

// replyClass is what minimization keeps fixed: the error text, or "ok".
func replyClass(r Reply) string {
	if r.IsErr() {
		return "-" + r.Str
	}
	return "ok"
}

func resultString(r result) string {
	if !r.sent {
		return "(not sent)"
	}
	if r.err != nil {
		return "<" + r.err.Error() + ">"
	}
	s := r.rep.String()
	if r.extra {
		s += " <followed by unrequested bytes>"
	}
	return s
}

func logTail(s *server) string {
	if s.proc == nil {
		return ""
	}
	out := s.proc.Output()
	if s.logSeen <= len(out) {
		out = out[s.logSeen:]
	}
	return trunc(out[max(0, len(out)-6000):], 6000)
}

func (f *Fuzzer) trace(b uint64, i int, c Cmd, res []result) {
	var parts []string
	for j, s := range f.all {
		parts = append(parts, s.name+"="+trunc(resultString(res[j]), 200))
	}
	f.t.Logf("batch %d #%d %s -> %s", b, i, quoteArgs(c.Argv), strings.Join(parts, " "))
}

// report turns the findings into test errors (flaky ones into log lines)
// and logs what the run covered.
func (f *Fuzzer) report(took time.Duration) {
	st := &f.stats
	f.t.Logf("cmdfuzz: seed %d, %d batches, %d commands in %v (%.0f/s); %d compared with the reference, %d sent to Corvid only",
		f.cfg.Seed, st.batches, st.commands, took.Round(time.Millisecond), float64(st.commands)/took.Seconds(), st.compared, st.corvidOnly)
	var reasons []string
	for r, n := range st.allowed {
		reasons = append(reasons, fmt.Sprintf("%dx %s", n, r))
	}
	sort.Strings(reasons)
	if len(reasons) > 0 {
		f.t.Logf("cmdfuzz: known differences skipped: %s", strings.Join(reasons, "; "))
	}
	var never []string
	command.Walk(func(m *command.Meta) {
		if _, skip := skipped[m.FullName]; !skip && !m.IsContainer() && st.byName[m.FullName] == 0 {
			never = append(never, m.FullName)
		}
	})
	if len(never) > 0 && f.cfg.Batch < 0 {
		f.t.Logf("cmdfuzz: not generated in this run: %s", strings.Join(never, " "))
	}
	for _, fd := range f.findings {
		msg := fd.format(f.cfg)
		if fd.flaky && (fd.kind == "mismatch" || fd.kind == "reference") {
			f.t.Log(msg)
		} else {
			f.t.Error(msg)
		}
	}
}

func (fd *finding) format(cfg Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cmdfuzz: %s on %s (seen %d times): %s\n", fd.kind, fd.server, fd.count, quoteArgs(fd.cmd.Argv))
	if fd.why != "" {
		fmt.Fprintf(&b, "  why:       %s\n", fd.why)
	}
	if fd.got != "" {
		fmt.Fprintf(&b, "  corvid:    %s\n", fd.got)
	}
	if fd.want != "" {
		fmt.Fprintf(&b, "  reference: %s\n", fd.want)
	}
	if fd.note != "" {
		fmt.Fprintf(&b, "  note:      %s\n", fd.note)
	}
	fmt.Fprintf(&b, "  reproduce: go test ./tests/cmdfuzz -run 'TestCommandFuzz$' -v -cmdfuzz.seed %d -cmdfuzz.batch %d", cfg.Seed, fd.batch)
	if cfg.BatchLen != DefaultBatchLen {
		fmt.Fprintf(&b, " -cmdfuzz.batchlen %d", cfg.BatchLen)
	}
	fmt.Fprintf(&b, "\n  commands (%d, on a new connection after FLUSHALL; arguments over 80 bytes abbreviated):\n", len(fd.seq))
	for _, c := range fd.seq {
		fmt.Fprintf(&b, "    %s\n", quoteArgs(c.Argv))
	}
	if fd.log != "" {
		fmt.Fprintf(&b, "  server log:\n%s\n", indent(fd.log, "    "))
	}
	return b.String()
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pre)
}

// quoteArgs renders argv as a valkey-cli line: arguments quoted when
// needed, bytes outside printable ASCII as \xHH, long ones abbreviated.
func quoteArgs(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if len(a) > 80 {
			parts[i] = fmt.Sprintf("<%d bytes: %s…>", len(a), quoteArg(a[:24]))
			continue
		}
		parts[i] = quoteArg(a)
	}
	return strings.Join(parts, " ")
}

func quoteArg(a string) string {
	plain := a != ""
	for _, c := range []byte(a) {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(a) {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// echoedCRLF reports whether a reply Valkey may have broken by echoing a
// CR or LF holds an error that could carry it: the command's own error
// when one of its arguments has one, or an error among an EXEC's replies
// when one of the queued commands had one.
func echoedCRLF(argv []string, corvid Reply, tx *txTrack) bool {
	if corvid.IsErr() {
		return hasCRLF(argv)
	}
	if len(argv) != 1 || !strings.EqualFold(argv[0], "exec") || !tx.in || corvid.Kind != '*' {
		return false
	}
	anyErr := false
	for _, e := range corvid.Elems {
		anyErr = anyErr || e.IsErr()
	}
	return anyErr && slices.ContainsFunc(tx.queued, hasCRLF)
}

// hasCRLF reports whether an argument holds a CR or an LF.
func hasCRLF(argv []string) bool {
	for _, a := range argv {
		if strings.ContainsAny(a, "\r\n") {
			return true
		}
	}
	return false
}
