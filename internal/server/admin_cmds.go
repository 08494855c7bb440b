package server

import (
	"time"

	"github.com/corvid-kv/corvid/internal/db"
)

// TIME: [unix seconds, microseconds] as bulk strings.
func timeCommand(c *Client) {
	now := time.Now()
	if c.inScript {
		now = c.scriptHost.start // a script's clock stands still
	}
	c.w.ArrayLen(2)
	c.w.BulkInt(now.Unix())
	c.w.BulkInt(int64(now.Nanosecond() / 1000))
}

// LASTSAVE: the time of the last successful save. Corvid does not persist
// yet, so it is the start-up time, which is what Valkey reports before its
// first save.
func lastsaveCommand(c *Client) { c.w.Int(c.srv.ext().lastSave.Load()) }

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]
//
// On success the process exits without replying, as Valkey does: the client
// just sees the connection close. With save points set, or SAVE, the
// dataset is saved first (NOSAVE skips it); a failed save keeps the server
// running with Valkey's error, unless FORCE is given.
func shutdownCommand(c *Client) {
	var nosave, save, force, abort, withFlags, now bool
	for _, a := range c.ctx.Argv[1:] {
		switch {
		case db.EqualFold(a, "nosave"):
			nosave, withFlags = true, true
		case db.EqualFold(a, "save"):
			save, withFlags = true, true
		case db.EqualFold(a, "now"):
			now, withFlags = true, true // do not wait for lagging replicas
		case db.EqualFold(a, "force"):
			force, withFlags = true, true
		case db.EqualFold(a, "abort"):
			abort = true
		default:
			c.w.Error(db.ErrSyntax)
			return
		}
	}
	if (abort && withFlags) || (nosave && save) {
		c.w.Error(db.ErrSyntax)
		return
	}
	s := c.srv
	if abort {
		c.w.Error("ERR No shutdown in progress.")
		return
	}
	if s.scripts.Busy() {
		// A script has run past busy-reply-threshold: only SHUTDOWN
		// NOSAVE may stop the server, and it stops the script first.
		if !nosave {
			if s.scripts.BusyFunction() {
				c.w.Error(busyFunctionError)
			} else {
				c.w.Error(busyScriptError)
			}
			return
		}
		s.scripts.StopAll()
	}
	if s.rdb.loading.Load() {
		// Valkey never saves a dataset that is still loading.
		nosave, save = true, false
	}
	if !now {
		resume := s.waitReplicasForShutdown()
		defer resume()
	}
	if !nosave && (save || len(s.cfg.SavePoints()) > 0) {
		if err := s.finalSave(); err != nil && !force {
			c.w.Error("ERR Errors trying to SHUTDOWN. Check logs.")
			return
		}
	}
	s.rdb.finalSaved.Store(true)
	c.closeAfter = true
	if s.shutdownFn != nil {
		s.shutdownFn() // Run logs the shutdown and closes the server
		return
	}
	s.log.notice("User requested shutdown...")
	// Close waits for every connection goroutine, this one included, so it
	// must not run on it.
	go s.Close()
}
