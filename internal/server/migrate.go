package server

import (
	"net"
	"sync"
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/migrate"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password | AUTH2 username password] [KEYS key [key ...]]
//
// Valkey 8.0.1's migrateCommand: the keys that exist are serialized as
// DUMP does and restored on the target (package migrate has the
// connection cache and the exchange), then, unless COPY, deleted here
// once the target acknowledged them, and propagated as DEL of those keys
// (in the source database; expired keys met on the way are propagated
// before it, as by any command). Replies: +NOKEY when none of the keys
// exists, +OK, the target's first error, or an IOERR.
//
// Atomicity: Valkey blocks everything while it migrates, so a key cannot
// change between its DUMP and its DEL. Corvid holds the keys' stripes for
// the whole command, the network exchange included (each step bounded by
// the timeout), so no write to those keys can slip in and be lost with
// the deletion; commands on other stripes go on. This is the one command
// that waits on the network while it holds stripes. It runs off the event
// loop (netpath.go, offLoopCommands), so its own wait stalls no loop; a
// command on one of its stripes waits for it, and on a loop so do the
// loop's other clients. Inside EXEC, which holds every stripe, it stalls
// the server for the exchange, as Valkey's MIGRATE always does. A MIGRATE
// to this server itself waits for its own stripe on the target side until
// the timeout, then the RESTORE runs and the reply is an IOERR (Valkey
// ends the same way). See docs/architecture.md, "MIGRATE".
func migrateCommand(c *Client) {
	ctx := &c.ctx
	a, err := migrate.Parse(ctx.Argv)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	a.Asking = c.srv.cluster != nil
	if len(a.Keys) == 0 { // KEYS with no key
		c.w.Simple("NOKEY")
		return
	}
	cache := c.srv.migrateCache()
	if ctx.Locked { // inside EXEC, which holds every stripe and commits its unit
		c.migrateKeys(cache, &a)
		return
	}
	ks := c.srv.ks
	c.locks.Reset()
	for _, k := range a.Keys {
		c.locks.Add(ks, k)
	}
	ks.Lock(&c.locks)
	defer ks.Unlock(&c.locks) // deferred: see Client.containPanic
	if db.Invariants {
		ctx.HoldSet(&c.locks)
		defer ctx.ReleaseHeld()
	}
	// The clock of the TTLs sent: now, not when the batch was read (the
	// stripes may have taken a while).
	ctx.SetNow()
	c.unit.Alone = false // the DEL and the expired keys met make one unit
	ctx.StartProp()      // decided with the stripes held, as callData does
	c.migrateKeys(cache, &a)
	ctx.CommitUnit()
	ctx.Prop = nil
}

var argDEL = []byte("DEL")

// migrateKeys does the work of MIGRATE with the keys' stripes held.
func (c *Client) migrateKeys(cache *migrate.Cache, a *migrate.Args) {
	ctx := &c.ctx
	ks := c.srv.ks
	ctx.NoOwnOp() // MIGRATE itself is never propagated: the DEL below is
	keys := make([][]byte, 0, len(a.Keys))
	objs := make([]*db.Object, 0, len(a.Keys))
	for _, k := range a.Keys {
		if o := ctx.LookupRead(k); o != nil {
			keys, objs = append(keys, k), append(objs, o)
		}
	}
	if len(keys) == 0 {
		c.w.Simple("NOKEY")
		return
	}
	items := make([]migrate.Item, 0, len(keys))
	opts := ks.RDBOptions()
	var e rdb.Entry
	for i, k := range keys {
		o := objs[i]
		var ttl int64
		if exp := ks.ExpireOf(ctx.DB, k, o); exp != 0 {
			ttl = exp - ctx.Now
			if ttl < 0 {
				continue
			}
			ttl = max(ttl, 1)
		}
		ks.ExportEntry(ctx.DB, k, o, &e)
		p, err := rdb.DumpPayload(&e, opts)
		if err != nil {
			// The keyspace never stores what the writer refuses (see DUMP).
			panic("server: MIGRATE of " + string(k) + ": " + err.Error())
		}
		items = append(items, migrate.Item{Key: k, TTL: ttl, Payload: p})
	}
	res := cache.Migrate(a, items)
	if !a.Copy {
		var del [][]byte
		for j, ok := range res.Restored {
			if !ok {
				continue
			}
			// A key named twice is deleted once and counted (and
			// announced) twice, as Valkey's dbDelete +
			// signalModifiedKey + "del" + dirty++ does.
			k := items[j].Key
			ctx.Delete(k)
			ctx.Touch(k)
			ctx.Notify(db.NotifyGeneric, "del", k)
			del = append(del, k)
		}
		if len(del) > 0 && ctx.Propagating() {
			ctx.OwnAs(append([][]byte{argDEL}, del...)...)
		}
	}
	if res.Err != "" {
		c.w.Error(res.Err)
		return
	}
	c.w.OK()
}

// migrateState is the server's MIGRATE connection cache: made by the
// first MIGRATE, closed when the server stops.
type migrateState struct {
	mu    sync.Mutex
	cache *migrate.Cache
}

// migrateCache returns s's connection cache, making it on first use.
func (s *Server) migrateCache() *migrate.Cache {
	m := &s.migrate
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cache == nil {
		mc := migrate.NewCache(migrate.Options{Wrap: s.migrateWrap})
		m.cache = mc
		go func() {
			<-s.stop
			mc.Close()
		}()
	}
	return m.cache
}

// migrateWrap makes a new MIGRATE connection TLS when tls-cluster is on,
// as Valkey's migrateGetSocket dials with the cluster's connection type
// (the target's port is then its tls-port).
func (s *Server) migrateWrap(nc net.Conn, timeout time.Duration) (net.Conn, error) {
	if !s.cfg.TLSCluster() {
		return nc, nil
	}
	return s.dialTLS(nc, timeout)
}

// migrateCachedSockets is INFO's migrate_cached_sockets.
func (s *Server) migrateCachedSockets() int64 {
	s.migrate.mu.Lock()
	mc := s.migrate.cache
	s.migrate.mu.Unlock()
	if mc == nil {
		return 0
	}
	return int64(mc.Len())
}
