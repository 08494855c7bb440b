package db

import "sync/atomic"

// Keyspace notifications and key-change observers.
//
// Procedures announce what they did as Valkey's notifyKeyspaceEvent does:
// Ctx.Notify(class, event, key) at the same points, with the same event
// names and in the same order, while they hold the key's stripe. The
// keyspace passes an event on to its Observer only when the class is
// enabled (notify-keyspace-events, SetNotifyFlags): a disabled class
// costs one atomic load. Every change to a key also reaches
// Observer.KeyChanged (Valkey's signalModifiedKey: client-side caching
// invalidation), when SetTracking(true) says someone listens.
//
// Both run with the key's stripe held (and, for FLUSHDB/FLUSHALL, every
// stripe): the observer must not block and must take only leaf locks
// (the pub/sub registry and the subscribers' outboxes).

// Notification classes: the bits of notify-keyspace-events, as
// config.Notify* (and Valkey's NOTIFY_*).
const (
	NotifyKeyspace = 1 << 0  // K
	NotifyKeyevent = 1 << 1  // E
	NotifyGeneric  = 1 << 2  // g
	NotifyString   = 1 << 3  // $
	NotifyList     = 1 << 4  // l
	NotifySet      = 1 << 5  // s
	NotifyHash     = 1 << 6  // h
	NotifyZset     = 1 << 7  // z
	NotifyExpired  = 1 << 8  // x
	NotifyEvicted  = 1 << 9  // e
	NotifyStream   = 1 << 10 // t
	NotifyKeyMiss  = 1 << 11 // m
	NotifyModule   = 1 << 13 // d
	NotifyNew      = 1 << 14 // n
)

// Observer receives keyspace events and key changes. Calls come from any
// goroutine, with stripes held.
type Observer interface {
	// KeyEvent is one notification of class (a single class bit) in
	// database db; by is the Ctx.Client of the command, nil for expiry
	// and eviction. key aliases the caller's memory: copy to keep.
	KeyEvent(class int, event string, key []byte, db int, by any)
	// KeyChanged: key in db was modified (by is the Ctx.Client of the
	// command, nil for expiry and eviction).
	KeyChanged(db int, key []byte, by any)
	// Flushed: FLUSHDB or FLUSHALL emptied database db (db < 0: all).
	Flushed(db int)
}

// notifyState is the keyspace's observer and what it wants to hear.
type notifyState struct {
	obs      Observer
	flags    atomic.Int32 // notify-keyspace-events bits
	tracking atomic.Bool
}

// SetObserver installs the observer. Call before serving.
func (ks *Keyspace) SetObserver(o Observer) { ks.notify.obs = o }

// SetNotifyFlags sets the enabled notification classes
// (notify-keyspace-events). Any goroutine.
func (ks *Keyspace) SetNotifyFlags(f int) { ks.notify.flags.Store(int32(f)) }

// SetTracking turns key-change reports to the observer on or off (on
// while any client uses CLIENT TRACKING). Any goroutine.
func (ks *Keyspace) SetTracking(on bool) { ks.notify.tracking.Store(on) }

// Notifying reports whether events of class are wanted.
func (ks *Keyspace) Notifying(class int) bool {
	f := ks.notify.flags.Load()
	return f&int32(class) != 0 && f&(NotifyKeyspace|NotifyKeyevent) != 0
}

// Event sends a notification of class for key in db if the class is
// enabled. The key's stripe is held.
func (ks *Keyspace) Event(class int, event string, key []byte, db int) {
	ks.EventBy(class, event, key, db, nil)
}

// EventBy is Event for a command run by client by (Ctx.Client).
func (ks *Keyspace) EventBy(class int, event string, key []byte, db int, by any) {
	if ks.notify.obs == nil || !ks.Notifying(class) {
		return
	}
	ks.notify.obs.KeyEvent(class, event, key, db, by)
}

// Notify sends a notification of class about key in the command's
// database (Valkey's notifyKeyspaceEvent).
func (c *Ctx) Notify(class int, event string, key []byte) {
	c.KS.EventBy(class, event, key, c.DB, c.Client)
}

// NotifyDB is Notify for a key in database db.
func (c *Ctx) NotifyDB(class int, event string, key []byte, db int) {
	c.KS.EventBy(class, event, key, db, c.Client)
}

// keyChanged is Valkey's signalModifiedKey: WATCHes and tracking.
func (ks *Keyspace) keyChanged(db int, key []byte, by any) {
	ks.touchWatched(db, key)
	if ks.notify.tracking.Load() && ks.notify.obs != nil {
		ks.notify.obs.KeyChanged(db, key, by)
	}
}

// flushed tells the observer a flush emptied db (db < 0: all).
func (ks *Keyspace) flushed(db int) {
	if ks.notify.tracking.Load() && ks.notify.obs != nil {
		ks.notify.obs.Flushed(db)
	}
}

// NotifyFlags returns the enabled notification classes.
func (ks *Keyspace) NotifyFlags() int { return int(ks.notify.flags.Load()) }
