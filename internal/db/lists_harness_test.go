package db

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/resp"
)

// lhHarness runs list and hash procedures the way the dispatcher does,
// for several clients sharing one keyspace: it takes the locks the handler
// asks for (every argument's stripe, a superset of the keys), and after the
// procedure calls ServeReady before unlocking, so pushes serve blocked
// clients exactly as in the server.
type lhHarness struct {
	t   *testing.T
	ks  *Keyspace
	cmd map[string]Handler
}

// tClient is one connection: its Ctx and a fake BlockingClient.
type tClient struct {
	c  *Ctx
	fc *fakeConn
}

// fakeConn implements BlockingClient (and the optional disconnect
// notification) for in-process tests.
type fakeConn struct {
	unblock chan int
	blocked atomic.Bool
	flushes atomic.Int32
	gone    chan struct{}
}

func (f *fakeConn) Flush()                        { f.flushes.Add(1) }
func (f *fakeConn) UnblockChan() <-chan int       { return f.unblock }
func (f *fakeConn) SetBlocked(on bool)            { f.blocked.Store(on) }
func (f *fakeConn) Disconnected() <-chan struct{} { return f.gone }

func newLHHarness(t *testing.T) *lhHarness {
	t.Helper()
	h := &lhHarness{t: t, ks: New(16), cmd: make(map[string]Handler)}
	for _, g := range [][]Handler{KeyCommands, StringCommands, ListCommands, HashCommands} {
		for _, hd := range g {
			h.cmd[hd.Spec.FullName] = hd
		}
	}
	return h
}

func (h *lhHarness) client() *tClient {
	fc := &fakeConn{unblock: make(chan int, 1), gone: make(chan struct{})}
	c := &Ctx{KS: h.ks, W: resp.NewWriter(256), Client: fc}
	return &tClient{c: c, fc: fc}
}

func (h *lhHarness) handler(args []string) Handler {
	name := strings.ToLower(args[0])
	hd, ok := h.cmd[name]
	if !ok && len(args) > 1 {
		hd, ok = h.cmd[name+"|"+strings.ToLower(args[1])]
	}
	if !ok {
		h.t.Fatalf("no handler for %q", args[0])
	}
	return hd
}

func toArgv(args []string) [][]byte {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	return argv
}

// do runs one command for cl and returns its reply.
func (h *lhHarness) do(cl *tClient, args ...string) string {
	h.t.Helper()
	hd := h.handler(args)
	c := cl.c
	c.Argv = toArgv(args)
	c.Dirty = 0
	c.W.Reset()
	c.SetNow()
	switch hd.Lock {
	case LockNone:
		hd.Proc(c)
	case LockAll:
		h.ks.LockAll()
		c.Locked = true
		hd.Proc(c)
		var all LockSet
		all.All()
		c.ServeReady(&all)
		c.Locked = false
		h.ks.UnlockAll()
	default:
		var ls LockSet
		for _, a := range c.Argv[1:] {
			ls.Add(h.ks, a)
		}
		h.ks.Lock(&ls)
		hd.Proc(c)
		c.ServeReady(&ls)
		h.ks.Unlock(&ls)
	}
	return string(c.W.Bytes())
}

// exec runs cmds as a MULTI/EXEC transaction: everything locked, no
// blocking, blocked clients served once at the end.
func (h *lhHarness) exec(cl *tClient, cmds ...[]string) []string {
	h.t.Helper()
	c := cl.c
	h.ks.LockAll()
	c.Locked = true
	c.SetNow()
	var out []string
	for _, args := range cmds {
		hd := h.handler(args)
		c.Argv = toArgv(args)
		c.W.Reset()
		hd.Proc(c)
		out = append(out, string(c.W.Bytes()))
	}
	var all LockSet
	all.All()
	c.ServeReady(&all)
	c.Locked = false
	h.ks.UnlockAll()
	return out
}

// goDo runs a command on its own goroutine (a blocking one) and delivers
// its reply.
func (h *lhHarness) goDo(cl *tClient, args ...string) <-chan string {
	ch := make(chan string, 1)
	go func() { ch <- h.do(cl, args...) }()
	return ch
}

// waitBlocked waits until cl is parked in a blocking command.
func (h *lhHarness) waitBlocked(cl *tClient) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cl.fc.blocked.Load() {
		if time.Now().After(deadline) {
			h.t.Fatal("client did not block")
		}
		time.Sleep(time.Millisecond)
	}
}

// recv waits for a reply.
func (h *lhHarness) recv(ch <-chan string) string {
	h.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		h.t.Fatal("no reply")
	}
	return ""
}

// noReply checks that a blocked command is still waiting.
func (h *lhHarness) noReply(ch <-chan string) {
	h.t.Helper()
	select {
	case r := <-ch:
		h.t.Fatalf("unexpected reply %q", r)
	case <-time.After(20 * time.Millisecond):
	}
}

// run executes steps for cl, comparing replies exactly.
func (h *lhHarness) run(cl *tClient, steps []step) {
	h.t.Helper()
	for _, s := range steps {
		if got := h.do(cl, s.cmd...); got != s.want {
			h.t.Errorf("%s: got %q, want %q", strings.Join(s.cmd, " "), got, s.want)
		}
	}
}
