//go:build linux

package rdbcompat

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/rdb/rdbtest"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// dataset is Coverage plus random keys of every size, grouped by DB.
func dataset() []*rdb.Entry {
	entries := rdbtest.Coverage()
	seed := uint64(11)
	if s, err := strconv.ParseUint(os.Getenv("RDBCOMPAT_SEED"), 10, 64); err == nil {
		seed = s // another random dataset, to look for differences
	}
	r := rand.New(rand.NewPCG(seed, 12))
	for size := 1; size <= 3; size++ {
		for _, e := range rdbtest.RandomDataset(r, 60, 3, size) {
			e.Key = append([]byte(fmt.Sprintf("rnd%d:", size)), e.Key...)
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b *rdb.Entry) int { return a.DB - b.DB })
	return entries
}

func writeFile(t *testing.T, path string, entries []*rdb.Entry, opts rdb.Options) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := rdb.NewWriter(f, opts)
	for i := 0; i < len(entries); {
		j, exp := i, 0
		for ; j < len(entries) && entries[j].DB == entries[i].DB; j++ {
			if entries[j].ExpireMs != -1 {
				exp++
			}
		}
		if err := w.BeginDB(entries[i].DB, uint64(j-i), uint64(exp)); err != nil {
			t.Fatal(err)
		}
		for ; i < j; i++ {
			if err := w.WriteEntry(entries[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

type dbKey struct {
	db  int
	key string
}

func readFile(t *testing.T, path string) (map[dbKey]*rdb.Entry, rdb.Info, map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[dbKey]*rdb.Entry{}
	aux := map[string]string{}
	l := rdb.Loader{
		OnEntry: func(e *rdb.Entry) error { got[dbKey{e.DB, string(e.Key)}] = e; return nil },
		OnAux:   func(k, v []byte) error { aux[string(k)] = string(v); return nil },
	}
	info, err := l.Load(f)
	if err != nil {
		t.Fatalf("Load %s: %v", path, err)
	}
	return got, info, aux
}

// TestValkeyLoadsOurFile: (a) a file written by package rdb loads into
// valkey-server 8.0.1 with every key's type, value, TTL and encoding as
// if the data had been written with commands, passes valkey-check-rdb,
// and (b) valkey's own SAVE of the same data reads back equal, with DUMP
// payloads byte-equal to DumpPayload where Valkey's order is
// deterministic.
func TestValkeyLoadsOurFile(t *testing.T) {
	bin := valkeyPath(t)
	t.Run("defaults", func(t *testing.T) { testValkey(t, bin, rdb.DefaultLimits()) })
	// Small and count-based thresholds put the dataset on the other side
	// of every limit.
	t.Run("small-limits", func(t *testing.T) {
		testValkey(t, bin, rdb.Limits{ListMaxListpackSize: 5, HashMaxListpackEntries: 4, HashMaxListpackValue: 10,
			SetMaxIntsetEntries: 6, SetMaxListpackEntries: 3, SetMaxListpackValue: 12,
			ZSetMaxListpackEntries: 7, ZSetMaxListpackValue: 9})
	})
	t.Run("list-size-4k", func(t *testing.T) {
		l := rdb.DefaultLimits()
		l.ListMaxListpackSize = -1
		testValkey(t, bin, l)
	})
}

// limitArgs are the configuration arguments for l.
func limitArgs(l rdb.Limits) []string {
	return []string{
		"--list-max-listpack-size", strconv.Itoa(l.ListMaxListpackSize),
		"--hash-max-listpack-entries", strconv.Itoa(l.HashMaxListpackEntries),
		"--hash-max-listpack-value", strconv.Itoa(l.HashMaxListpackValue),
		"--set-max-intset-entries", strconv.Itoa(l.SetMaxIntsetEntries),
		"--set-max-listpack-entries", strconv.Itoa(l.SetMaxListpackEntries),
		"--set-max-listpack-value", strconv.Itoa(l.SetMaxListpackValue),
		"--zset-max-listpack-entries", strconv.Itoa(l.ZSetMaxListpackEntries),
		"--zset-max-listpack-value", strconv.Itoa(l.ZSetMaxListpackValue),
	}
}

func testValkey(t *testing.T, bin string, limits rdb.Limits) {
	entries := dataset()
	opts := rdb.DefaultOptions()
	opts.Limits = limits
	// IDLE and FREQ opcodes on some keys; server A runs allkeys-lfu.
	for i, e := range entries {
		switch i % 7 {
		case 3:
			e.Freq = 1 + i%200
		case 5:
			e.Idle = int64(i)
		}
	}
	dirA := t.TempDir()
	path := filepath.Join(dirA, "x.rdb")
	writeFile(t, path, entries, opts)
	checkRDB(t, bin, path)
	a := startServer(t, bin, dirA, append(limitArgs(limits), "--maxmemory-policy", "allkeys-lfu")...)
	b := startServer(t, bin, t.TempDir(), limitArgs(limits)...)
	fill(t, b, entries)
	// c loads b's own file: the encodings Valkey picks on load.
	cb := b.client(0)
	if err := cb.Save(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	cb.Close()
	dirC := t.TempDir()
	saved, err := os.ReadFile(filepath.Join(b.dir, "x.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirC, "x.rdb"), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, bin, dirC, limitArgs(limits)...)

	ctx := context.Background()
	perDB := map[int]int64{}
	for _, e := range entries {
		perDB[e.DB]++
	}
	for db, n := range perDB {
		for name, s := range map[string]*server{"loaded": a, "filled": b} {
			c := s.client(db)
			if got, err := c.DBSize(ctx).Result(); err != nil || got != n {
				t.Errorf("%s db %d: DBSIZE %d (%v), want %d", name, db, got, err, n)
			}
			c.Close()
		}
	}
	for _, e := range entries {
		clA, clB := a.client(e.DB), b.client(e.DB)
		// Before any read, which would count as an access.
		if e.Freq >= 0 {
			// The counter decays by one when a minute boundary passes.
			if f, err := clA.ObjectFreq(ctx, string(e.Key)).Result(); err != nil || f != int64(e.Freq) && f != int64(e.Freq-1) {
				t.Errorf("%q: OBJECT FREQ %d (%v), want %d", e.Key, f, err, e.Freq)
			}
		}
		got, err := fetch(t, clA, e.DB, e.Key)
		if err != nil {
			t.Fatalf("%q: %v", e.Key, err)
		}
		want := *e
		want.ExpireMs, want.Idle, want.Freq = -1, -1, -1
		if d := rdbtest.Diff(&want, got); d != "" {
			t.Errorf("loaded %q: %s", e.Key, d)
		}
		checkTTL(t, clA, e)
		checkTTL(t, clB, e)
		clC := c.client(e.DB)
		encA, errA := clA.ObjectEncoding(ctx, string(e.Key)).Result()
		encB, errB := clB.ObjectEncoding(ctx, string(e.Key)).Result()
		encC, errC := clC.ObjectEncoding(ctx, string(e.Key)).Result()
		clC.Close()
		switch {
		case errA != nil || errB != nil || errC != nil || encA != encC:
			t.Errorf("%q: OBJECT ENCODING %s (%v) after loading our file, %s (%v) after loading Valkey's",
				e.Key, encA, errA, encC, errC)
		case encA != encB && e.Kind == rdb.KindList:
			// Valkey's own quirk: on load a one-node quicklist becomes a
			// listpack by listTypeTryConvertQuicklist's rules, which with
			// a positive list-max-listpack-size ignore the node's size.
			t.Logf("%q: OBJECT ENCODING %s after load, %s after commands (as Valkey with its own file)", e.Key, encA, encB)
		case encA != encB:
			t.Errorf("%q: OBJECT ENCODING %s after load, %s after commands", e.Key, encA, encB)
		}
		clA.Close()
		clB.Close()
	}

	// DUMP payloads: byte-equal to Valkey's where the element order is
	// deterministic (all but hashtable-encoded sets and hashes), with
	// compression off (Valkey's LZF hash table starts with stack garbage)
	// and, counted only, with compression on.
	for _, compress := range []bool{false, true} {
		c0 := b.client(0)
		val := "no"
		if compress {
			val = "yes"
		}
		if err := c0.ConfigSet(ctx, "rdbcompression", val).Err(); err != nil {
			t.Fatal(err)
		}
		c0.Close()
		opts.Compression = compress
		same, diff := 0, 0
		for _, e := range entries {
			c := b.client(e.DB)
			p, err := c.Dump(ctx, string(e.Key)).Result()
			enc, _ := c.ObjectEncoding(ctx, string(e.Key)).Result()
			if err != nil {
				t.Fatal(err)
			}
			mine, err := rdb.DumpPayload(e, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Valkey accepts our payload.
			if err := c.Do(ctx, "restore", "restored", 0, mine, "replace").Err(); err != nil {
				t.Errorf("%q: RESTORE of DumpPayload: %v", e.Key, err)
			}
			theirs := []byte(p)
			if theirs[0] != mine[0] {
				t.Errorf("%q: DUMP type %d, DumpPayload type %d", e.Key, theirs[0], mine[0])
			}
			pe, err := rdb.ParseDumpPayload(theirs)
			if err != nil {
				t.Fatalf("%q: ParseDumpPayload(valkey DUMP): %v", e.Key, err)
			}
			pe.DB, pe.Key, pe.ExpireMs, pe.Idle, pe.Freq = e.DB, e.Key, e.ExpireMs, e.Idle, e.Freq
			if d := rdbtest.Diff(e, pe); d != "" {
				t.Errorf("%q: valkey DUMP parses to %s", e.Key, d)
			}
			c.Close()
			if enc == "hashtable" {
				continue
			}
			if bytes.Equal(theirs, mine) {
				same++
				continue
			}
			diff++
			if !compress {
				t.Errorf("%q (%s): DUMP differs from DumpPayload\nvalkey: % x\nours:   % x", e.Key, enc, head(theirs), head(mine))
			}
		}
		t.Logf("compression %v: %d DUMP payloads byte-equal, %d differ", compress, same, diff)
	}

	// (b) Valkey's SAVE reads back as the dataset.
	cb0 := b.client(0)
	for db := range perDB {
		c := b.client(db)
		c.Del(ctx, "restored")
		c.Close()
	}
	if err := cb0.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	cb0.Close()
	got, info, aux := readFile(t, filepath.Join(b.dir, "x.rdb"))
	if info.Version != 11 || aux["valkey-ver"] != "8.0.1" {
		t.Errorf("valkey SAVE: version %d, aux %v", info.Version, aux)
	}
	compareAll(t, "valkey SAVE", entries, got)
}

func head(b []byte) []byte {
	if len(b) > 96 {
		return b[:96]
	}
	return b
}

func compareAll(t *testing.T, what string, want []*rdb.Entry, got map[dbKey]*rdb.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d keys, want %d", what, len(got), len(want))
	}
	for _, e := range want {
		g := got[dbKey{e.DB, string(e.Key)}]
		if g == nil {
			t.Errorf("%s: %q missing", what, e.Key)
			continue
		}
		w := *e
		w.Idle, w.Freq = -1, -1
		if d := rdbtest.Diff(&w, g); d != "" {
			t.Errorf("%s: %q: %s", what, e.Key, d)
		}
	}
}

// TestRedis7File: (c) redis-server 7.0.15 filled with the dataset saves
// an RDB 10 file that reads back as the dataset.
func TestRedis7File(t *testing.T) {
	bin := testutil.RedisServerPath(t)
	entries := dataset()
	s := startServer(t, bin, t.TempDir())
	fill(t, s, entries)
	c := s.client(0)
	defer c.Close()
	if err := c.Save(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	got, info, aux := readFile(t, filepath.Join(s.dir, "x.rdb"))
	if info.Version != 10 {
		t.Errorf("redis SAVE: version %d, aux %v", info.Version, aux)
	}
	compareAll(t, "redis 7 SAVE", entries, got)

	// Redis 7.0's DUMP payloads (RDB 10) parse as the same values.
	ctx := context.Background()
	for _, e := range entries {
		cl := s.client(e.DB)
		p, err := cl.Dump(ctx, string(e.Key)).Result()
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		if v := []byte(p)[len(p)-10]; v != 10 {
			t.Fatalf("redis 7 DUMP version %d", v)
		}
		pe, err := rdb.ParseDumpPayload([]byte(p))
		if err != nil {
			t.Fatalf("%q: ParseDumpPayload(redis DUMP): %v", e.Key, err)
		}
		pe.DB, pe.Key, pe.ExpireMs = e.DB, e.Key, e.ExpireMs
		w := *e
		w.Idle, w.Freq = -1, -1
		if d := rdbtest.Diff(&w, pe); d != "" {
			t.Errorf("%q: redis DUMP parses to %s", e.Key, d)
		}
	}
}

// checkRDB runs valkey-check-rdb on path and requires success. The
// checker is valkey-server itself run under that name, so if
// valkey-check-rdb is not executable the server binary is run with
// argv[0] set to it.
func checkRDB(t *testing.T, bin, path string) {
	t.Helper()
	cmd := exec.Command(bin, path)
	if chk := checkRDBPath(bin); chk != "" {
		cmd = exec.Command(chk, path)
	} else {
		cmd.Args[0] = "valkey-check-rdb"
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
		t.Fatalf("valkey-check-rdb %s: %v\n%s", path, err, out)
	}
	t.Logf("valkey-check-rdb: %s", bytes.TrimSpace(out[bytes.LastIndexByte(bytes.TrimSpace(out), '\n')+1:]))
}
