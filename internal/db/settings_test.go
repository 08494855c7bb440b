package db

import (
	"strings"
	"testing"
)

// configure changes some of ks's settings, as CONFIG SET would.
func configure(ks *Keyspace, change func(s *Settings)) {
	s := ks.Settings()
	change(&s)
	ks.Configure(s)
}

// defaultSettings returns the settings of a new keyspace, for tests that
// call the encoding helpers without one.
func defaultSettings() *settings {
	s := new(settings)
	s.store(DefaultSettings())
	return s
}

func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	ks := New(1)
	if got := ks.Settings(); got != DefaultSettings() {
		t.Fatalf("a new keyspace has %+v, want the defaults %+v", got, DefaultSettings())
	}
	want := Settings{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	ks.Configure(want)
	if got := ks.Settings(); got != want {
		t.Fatalf("Settings after Configure: %+v, want %+v", got, want)
	}
}

// TestKeyspacesDoNotShareSettings runs the same commands on two keyspaces
// configured differently, interleaved, and checks that each follows its
// own settings: hash-max-listpack-entries, proto-max-bulk-len and the
// LRU/LFU clock layout of maxmemory-policy.
func TestKeyspacesDoNotShareSettings(t *testing.T) {
	t.Parallel()
	small, dflt := newCollHarness(t), newCollHarness(t)
	configure(small.ks, func(s *Settings) {
		s.HashMaxListpackEntries = 2
		s.ZSetMaxListpackEntries = 2
		s.ProtoMaxBulkLen = 8
	})
	small.ks.SetEvictionPolicy(PolicyAllkeysLFU)
	dflt.ks.SetEvictionPolicy(PolicyAllkeysLRU)

	for _, h := range []*collHarness{small, dflt} {
		h.do("HSET", "h", "a", "1", "b", "2", "c", "3")
		h.do("ZADD", "z", "1", "a", "2", "b", "3", "c")
		h.do("SET", "s", "12345")
	}
	for _, tc := range []struct {
		h          *collHarness
		hash, zset string
		appendOK   bool
		lfu        bool
	}{
		{small, "hashtable", "skiplist", false, true},
		{dflt, "listpack", "listpack", true, false},
	} {
		h := tc.h
		if got := h.do("OBJECT", "ENCODING", "h"); got != rBulk(tc.hash) {
			t.Errorf("hash encoding %q, want %s", got, tc.hash)
		}
		if got := h.do("OBJECT", "ENCODING", "z"); got != rBulk(tc.zset) {
			t.Errorf("zset encoding %q, want %s", got, tc.zset)
		}
		got := h.do("APPEND", "s", "6789")
		if tc.appendOK != !strings.Contains(got, "proto-max-bulk-len") {
			t.Errorf("APPEND past 8 bytes: %q", got)
		}
		// OBJECT FREQ answers only under an LFU policy, IDLETIME only
		// under another.
		freq := h.do("OBJECT", "FREQ", "h")
		idle := h.do("OBJECT", "IDLETIME", "h")
		if tc.lfu != !strings.HasPrefix(freq, "-") || tc.lfu != strings.HasPrefix(idle, "-") {
			t.Errorf("lfu %v: OBJECT FREQ %q, OBJECT IDLETIME %q", tc.lfu, freq, idle)
		}
	}
}
