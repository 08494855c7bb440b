package compat

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/corvid-kv/corvid/internal/config"
	coredb "github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/server"
)

// TestEffectsReplay is the write path's proof: every change a server
// makes reaches its effects stream, and the stream rebuilds the dataset.
// A server runs the differential generator's random command sequences
// (every family, transactions included) while a recorder takes its
// stream; a second server replays the stream (Server.Replay, as an AOF
// load or a replica would); the two must then hold the same keys, with
// the same values (DEBUG DIGEST-VALUE), types and expiry times (absolute,
// PEXPIRETIME), in every database. A write that changed data but was not
// propagated, or was propagated in a form that does not replay to the same
// result (a relative TTL, a random pop), fails it.
//
// CORVID_EFFECTS_SEEDS=K runs K random seeds (printed) instead of CI's.
func TestEffectsReplay(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if s := os.Getenv("CORVID_EFFECTS_SEEDS"); s != "" {
		k, _ := strconv.Atoi(s)
		seeds = nil
		for range k {
			seeds = append(seeds, rand.Uint64()%1_000_000)
		}
	}
	for _, seed := range seeds {
		for _, f := range families() {
			t.Run(fmt.Sprintf("seed%d/%s", seed, f.name), func(t *testing.T) {
				runReplay(t, seed, f, 600)
			})
		}
	}
}

// inProcess starts an in-process server on a free loopback port.
func inProcess(t *testing.T) (*server.Server, string) {
	t.Helper()
	cfg, err := config.Load("", []string{"--port", "0", "--bind", "127.0.0.1", "--enable-debug-command", "yes"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(s.Close)
	return s, s.Addr()
}

func runReplay(t *testing.T, seed uint64, f family, ops int) {
	src, srcAddr := inProcess(t)
	var rec effects.Recorder
	src.Effects().Attach(&rec)
	c := dialTree(t, srcAddr)
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(len(f.name)))), keys: f.keys, wide: f.wide}
	var history []string
	inMulti := false
	for i := 0; i < ops; i++ {
		var argv []string
		switch {
		case !inMulti && g.chance(3):
			argv = []string{"MULTI"}
		case inMulti && g.chance(25):
			argv = []string{g.pick("EXEC", "EXEC", "EXEC", "DISCARD")}
		default:
			argv = f.cmds[g.r.IntN(len(f.cmds))](g)
		}
		history = append(history, quoteArgs(argv))
		r := c.do(t, argv...)
		switch strings.ToUpper(argv[0]) {
		case "MULTI":
			inMulti = r.kind == '+'
		case "EXEC", "DISCARD":
			inMulti = false
		}
	}
	if inMulti {
		c.do(t, "DISCARD")
	}

	dst, dstAddr := inProcess(t)
	stream := rec.Stream()
	if _, err := dst.Replay(bytes.NewReader(stream)); err != nil {
		t.Fatalf("seed %d, family %s: %v\nlast commands:\n  %s", seed, f.name, err, strings.Join(tail25(history), "\n  "))
	}
	d := dialTree(t, dstAddr)
	for db := 0; db < 16; db++ {
		c.do(t, "SELECT", strconv.Itoa(db))
		d.do(t, "SELECT", strconv.Itoa(db))
		a, b := keysOf(t, c), keysOf(t, d)
		if !slices.Equal(a, b) {
			t.Fatalf("seed %d, family %s, db %d: keys %q, replayed %q\nstream:\n%s\nlast commands:\n  %s",
				seed, f.name, db, a, b, showStream(stream), strings.Join(tail25(history), "\n  "))
		}
		for _, k := range a {
			for _, q := range [][]string{{"TYPE", k}, {"DEBUG", "DIGEST-VALUE", k}, {"PEXPIRETIME", k}, {"OBJECT", "ENCODING", k}} {
				if x, y := c.do(t, q...), d.do(t, q...); x.String() != y.String() {
					if q[0] == "OBJECT" && encodingMayDiffer(x.s, y.s) {
						continue
					}
					t.Fatalf("seed %d, family %s, db %d: %s: %s, replayed %s\nlast commands:\n  %s",
						seed, f.name, db, strings.Join(q, " "), x, y, strings.Join(tail25(history), "\n  "))
				}
			}
		}
	}
}

// encodingMayDiffer: a collection rebuilt by replay may take the compact
// encoding the original left when it shrank, and a string's encoding
// follows its history (INCRBYFLOAT's "45" is embstr, the SET that
// replays it makes an int): Valkey's replicas and reloaded AOFs differ
// from their primary in the same ways.
func encodingMayDiffer(a, b string) bool {
	str := map[string]bool{"int": true, "embstr": true, "raw": true}
	small := map[string]bool{"listpack": true, "intset": true}
	big := map[string]bool{"hashtable": true, "skiplist": true, "quicklist": true}
	return str[a] && str[b] || small[a] && big[b] || big[a] && small[b] || small[a] && small[b]
}

// keysOf is the selected database's keys, sorted.
func keysOf(t *testing.T, c *treeConn) []string {
	r := c.do(t, "KEYS", "*")
	var out []string
	for _, e := range r.elems {
		out = append(out, e.s)
	}
	slices.Sort(out)
	return out
}

func tail25(h []string) []string { return h[max(0, len(h)-25):] }

// showStream renders the last ops of a stream, one command a line.
func showStream(b []byte) string {
	s := strings.ReplaceAll(string(b), "\r\n", " ")
	if len(s) > 3000 {
		s = "..." + s[len(s)-3000:]
	}
	return s
}

// preWriteLog is a PreWriter that notes which keys were announced.
type preWriteLog struct {
	mu   sync.Mutex
	keys map[string]bool // "db key"
	dbs  map[int]bool    // PreWriteDB (-1: all)
}

func (l *preWriteLog) PreWrite(db int, key []byte, old *coredb.Object) {
	l.mu.Lock()
	l.keys[strconv.Itoa(db)+" "+string(key)] = true
	l.mu.Unlock()
}

func (l *preWriteLog) PreWriteDB(db int) {
	l.mu.Lock()
	l.dbs[db] = true
	l.mu.Unlock()
}

func (l *preWriteLog) take() (map[string]bool, map[int]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, d := l.keys, l.dbs
	l.keys, l.dbs = map[string]bool{}, map[int]bool{}
	return k, d
}

// TestPreWriteAnnouncesEveryChange proves the write path's pre-write
// point (db.PreWriter, where a snapshot in progress will save old
// values): across the generator's families, every key whose value, type,
// TTL or existence a command changed was announced to the PreWriter
// during that command (or its whole database was).
func TestPreWriteAnnouncesEveryChange(t *testing.T) {
	for _, f := range families() {
		t.Run(f.name, func(t *testing.T) {
			s, addr := inProcess(t)
			log := &preWriteLog{keys: map[string]bool{}, dbs: map[int]bool{}}
			s.Keyspace().SetPreWriter(log)
			c := dialTree(t, addr)
			obs := dialTree(t, addr) // observes; in its own connection
			state := func() map[string]string {
				m := map[string]string{}
				for db := 0; db < 3; db++ {
					obs.do(t, "SELECT", strconv.Itoa(db))
					for _, k := range f.keys {
						v := obs.do(t, "DEBUG", "DIGEST-VALUE", k).String() + " " +
							obs.do(t, "TYPE", k).String() + " " + obs.do(t, "PEXPIRETIME", k).String()
						m[strconv.Itoa(db)+" "+k] = v
					}
				}
				return m
			}
			g := &gen{r: rand.New(rand.NewPCG(7, uint64(len(f.name)))), keys: f.keys, wide: f.wide}
			var history []string
			inMulti := false
			for i := 0; i < 300; i++ {
				var argv []string
				switch {
				case !inMulti && g.chance(3):
					argv = []string{"MULTI"}
				case inMulti && g.chance(25):
					argv = []string{"EXEC"}
				default:
					argv = f.cmds[g.r.IntN(len(f.cmds))](g)
				}
				history = append(history, quoteArgs(argv))
				before := state()
				log.take()
				r := c.do(t, argv...)
				keys, dbs := log.take()
				after := state()
				switch strings.ToUpper(argv[0]) {
				case "MULTI":
					inMulti = r.kind == '+'
				case "EXEC":
					inMulti = false
				}
				for k, v := range after {
					if before[k] == v {
						continue
					}
					db, _ := strconv.Atoi(strings.Fields(k)[0])
					if !keys[k] && !dbs[db] && !dbs[-1] {
						t.Fatalf("%s changed (%s -> %s) unannounced by %s\nlast commands:\n  %s",
							k, before[k], v, quoteArgs(argv), strings.Join(tail25(history), "\n  "))
					}
				}
			}
		})
	}
}
