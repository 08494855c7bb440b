package db

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"
)

// waitersGone waits until no waiter is registered any more.
func waitersGone(t *testing.T, ks *Keyspace) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for ks.BlockedWaiters() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters still registered", ks.BlockedWaiters())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBlockServedByPush(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	ch := h.goDo(a, "BLPOP", "nol", "l", "0")
	h.waitBlocked(a)
	if a.fc.flushes.Load() == 0 {
		t.Error("pending replies were not flushed before blocking")
	}
	// The pusher's reply counts the element it pushed, as in Valkey.
	if got := h.do(b, "RPUSH", "l", "x"); got != rInt(1) {
		t.Fatalf("RPUSH: %q", got)
	}
	if got := h.recv(ch); got != lBulks("l", "x") {
		t.Fatalf("BLPOP: %q", got)
	}
	if got := h.do(b, "EXISTS", "l"); got != rInt(0) {
		t.Fatalf("the served pop must delete the emptied list: %q", got)
	}
	waitersGone(t, h.ks)
}

// TestBlockFIFO: clients blocked on a key are served oldest first.
func TestBlockFIFO(t *testing.T) {
	h := newLHHarness(t)
	p := h.client()
	var chans []<-chan string
	var cls []*tClient
	for i := 0; i < 3; i++ {
		cl := h.client()
		chans = append(chans, h.goDo(cl, "BRPOP", "l", "0"))
		h.waitBlocked(cl)
		cls = append(cls, cl)
	}
	h.do(p, "RPUSH", "l", "1", "2")
	// BRPOP pops from the tail: the first client gets 2.
	if got := h.recv(chans[0]); got != lBulks("l", "2") {
		t.Fatalf("first: %q", got)
	}
	if got := h.recv(chans[1]); got != lBulks("l", "1") {
		t.Fatalf("second: %q", got)
	}
	h.noReply(chans[2])
	h.do(p, "LPUSH", "l", "3")
	if got := h.recv(chans[2]); got != lBulks("l", "3") {
		t.Fatalf("third: %q", got)
	}
	waitersGone(t, h.ks)
}

// TestBlockPushThenPop: the blocked client gets the element even if the
// pusher pops right after pushing (a pipeline), because serving happens
// before the pusher's stripe is released.
func TestBlockPushThenPop(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	ch := h.goDo(a, "BLPOP", "l", "0")
	h.waitBlocked(a)
	h.do(b, "RPUSH", "l", "x")
	if got := h.do(b, "LPOP", "l"); got != rNull {
		t.Fatalf("LPOP after push: %q (the blocked client must have it)", got)
	}
	if got := h.recv(ch); got != lBulks("l", "x") {
		t.Fatalf("BLPOP: %q", got)
	}
}

// TestBlockInMulti: inside MULTI/EXEC nothing blocks, and waiters are
// served once, with what the transaction left behind.
func TestBlockInMulti(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	got := h.exec(b, []string{"BLPOP", "nol", "0"}, []string{"BRPOPLPUSH", "nol", "x", "0"},
		[]string{"BLMOVE", "nol", "x", "LEFT", "LEFT", "0"}, []string{"BLMPOP", "0", "1", "nol", "LEFT"})
	want := []string{lNullArr, rNull, rNull, lNullArr}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("EXEC reply %d: %q, want %q", i, got[i], want[i])
		}
	}
	ch := h.goDo(a, "BLPOP", "l", "0")
	h.waitBlocked(a)
	// Pushed and popped in the same transaction: nothing for a.
	got = h.exec(b, []string{"RPUSH", "l", "x"}, []string{"LPOP", "l"})
	if got[1] != rBulk("x") {
		t.Fatalf("LPOP in EXEC: %q", got[1])
	}
	h.noReply(ch)
	got = h.exec(b, []string{"RPUSH", "l", "y", "z"}, []string{"LLEN", "l"})
	if got[1] != rInt(2) {
		t.Fatalf("LLEN in EXEC: %q (served before EXEC ended)", got[1])
	}
	if r := h.recv(ch); r != lBulks("l", "y") {
		t.Fatalf("BLPOP after EXEC: %q", r)
	}
	// A blocking pop inside EXEC that finds data behaves as LPOP, and a
	// BLMOVE that pushes serves waiters of its destination after EXEC.
	ch = h.goDo(a, "BLPOP", "dst", "0")
	h.waitBlocked(a)
	got = h.exec(b, []string{"BLMOVE", "l", "dst", "LEFT", "RIGHT", "0"})
	if got[0] != rBulk("z") {
		t.Fatalf("BLMOVE in EXEC: %q", got[0])
	}
	if r := h.recv(ch); r != lBulks("dst", "z") {
		t.Fatalf("BLPOP dst: %q", r)
	}
	waitersGone(t, h.ks)
}

func TestBlockTimeout(t *testing.T) {
	h := newLHHarness(t)
	a := h.client()
	start := time.Now()
	if got := h.do(a, "BLPOP", "nol", "0.05"); got != lNullArr {
		t.Fatalf("BLPOP timeout: %q", got)
	}
	if d := time.Since(start); d < 45*time.Millisecond {
		t.Fatalf("returned after %v", d)
	}
	if got := h.do(a, "BLMOVE", "nol", "x", "LEFT", "LEFT", "0.01"); got != lNullArr {
		t.Fatalf("BLMOVE timeout: %q", got)
	}
	if got := h.do(a, "BLMPOP", "0.01", "2", "a", "b", "LEFT"); got != lNullArr {
		t.Fatalf("BLMPOP timeout: %q", got)
	}
	a.c.W.Proto = 3
	if got := h.do(a, "BRPOP", "nol", "0.01"); got != "_\r\n" {
		t.Fatalf("RESP3 timeout: %q", got)
	}
	waitersGone(t, h.ks)
}

func TestBlockUnblock(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	ch := h.goDo(a, "BLPOP", "l", "0")
	h.waitBlocked(a)
	a.fc.unblock <- UnblockTimeout
	if got := h.recv(ch); got != lNullArr {
		t.Fatalf("UNBLOCK TIMEOUT: %q", got)
	}
	ch = h.goDo(a, "BLMOVE", "l", "d", "LEFT", "LEFT", "0")
	h.waitBlocked(a)
	a.fc.unblock <- UnblockError
	if got := h.recv(ch); got != rErr("UNBLOCKED client unblocked via CLIENT UNBLOCK") {
		t.Fatalf("UNBLOCK ERROR: %q", got)
	}
	if a.fc.blocked.Load() {
		t.Fatal("still flagged blocked")
	}
	waitersGone(t, h.ks)
	// Nobody is registered any more: the element stays in the list.
	h.do(b, "RPUSH", "l", "x")
	if got := h.do(b, "LLEN", "l"); got != rInt(1) {
		t.Fatalf("LLEN %q", got)
	}
	// A stale unblock left over from an earlier wake-up is ignored.
	a.fc.unblock <- UnblockError
	ch = h.goDo(a, "BLPOP", "nol2", "0")
	h.waitBlocked(a)
	h.noReply(ch)
	h.do(b, "RPUSH", "nol2", "y")
	if got := h.recv(ch); got != lBulks("nol2", "y") {
		t.Fatalf("after stale unblock: %q", got)
	}
}

func TestBlockDisconnect(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	ch := h.goDo(a, "BLPOP", "l", "0")
	h.waitBlocked(a)
	close(a.fc.gone)
	h.recv(ch)
	waitersGone(t, h.ks)
	h.do(b, "RPUSH", "l", "x")
	if got := h.do(b, "LRANGE", "l", "0", "-1"); got != lBulks("x") {
		t.Fatalf("a disconnected client must not take data: %q", got)
	}
}

// TestBlockMultiKey: a client waiting on several keys is served by the
// first of them to get data, once, and leaves every queue.
func TestBlockMultiKey(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	ch := h.goDo(a, "BLPOP", "k1", "k2", "k1", "0")
	h.waitBlocked(a)
	h.do(b, "RPUSH", "k2", "v")
	if got := h.recv(ch); got != lBulks("k2", "v") {
		t.Fatalf("BLPOP: %q", got)
	}
	waitersGone(t, h.ks)
	h.do(b, "RPUSH", "k1", "w")
	if got := h.do(b, "LLEN", "k1"); got != rInt(1) {
		t.Fatalf("k1 must keep its element: %q", got)
	}
	// The first key with data wins on the first attempt.
	h.do(b, "RPUSH", "k2", "v2")
	if got := h.do(a, "BLPOP", "k0", "k2", "k1", "0"); got != lBulks("k2", "v2") {
		t.Fatalf("first attempt: %q", got)
	}
	// BLMPOP takes up to count from one key.
	ch = h.goDo(a, "BLMPOP", "0", "2", "m1", "m2", "RIGHT", "COUNT", "2")
	h.waitBlocked(a)
	h.do(b, "RPUSH", "m2", "1", "2", "3")
	if got := h.recv(ch); got != rArr(rBulk("m2"), lBulks("3", "2")) {
		t.Fatalf("BLMPOP: %q", got)
	}
}

// TestBlockKeyChanges: deleting, overwriting or retyping a key does not
// wake its waiters (Valkey 7+); WRONGTYPE is only for the first attempt.
func TestBlockKeyChanges(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	h.do(b, "SET", "s", "v")
	if got := h.do(a, "BLPOP", "nol", "s", "0"); got != rErr(ErrWrongType) {
		t.Fatalf("first attempt on a string: %q", got)
	}
	ch := h.goDo(a, "BLPOP", "l", "0")
	h.waitBlocked(a)
	h.do(b, "SET", "l", "str")
	h.do(b, "HSET", "l2", "f", "v")
	h.do(b, "DEL", "l")
	h.noReply(ch)
	h.do(b, "RPUSH", "l", "x")
	if got := h.recv(ch); got != lBulks("l", "x") {
		t.Fatalf("BLPOP: %q", got)
	}
	// A served BLMOVE whose destination became another type gets
	// WRONGTYPE, and the source keeps its element.
	ch = h.goDo(a, "BLMOVE", "src", "dst", "LEFT", "LEFT", "0")
	h.waitBlocked(a)
	h.do(b, "SET", "dst", "str")
	h.do(b, "RPUSH", "src", "e")
	if got := h.recv(ch); got != rErr(ErrWrongType) {
		t.Fatalf("BLMOVE to a string: %q", got)
	}
	if got := h.do(b, "LRANGE", "src", "0", "-1"); got != lBulks("e") {
		t.Fatalf("src: %q", got)
	}
	waitersGone(t, h.ks)
}

// TestBlockDatabases: a waiter waits in its own database.
func TestBlockDatabases(t *testing.T) {
	h := newLHHarness(t)
	a, b := h.client(), h.client()
	a.c.DB = 3
	ch := h.goDo(a, "BLPOP", "l", "0")
	h.waitBlocked(a)
	h.do(b, "RPUSH", "l", "db0")
	h.noReply(ch)
	b.c.DB = 3
	h.do(b, "RPUSH", "l", "db3")
	if got := h.recv(ch); got != lBulks("l", "db3") {
		t.Fatalf("BLPOP: %q", got)
	}
	b.c.DB = 0
	if got := h.do(b, "LLEN", "l"); got != rInt(1) {
		t.Fatalf("db0 list: %q", got)
	}
	// SWAPDB-like: the data appears in the waiter's database by a whole
	// database change; SignalDBReady makes the waiters' keys ready.
	ch = h.goDo(a, "BLPOP", "l", "0")
	h.waitBlocked(a)
	h.ks.LockAll()
	h.ks.SwapDB(0, 3)
	b.c.SignalDBReady(0)
	b.c.SignalDBReady(3)
	var all LockSet
	all.All()
	b.c.ServeReady(&all)
	h.ks.UnlockAll()
	if got := h.recv(ch); got != lBulks("l", "db0") {
		t.Fatalf("after swap: %q", got)
	}
}

// TestBlockMoveChain: BLMOVE moves the element it was served with, and
// the push to its destination serves that key's waiters in turn.
func TestBlockMoveChain(t *testing.T) {
	h := newLHHarness(t)
	a, c, p := h.client(), h.client(), h.client()
	chA := h.goDo(a, "BLMOVE", "src", "mid", "RIGHT", "LEFT", "0")
	h.waitBlocked(a)
	chC := h.goDo(c, "BRPOPLPUSH", "mid", "dst", "0")
	h.waitBlocked(c)
	h.do(p, "RPUSH", "src", "1", "2")
	if got := h.recv(chA); got != rBulk("2") {
		t.Fatalf("BLMOVE: %q", got)
	}
	if got := h.recv(chC); got != rBulk("2") {
		t.Fatalf("BRPOPLPUSH: %q", got)
	}
	for key, want := range map[string]string{"src": lBulks("1"), "mid": rArr(), "dst": lBulks("2")} {
		if got := h.do(p, "LRANGE", key, "0", "-1"); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	// Rotating a list onto itself serves nobody twice.
	if got := h.do(p, "BLMOVE", "src", "src", "LEFT", "RIGHT", "0"); got != rBulk("1") {
		t.Fatalf("rotate: %q", got)
	}
	waitersGone(t, h.ks)
}

// stripeKeys returns two keys with stripe(lo) < stripe(hi).
func stripeKeys(ks *Keyspace, prefix string) (lo, hi string) {
	for i := 0; ; i++ {
		a, b := prefix+strconv.Itoa(i), prefix+"x"+strconv.Itoa(i)
		sa, sb := ks.StripeOf([]byte(a)), ks.StripeOf([]byte(b))
		switch {
		case sa < sb:
			return a, b
		case sb < sa:
			return b, a
		}
	}
}

// TestBlockMoveRetry forces the corner where the pusher cannot take the
// destination's stripe: the waiter is woken to serve itself.
func TestBlockMoveRetry(t *testing.T) {
	h := newLHHarness(t)
	a, p := h.client(), h.client()
	dst, src := stripeKeys(h.ks, "k") // stripe(dst) < stripe(src)
	ch := h.goDo(a, "BLMOVE", src, dst, "LEFT", "LEFT", "0")
	h.waitBlocked(a)
	ds := h.ks.StripeOf([]byte(dst))
	h.ks.LockStripe(ds) // someone else holds the destination
	done := h.goDo(p, "RPUSH", src, "v")
	if got := h.recv(done); got != rInt(1) {
		t.Fatalf("RPUSH: %q", got)
	}
	h.noReply(ch) // woken to retry, now waiting for the stripe
	h.ks.UnlockStripe(ds)
	if got := h.recv(ch); got != rBulk("v") {
		t.Fatalf("BLMOVE after retry: %q", got)
	}
	if got := h.do(p, "LRANGE", dst, "0", "-1"); got != lBulks("v") {
		t.Fatalf("dst: %q", got)
	}
	waitersGone(t, h.ks)
}

// TestBlockStress: consumers blocked on random pairs of keys and producers
// pushing concurrently; every element is delivered exactly once.
func TestBlockStress(t *testing.T) {
	h := newLHHarness(t)
	const consumers, producers, perProducer = 8, 4, 200
	keys := []string{"s0", "s1", "s2", "s3"}
	results := make(chan string, producers*perProducer)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < consumers; i++ {
		cl := h.client()
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				k1, k2 := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
				got := h.do(cl, "BLPOP", k1, k2, "0.05")
				if got != lNullArr {
					results <- got
				}
			}
		}()
	}
	var pw sync.WaitGroup
	for i := 0; i < producers; i++ {
		cl := h.client()
		pw.Add(1)
		go func() {
			defer pw.Done()
			for j := 0; j < perProducer; j++ {
				h.do(cl, "RPUSH", keys[(i+j)%len(keys)], fmt.Sprintf("p%d-%d", i, j))
			}
		}()
	}
	pw.Wait()
	seen := map[string]bool{}
	deadline := time.After(10 * time.Second)
	for len(seen) < producers*perProducer {
		select {
		case r := <-results:
			if seen[r] {
				t.Fatalf("delivered twice: %q", r)
			}
			seen[r] = true
		case <-deadline:
			t.Fatalf("only %d of %d delivered", len(seen), producers*perProducer)
		}
	}
	close(stop)
	wg.Wait()
	waitersGone(t, h.ks)
	p := h.client()
	for _, k := range keys {
		if got := h.do(p, "LLEN", k); got != rInt(0) {
			t.Errorf("%s left %q", k, got)
		}
	}
}
