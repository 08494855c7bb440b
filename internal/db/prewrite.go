package db

import "sync/atomic"

// PreWriter is told of every change to the dataset just before it is
// made, with the changed key's stripe held: the point where a snapshot in
// progress (persistence's fork-less RDB) saves the old contents of a key
// it has not written yet. The calls must not block and must not take a
// stripe.
type PreWriter interface {
	// PreWrite: key in database db is about to be created, changed,
	// given or cleared a TTL, or deleted. old is its value (nil when the
	// key does not exist), still unchanged; it may be read, not kept.
	PreWrite(db int, key []byte, old *Object)
	// PreWriteDB: every key of database db (-1: of every database) is
	// about to go or move (FLUSHDB, FLUSHALL, SWAPDB). Every stripe is
	// held.
	PreWriteDB(db int)
}

// preWriters is the installed PreWriter (Keyspace.preWrite), boxed so an
// atomic pointer can hold it.
type preWriterBox struct{ p PreWriter }

// SetPreWriter installs p (nil removes it). Writes that start after it
// returns are reported.
func (ks *Keyspace) SetPreWriter(p PreWriter) {
	if p == nil {
		ks.preWrite.Store(nil)
		return
	}
	ks.preWrite.Store(&preWriterBox{p})
}

// preWriteSlot is the Keyspace field; a plain atomic load per write when
// nothing is installed.
type preWriteSlot = atomic.Pointer[preWriterBox]

// beforeWrite reports a change of key in db whose current value is old
// (nil: absent). The key's stripe is held.
// It inlines to one atomic load when nothing is installed.
func (ks *Keyspace) beforeWrite(db int, key []byte, old *Object) {
	if b := ks.preWrite.Load(); b != nil {
		b.preWrite(db, key, old)
	}
}

//go:noinline
func (b *preWriterBox) preWrite(db int, key []byte, old *Object) { b.p.PreWrite(db, key, old) }

// beforeWriteFind is beforeWrite for a caller that has not looked the key
// up: it finds the current value only when a PreWriter is installed.
func (ks *Keyspace) beforeWriteFind(db int, sh *shard, h uint64, key []byte) {
	if ks.preWrite.Load() != nil {
		ks.preWriteFind(db, sh, h, key)
	}
}

//go:noinline
func (ks *Keyspace) preWriteFind(db int, sh *shard, h uint64, key []byte) {
	b := ks.preWrite.Load()
	if b == nil {
		return
	}
	var old *Object
	if sh != nil {
		old = sh.keys.FindHashed(h, key)
	}
	b.p.PreWrite(db, key, old)
}

// beforeWriteDB reports a change of every key of db (-1: all). Every
// stripe is held.
func (ks *Keyspace) beforeWriteDB(db int) {
	if b := ks.preWrite.Load(); b != nil {
		b.p.PreWriteDB(db)
	}
}
