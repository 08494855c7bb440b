package db

import (
	"strconv"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/resp"
)

// TestActiveRehashFinishesIdleDicts: dicts left half-rehashed by a burst of
// inserts finish rehashing from the cron alone, and the accounting drops
// the old tables; dicts emptied by deletes get shrunk.
func TestActiveRehashFinishesIdleDicts(t *testing.T) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(1 << 10), Now: testNow}
	rehashing := func() int64 {
		var n int64
		for _, m := range ks.MemStats(false) {
			n += m.RehashingCount
		}
		return n
	}
	for i := range 70_000 {
		c.SetString([]byte("key:"+strconv.Itoa(i)), []byte("v"), false)
	}
	if rehashing() == 0 {
		t.Fatal("no dict is rehashing after the inserts; the test needs one that is")
	}
	before := ks.DatasetBytes(false)
	next := 0
	for i := 0; ks.ActiveRehash(time.Millisecond, &next); i++ {
		if i > 10_000 {
			t.Fatal("ActiveRehash never finishes")
		}
	}
	if n := rehashing(); n != 0 {
		t.Fatalf("%d dicts still rehashing after the cron", n)
	}
	if after := ks.DatasetBytes(false); after >= before {
		t.Errorf("dataset bytes %d -> %d: the old tables were not released from the accounting", before, after)
	}

	// Delete almost everything: the cron shrinks the tables.
	lut := func() int64 {
		var n int64
		for _, m := range ks.MemStats(false) {
			n += m.LUT
		}
		return n
	}
	full := lut()
	for i := range 69_000 {
		c.Delete([]byte("key:" + strconv.Itoa(i)))
	}
	for i := 0; ks.ActiveRehash(time.Millisecond, &next) || i == 0; i++ {
		if i > 10_000 {
			t.Fatal("ActiveRehash never finishes shrinking")
		}
	}
	if got := lut(); got*4 > full {
		t.Errorf("bucket tables %d -> %d bytes after deleting 98%% of the keys: not shrunk", full, got)
	}
	if n := ks.DBSize(0, false); n != 1000 {
		t.Fatalf("DBSize %d after the deletes", n)
	}
}
