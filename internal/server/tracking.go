package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/tracking"
)

// Client-side caching (CLIENT TRACKING): the commands, and where the
// server feeds package tracking, which holds the table and its rules.
//
//   - Reads. A tracking client's read-only command has its keys (from the
//     key specs) remembered right after it ran, with its stripes still
//     held (Client.callData; Client.call for commands inside EXEC, whose
//     stripes EXEC holds, and for the few server procedures that read
//     keys): a write can never come between the read and the remembering
//     and be missed. CLIENT CACHING's flag lasts until the next command
//     outside MULTI, those of the CLIENT family excepted, as Valkey's
//     resetClient clears it (trackEnd, from call and from reject).
//   - Changes. The keyspace reports every change to a key
//     (db.Observer.KeyChanged, under the key's stripe) and every flush,
//     only while some client tracks or the key table still holds entries
//     of clients that stopped (Keyspace.SetTracking, told by the table):
//     a server nobody tracks pays nothing.
//   - Batches. Broadcast-mode changes are sent after the last command of
//     the batch (the commands read at once) that made them, as Valkey
//     sends them at the end of its event-loop iteration: a pipeline, an
//     MSET or a transaction gives one array per prefix. Changes made by
//     no command (active expiry, eviction before a refused command), and
//     those of a batch that stops short of its end (a partial command),
//     are sent by a timer a millisecond later, which waits (up to
//     bcastWaitMax) while a batch that made changes is between two of its
//     commands: on a loaded machine a batch's commands can be more than
//     a millisecond apart.
//   - Limit. tracking-table-max-keys is enforced after every command while
//     some client tracks (Valkey: before every command, and in its cron);
//     a table still over it after one round is trimmed again by a timer at
//     hz.
//
// Deliveries go through Client.Push: what reaches the client whose command
// caused it follows that command's reply (call takes the outbox after the
// command), as Valkey's pending invalidations do.

// trackingState is the server's tracking table, made at the first CLIENT
// TRACKING ON.
type trackingState struct {
	once   sync.Once
	tbl    atomic.Pointer[tracking.Table]
	active atomic.Bool // the table wants key changes: Client.call runs trackAfter
	// bcastTimer and limitTimer: a broadcast flush, a limit round is
	// scheduled.
	bcastTimer atomic.Bool
	limitTimer atomic.Bool
	// midBatch counts the clients whose batch made broadcast changes and
	// has more input to run (Client.trkMid): the batch's last command
	// sends them, and the timer waits for it (up to bcastWaitMax).
	midBatch atomic.Int32
}

// bcastWaitMax bounds how long the broadcast timer waits for batches in
// progress: a batch whose input ends in a partial command has input left
// after its last command, and only its next command, or this, sends.
const bcastWaitMax = 20 * time.Millisecond

// trackingTable returns the table, making it on first use.
func (s *Server) trackingTable() *tracking.Table {
	s.trk.once.Do(func() {
		s.trk.tbl.Store(tracking.NewTable(s.trackingConn, s.trackingActive))
	})
	return s.trk.tbl.Load()
}

// trackingConn finds a redirect target (nil when gone).
func (s *Server) trackingConn(id int64) tracking.Conn {
	if c := s.clientByID(id); c != nil {
		return c
	}
	return nil
}

// trackingActive turns the keyspace's change reports on and off as the
// table needs them (tracking.Table.settle); the table calls it in order.
func (s *Server) trackingActive(on bool) {
	s.trk.active.Store(on)
	s.ks.SetTracking(on)
}

// Subscribed makes a Client a tracking.Conn (with Proto and Push): whether
// a RESP2 redirect target may get invalidations as pub/sub messages.
func (c *Client) Subscribed() bool { return c.subscribed() }

// writerTracker is the tracker of the client that changed a key (by is
// db.Ctx.Client; nil for expiry and eviction).
func writerTracker(by any) *tracking.Tracker {
	if c, ok := by.(*Client); ok {
		return c.tracking.Load()
	}
	return nil
}

// trackKeyChanged is Valkey's trackingInvalidateKey, from the keyspace
// observer with key's stripe held.
func (s *Server) trackKeyChanged(db int, key []byte, by any) {
	t := s.trk.tbl.Load()
	if t == nil {
		return
	}
	t.Invalidate(key, writerTracker(by))
	if by == nil && t.Pending() {
		// No command will end to send it: expiry or eviction.
		s.scheduleBroadcast(t)
	}
}

// trackFlushed is Valkey's trackingInvalidateKeysOnFlush (FLUSHDB,
// FLUSHALL), with every stripe held.
func (s *Server) trackFlushed(db int) {
	if t := s.trk.tbl.Load(); t != nil {
		t.Flush()
	}
}

func (s *Server) scheduleBroadcast(t *tracking.Table) {
	if !s.trk.bcastTimer.CompareAndSwap(false, true) {
		return
	}
	start := time.Now()
	var fire func()
	fire = func() {
		if h := testHookBcastFire.Load(); h != nil {
			(*h)()
		}
		if s.trk.midBatch.Load() > 0 && time.Since(start) < bcastWaitMax {
			// A batch is between two of its commands: its end sends
			// what it changed, after its replies (a timer that fired in
			// between would split one batch's keys in two messages on a
			// loaded machine).
			time.AfterFunc(time.Millisecond, fire)
			return
		}
		s.trk.bcastTimer.Store(false)
		// Under every stripe: no command is halfway through its writes
		// (an EXEC's keys go out in one message, as Valkey sends them
		// between event-loop iterations). Order: stripes, then the
		// tracking table's locks (leaves).
		s.ks.LockAll()
		t.FlushBroadcast()
		s.ks.UnlockAll()
	}
	time.AfterFunc(time.Millisecond, fire)
}

// testHookBcastFire, when set by a test, runs each time the broadcast
// timer fires.
var testHookBcastFire atomic.Pointer[func()]

// setMidBatch records whether the client's batch has broadcast changes
// waiting for its later commands (trackingState.midBatch).
func (c *Client) setMidBatch(on bool) {
	if c.trkMid == on {
		return
	}
	c.trkMid = on
	if on {
		c.srv.trk.midBatch.Add(1)
	} else {
		c.srv.trk.midBatch.Add(-1)
	}
}

func (s *Server) scheduleLimit(t *tracking.Table) {
	if !s.trk.limitTimer.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(time.Second/time.Duration(max(1, s.cfg.Hz())), func() {
		s.trk.limitTimer.Store(false)
		select {
		case <-s.stop:
			return
		default:
		}
		if t.Clients() > 0 && t.Limit(s.cfg.TrackingTableMaxKeys(), nil) {
			s.scheduleLimit(t)
		}
	})
}

// trackRead remembers the keys of a read-only command the client just
// ran, if it tracks them (Valkey's trackingRememberKeys, called by call()
// after every read-only command). The command's stripes are held.
func (c *Client) trackRead(cm *cmd) {
	tr := c.tracking.Load()
	if tr == nil || cm.meta.Flags&(command.FlagReadonly|command.FlagPubsub) != command.FlagReadonly || !tr.Reads() {
		return
	}
	t := c.srv.trk.tbl.Load()
	argv := c.ctx.Argv
	c.keyPos = cm.meta.KeyPositions(argv, c.keyPos[:0])
	for _, p := range c.keyPos {
		t.Remember(tr, argv[p])
	}
}

// trackAfter runs after every command while some client tracks (before
// the command's own pushes are taken, so that what it causes to its client
// follows its reply).
func (c *Client) trackAfter(cm *cmd) {
	s := c.srv
	t := s.trk.tbl.Load()
	if t == nil {
		return
	}
	if c.ctx.Locked || cm.dbProc == nil {
		// Inside EXEC (which holds the stripes), or a server procedure:
		// callData did not remember the keys.
		c.trackRead(cm)
	}
	if c.ctx.Locked {
		return // the rest once, after EXEC
	}
	c.trackEnd(cm)
	more, pending := c.rd.Buffered() > 0, t.Pending()
	c.setMidBatch(more && pending) // before the timer can look
	if pending {
		if !more {
			t.FlushBroadcast()
		} else {
			// More of this batch follows: its last command sends the
			// keys, or the timer if the batch ends short of that.
			s.scheduleBroadcast(t)
		}
	}
	if t.Limit(s.cfg.TrackingTableMaxKeys(), c.tracking.Load()) {
		s.scheduleLimit(t)
	}
}

// trackEnd ends CLIENT CACHING's one-command effect after a command that
// ran or was refused (cm nil: unknown), except inside MULTI and after the
// CLIENT family (Valkey's resetClient).
func (c *Client) trackEnd(cm *cmd) {
	tr := c.tracking.Load()
	if tr == nil || c.multi != nil || cm != nil && cm.parent != nil && cm.parent.meta == command.Client {
		return
	}
	tr.EndCommand()
}

// trackingOff turns tracking off (RESET).
func (c *Client) trackingOff() {
	if tr := c.tracking.Load(); tr != nil {
		tr.Disable()
	}
}

// trackingClose turns tracking off for good (the connection is closing).
func (c *Client) trackingClose() {
	c.setMidBatch(false)
	if tr := c.tracking.Load(); tr != nil {
		tr.Close()
	}
}

// CLIENT TRACKING ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]]
//
//	[BCAST] [OPTIN] [OPTOUT] [NOLOOP]
func clientTrackingCommand(c *Client) {
	argv := c.ctx.Argv
	var o tracking.Options
	// Options first, in Valkey's order of checks: a bad option is refused
	// before a bad ON|OFF.
	for j := 3; j < len(argv); j++ {
		more := j < len(argv)-1
		opt := db.CString(argv[j])
		switch {
		case db.EqualFold(opt, "redirect") && more:
			j++
			if o.Redirect != 0 {
				c.w.Error("ERR A client can only redirect to a single other client")
				return
			}
			id, ok := db.ParseInt(argv[j])
			if !ok {
				c.w.Error(db.ErrNotInt)
				return
			}
			// The target must exist now; it may go later (then the
			// client hears tracking-redir-broken).
			if c.srv.clientByID(id) == nil {
				c.w.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			o.Redirect = id
		case db.EqualFold(opt, "bcast"):
			o.Bcast = true
		case db.EqualFold(opt, "optin"):
			o.Optin = true
		case db.EqualFold(opt, "optout"):
			o.Optout = true
		case db.EqualFold(opt, "noloop"):
			o.Noloop = true
		case db.EqualFold(opt, "prefix") && more:
			j++
			o.Prefixes = append(o.Prefixes, argv[j])
		default:
			c.w.Error(db.ErrSyntax)
			return
		}
	}
	switch mode := db.CString(argv[2]); {
	case db.EqualFold(mode, "on"):
		tr := c.tracking.Load()
		if tr == nil {
			tr = c.srv.trackingTable().NewTracker(c)
			c.tracking.Store(tr)
		}
		refusal, enabled := tr.Enable(&o)
		if refusal != "" {
			c.w.Error(refusal)
		}
		if enabled {
			c.w.OK()
		}
	case db.EqualFold(mode, "off"):
		c.trackingOff()
		c.w.OK()
	default:
		c.w.Error(db.ErrSyntax)
	}
}

// CLIENT CACHING YES|NO
func clientCachingCommand(c *Client) {
	tr := c.tracking.Load()
	if tr == nil || !tr.On() {
		c.w.Error(tracking.ErrCachingOff)
		return
	}
	var msg string
	switch opt := db.CString(c.ctx.Argv[2]); {
	case db.EqualFold(opt, "yes"):
		msg = tr.SetCaching(true)
	case db.EqualFold(opt, "no"):
		msg = tr.SetCaching(false)
	default:
		msg = db.ErrSyntax
	}
	if msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.OK()
}

// CLIENT GETREDIR
func clientGetredirCommand(c *Client) {
	if tr := c.tracking.Load(); tr != nil && tr.On() {
		c.w.Int(tr.Redirect())
		return
	}
	c.w.Int(-1)
}

// CLIENT TRACKINGINFO
func clientTrackinginfoCommand(c *Client) {
	flags, redirect, prefixes := []string{"off"}, int64(-1), []string(nil)
	if tr := c.tracking.Load(); tr != nil {
		flags, redirect, prefixes = tr.Info()
	}
	w := c.w
	w.MapLen(3)
	w.BulkString("flags")
	w.SetLen(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("redirect")
	w.Int(redirect)
	w.BulkString("prefixes")
	w.ArrayLen(len(prefixes))
	for _, p := range prefixes {
		w.BulkString(p)
	}
}

// trackingListFlags appends CLIENT LIST's tracking flag letters (t, R, B)
// and returns the redir= value (-1 when off). Any goroutine.
func (c *Client) trackingListFlags(fl []byte) ([]byte, int64) {
	tr := c.tracking.Load()
	if tr == nil {
		return fl, -1
	}
	f := tr.Flags()
	if f&tracking.FlagOn == 0 {
		return fl, -1
	}
	fl = append(fl, 't')
	if f&tracking.FlagBrokenRedir != 0 {
		fl = append(fl, 'R')
	}
	if f&tracking.FlagBcast != 0 {
		fl = append(fl, 'B')
	}
	return fl, tr.Redirect()
}

// trackingInfo returns INFO's tracking_clients, tracking_total_keys,
// tracking_total_items and tracking_total_prefixes.
func (s *Server) trackingInfo() (clients, keys, items, prefixes int64) {
	t := s.trk.tbl.Load()
	if t == nil {
		return 0, 0, 0, 0
	}
	return t.Clients(), t.Keys(), t.Items(), t.Prefixes()
}
