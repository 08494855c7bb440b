package integration

import (
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// HyperLogLog side by side with Valkey 8.0.1: the same seeded PFADD,
// PFCOUNT, PFMERGE and PFDEBUG sequences on both servers, every reply and
// the raw bytes of every HLL (GET) compared after each step, sparse and
// dense, then wrong types and corrupted values set with SET.

// hllPair drives two servers with the same commands and fails on the
// first reply that differs.
type hllPair struct {
	t            *testing.T
	a, b         *testutil.Raw
	addrA, addrB string
}

func (p *hllPair) do(args ...string) string {
	p.t.Helper()
	ra, rb := p.a.Do(args...), p.b.Do(args...)
	if ra != rb {
		show := strings.Join(args, " ")
		if len(show) > 200 {
			show = show[:200] + "..."
		}
		ca, cb := ra, rb
		if len(ca) > 400 {
			ca = ca[:400] + "..."
		}
		if len(cb) > 400 {
			cb = cb[:400] + "..."
		}
		p.t.Fatalf("%s:\ncorvid: %s\nvalkey: %s", show, ca, cb)
	}
	return ra
}

func startHLLPair(t *testing.T) *hllPair {
	if !testutil.HaveValkey(t) {
		t.Skip("valkey-server not found")
	}
	cv := testutil.StartCorvid(t)
	vk := testutil.StartValkey(t)
	return &hllPair{t: t, a: testutil.Dial(t, cv.Addr), b: testutil.Dial(t, vk.Addr), addrA: cv.Addr, addrB: vk.Addr}
}

func TestHLLDifferentialRandom(t *testing.T) {
	p := startHLLPair(t)
	rng := rand.New(rand.NewPCG(20261202, 8))
	keys := []string{"hll:a", "hll:b", "hll:c", "hll:d", "hll:none"}
	ele := func() string {
		// Mostly small ranges (shared elements, unchanged registers),
		// sometimes a wide one to fill registers and go dense.
		if rng.IntN(4) == 0 {
			return "e" + strconv.Itoa(rng.IntN(1000000))
		}
		return "e" + strconv.Itoa(rng.IntN(300))
	}
	added := 0
	for step := 0; step < 1500; step++ {
		k := keys[rng.IntN(len(keys)-1)]
		var touched []string
		switch r := rng.IntN(100); {
		case r < 45:
			n := 1 + rng.IntN(8)
			if rng.IntN(10) == 0 {
				n = 50 + rng.IntN(200)
			}
			args := []string{"PFADD", k}
			for range n {
				args = append(args, ele())
			}
			added += n
			p.do(args...)
			touched = []string{k}
		case r < 65:
			p.do("PFCOUNT", k)
			touched = []string{k}
		case r < 75:
			args := []string{"PFCOUNT"}
			for range 2 + rng.IntN(3) {
				args = append(args, keys[rng.IntN(len(keys))])
			}
			p.do(args...)
		case r < 83:
			dest := keys[rng.IntN(len(keys))]
			if dest == "hll:none" {
				dest = "hll:m" + strconv.Itoa(rng.IntN(3))
			}
			args := []string{"PFMERGE", dest}
			for range rng.IntN(4) {
				args = append(args, keys[rng.IntN(len(keys))])
			}
			p.do(args...)
			touched = []string{dest}
		case r < 88:
			p.do("PFDEBUG", "ENCODING", k)
			p.do("PFDEBUG", "DECODE", k)
		case r < 90:
			p.do("PFDEBUG", "TODENSE", k)
			touched = []string{k}
		case r < 91:
			p.do("PFDEBUG", "GETREG", k)
			touched = []string{k}
		case r < 93:
			p.do("OBJECT", "ENCODING", k)
		case r < 94:
			p.do("DEL", k)
		default:
			p.do("PFADD", k)
			touched = []string{k}
		}
		for _, k := range touched {
			p.do("GET", k)
		}
	}
	for _, k := range append(keys, "hll:m0", "hll:m1", "hll:m2") {
		p.do("GET", k)
		p.do("PFCOUNT", k)
		p.do("GET", k)
	}
	t.Logf("%d elements added", added)
}

// TestHLLDifferentialGrowth adds elements one by one to a single HLL
// through the sparse representation's growth, its promotion to dense and
// on, comparing the bytes after every add.
func TestHLLDifferentialGrowth(t *testing.T) {
	p := startHLLPair(t)
	for i := 0; i < 4000; i++ {
		p.do("PFADD", "g", "x"+strconv.Itoa(i))
		if i%7 == 0 || i > 2500 && i < 3500 {
			p.do("GET", "g")
		}
		if i%50 == 0 {
			p.do("PFCOUNT", "g")
			p.do("PFDEBUG", "ENCODING", "g")
		}
	}
	p.do("GET", "g")
	p.do("PFCOUNT", "g")
	p.do("GET", "g")
	// Merges: sparse into missing, dense into sparse, sparse into dense.
	p.do("PFADD", "s1", "a", "b", "c")
	p.do("PFADD", "s2", "c", "d", "e", "f")
	p.do("PFMERGE", "m1", "s1", "s2")
	p.do("GET", "m1")
	p.do("PFMERGE", "s1", "g")
	p.do("GET", "s1")
	p.do("PFMERGE", "g", "s2")
	p.do("GET", "g")
	p.do("PFMERGE", "empty")
	p.do("GET", "empty")
	p.do("PFMERGE", "empty2", "nokey1", "nokey2")
	p.do("GET", "empty2")
	p.do("PFCOUNT", "g", "s1", "s2", "m1", "nokey")
	p.do("PFMERGE", "m1")
	p.do("GET", "m1")
	p.do("OBJECT", "ENCODING", "m1")
}

// TestHLLDifferentialErrors covers wrong types, values that are not
// HLLs and corrupted HLLs set with SET, on every command.
func TestHLLDifferentialErrors(t *testing.T) {
	p := startHLLPair(t)
	p.do("RPUSH", "list", "x")
	p.do("SET", "str", "hello")
	p.do("SET", "int", "12345")
	p.do("PFADD", "ok", "a", "b", "c")
	cmds := func(k string) {
		p.do("PFADD", k, "zz")
		p.do("GET", k)
		p.do("PFCOUNT", k)
		p.do("PFCOUNT", k, "ok")
		p.do("PFCOUNT", "ok", k)
		p.do("PFMERGE", k, "ok")
		p.do("PFMERGE", "ok", k)
		p.do("PFMERGE", "dst", "ok", k)
		p.do("PFDEBUG", "GETREG", k)
		p.do("PFDEBUG", "DECODE", k)
		p.do("PFDEBUG", "ENCODING", k)
		p.do("PFDEBUG", "TODENSE", k)
		p.do("PFDEBUG", "NOSUCH", k)
		p.do("GET", k)
	}
	for _, k := range []string{"list", "str", "int"} {
		cmds(k)
	}
	p.do("PFDEBUG", "GETREG", "missing")
	p.do("PFDEBUG", "NOSUCH", "missing")
	p.do("PFDEBUG", "NOSUCH", "ok")
	p.do("PFDEBUG", "getreg", "ok", "extra")

	hdr := func(enc byte, card string) string { return "HYLL" + string([]byte{enc, 0, 0, 0}) + card }
	valid := "\x00\x00\x00\x00\x00\x00\x00\x80"
	dense := func(fill byte) string { return hdr(0, valid) + strings.Repeat(string([]byte{fill}), 12288) }
	bad := map[string]string{
		"short":         "HYLL\x01\x00\x00",
		"magic":         "HYLX" + "\x01\x00\x00\x00" + valid + "\x7f\xff",
		"encoding2":     hdr(2, valid) + "\x7f\xff",
		"denseShort":    hdr(0, valid) + strings.Repeat("\x00", 100),
		"denseLong":     dense(0) + "x",
		"sparseEmpty":   hdr(1, valid),
		"sparseFew":     hdr(1, valid) + "\x7f\xfe",
		"sparseMany":    hdr(1, valid) + "\x7f\xff\x00",
		"sparseTrunc":   hdr(1, valid) + "\x7f",
		"sparseTrunc2":  hdr(1, valid) + "\x40\x00\x7f",
		"sparseVals":    hdr(1, valid) + "\x80\x84\x88\x7f\xfc",
		"sparseValOver": hdr(1, valid) + "\x7f\xff\x83",
		"cachedValid":   hdr(1, "\x39\x05\x00\x00\x00\x00\x00\x00") + "\x7f\xff",
		"cachedDense":   hdr(0, "\x07\x00\x00\x00\x00\x00\x00\x00") + strings.Repeat("\x41", 12288),
		"unused":        "HYLL\x01\x07\x08\x09" + valid + "\x7f\xff",
		"dense63":       dense(0xff),
		"dense0":        dense(0),
		"denseMix":      dense(0x5a),
		"dense50":       hdr(0, valid) + strings.Repeat("\xb2\x2c\xcb", 4096),
	}
	for _, name := range slices.Sorted(maps.Keys(bad)) {
		v := bad[name]
		for _, op := range [][]string{
			{"PFADD", name, "a", "b", "c", "d", "e", "f", "g", "h", "zz"},
			{"PFCOUNT", name},
			{"PFCOUNT", name, "ok"},
			{"PFMERGE", name, "ok"},
			{"PFMERGE", "dst", name},
			{"PFDEBUG", "GETREG", name},
			{"PFDEBUG", "DECODE", name},
			{"PFDEBUG", "ENCODING", name},
			{"PFDEBUG", "TODENSE", name},
		} {
			p.do("SET", name, v)
			p.do(op...)
			p.do("GET", name)
			p.do("GET", "dst")
			p.do("DEL", "dst")
		}
	}
}

// TestHLLDifferentialMutations flips random bytes of real HLLs (sparse
// ones, whose opcodes then describe too few or too many registers or
// impossible values) and runs one command on each, comparing replies
// and bytes.
func TestHLLDifferentialMutations(t *testing.T) {
	p := startHLLPair(t)
	rng := rand.New(rand.NewPCG(7, 7))
	var sources []string
	for i, n := range []int{1, 5, 40, 300} {
		k := "src" + strconv.Itoa(i)
		args := []string{"PFADD", k}
		for j := range n {
			args = append(args, "m"+strconv.Itoa(i)+"-"+strconv.Itoa(j))
		}
		p.do(args...)
		g := p.do("GET", k)
		s, err := strconv.Unquote(g)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, s)
	}
	ops := [][]string{
		{"PFADD", "mut", "a", "b", "c", "d"},
		{"PFCOUNT", "mut"},
		{"PFCOUNT", "mut", "src2"},
		{"PFMERGE", "mut", "src1"},
		{"PFMERGE", "src3", "mut"},
		{"PFDEBUG", "DECODE", "mut"},
		{"PFDEBUG", "TODENSE", "mut"},
	}
	for round := 0; round < 600; round++ {
		b := []byte(sources[rng.IntN(len(sources))])
		for range 1 + rng.IntN(3) {
			i := 16 + rng.IntN(len(b)-16)
			switch rng.IntN(3) {
			case 0:
				b[i] = byte(rng.IntN(256))
			case 1:
				b = append(b[:i:i], b[i+1:]...)
			default:
				b = append(b[:i:i], append([]byte{byte(rng.IntN(256))}, b[i:]...)...)
			}
			if len(b) <= 17 {
				break
			}
		}
		// Valkey reads the NUL after an XZERO cut short at the end, and
		// writing one can overwrite it: keep to well-defined inputs.
		if last := b[len(b)-1]; last&0xc0 == 0x40 && xzeroAtEnd(b) {
			continue
		}
		op := ops[rng.IntN(len(ops))]
		p.do("SET", "mut", string(b))
		p.do("PFADD", "src3", "r"+strconv.Itoa(round))
		if ra, rb := p.a.Do(op...), p.b.Do(op...); ra != rb {
			t.Fatalf("%q on %x:\ncorvid: %s\nvalkey: %s", op, b, ra, rb)
		}
		p.do("GET", "mut")
		p.do("GET", "src3")
	}
}

// TestHLLDifferentialDenseRandom counts and merges dense HLLs whose
// registers are random bytes (values up to 63, past what any element
// sets), where the estimator's every term and its overflow show.
func TestHLLDifferentialDenseRandom(t *testing.T) {
	p := startHLLPair(t)
	rng := rand.New(rand.NewPCG(50, 63))
	p.do("PFADD", "sp", "a", "b", "c")
	for round := 0; round < 30; round++ {
		b := []byte("HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80")
		top := 1 + rng.IntN(256)
		for range 12288 {
			b = append(b, byte(rng.IntN(top)))
		}
		p.do("SET", "dr", string(b))
		p.do("PFCOUNT", "dr")
		p.do("GET", "dr")
		p.do("PFCOUNT", "dr", "sp")
		p.do("PFADD", "dr", "x"+strconv.Itoa(round))
		p.do("PFMERGE", "dm", "dr", "sp")
		p.do("GET", "dm")
		p.do("PFCOUNT", "dm")
	}
}

// xzeroAtEnd reports whether the sparse opcodes of b end in the first
// byte of an XZERO.
func xzeroAtEnd(b []byte) bool {
	p := 16
	for p < len(b) {
		if b[p]&0xc0 == 0x40 {
			if p == len(b)-1 {
				return true
			}
			p += 2
		} else {
			p++
		}
	}
	return false
}

// TestHLLDifferentialSideEffects compares what the commands do besides
// their replies: keyspace events, WATCH invalidation (PFCOUNT refreshing
// the cache is a change; PFDEBUG TODENSE is not signalled), the count of
// changes since the last save, and the string's encoding.
func TestHLLDifferentialSideEffects(t *testing.T) {
	p := startHLLPair(t)
	p.do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	var subs []*testutil.Raw
	for _, a := range []string{p.addrA, p.addrB} {
		s := testutil.Dial(t, a)
		s.Do("PSUBSCRIBE", "__keyevent@0__:*")
		subs = append(subs, s)
	}
	base := [2]int{}
	read := func() {
		for i, a := range []*testutil.Raw{p.a, p.b} {
			s := a.Do("INFO", "persistence")
			j := strings.Index(s, "rdb_changes_since_last_save:") + len("rdb_changes_since_last_save:")
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			base[i], _ = strconv.Atoi(s[j:k])
		}
	}
	read()
	start := base
	steps := [][]string{
		{"PFADD", "k", "a", "b", "c"},
		{"PFADD", "k", "a"},
		{"PFADD", "k", "d", "e"},
		{"PFCOUNT", "k"},
		{"PFCOUNT", "k"},
		{"PFMERGE", "m", "k"},
		{"PFMERGE", "m"},
		{"PFDEBUG", "TODENSE", "k"},
		{"PFDEBUG", "GETREG", "m"},
		{"PFCOUNT", "k", "m"},
		{"PFCOUNT", "nokey"},
		{"PFADD", "k", "f"},
		{"PFCOUNT", "k"},
	}
	for _, st := range steps {
		read()
		before := base
		p.do(st...)
		read()
		if base[0]-before[0] != base[1]-before[1] {
			t.Errorf("%v: corvid counted %d changes, valkey %d", st, base[0]-before[0], base[1]-before[1])
		}
		p.do("OBJECT", "ENCODING", st[len(st)-1])
	}
	t.Logf("changes: corvid %d, valkey %d", base[0]-start[0], base[1]-start[1])
	p.do("SET", "done", "1")
	var evs [2][]string
	for i, s := range subs {
		for {
			m := s.Read()
			evs[i] = append(evs[i], m)
			if strings.Contains(m, `"__keyevent@0__:set"`) {
				break
			}
		}
	}
	if !strings.Contains(strings.Join(evs[1], "\n"), `"__keyevent@0__:pfadd"`) {
		t.Fatalf("no pfadd event seen: %q", evs[1])
	}
	if strings.Join(evs[0], "\n") != strings.Join(evs[1], "\n") {
		t.Errorf("events differ:\ncorvid: %q\nvalkey: %q", evs[0], evs[1])
	}

	// WATCH: a PFCOUNT that refreshes the cache touches the key; one
	// that reads the cache, and PFDEBUG's conversion, do not.
	for _, tc := range [][]string{
		{"PFADD", "w", "x"},
		{"PFCOUNT", "w"},
		{"PFCOUNT", "w"},
		{"PFDEBUG", "TODENSE", "w"},
		{"PFADD", "w", "x"},
		{"PFMERGE", "w"},
	} {
		p.do("WATCH", "w")
		p.do(tc...)
		p.do("MULTI")
		p.do("PING")
		p.do("EXEC")
	}
	// A short HLL set with SET is embstr until an HLL command touches it.
	p.do("SET", "short", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff")
	p.do("OBJECT", "ENCODING", "short")
	p.do("PFCOUNT", "short", "w")
	p.do("OBJECT", "ENCODING", "short")
	p.do("PFCOUNT", "short")
	p.do("OBJECT", "ENCODING", "short")
}

// TestHLLDifferentialAOF compares what the commands append to the AOF:
// PFADD that changed nothing is not there, PFCOUNT that refreshed the
// cache is, and so is PFDEBUG when it converted to dense.
func TestHLLDifferentialAOF(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("valkey-server not found")
	}
	args := []string{"--appendonly", "yes", "--appendfsync", "always"}
	cv := testutil.StartCorvid(t, args...)
	vk := testutil.StartValkey(t, args...)
	p := &hllPair{t: t, a: testutil.Dial(t, cv.Addr), b: testutil.Dial(t, vk.Addr)}
	for _, st := range [][]string{
		{"PFADD", "k", "a", "b", "c"},
		{"PFADD", "k", "a"},
		{"PFCOUNT", "k"},
		{"PFCOUNT", "k"},
		{"PFCOUNT", "k", "nokey"},
		{"PFDEBUG", "ENCODING", "k"},
		{"PFDEBUG", "GETREG", "k"},
		{"PFDEBUG", "TODENSE", "k"},
		{"PFMERGE", "m", "k"},
		{"PFCOUNT", "m"},
		{"SET", "done", "1"},
	} {
		p.do(st...)
	}
	read := func(dir string) string {
		t.Helper()
		var out []byte
		if !waitFor(5*time.Second, func() bool {
			ms, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
			if len(ms) != 1 {
				return false
			}
			out, _ = os.ReadFile(ms[0])
			return strings.Contains(string(out), "done")
		}) {
			t.Fatalf("no AOF with the last write in %s", dir)
		}
		return string(out)
	}
	a, b := read(cv.Dir), read(vk.Dir)
	if a != b {
		t.Errorf("AOF differs:\ncorvid: %q\nvalkey: %q", a, b)
	}
	if !strings.Contains(b, "PFCOUNT") || !strings.Contains(b, "PFDEBUG") {
		t.Errorf("valkey's AOF: %q", b)
	}
}

// TestHLLSparseMaxBytesConfig: CONFIG SET hll-sparse-max-bytes moves the
// point where a sparse HyperLogLog turns dense, on Corvid as on Valkey.
func TestHLLSparseMaxBytesConfig(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	cv := testutil.Dial(t, testutil.StartCorvid(t).Addr)
	vk := testutil.Dial(t, testutil.StartValkey(t).Addr)
	for _, limit := range []string{"100", "3000"} {
		var got, want []string
		for _, pair := range []struct {
			c   *testutil.Raw
			out *[]string
		}{{cv, &got}, {vk, &want}} {
			c := pair.c
			c.Do("DEL", "h")
			c.Do("CONFIG", "SET", "hll-sparse-max-bytes", limit)
			for i := 0; i < 60; i++ {
				*pair.out = append(*pair.out, c.Do("PFADD", "h", "e"+strconv.Itoa(i)), c.Do("PFDEBUG", "ENCODING", "h"))
			}
			*pair.out = append(*pair.out, c.Do("GET", "h"), c.Do("PFCOUNT", "h"))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("hll-sparse-max-bytes %s: corvid and valkey differ", limit)
		}
	}
}
