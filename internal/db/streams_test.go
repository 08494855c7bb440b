package db

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// newStreamHarness is the list/hash harness with the stream commands.
func newStreamHarness(t *testing.T) *lhHarness {
	h := newLHHarness(t)
	for _, hd := range StreamCommands {
		h.cmd[hd.Spec.FullName] = hd
	}
	return h
}

// respText renders a RESP2 reply compactly: integers and bulks as their
// text, nulls as nil, arrays as [a b ...], errors as !text.
func respText(raw string) string {
	r := bufio.NewReader(strings.NewReader(raw))
	var b strings.Builder
	var one func()
	one = func() {
		line, _ := r.ReadString('\n')
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			b.WriteString("?")
			return
		}
		switch line[0] {
		case '+', ':':
			b.WriteString(line[1:])
		case '-':
			b.WriteString("!" + line[1:])
		case '$':
			n, _ := strconv.Atoi(line[1:])
			if n < 0 {
				b.WriteString("nil")
				return
			}
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				b.WriteString("?")
				return
			}
			b.Write(buf[:n])
		case '*':
			n, _ := strconv.Atoi(line[1:])
			if n < 0 {
				b.WriteString("nilarr")
				return
			}
			b.WriteByte('[')
			for i := range n {
				if i > 0 {
					b.WriteByte(' ')
				}
				one()
			}
			b.WriteByte(']')
		default:
			b.WriteString("?" + line)
		}
	}
	one()
	return b.String()
}

// sx runs steps whose wanted replies are in respText's form.
func (h *lhHarness) sx(cl *tClient, steps ...[2]string) {
	h.t.Helper()
	for _, s := range steps {
		args := splitArgs(s[0])
		if got := respText(h.do(cl, args...)); got != s[1] {
			h.t.Errorf("%s:\n got %s\nwant %s", s[0], got, s[1])
		}
	}
}

// splitArgs splits on spaces; "" stands for an empty argument.
func splitArgs(s string) []string {
	f := strings.Fields(s)
	for i, a := range f {
		if a == `""` {
			f[i] = ""
		}
	}
	return f
}

func TestStreamBasics(t *testing.T) {
	h := newStreamHarness(t)
	cl := h.client()
	h.sx(cl,
		[2]string{"XADD s 1-1 a 1", "1-1"},
		[2]string{"XADD s 1-2 a 2 b 3", "1-2"},
		[2]string{"XADD s 1-* c 3", "1-3"},
		[2]string{"XADD s 1-1 c 3", "!" + errXAddIDSmaller},
		[2]string{"XADD s 0-0 c 3", "!" + errXAddIDZero},
		[2]string{"XADD s 2-x c 3", "!" + errInvalidStreamID},
		[2]string{"XADD s 5-5 c", "!ERR wrong number of arguments for 'xadd' command"},
		[2]string{"XADD s MAXLEN ~ 1 MINID 1 * a b", "!" + errTrimBoth},
		[2]string{"XADD s MAXLEN -1 * a b", "!" + errTrimMaxLenNeg},
		[2]string{"XADD s LIMIT 5 * a b", "!" + errTrimLimitNoStr},
		[2]string{"XADD s MAXLEN 5 LIMIT 5 * a b", "!" + errTrimLimitNoApx},
		[2]string{"XLEN s", "3"},
		[2]string{"XLEN nokey", "0"},
		[2]string{"XRANGE s - +", "[[1-1 [a 1]] [1-2 [a 2 b 3]] [1-3 [c 3]]]"},
		[2]string{"XRANGE s (1-1 + COUNT 1", "[[1-2 [a 2 b 3]]]"},
		[2]string{"XRANGE s - + COUNT 0", "nilarr"},
		[2]string{"XRANGE nokey - + COUNT 0", "[]"},
		[2]string{"XREVRANGE s + - COUNT 2", "[[1-3 [c 3]] [1-2 [a 2 b 3]]]"},
		[2]string{"XRANGE s (18446744073709551615-18446744073709551615 +", "!" + errIntervalStart},
		[2]string{"XRANGE s - (0-0", "!" + errIntervalEnd},
		[2]string{"XRANGE s ( +", "!" + errInvalidStreamID},
		[2]string{"XRANGE s 1 1", "[[1-1 [a 1]] [1-2 [a 2 b 3]] [1-3 [c 3]]]"},
		[2]string{"XDEL s 1-2 9-9", "1"},
		[2]string{"XDEL nokey bad", "0"},
		[2]string{"XDEL s bad", "!" + errInvalidStreamID},
		[2]string{"XRANGE s - +", "[[1-1 [a 1]] [1-3 [c 3]]]"},
		[2]string{"XSETID s 1-1", "!" + errXSetIDMaxDel},
		[2]string{"XSETID s 1-2", "!" + errXSetIDSmaller},
		[2]string{"XSETID s 5-0 ENTRIESADDED 1", "!" + errXSetIDAdded},
		[2]string{"XSETID s 5-0 ENTRIESADDED 10 MAXDELETEDID 1-3", "OK"},
		[2]string{"XSETID nokey 5-0", "!ERR no such key"},
		[2]string{"XADD s 5-* x y", "5-1"},
		[2]string{"XTRIM s MAXLEN 1", "2"},
		[2]string{"XRANGE s - +", "[[5-1 [x y]]]"},
		[2]string{"XTRIM s MINID ~ 9", "1"},
		[2]string{"XTRIM s MINID 9", "0"},
		[2]string{"XLEN s", "0"},
		[2]string{"EXISTS s", "1"},
		[2]string{"XADD n NOMKSTREAM 1-1 a b", "nil"},
		[2]string{"EXISTS n", "0"},
		[2]string{"SET str x", "OK"},
		[2]string{"XADD str 1-1 a b", "!" + ErrWrongType},
		[2]string{"XRANGE str - +", "!" + ErrWrongType},
	)
}

func TestStreamIDParse(t *testing.T) {
	type want struct {
		id       string
		seqGiven bool
		ok       bool
	}
	cases := []struct {
		arg    string
		strict bool
		star   bool
		want   want
	}{
		{"1-2", true, false, want{"1-2", true, true}},
		{"1", true, false, want{"1-7", true, true}},
		{"-", false, false, want{"0-0", true, true}},
		{"+", false, false, want{"18446744073709551615-18446744073709551615", true, true}},
		{"-", true, false, want{"", false, false}},
		{"+", true, false, want{"", false, false}},
		{"1-*", true, true, want{"1-0", false, true}},
		{"1-*", true, false, want{"", false, false}},
		{"007-+5", true, false, want{"7-5", true, true}},
		{" 7- 5", true, false, want{"7-5", true, true}},
		{"1--1", true, false, want{"", false, false}},
		{"1--02", true, false, want{"1-18446744073709551614", true, true}},
		{"-1", true, false, want{"", false, false}},
		{"18446744073709551616", true, false, want{"", false, false}},
		{"18446744073709551615-18446744073709551615", true, false, want{"18446744073709551615-18446744073709551615", true, true}},
		{"1\x00-5", true, false, want{"1-7", true, true}},
		{"", true, false, want{"", false, false}},
		{"1-", true, false, want{"", false, false}},
		{"0x1", true, false, want{"", false, false}},
		{strings.Repeat("1", 128), true, false, want{"", false, false}},
	}
	for _, c := range cases {
		id, sg, ok := parseStreamID([]byte(c.arg), 7, c.strict, c.star)
		got := want{"", false, ok}
		if ok {
			got = want{id.String(), sg, true}
		}
		if got != c.want {
			t.Errorf("parseStreamID(%q, strict %v, star %v) = %+v, want %+v", c.arg, c.strict, c.star, got, c.want)
		}
	}
}

// TestStreamMemAccounting checks the stream's running memory count
// against a recount after random commands, with small nodes.
func TestStreamMemAccounting(t *testing.T) {
	h := newStreamHarness(t)
	h.ks.Configure(func() Settings {
		s := DefaultSettings()
		s.StreamNodeMaxEntries = 7
		s.StreamNodeMaxBytes = 300
		return s
	}())
	cl := h.client()
	r := rand.New(rand.NewPCG(1, 2))
	ms := 1
	for i := range 3000 {
		var args []string
		switch r.IntN(10) {
		case 0, 1, 2, 3:
			ms += r.IntN(3)
			args = []string{"XADD", "s", fmt.Sprintf("%d-*", ms), "f", strconv.Itoa(r.IntN(1000)), "g" + strconv.Itoa(r.IntN(2)), strings.Repeat("v", r.IntN(40))}
		case 4:
			args = []string{"XDEL", "s", fmt.Sprintf("%d-%d", r.IntN(ms+1), r.IntN(3))}
		case 5:
			args = []string{"XTRIM", "s", "MAXLEN", []string{"~", "="}[r.IntN(2)], strconv.Itoa(r.IntN(100))}
		case 6:
			args = []string{"XGROUP", "CREATE", "s", "g" + strconv.Itoa(r.IntN(3)), "0", "MKSTREAM"}
		case 7:
			args = []string{"XREADGROUP", "GROUP", "g" + strconv.Itoa(r.IntN(3)), "c" + strconv.Itoa(r.IntN(4)), "COUNT", "5", "STREAMS", "s", ">"}
		case 8:
			args = []string{"XACK", "s", "g" + strconv.Itoa(r.IntN(3)), fmt.Sprintf("%d-%d", r.IntN(ms+1), r.IntN(3))}
		default:
			args = []string{"XAUTOCLAIM", "s", "g" + strconv.Itoa(r.IntN(3)), "c" + strconv.Itoa(r.IntN(4)), "0", "0", "COUNT", "3"}
			if r.IntN(4) == 0 {
				args = []string{"XGROUP", "DELCONSUMER", "s", "g" + strconv.Itoa(r.IntN(3)), "c" + strconv.Itoa(r.IntN(4))}
			}
		}
		h.do(cl, args...)
		h.ks.LockAll()
		o := cl.c.LookupDB(0, []byte("s"))
		if o != nil {
			s := streamOf(o)
			if got, want := int64(s.MemUsage()), s.memBytes(); got != want {
				h.ks.UnlockAll()
				t.Fatalf("after %d commands (%q): MemUsage %d, recount %d", i, args, got, want)
			}
			if err := s.check(); err != nil {
				h.ks.UnlockAll()
				t.Fatalf("after %d commands (%q): %v", i, args, err)
			}
		}
		h.ks.UnlockAll()
	}
}

func TestStreamGroups(t *testing.T) {
	h := newStreamHarness(t)
	cl := h.client()
	h.sx(cl,
		[2]string{"XGROUP CREATE s g $", "!" + errXGroupNoKey},
		[2]string{"XGROUP CREATE s g $ MKSTREAM", "OK"},
		[2]string{"XGROUP CREATE s g $", "!" + errBusyGroup},
		[2]string{"XGROUP SETID s nog 0", "!NOGROUP No such consumer group 'nog' for key name 's'"},
		[2]string{"XGROUP CREATE s g2 0 ENTRIESREAD -2", "!" + errEntriesRead},
		[2]string{"XGROUP CREATE s g2 0 BAD", "!ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP."},
		[2]string{"XADD s 1-1 a 1", "1-1"},
		[2]string{"XADD s 1-2 a 2", "1-2"},
		[2]string{"XADD s 1-3 a 3", "1-3"},
		[2]string{"XREADGROUP GROUP g c1 COUNT 2 STREAMS s >", "[[s [[1-1 [a 1]] [1-2 [a 2]]]]]"},
		[2]string{"XREADGROUP GROUP g c2 STREAMS s >", "[[s [[1-3 [a 3]]]]]"},
		[2]string{"XREADGROUP GROUP g c2 STREAMS s >", "nilarr"},
		[2]string{"XREADGROUP GROUP g c1 STREAMS s 0", "[[s [[1-1 [a 1]] [1-2 [a 2]]]]]"},
		[2]string{"XREADGROUP GROUP g c1 STREAMS s $", "!ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."},
		[2]string{"XREADGROUP GROUP nog c1 STREAMS s >", "!NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"},
		[2]string{"XPENDING s g", "[3 1-1 1-3 [[c1 2] [c2 1]]]"},
		[2]string{"XPENDING s nog", "!NOGROUP No such key 's' or consumer group 'nog'"},
		[2]string{"XACK s g 1-1 9-9", "1"},
		[2]string{"XACK s g bad", "!" + errInvalidStreamID},
		[2]string{"XACK s nog bad", "0"},
		[2]string{"XCLAIM s g c3 0 1-2 JUSTID", "[1-2]"},
		[2]string{"XPENDING s g", "[2 1-2 1-3 [[c2 1] [c3 1]]]"},
		[2]string{"XDEL s 1-2", "1"},
		[2]string{"XAUTOCLAIM s g c4 0 0 COUNT 10", "[0-0 [[1-3 [a 3]]] [1-2]]"},
		[2]string{"XPENDING s g", "[1 1-3 1-3 [[c4 1]]]"},
		[2]string{"XGROUP DELCONSUMER s g c4", "1"},
		[2]string{"XPENDING s g", "[0 nil nil nilarr]"},
		[2]string{"XGROUP CREATECONSUMER s g c9", "1"},
		[2]string{"XGROUP CREATECONSUMER s g c9", "0"},
		[2]string{"XGROUP DESTROY s g", "1"},
		[2]string{"XGROUP DESTROY s g", "0"},
		[2]string{"XINFO GROUPS s", "[]"},
		[2]string{"XINFO STREAM nokey", "!ERR no such key"},
	)
}

func TestStreamReadBlocking(t *testing.T) {
	h := newStreamHarness(t)
	a, b, pusher := h.client(), h.client(), h.client()
	h.sx(pusher, [2]string{"XGROUP CREATE s g $ MKSTREAM", "OK"})
	ra := h.goDo(a, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
	h.waitBlocked(a)
	rb := h.goDo(b, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">")
	h.waitBlocked(b)
	h.noReply(ra)
	h.sx(pusher, [2]string{"XADD s 1-1 f v", "1-1"})
	if got := respText(h.recv(ra)); got != "[[s [[1-1 [f v]]]]]" {
		t.Errorf("XREAD got %s", got)
	}
	if got := respText(h.recv(rb)); got != "[[s [[1-1 [f v]]]]]" {
		t.Errorf("XREADGROUP got %s", got)
	}
	// A deleted key answers a blocked XREADGROUP with NOGROUP.
	rb = h.goDo(b, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">")
	h.waitBlocked(b)
	h.sx(pusher, [2]string{"DEL s", "1"})
	if got := respText(h.recv(rb)); got != "!NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option" {
		t.Errorf("XREADGROUP after DEL got %s", got)
	}
	// XGROUP DESTROY likewise.
	h.sx(pusher, [2]string{"XGROUP CREATE s g $ MKSTREAM", "OK"})
	rb = h.goDo(b, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">")
	h.waitBlocked(b)
	h.sx(pusher, [2]string{"XGROUP DESTROY s g", "1"})
	if got := respText(h.recv(rb)); got != "!NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option" {
		t.Errorf("XREADGROUP after DESTROY got %s", got)
	}
	// A timeout answers the null array.
	if got := respText(h.do(a, "XREAD", "BLOCK", "10", "STREAMS", "s", "$")); got != "nilarr" {
		t.Errorf("XREAD timeout got %s", got)
	}
}

// check verifies the stream's structure: nodes, counts, IDs and PELs.
func (s *stream) check() error {
	var length uint64
	var prev streamID
	first := true
	var err error
	for c := s.nodes.Start(); c.Valid() && err == nil; c.Next() {
		master, lp := c.ID(), s.nodeLP(&c)
		last := c.bi == len(c.m.blocks)-1 && c.i == len(c.m.blocks[c.bi].e)-1
		if !last && cap(lp) != len(lp) || s.tail != nil && !last && &lp[0] == &s.tail[0] {
			return fmt.Errorf("node %v: not an exact allocation", master)
		}
		m := readMaster(lp)
		var live, dead int64
		nodeFirst := true
		forEachInNode(master, lp, false, func(e *streamEntry) bool {
			if nodeFirst && e.id != master {
				err = fmt.Errorf("node %v starts with entry %v", master, e.id)
			}
			nodeFirst = false
			if !first && e.id.cmp(prev) <= 0 {
				err = fmt.Errorf("entry %v after %v", e.id, prev)
			}
			first, prev = false, e.id
			if e.deleted() {
				dead++
			} else {
				live++
			}
			return err == nil
		})
		if live != m.count || dead != m.deleted || live == 0 {
			err = fmt.Errorf("node %v: counts %d/%d, entries %d/%d", master, m.count, m.deleted, live, dead)
		}
		length += uint64(live)
	}
	if err != nil {
		return err
	}
	if length != s.length {
		return fmt.Errorf("length %d, entries %d", s.length, length)
	}
	if !first && prev.cmp(s.lastID) > 0 {
		return fmt.Errorf("entry %v after last ID %v", prev, s.lastID)
	}
	for _, g := range s.groups {
		n := 0
		for _, c := range g.consumers {
			n += c.pel.Len()
			c.pel.Range(func(id streamID, np **streamNACK) bool {
				if gp := g.pel.Get(id); gp == nil || *gp != *np || (*np).consumer != c {
					err = fmt.Errorf("group %s consumer %s: PEL entry %v not shared", g.name, c.name, id)
				}
				return err == nil
			})
		}
		if n != g.pel.Len() {
			return fmt.Errorf("group %s: PEL %d, consumers' %d", g.name, g.pel.Len(), n)
		}
	}
	return err
}

// TestRaxNodeCount compares the radix-tree node count XINFO reports with
// a count of the path-compressed trie's nodes made position by position:
// a prefix is a node when it is the root, a key, a branching point, or
// the child of one. (Valkey's own figures match it: tests/compat's
// streams family, tests/integration's stream DUMP test.)
func TestRaxNodeCount(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for round := range 300 {
		s := newStream()
		n := r.IntN(60)
		ms := uint64(r.Int64N(1 << 45))
		for range n {
			switch r.IntN(4) {
			case 0:
				ms += uint64(r.IntN(3))
			case 1:
				ms += uint64(r.IntN(300))
			case 2:
				ms += uint64(r.Int64N(1 << 30))
			}
			id := streamID{ms, uint64(r.IntN(4))}
			if s.nodes.Get(id) == nil {
				s.nodes.Insert(id, nodeRef{})
			}
		}
		prefixes := map[string]map[byte]bool{}
		s.nodes.Range(func(id streamID, _ *nodeRef) bool {
			k := string(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, id.ms), id.seq))
			for d := 0; d <= 16; d++ {
				if prefixes[k[:d]] == nil {
					prefixes[k[:d]] = map[byte]bool{}
				}
				if d < 16 {
					prefixes[k[:d]][k[d]] = true
				}
			}
			return true
		})
		want := int64(1)
		for p := range prefixes {
			if p != "" && (len(prefixes[p[:len(p)-1]]) >= 2 || len(prefixes[p]) >= 2 || len(p) == 16) {
				want++
			}
		}
		if got := s.countRaxNodes(); got != want {
			t.Fatalf("round %d, %d keys: %d nodes, want %d", round, s.nodes.Len(), got, want)
		}
	}
}
