package db

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// bulkOf returns the payload of a bulk string reply.
func bulkOf(t *testing.T, r string) string {
	t.Helper()
	head, rest, ok := strings.Cut(r, "\r\n")
	if !ok || head[0] != '$' {
		t.Fatalf("not a bulk string: %q", r)
	}
	n, _ := strconv.Atoi(head[1:])
	return rest[:n]
}

// withFooter gives body a DUMP footer: RDB version ver and the CRC64.
func withFooter(body []byte, ver uint16) string {
	b := binary.LittleEndian.AppendUint16(append([]byte(nil), body...), ver)
	return string(binary.LittleEndian.AppendUint64(b, ds.CRC64(0, b)))
}

// TestDumpRestoreRoundTrip: DUMP of every type and encoding RESTOREs to an
// equal value with the same encoding, in another key and over the same
// key with REPLACE.
func TestDumpRestoreRoundTrip(t *testing.T) {
	h := newMemHarness(t)
	for _, c := range rdbCases() {
		for _, cmd := range c.cmds {
			h.do(cmd...)
		}
		p := bulkOf(t, h.do("DUMP", c.key))
		dst := "copy:" + c.key
		if r := h.do("RESTORE", dst, "0", p); r != "+OK\r\n" {
			t.Fatalf("RESTORE %s: %q", c.key, r)
		}
		want, _ := exportKey(t, h.ks, 0, c.key)
		got, o := exportKey(t, h.ks, 0, dst)
		if strings.TrimPrefix(got, strings.SplitN(got, " ", 3)[0]+" "+dst) != strings.TrimPrefix(want, strings.SplitN(want, " ", 3)[0]+" "+c.key) {
			t.Errorf("%s: restored %.200s, want %.200s", c.key, got, want)
		}
		if e := ObjectEncoding(o); e != c.enc {
			t.Errorf("%s: restored encoding %s, want %s", c.key, e, c.enc)
		}
		if r := h.do("RESTORE", c.key, "0", p, "REPLACE"); r != "+OK\r\n" {
			t.Fatalf("RESTORE REPLACE %s: %q", c.key, r)
		}
		h.checkMem("RESTORE " + c.key)
	}
	if r := h.do("DUMP", "nokey"); r != "$-1\r\n" {
		t.Errorf("DUMP of a missing key: %q", r)
	}
}

// TestRestoreErrors: Valkey's replies, in Valkey's order of checks.
func TestRestoreErrors(t *testing.T) {
	h := newMemHarness(t)
	h.do("SET", "k", "v")
	good := bulkOf(t, h.do("DUMP", "k"))
	bad := []byte(good)
	bad[1] ^= 1
	strVal := []byte{0, 1, 'x'} // RDB_TYPE_STRING, "x"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"k", "0", good}, "-BUSYKEY Target key name already exists.\r\n"},
		{[]string{"k", "-1", good}, "-BUSYKEY Target key name already exists.\r\n"},
		{[]string{"n", "-1", good}, "-ERR Invalid TTL value, must be >= 0\r\n"},
		{[]string{"n", "x", good}, "-" + ErrNotInt + "\r\n"},
		{[]string{"n", "0", "short"}, "-ERR DUMP payload version or checksum are wrong\r\n"},
		{[]string{"n", "0", string(bad)}, "-ERR DUMP payload version or checksum are wrong\r\n"},
		{[]string{"n", "0", withFooter(strVal, rdb.Version+1)}, "-ERR DUMP payload version or checksum are wrong\r\n"},
		{[]string{"n", "0", withFooter(strVal, rdb.Version)}, "+OK\r\n"},
		{[]string{"n2", "0", withFooter([]byte{0, 5, 'x'}, rdb.Version)}, "-ERR Bad data format\r\n"},
		{[]string{"n2", "0", withFooter([]byte{200}, rdb.Version)}, "-ERR Bad data format\r\n"},
		{[]string{"n2", "0", withFooter([]byte{1, 0}, rdb.Version)}, "-ERR Bad data format\r\n"}, // empty list
		{[]string{"n2", "0", good, "IDLETIME", "-1"}, "-ERR Invalid IDLETIME value, must be >= 0\r\n"},
		{[]string{"n2", "0", good, "IDLETIME", "x"}, "-" + ErrNotInt + "\r\n"},
		{[]string{"n2", "0", good, "FREQ", "256"}, "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n"},
		{[]string{"n2", "0", good, "FREQ", "-1"}, "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n"},
		{[]string{"n2", "0", good, "IDLETIME", "1", "FREQ", "1"}, "-ERR syntax error\r\n"},
		{[]string{"n2", "0", good, "FREQ", "1", "IDLETIME", "1"}, "-ERR syntax error\r\n"},
		{[]string{"n2", "0", good, "IDLETIME"}, "-ERR syntax error\r\n"},
		{[]string{"n2", "0", good, "BOGUS"}, "-ERR syntax error\r\n"},
		// Options are checked before the key: a syntax error wins over BUSYKEY.
		{[]string{"k", "0", good, "BOGUS"}, "-ERR syntax error\r\n"},
		{[]string{"k", "0", good, "replace", "absttl", "IDLETIME", "5"}, "+OK\r\n"},
		{[]string{"n3", "0", good, "FREQ", "255"}, "+OK\r\n"},
	} {
		if got := h.do(append([]string{"RESTORE"}, c.args...)...); got != c.want {
			t.Errorf("RESTORE %q: %q, want %q", c.args, got, c.want)
		}
	}
	if h.do("EXISTS", "n2") != ":0\r\n" {
		t.Error("a failed RESTORE created its key")
	}
}

// TestRestoreTTLAndEffects: a relative TTL becomes absolute in the key
// and in the effects stream (with ABSTTL appended); a TTL in the past
// creates nothing and, if REPLACE deleted a value, propagates as that
// deletion; IDLETIME sets the idle time.
func TestRestoreTTLAndEffects(t *testing.T) {
	h := newMemHarness(t)
	h.ks.SetLazyFree(true, true, false)
	h.do("SET", "src", "v")
	p := bulkOf(t, h.do("DUMP", "src"))
	rec := recordEffects(h)
	var u effects.Unit
	run := func(args ...string) string {
		h.c.Prop = &u
		h.c.BeginOwn()
		r := h.do(args...)
		h.c.CommitUnit()
		h.c.Prop = nil
		return r
	}
	abs := strconv.FormatInt(h.now+5000, 10)
	past := strconv.FormatInt(h.now-1, 10)
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"RESTORE", "a", "5000", p}, "+OK\r\n"},
		{[]string{"RESTORE", "b", abs, p, "ABSTTL"}, "+OK\r\n"},
		{[]string{"RESTORE", "c", "0", p, "IDLETIME", "1000"}, "+OK\r\n"},
		{[]string{"RESTORE", "gone", past, p, "ABSTTL"}, "+OK\r\n"},
		{[]string{"RESTORE", "c", past, p, "ABSTTL", "REPLACE"}, "+OK\r\n"},
	}
	for _, s := range steps {
		if got := run(s.args...); got != s.want {
			t.Fatalf("%q: %q", s.args, got)
		}
	}
	for _, k := range []string{"a", "b"} {
		if got := h.do("PEXPIRETIME", k); got != ":"+abs+"\r\n" {
			t.Errorf("PEXPIRETIME %s: %q, want %s", k, got, abs)
		}
	}
	if h.do("EXISTS", "gone") != ":0\r\n" || h.do("EXISTS", "c") != ":0\r\n" {
		t.Error("a RESTORE with a past TTL left a key")
	}
	var got []string
	for _, op := range rec.Ops() {
		got = append(got, strings.ReplaceAll(opText(op), p, "<p>"))
	}
	want := []string{
		"RESTORE a " + abs + " <p> ABSTTL",
		"RESTORE b " + abs + " <p> ABSTTL",
		"RESTORE c 0 <p> IDLETIME 1000",
		"DEL c", // lazyfree-lazy-server-del no
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ops %q\nwant %q", got, want)
	}

	h.do("RESTORE", "idle", "0", p, "IDLETIME", "1000")
	_, o := exportKey(t, h.ks, 0, "idle")
	if idle := IdleSeconds(o.LRU) - IdleSeconds(lruClockAt(h.now)); idle != 1000 {
		t.Errorf("IDLETIME 1000: idle %d", idle)
	}
}

// TestRestorePreWrite: RESTORE announces the key it creates or replaces.
func TestRestorePreWrite(t *testing.T) {
	h := newMemHarness(t)
	h.do("SET", "k", "v")
	p := bulkOf(t, h.do("DUMP", "k"))
	log := &keyLog{}
	h.ks.SetPreWriter(log)
	h.do("RESTORE", "n", "0", p)
	h.do("RESTORE", "k", "0", p, "REPLACE")
	if got := strings.Join(log.keys, ","); !strings.Contains(got, "n") || !strings.Contains(got, "k") {
		t.Fatalf("announced %q", got)
	}
}

type keyLog struct{ keys []string }

func (l *keyLog) PreWrite(db int, key []byte, old *Object) { l.keys = append(l.keys, string(key)) }
func (l *keyLog) PreWriteDB(db int)                        {}
