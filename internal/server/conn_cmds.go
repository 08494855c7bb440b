package server

import (
	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
)

// writeLike is the class of commands CLIENT PAUSE WRITE holds back.
const writeLike = command.FlagWrite | command.FlagMayReplicate

// PING [message]
func pingCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 2 {
		c.w.Error("ERR wrong number of arguments for 'ping' command")
		return
	}
	if c.w.Proto < 3 && c.subs.Active() {
		// In the RESP2 subscribed context a reply must look like a
		// message: ["pong", message or ""].
		c.w.ArrayLen(2)
		c.w.BulkString("pong")
		if len(argv) == 1 {
			c.w.BulkString("")
		} else {
			c.w.Bulk(argv[1])
		}
		return
	}
	if len(argv) == 1 {
		c.w.Simple("PONG")
		return
	}
	c.w.Bulk(argv[1])
}

// ECHO message
func echoCommand(c *Client) { c.w.Bulk(c.ctx.Argv[1]) }

// SELECT index
func selectCommand(c *Client) {
	if c.srv.cluster != nil {
		if n, ok := db.ParseInt(c.ctx.Argv[1]); ok && n != 0 {
			c.w.Error("ERR SELECT is not allowed in cluster mode")
			return
		}
	}
	n, msg := db.ParseDBIndex(c.ctx.Argv[1], c.srv.ks.Databases())
	if msg != "" {
		c.w.Error(msg)
		return
	}
	c.selectDB(n)
	c.w.OK()
}

func (c *Client) selectDB(n int) {
	c.ctx.DB = n
	c.dbIndex.Store(int32(n))
}

// QUIT
func quitCommand(c *Client) {
	c.w.OK()
	c.closeAfter = true
}

// RESET
func resetCommand(c *Client) {
	c.multi = nil
	c.cluster.asking, c.cluster.readonly = false, false
	c.unwatch()
	c.srv.pubsub.UnsubscribeAll(c, &c.subs)
	c.stopMonitor()
	c.trackingOff()
	c.selectDB(0)
	c.w.Proto = 2
	c.proto.Store(2)
	c.replyMode, c.skipNext = replyOn, false
	if c.user.Load() != nil {
		// clientSetDefaultAuth: the default user, authenticated if it
		// needs no password.
		c.setUser(c.srv.acl.Default(), !c.srv.acl.AuthRequired())
	}
	c.mu.Lock()
	c.mu.name = ""
	c.mu.noEvict, c.mu.noTouch = false, false
	c.mu.Unlock()
	c.ctx.NoTouch = false
	c.w.Simple("RESET")
}

// AUTH [username] password
func authCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.w.Error(db.ErrSyntax)
		return
	}
	var user, pass []byte
	if len(argv) == 2 {
		if c.srv.acl.Default().Perms().NoPass() {
			c.w.Error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
		user, pass = []byte("default"), argv[1]
	} else {
		user, pass = argv[1], argv[2]
	}
	if !c.authenticate(user, pass) {
		c.w.Error("WRONGPASS invalid username-password pair or user is disabled.")
		return
	}
	c.w.OK()
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
func helloCommand(c *Client) {
	argv := c.ctx.Argv
	ver := int64(0)
	if len(argv) >= 2 {
		n, ok := db.ParseInt(argv[1])
		if !ok {
			c.w.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if n < 2 || n > 3 {
			c.w.Error("NOPROTO unsupported protocol version")
			return
		}
		ver = n
	}
	var user, pass, name []byte
	setName := false
	// Options are matched as C strings (strcasecmp) and a SETNAME name is
	// validated where it appears, before later options and AUTH, as
	// Valkey's helloCommand does.
	for j := 2; j < len(argv); j++ {
		more := len(argv) - j - 1
		opt := db.CString(argv[j])
		switch {
		case db.EqualFold(opt, "AUTH") && more >= 2:
			user, pass = argv[j+1], argv[j+2]
			j += 2
		case db.EqualFold(opt, "SETNAME") && more >= 1:
			name, setName = argv[j+1], true
			if !validClientName(name) {
				c.w.Error("ERR Client names cannot contain spaces, newlines or special characters.")
				return
			}
			j++
		default:
			c.w.Error("ERR Syntax error in HELLO option '" + string(opt) + "'")
			return
		}
	}
	if user != nil {
		if !c.authenticate(user, pass) {
			c.w.Error("WRONGPASS invalid username-password pair or user is disabled.")
			return
		}
	}
	if !c.authed && c.srv.acl.AuthRequired() {
		c.w.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if setName {
		c.mu.Lock()
		c.mu.name = string(name)
		c.mu.Unlock()
	}
	if ver != 0 {
		c.w.Proto = int(ver)
		c.proto.Store(int32(ver))
	}
	w := c.w
	w.MapLen(7)
	w.BulkString("server")
	if c.srv.cfg.ExtendedRedisCompatibility() {
		// Valkey 8.0's extended-redis-compatibility: HELLO says what
		// Redis-only client libraries check for.
		w.BulkString("redis")
		w.BulkString("version")
		w.BulkString(RedisVersion)
	} else {
		w.BulkString("valkey")
		w.BulkString("version")
		w.BulkString(Version)
	}
	w.BulkString("proto")
	w.Int(int64(w.Proto))
	w.BulkString("id")
	w.Int(c.id)
	w.BulkString("mode")
	w.BulkString("standalone")
	w.BulkString("role")
	w.BulkString("master")
	w.BulkString("modules")
	w.ArrayLen(0)
}

// validClientName: printable ASCII without spaces, as Valkey requires,
// checked as a C string (validateClientAttr stops at a NUL byte; the
// name kept is the whole argument).
func validClientName(b []byte) bool {
	for _, ch := range db.CString(b) {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}
