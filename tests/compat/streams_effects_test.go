package compat

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/effects"
)

// TestStreamEffectsReplay extends TestEffectsReplay's proof to what the
// digest of a stream leaves out: its consumer groups. The streams family
// runs on one server while a recorder takes its effects stream; a second
// server replays it; each stream must then have the same metadata, the
// same groups with the same last delivered IDs, and the same pending
// entries with the same owners. That checks how XREADGROUP, XCLAIM and
// XAUTOCLAIM propagate (as XCLAIM ... FORCE JUSTID LASTID, and XGROUP
// SETID / CREATECONSUMER with NOACK).
//
// Not compared, because Valkey's replicas differ from their primary in
// them too: read counters and lags (XCLAIM's LASTID moves the last ID
// only), delivery times and counts (a history read changes them without
// propagating anything), consumers that own nothing (a consumer created
// by a read that delivered nothing is not propagated), seen and active
// times, and the node layout (radix-tree-*: the node limits are
// configuration, not data).
func TestStreamEffectsReplay(t *testing.T) {
	var f family
	for _, x := range families() {
		if x.name == "streams" {
			f = x
		}
	}
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6} {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			src, srcAddr := inProcess(t)
			var rec effects.Recorder
			src.Effects().Attach(&rec)
			c := dialTree(t, srcAddr)
			g := &gen{r: rand.New(rand.NewPCG(seed, 99)), keys: f.keys}
			var history []string
			inMulti := false
			for range 2000 {
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
				r := c.do(t, argv...)
				switch strings.ToUpper(argv[0]) {
				case "MULTI":
					inMulti = r.kind == '+'
				case "EXEC":
					inMulti = false
				}
			}
			if inMulti {
				c.do(t, "EXEC")
			}
			dst, dstAddr := inProcess(t)
			if _, err := dst.Replay(bytes.NewReader(rec.Stream())); err != nil {
				t.Fatal(err)
			}
			d := dialTree(t, dstAddr)
			for _, k := range f.keys {
				if c.do(t, "TYPE", k).s != "stream" {
					continue
				}
				a, b := streamState(t, c, k), streamState(t, d, k)
				if a != b {
					t.Fatalf("seed %d, stream %s:\n  source   %s\n  replayed %s\nlast commands:\n  %s",
						seed, k, a, b, strings.Join(tail25(history), "\n  "))
				}
			}
		})
	}
}

// streamState renders what TestStreamEffectsReplay compares of a stream.
func streamState(t *testing.T, c *treeConn, key string) string {
	r := c.do(t, "XINFO", "STREAM", key, "FULL", "COUNT", "0")
	var b strings.Builder
	field := func(m tree, name string) tree {
		for i := 0; i+1 < len(m.elems); i += 2 {
			if m.elems[i].s == name {
				return m.elems[i+1]
			}
		}
		return tree{kind: '?'}
	}
	for _, name := range []string{"length", "last-generated-id", "max-deleted-entry-id", "entries-added", "recorded-first-entry-id", "entries"} {
		fmt.Fprintf(&b, "%s=%s ", name, field(r, name))
	}
	for _, g := range field(r, "groups").elems {
		fmt.Fprintf(&b, "group %s last %s pel [", field(g, "name"), field(g, "last-delivered-id"))
		for _, p := range field(g, "pending").elems {
			fmt.Fprintf(&b, "%s:%s ", p.elems[0], p.elems[1])
		}
		b.WriteString("] owners [")
		for _, cn := range field(g, "consumers").elems {
			if n := field(cn, "pel-count"); n.s != "0" {
				fmt.Fprintf(&b, "%s:%s ", field(cn, "name"), n)
			}
		}
		b.WriteString("] ")
	}
	return b.String()
}
