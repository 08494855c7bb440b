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

// TestExpandBeforeLoad: a keyspace expanded for n keys (DEBUG POPULATE's
// dbExpand) takes them without any dict resizing on the way, and its
// memory accounting includes the new tables at once; a small n creates
// nothing.
func TestExpandBeforeLoad(t *testing.T) {
	const n = 100_000
	tables := func(ks *Keyspace) (lut, rehashing int64) {
		for _, m := range ks.MemStats(false) {
			lut += m.LUT
			rehashing += m.RehashingCount
		}
		return
	}
	ks := New(16)
	expand := func(n int64) {
		ks.LockAll()
		defer ks.UnlockAll()
		ks.Expand(0, n)
	}
	expand(16*StripeCount - 1)
	if lut, _ := tables(ks); lut != 0 {
		t.Fatalf("Expand of a few keys allocated %d bytes of tables", lut)
	}
	d0 := ks.DatasetBytes(false)
	expand(n)
	sized, _ := tables(ks)
	if d1 := ks.DatasetBytes(false); sized == 0 || d1-d0 < sized {
		t.Fatalf("after Expand: tables %d bytes, accounted %d more", sized, d1-d0)
	}
	c := &Ctx{KS: ks, W: resp.NewWriter(1 << 10), Now: testNow}
	for i := range n {
		c.SetString([]byte("key:"+strconv.Itoa(i)), []byte("v"), false)
		if i%1000 == 0 {
			if lut, r := tables(ks); lut != sized || r != 0 {
				t.Fatalf("after %d keys: tables %d bytes (expanded: %d), %d rehashing", i+1, lut, sized, r)
			}
		}
	}
	if lut, r := tables(ks); lut != sized || r != 0 {
		t.Fatalf("after %d keys: tables %d bytes (expanded: %d), %d rehashing", n, lut, sized, r)
	}

	// Without Expand the same load resizes along the way (else the
	// checks above prove nothing).
	ks2 := New(16)
	c2 := &Ctx{KS: ks2, W: resp.NewWriter(1 << 10), Now: testNow}
	var early int64
	for i := range n {
		c2.SetString([]byte("key:"+strconv.Itoa(i)), []byte("v"), false)
		if i == 1000 {
			early, _ = tables(ks2)
		}
	}
	if lut, _ := tables(ks2); lut == early {
		t.Fatal("the load did not resize any dict without Expand")
	}
}
