package server

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/pubsub"
)

// The CLIENT command family. Every subcommand runs on the caller's own
// goroutine; other clients are reached through the registry (Server.mu,
// copied out before anything else is locked), their mutex-guarded mirror
// fields and their atomics, never through the fields their goroutine owns.

// Client types, as Valkey's getClientTypeByName names them. A replica is
// a connection that ran SYNC or PSYNC; the primary is a replica's link to
// its primary (the stand-in primaryClientView describes).
const (
	clientTypeNormal = iota
	clientTypeReplica
	clientTypePubsub
	clientTypePrimary
)

func clientTypeByName(name []byte) int {
	switch {
	case db.EqualFold(name, "normal"):
		return clientTypeNormal
	case db.EqualFold(name, "slave"), db.EqualFold(name, "replica"):
		return clientTypeReplica
	case db.EqualFold(name, "pubsub"):
		return clientTypePubsub
	case db.EqualFold(name, "master"), db.EqualFold(name, "primary"):
		return clientTypePrimary
	}
	return -1
}

// clientType is Valkey's getClientType: the primary, a replica, a
// subscriber, or normal. CLIENT KILL TYPE normal (which Sentinel sends
// with every REPLICAOF) thus leaves the replication links alone.
func (c *Client) clientType() int {
	switch {
	case c.primaryLink:
		return clientTypePrimary
	case c.replica.Load() != nil:
		return clientTypeReplica
	case c.subscribed():
		return clientTypePubsub
	}
	return clientTypeNormal
}

// The primary's client. Valkey's replica runs its primary's stream on a
// client of its own, which CLIENT LIST shows (flag M) and CLIENT KILL
// (TYPE master, ID, ADDR, ...) closes: the replica then reconnects with a
// partial resync. Corvid applies the stream on a fake client outside the
// registry; while a link streams it keeps a stand-in (primaryLink.view)
// with the identity Valkey's primary client has: an id of its own, the
// link's connection and addresses, the time the stream started. The
// stand-in is never run nor registered, only listed and matched; killing
// it closes the link's connection.

// primaryClientView makes the stand-in of a link streaming over conn.
func (s *Server) primaryClientView(conn net.Conn) *Client {
	c := &Client{srv: s, id: s.nextID.Add(1), conn: conn, created: time.Now().UnixMilli(),
		primaryLink: true}
	c.proto.Store(2)
	c.mu.user = "(superuser)" // Valkey's primary client has no ACL user
	c.lastActive.Store(c.created)
	return c
}

// primaryClient returns the stand-in of the link's client while the
// server is a replica whose link streams, nil otherwise.
func (s *Server) primaryClient() *Client {
	s.repl.mu.Lock()
	l := s.repl.link
	s.repl.mu.Unlock()
	if l == nil {
		return nil
	}
	v := l.view.Load()
	if v != nil {
		v.lastActive.Store(l.lastIO.Load()) // idle: since the last byte from the primary
	}
	return v
}

// connectedClients is INFO's connected_clients, counted as Valkey does:
// the connections but replicas, and a replica's primary.
func (s *Server) connectedClients() int64 {
	n := s.nclients.Load() - int64(len(s.replicasSnapshot()))
	if s.primaryClient() != nil {
		n++
	}
	return max(n, 0)
}

// listedClients is the registry (clientsSnapshot) with the primary's
// client, in id order.
func (s *Server) listedClients() []*Client {
	out := s.clientsSnapshot()
	if v := s.primaryClient(); v != nil {
		i, _ := slices.BinarySearchFunc(out, v.id, func(c *Client, id int64) int { return cmp.Compare(c.id, id) })
		out = slices.Insert(out, i, v)
	}
	return out
}

// clientsSnapshot returns the connected clients in connection (id) order,
// which is the order Valkey lists them in.
func (s *Server) clientsSnapshot() []*Client {
	s.mu.Lock()
	out := make([]*Client, 0, len(s.mu.clients))
	for _, c := range s.mu.clients {
		out = append(out, c)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *Client) int { return int(a.id - b.id) })
	return out
}

func (s *Server) clientByID(id int64) *Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.clients[id]
}

// publishState copies the connection-owned state that CLIENT LIST shows for
// other connections (MULTI, WATCH, closing, last command) into c.mu, where
// other goroutines may read it. last may be nil to keep the previous
// command name.
//
// The connection loop calls it once per batch (Client.publish).
func (c *Client) publishState(last *cmd) {
	var flags uint8
	multi := 0
	if c.multi != nil {
		flags |= pubMulti
		multi = len(c.multi.cmds)
	}
	if c.closeAfter {
		flags |= pubClose
	}
	watching := c.watchCount()
	c.mu.Lock()
	c.mu.flags = flags
	c.mu.multiCount = int32(multi)
	c.mu.watchCount = int32(watching)
	if last != nil {
		c.mu.lastCmd = last
	}
	c.mu.Unlock()
}

// The flags publishState publishes (mu.flags).
const (
	pubMulti = 1 << iota // x: inside MULTI
	pubClose             // c: closes after its replies
)

// infoLine renders one CLIENT LIST / CLIENT INFO line (without the newline)
// with Valkey 8.0's fields in Valkey 8.0's order. self is the client running
// the command: its own goroutine-owned fields are read directly; for any
// other client only the mirrors and atomics are used.
func (c *Client) infoLine(self *Client, curCmd string) string {
	now := time.Now()
	isSelf := c == self

	c.mu.Lock()
	name, libName, libVer, user := c.mu.name, c.mu.libName, c.mu.libVer, c.mu.user
	flagBits, multiCount, watchCount, lastCmdP := c.mu.flags, c.mu.multiCount, c.mu.watchCount, c.mu.lastCmd
	var pubFlags, lastCmd string
	if flagBits&pubMulti != 0 {
		pubFlags += "x"
	}
	if flagBits&pubClose != 0 {
		pubFlags += "c"
	}
	if lastCmdP != nil {
		lastCmd = lastCmdP.name
	}
	noEvict, noTouch := c.mu.noEvict, c.mu.noTouch
	c.mu.Unlock()

	multi := -1
	var qbuf, qbufFree, argvMem, multiMem, obl int
	omem := c.omemPub.Load()
	respVer := int(c.proto.Load())
	if isSelf {
		pubFlags = ""
		if c.multi != nil {
			pubFlags += "x"
			multi = len(c.multi.cmds)
			for _, q := range c.multi.cmds {
				for _, a := range q.argv {
					multiMem += len(a)
				}
			}
		}
		if c.closeAfter {
			pubFlags += "c"
		}
		watchCount = int32(c.watchCount())
		if c.rd.Buffered() > 0 {
			// Input after the running command (a pipeline): Valkey's
			// shared query buffer shows 0 and 0 to its own client.
			qbuf, qbufFree = c.rd.Pending(), c.rd.Free()
		}
		for _, a := range c.ctx.Argv {
			argvMem += len(a)
		}
		pending := c.pendingOutput()
		obl = min(pending, replyBufSize)
		omem = c.omem()
		respVer = c.w.Proto
		lastCmd = curCmd
	} else {
		if strings.Contains(pubFlags, "x") {
			multi = int(multiCount)
		}
		if lastCmd == "" {
			lastCmd = "NULL"
		}
		argvMem = int(c.argvMem.Load())
		v := c.qbufPub.Load()
		qbuf, qbufFree = int(v>>32), int(uint32(v))
	}

	// Flag letters in catClientInfoString's order.
	var fl []byte
	if c.monitoring.Load() {
		fl = append(fl, 'O')
	} else if c.replica.Load() != nil {
		fl = append(fl, 'S')
	}
	if c.primaryLink {
		fl = append(fl, 'M')
	}
	if c.subscribed() {
		fl = append(fl, 'P')
	}
	if strings.Contains(pubFlags, "x") {
		fl = append(fl, 'x')
	}
	if c.blocked.Load() || c.postponed.Load() {
		fl = append(fl, 'b')
	}
	fl, redir := c.trackingListFlags(fl)
	if c.watchDirty() {
		fl = append(fl, 'd')
	}
	if strings.Contains(pubFlags, "c") || c.killed.Load() {
		fl = append(fl, 'c')
	}
	if noEvict {
		fl = append(fl, 'e')
	}
	if noTouch {
		fl = append(fl, 'T')
	}
	if len(fl) == 0 {
		fl = append(fl, 'N')
	}

	// tot-mem approximates Valkey's getClientMemoryUsage: reply buffer,
	// output beyond it, pending query bytes, the client struct, arguments
	// and MULTI queue.
	rbs, rbp := c.rbuf.published()
	if isSelf {
		rbs, rbp = c.rbuf.size, c.rbuf.peak
	}
	totMem := rbs + 2048 + argvMem + multiMem + int(omem)
	// oll: Valkey's reply list holds blocks of at least 16 KiB.
	oll := (omem + replyBufSize - 1) / replyBufSize
	totMem += qbuf + qbufFree
	netIn, netOut, cmds := c.trafficCounters()

	var b strings.Builder
	b.Grow(400)
	kv := func(k string, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
	ki := func(k string, v int64) { kv(k, strconv.FormatInt(v, 10)) }
	ki("id", c.id)
	kv("addr", c.peerAddr())
	kv("laddr", c.localAddr())
	ki("fd", int64(connFD(c.conn)))
	kv("name", name)
	ki("age", (now.UnixMilli()-c.created)/1000)
	ki("idle", max(0, (now.UnixMilli()-c.lastActive.Load())/1000))
	kv("flags", string(fl))
	ki("db", int64(c.dbIndex.Load()))
	ki("sub", int64(c.subs.Count(pubsub.Channel)))
	ki("psub", int64(c.subs.Count(pubsub.Pattern)))
	ki("ssub", int64(c.subs.Count(pubsub.Shard)))
	ki("multi", int64(multi))
	ki("watch", int64(watchCount))
	ki("qbuf", int64(qbuf))
	ki("qbuf-free", int64(qbufFree))
	ki("argv-mem", int64(argvMem))
	ki("multi-mem", int64(multiMem))
	ki("rbs", int64(rbs))
	ki("rbp", int64(rbp))
	ki("obl", int64(obl))
	ki("oll", oll)
	ki("omem", omem)
	ki("tot-mem", int64(totMem))
	kv("events", "r")
	kv("cmd", lastCmd)
	kv("user", user)
	ki("redir", redir)
	ki("resp", int64(respVer))
	kv("lib-name", libName)
	kv("lib-ver", libVer)
	// Valkey 8.0 added the per-client traffic counters (Redis 7.x lacks them).
	ki("tot-net-in", netIn)
	ki("tot-net-out", netOut)
	ki("tot-cmds", cmds)
	return b.String()
}

// trafficCounters returns the bytes read from and written to the client
// and the commands it ran.
//
// Valkey 8 keeps these per client (tot-net-in, tot-net-out, tot-cmds).
func (c *Client) trafficCounters() (in, out, cmds int64) {
	return c.netIn.Load(), c.netOut.Load(), c.cmds.Load()
}

// connFD returns the socket's file descriptor, or -1.
func connFD(conn net.Conn) int {
	if t, ok := conn.(interface{ NetConn() net.Conn }); ok {
		conn = t.NetConn() // TLS: the socket under it
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if raw.Control(func(f uintptr) { fd = int(f) }) != nil {
		return -1
	}
	return fd
}

// isLocal reports a loopback (or unix socket) peer, for the "local"
// settings of enable-debug-command and enable-protected-configs.
func (c *Client) isLocal() bool {
	switch a := c.conn.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// CLIENT ID
func clientIDCommand(c *Client) { c.w.Int(c.id) }

// CLIENT INFO
func clientInfoCommand(c *Client) {
	c.w.Verbatim("txt", c.infoLine(c, "client|info")+"\n")
}

// CLIENT LIST [TYPE type] [ID id ...]
func clientListCommand(c *Client) {
	argv := c.ctx.Argv
	s := c.srv
	var clients []*Client
	switch {
	case len(argv) == 4 && db.EqualFold(argv[2], "type"):
		t := clientTypeByName(db.CString(argv[3]))
		if t == -1 {
			c.w.Error("ERR Unknown client type '" + cstr(argv[3]) + "'")
			return
		}
		for _, o := range s.listedClients() {
			if o.clientType() == t {
				clients = append(clients, o)
			}
		}
	case len(argv) > 3 && db.EqualFold(argv[2], "id"):
		// Valkey lists the ids in the order given, repeating duplicates.
		for _, a := range argv[3:] {
			id, ok := db.ParseInt(a)
			if !ok {
				c.w.Error("ERR Invalid client ID")
				return
			}
			if o := s.clientByID(id); o != nil {
				clients = append(clients, o)
			} else if v := s.primaryClient(); v != nil && v.id == id {
				clients = append(clients, v)
			}
		}
	case len(argv) != 2:
		c.w.Error(db.ErrSyntax)
		return
	default:
		clients = s.listedClients()
	}
	var b strings.Builder
	for _, o := range clients {
		b.WriteString(o.infoLine(c, "client|list"))
		b.WriteByte('\n')
	}
	c.w.Verbatim("txt", b.String())
}

// CLIENT SETNAME name
func clientSetnameCommand(c *Client) {
	name := c.ctx.Argv[2]
	if !validClientName(name) {
		c.w.Error("ERR Client names cannot contain spaces, newlines or special characters.")
		return
	}
	c.mu.Lock()
	c.mu.name = string(name) // an empty name removes it
	c.mu.Unlock()
	c.w.OK()
}

// CLIENT GETNAME
func clientGetnameCommand(c *Client) {
	c.mu.Lock()
	name := c.mu.name
	c.mu.Unlock()
	if name == "" {
		c.w.Null()
		return
	}
	c.w.BulkString(name)
}

// CLIENT SETINFO LIB-NAME|LIB-VER value (Valkey 8 / Redis 7.2; Redis 7.0
// has no SETINFO).
func clientSetinfoCommand(c *Client) {
	argv := c.ctx.Argv
	attr, val := db.CString(argv[2]), argv[3] // strcasecmp'd, as Valkey
	var dst *string
	switch {
	case db.EqualFold(attr, "lib-name"):
		dst = &c.mu.libName
	case db.EqualFold(attr, "lib-ver"):
		dst = &c.mu.libVer
	default:
		c.w.Error("ERR Unrecognized option '" + cstr(attr) + "'")
		return
	}
	if !validClientName(val) {
		c.w.Error("ERR " + string(attr) + " cannot contain spaces, newlines or special characters.")
		return
	}
	c.mu.Lock()
	*dst = string(val)
	c.mu.Unlock()
	c.w.OK()
}

// CLIENT KILL addr
// CLIENT KILL [ID id] [TYPE type] [ADDR addr] [LADDR addr] [USER name]
//
//	[SKIPME yes|no] [MAXAGE seconds]
func clientKillCommand(c *Client) {
	argv := c.ctx.Argv
	var (
		addr, laddr, user string
		hasAddr, hasLaddr bool
		hasUser           bool
		typ               = -1
		id, maxAge        int64
		skipMe            = true
	)
	oldForm := len(argv) == 3
	if oldForm {
		addr, hasAddr = string(argv[2]), true
		skipMe = false // the old form may kill the caller itself
	} else {
		for i := 2; i < len(argv); i += 2 {
			opt := argv[i]
			if i+1 >= len(argv) {
				c.w.Error(db.ErrSyntax)
				return
			}
			val := argv[i+1]
			switch {
			case db.EqualFold(opt, "id"):
				n, ok := db.ParseInt(val)
				if !ok || n < 1 {
					c.w.Error("ERR client-id should be greater than 0")
					return
				}
				id = n
			case db.EqualFold(opt, "maxage"): // Valkey 8 / Redis 7.4
				n, ok := db.ParseInt(val)
				if !ok {
					c.w.Error("ERR maxage is not an integer or out of range")
					return
				}
				if n <= 0 {
					c.w.Error("ERR maxage should be greater than 0")
					return
				}
				maxAge = n
			case db.EqualFold(opt, "type"):
				typ = clientTypeByName(db.CString(val))
				if typ == -1 {
					c.w.Error("ERR Unknown client type '" + cstr(val) + "'")
					return
				}
			case db.EqualFold(opt, "addr"):
				addr, hasAddr = string(val), true
			case db.EqualFold(opt, "laddr"):
				laddr, hasLaddr = string(val), true
			case db.EqualFold(opt, "user"):
				if c.srv.acl.Get(string(val)) == nil {
					c.w.Error("ERR No such user '" + string(val) + "'")
					return
				}
				user, hasUser = string(val), true
			case db.EqualFold(opt, "skipme"):
				switch {
				case db.EqualFold(val, "yes"):
					skipMe = true
				case db.EqualFold(val, "no"):
					skipMe = false
				default:
					c.w.Error(db.ErrSyntax)
					return
				}
			default:
				c.w.Error(db.ErrSyntax)
				return
			}
		}
	}

	nowSec := time.Now().Unix()
	killed := 0
	for _, o := range c.srv.listedClients() {
		// A client already killed is on its way out (Valkey frees it at
		// once); it must not be matched or counted twice.
		if o.killed.Load() || (o == c && c.closeAfter) {
			continue
		}
		if hasAddr && o.peerAddr() != addr {
			continue
		}
		if hasLaddr && o.localAddr() != laddr {
			continue
		}
		if typ != -1 && o.clientType() != typ {
			continue
		}
		if id != 0 && o.id != id {
			continue
		}
		if hasUser {
			o.mu.Lock()
			u := o.mu.user
			o.mu.Unlock()
			if u != user {
				continue
			}
		}
		if o == c && skipMe {
			continue
		}
		if maxAge != 0 && nowSec-o.created/1000 < maxAge {
			continue
		}
		if o == c {
			c.closeAfter = true // after this reply is written
		} else {
			o.kill()
			if rep := o.replica.Load(); rep != nil {
				// A replica's stream runs on a connection of its own
				// (a loop client's is a duplicate of its socket).
				rep.close()
			}
		}
		killed++
	}
	if oldForm {
		if killed == 0 {
			c.w.Error("ERR No such client")
		} else {
			c.w.OK()
		}
		return
	}
	c.w.Int(int64(killed))
}

// CLIENT PAUSE timeout [WRITE|ALL]
func clientPauseCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 4 {
		c.subcommandSyntaxError()
		return
	}
	writeOnly := false
	if len(argv) == 4 {
		switch {
		case db.EqualFold(argv[3], "write"):
			writeOnly = true
		case db.EqualFold(argv[3], "all"):
		default:
			c.w.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	ms, ok := db.ParseInt(argv[2])
	if !ok {
		c.w.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		c.w.Error("ERR timeout is negative")
		return
	}
	if ms > 1<<62/int64(time.Millisecond) {
		ms = 1 << 62 / int64(time.Millisecond) // far enough to be forever
	}
	c.srv.pause.pause(time.Duration(ms)*time.Millisecond, writeOnly)
	c.w.OK()
}

// CLIENT UNPAUSE
func clientUnpauseCommand(c *Client) {
	c.srv.pause.unpause()
	c.w.OK()
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]
func clientUnblockCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 4 {
		c.subcommandSyntaxError()
		return
	}
	reason := db.UnblockTimeout
	if len(argv) == 4 {
		switch {
		case db.EqualFold(argv[3], "timeout"):
		case db.EqualFold(argv[3], "error"):
			reason = db.UnblockError
		default:
			c.w.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	id, ok := db.ParseInt(argv[2])
	if !ok {
		c.w.Error(db.ErrNotInt)
		return
	}
	t := c.srv.clientByID(id)
	if t == nil || !t.blocked.Load() {
		c.w.Int(0)
		return
	}
	select {
	case t.unblockCh() <- reason:
	default: // a wake-up is already pending
	}
	c.w.Int(1)
}

// CLIENT REPLY ON|OFF|SKIP
func clientReplyCommand(c *Client) {
	arg := c.ctx.Argv[2]
	switch {
	case db.EqualFold(arg, "on"):
		c.replyMode, c.skipNext = replyOn, false
		c.w.OK()
	case db.EqualFold(arg, "off"):
		c.replyMode = replyOff // no reply, as in Valkey
	case db.EqualFold(arg, "skip"):
		if c.replyMode != replyOff {
			c.skipNext = true
		}
	default:
		if c.replyMode != replyOff { // while OFF, errors are silenced too
			c.w.Error(db.ErrSyntax)
		}
	}
}

// CLIENT NO-EVICT ON|OFF
func clientNoEvictCommand(c *Client) {
	on, ok := onOff(c.ctx.Argv[2])
	if !ok {
		c.w.Error(db.ErrSyntax)
		return
	}
	c.mu.Lock()
	c.mu.noEvict = on
	c.mu.Unlock()
	c.w.OK()
}

// CLIENT NO-TOUCH ON|OFF (Valkey 8 / Redis 7.2)
func clientNoTouchCommand(c *Client) {
	on, ok := onOff(c.ctx.Argv[2])
	if !ok {
		c.w.Error(db.ErrSyntax)
		return
	}
	c.mu.Lock()
	c.mu.noTouch = on
	c.mu.Unlock()
	c.ctx.NoTouch = on
	c.w.OK()
}

func onOff(b []byte) (on, ok bool) {
	switch {
	case db.EqualFold(b, "on"):
		return true, true
	case db.EqualFold(b, "off"):
		return false, true
	}
	return false, false
}

// CLIENT CAPA capability [...] (Valkey 8): "redirect" is accepted and
// means nothing without replicas; unknown capabilities are ignored.
func clientCapaCommand(c *Client) { c.w.OK() }

var clientHelp = []string{
	"CACHING (YES|NO)",
	"    With tracking in OPTIN (YES) or OPTOUT (NO) mode, reverse the mode for the",
	"    keys the next command reads.",
	"CAPA <capability> [...]",
	"    Declare client capabilities (accepted and ignored).",
	"GETNAME",
	"    Reply with this connection's name, or null.",
	"GETREDIR",
	"    Reply with the id of the client that gets this connection's invalidations",
	"    (0: none, -1: tracking is off).",
	"ID",
	"    Reply with this connection's id.",
	"INFO",
	"    Reply with this connection's CLIENT LIST line.",
	"KILL <ip:port>",
	"    Close the connection coming from <ip:port>.",
	"KILL <filter> <value> [<filter> <value> ...]",
	"    Close every connection matching all filters:",
	"    * ID <client-id>",
	"    * ADDR <ip:port> (the peer) or LADDR <ip:port> (our side)",
	"    * TYPE (NORMAL|PRIMARY|REPLICA|PUBSUB)",
	"    * USER <username>",
	"    * SKIPME (YES|NO): spare the calling connection (default YES)",
	"    * MAXAGE <seconds>: only connections at least this old",
	"LIST [TYPE (NORMAL|PRIMARY|REPLICA|PUBSUB)] [ID <client-id> ...]",
	"    Reply with one line of fields per connection.",
	"NO-EVICT (ON|OFF)",
	"    Exempt this connection from client eviction.",
	"NO-TOUCH (ON|OFF)",
	"    While ON, reads by this connection leave LRU/LFU data untouched.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Hold back all commands, or only writes, for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Switch replies on or off, or drop the reply of the next command only.",
	"SETINFO (LIB-NAME|LIB-VER) <value>",
	"    Record the client library's name or version.",
	"SETNAME <name>",
	"    Name this connection (an empty name removes it).",
	"TRACKING (ON|OFF) [REDIRECT <client-id>] [BCAST] [PREFIX <prefix> ...]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Switch client-side caching support: invalidation messages for the keys this",
	"    connection reads (or, with BCAST, for all keys under the prefixes), sent",
	"    here (RESP3) or to the REDIRECT client.",
	"TRACKINGINFO",
	"    Reply with this connection's tracking flags, redirection and prefixes.",
	"UNBLOCK <client-id> [TIMEOUT|ERROR]",
	"    Wake a client waiting in a blocking command, as a timeout or an error.",
	"UNPAUSE",
	"    End a CLIENT PAUSE now.",
}

// CLIENT HELP
func clientHelpCommand(c *Client) { c.writeHelp("CLIENT", clientHelp) }
