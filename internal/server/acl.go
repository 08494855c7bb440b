package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/acl"
	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/pubsub"
)

// initACL builds the users at start-up as Valkey does: requirepass sets
// the default user's password, then the configuration's "user" lines,
// or the aclfile (not both), replace what they name.
func (s *Server) initACL() error {
	cfg := s.cfg
	s.acl = acl.New()
	s.acl.SetPubsubDefault(cfg.AclPubsubDefault())
	s.acl.SetRequirePass(cfg.RequirePass())
	users := cfg.Users()
	if cfg.AclFile() != "" && len(users) > 0 {
		return errors.New("Configuring Valkey with users defined in valkey.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your valkey.conf, but not both.")
	}
	for _, u := range users {
		if i, msg := acl.ValidateConfigUser(u); i >= 0 {
			// Valkey names the argument at the rule's index among the
			// directive's words ("user" is word 0).
			word := "user"
			if i > 0 {
				word = u[i-1]
			}
			return errors.New("Error in user declaration '" + word + "': " + msg)
		}
	}
	if err := s.acl.LoadConfigured(users); err != nil {
		return err
	}
	if f := cfg.AclFile(); f != "" {
		if !filepath.IsAbs(f) && cfg.Dir() != "" {
			// Relative to dir, as at run time (the server runs in dir).
			f = filepath.Join(cfg.Dir(), f)
		}
		if _, _, msg := s.acl.LoadFile(f); msg != "" {
			return errors.New("Aborting Valkey startup because of ACL errors: " + msg)
		}
	}
	cfg.SetUsersForRewrite(s.acl.ConfigLines)
	cfg.OnChange("requirepass", func(c *config.Config) error {
		s.acl.SetRequirePass(c.RequirePass())
		return nil
	})
	cfg.OnChange("acl-pubsub-default", func(c *config.Config) error {
		s.acl.SetPubsubDefault(c.AclPubsubDefault())
		return nil
	})
	return nil
}

// aclRefused checks a command against the client's user before it runs
// or is queued (Valkey's processCommand): a denial is logged and answered
// with NOPERM. The caller has seen that the user is restricted.
func (c *Client) aclRefused(cm *cmd, argv [][]byte, p *acl.Perms) bool {
	reason, pos := p.Check(cm.meta, argv)
	if reason == acl.OK {
		return false
	}
	u := c.user.Load()
	if p.Deleted() {
		// The user was deleted while this connection authenticated as
		// it: Valkey has closed such connections.
		c.closeAfter = true
	}
	ctx := acl.Toplevel
	if c.multi != nil {
		ctx = acl.Multi
	}
	c.logDenial(reason, ctx, cm, argv, pos, u.Name())
	c.reject(cm, "NOPERM "+acl.Message(reason, u.Name(), cm.meta, argv[pos], false))
	return true
}

// execDenied checks a queued command again at EXEC, as Valkey's
// execCommand: a denial is logged and answered in place of the reply.
func (c *Client) execDenied(cm *cmd, argv [][]byte, p *acl.Perms) bool {
	reason, pos := p.Check(cm.meta, argv)
	if reason == acl.OK {
		return false
	}
	var why string
	switch reason {
	case acl.DeniedCommand:
		why = "no permission to execute the command or subcommand"
	case acl.DeniedKey:
		why = "no permission to touch the specified keys"
	case acl.DeniedChannel:
		why = "no permission to access one of the channels used as arguments"
	default:
		why = "no permission"
	}
	c.logDenial(reason, acl.Multi, cm, argv, pos, c.user.Load().Name())
	msg := "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + why
	c.srv.errs.count(msg)
	c.srv.stats.totalErrors.Add(1)
	c.w.Error(msg)
	return true
}

// FullReadAccess: whether the user may read every key with the running
// command (db.KeyAccessChecker, SORT's BY and GET).
func (c *Client) FullReadAccess() bool {
	u := c.user.Load()
	if u == nil {
		return true
	}
	p := u.Perms()
	if p.Unrestricted() {
		return true
	}
	cm := c.curCmd
	if cm == nil {
		return false
	}
	return p.UnrestrictedKeys(cm.meta, c.ctx.Argv, command.KeyAccess)
}

// logDenial adds an ACL LOG entry for a denied command, key or channel.
func (c *Client) logDenial(reason acl.Reason, ctx acl.Context, cm *cmd, argv [][]byte, pos int, user string) {
	obj := cm.name
	if reason != acl.DeniedCommand {
		obj = string(argv[pos])
	}
	c.srv.addACLLog(c, reason, ctx, obj, user, cm.name)
}

func (s *Server) addACLLog(c *Client, reason acl.Reason, ctx acl.Context, obj, user, cmdName string) {
	s.acl.Log.Add(acl.LogEntry{
		Reason: reason, Context: ctx, Object: obj, Username: user,
		ClientInfo: c.infoLine(c, cmdName),
	}, time.Now().UnixMilli(), int(s.cfg.AclLogMaxLen()))
}

// authenticate checks a user name and password (AUTH, HELLO AUTH): on
// success the connection is that user's, on failure the attempt is
// logged and false returned.
func (c *Client) authenticate(name, pass []byte) bool {
	u, ok := c.srv.acl.Authenticate(name, pass)
	if !ok {
		ctx := acl.Toplevel
		if c.multi != nil {
			ctx = acl.Multi
		}
		c.srv.addACLLog(c, acl.DeniedAuth, ctx, string(c.ctx.Argv[0]), string(name), lowerASCII(string(c.ctx.Argv[0])))
		return false
	}
	c.setUser(u, true)
	return true
}

// setUser makes u the connection's user (and authed its state).
func (c *Client) setUser(u *acl.User, authed bool) {
	c.user.Store(u)
	c.authed = authed
	c.mu.Lock()
	c.mu.user = u.Name()
	c.mu.Unlock()
}

func lowerASCII(s string) string { return strings.ToLower(s) }

// killUserClients closes the connections of deleted users, as Valkey's
// ACLFreeUserAndKillClients (the caller's own after its reply).
func (c *Client) killUserClients(gone []*acl.User) {
	if len(gone) == 0 {
		return
	}
	set := make(map[*acl.User]bool, len(gone))
	for _, u := range gone {
		set[u] = true
	}
	for _, o := range c.srv.listedClients() {
		if u := o.user.Load(); u == nil || !set[u] {
			continue
		}
		if o == c {
			c.closeAfter = true
		} else {
			o.kill()
		}
	}
}

// killRevokedSubscribers closes the connections of ch.User subscribed to
// a channel or pattern its new permissions no longer allow (Valkey's
// ACLKillPubsubClientsIfNeeded).
func (c *Client) killRevokedSubscribers(ch acl.Change) {
	if ch.User == nil || !c.srv.pubsub.Wanted() {
		return
	}
	revoked := acl.RevokedSubscriptions(ch.Old, ch.New)
	if revoked == nil {
		return
	}
	for _, o := range c.srv.listedClients() {
		if o.user.Load() != ch.User {
			continue
		}
		if c.srv.pubsub.AnySubscription(o, func(k pubsub.Kind, name string) bool {
			return revoked([]byte(name), k == pubsub.Pattern)
		}) {
			if o == c {
				c.closeAfter = true
			} else {
				o.kill()
			}
		}
	}
}

// ACL SETUSER username [rule ...]
func aclSetuserCommand(c *Client) {
	argv := c.ctx.Argv
	name := string(argv[2])
	if !acl.ValidName(name) {
		c.w.Error("ERR Usernames can't contain spaces or null characters")
		return
	}
	rules := make([]string, len(argv)-3)
	for i, a := range argv[3:] {
		rules[i] = string(a)
	}
	ch, msg := c.srv.acl.SetUser(name, rules)
	if msg != "" {
		c.w.Error("ERR " + msg)
		return
	}
	c.killRevokedSubscribers(ch)
	c.w.OK()
}

// ACL DELUSER username [username ...]
func aclDeluserCommand(c *Client) {
	names := make([]string, 0, len(c.ctx.Argv)-2)
	for _, a := range c.ctx.Argv[2:] {
		names = append(names, string(a))
	}
	gone, msg := c.srv.acl.DelUser(names)
	if msg != "" {
		c.w.Error("ERR " + msg)
		return
	}
	c.killUserClients(gone)
	c.w.Int(int64(len(gone)))
}

// ACL GETUSER username
func aclGetuserCommand(c *Client) {
	u := c.srv.acl.Get(string(c.ctx.Argv[2]))
	if u == nil {
		c.w.Null()
		return
	}
	p := u.Perms()
	w := c.w
	sels := p.Selectors()
	w.MapLen(6)
	w.BulkString("flags")
	flags := p.Flags()
	w.SetLen(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	w.BulkStrings(p.Passwords())
	writeSelector := func(sd acl.SelectorDesc) {
		w.BulkString("commands")
		w.BulkString(sd.Commands)
		w.BulkString("keys")
		w.BulkString(sd.Keys)
		w.BulkString("channels")
		w.BulkString(sd.Channels)
	}
	writeSelector(sels[0])
	w.BulkString("selectors")
	w.ArrayLen(len(sels) - 1)
	for _, sd := range sels[1:] {
		w.MapLen(3)
		writeSelector(sd)
	}
}

// ACL USERS
func aclUsersCommand(c *Client) { c.w.BulkStrings(c.srv.acl.Names()) }

// ACL LIST
func aclListCommand(c *Client) { c.w.BulkStrings(c.srv.acl.List()) }

// ACL WHOAMI
func aclWhoamiCommand(c *Client) {
	if u := c.user.Load(); u != nil {
		c.w.BulkString(u.Name())
		return
	}
	c.w.Null()
}

const noACLFile = "ERR This instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a configuration file set) in order to store users in the configuration."

// ACL LOAD
func aclLoadCommand(c *Client) {
	f := c.srv.cfg.AclFile()
	if f == "" {
		c.w.Error(noACLFile)
		return
	}
	gone, changed, msg := c.srv.acl.LoadFile(f)
	if msg != "" {
		c.w.Error("ERR " + msg)
		return
	}
	c.killUserClients(gone)
	for _, ch := range changed {
		c.killRevokedSubscribers(ch)
	}
	c.w.OK()
}

// ACL SAVE
func aclSaveCommand(c *Client) {
	f := c.srv.cfg.AclFile()
	if f == "" {
		c.w.Error(noACLFile)
		return
	}
	if err := c.srv.acl.SaveFile(f); err != nil {
		c.srv.log.warn("Saving the ACL file for ACL SAVE: %v", err)
		c.w.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.w.OK()
}

// ACL CAT [category]
func aclCatCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.subcommandSyntaxError() // Valkey's aclCommand: two or three arguments
		return
	}
	if len(argv) == 2 {
		c.w.BulkStrings(acl.Categories())
		return
	}
	names, ok := acl.CategoryCommands(string(argv[2]))
	if !ok {
		c.w.Error("ERR Unknown category '" + trunc(cstr(argv[2]), 128) + "'")
		return
	}
	c.w.BulkStrings(names)
}

// ACL GENPASS [bits]
func aclGenpassCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.subcommandSyntaxError() // Valkey's aclCommand: two or three arguments
		return
	}
	bits := int64(256)
	if len(argv) == 3 {
		n, ok := db.ParseInt(argv[2])
		if !ok {
			c.w.Error(db.ErrNotInt)
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		c.w.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
		return
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	rand.Read(buf)
	c.w.BulkString(hex.EncodeToString(buf)[:chars])
}

// ACL LOG [count | RESET]
func aclLogCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.subcommandSyntaxError() // Valkey's aclCommand: two or three arguments
		return
	}
	count := int64(10)
	if len(argv) == 3 {
		if db.EqualFold(argv[2], "reset") {
			c.srv.acl.Log.Reset()
			c.w.OK()
			return
		}
		n, ok := db.ParseInt(argv[2])
		if !ok {
			c.w.Error(db.ErrNotInt)
			return
		}
		count = max(n, 0)
	}
	if count > 1<<20 {
		count = 1 << 20
	}
	entries := c.srv.acl.Log.Entries(int(count))
	now := time.Now().UnixMilli()
	w := c.w
	w.ArrayLen(len(entries))
	for _, e := range entries {
		w.MapLen(10)
		w.BulkString("count")
		w.Int(e.Count)
		w.BulkString("reason")
		w.BulkString(e.Reason.String())
		w.BulkString("context")
		w.BulkString(e.Context.String())
		w.BulkString("object")
		w.BulkString(e.Object)
		w.BulkString("username")
		w.BulkString(e.Username)
		w.BulkString("age-seconds")
		w.Double(float64(now-e.Updated) / 1000)
		w.BulkString("client-info")
		w.BulkString(e.ClientInfo)
		w.BulkString("entry-id")
		w.Int(e.EntryID)
		w.BulkString("timestamp-created")
		w.Int(e.Created)
		w.BulkString("timestamp-last-updated")
		w.Int(e.Updated)
	}
}

// ACL DRYRUN username command [arg ...]
func aclDryrunCommand(c *Client) {
	argv := c.ctx.Argv
	denial, msg := c.srv.acl.DryRun(argv[2], argv[3:])
	switch {
	case msg != "":
		c.w.Error("ERR " + msg)
	case denial != "":
		c.w.BulkString(denial)
	default:
		c.w.OK()
	}
}

var aclHelp = []string{
	"CAT [<category>]",
	"    Without a category, the categories; with one, the commands in it.",
	"DELUSER <username> [<username> ...]",
	"    Delete users (their connections are closed).",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Whether the user may run the command, without running it.",
	"GETUSER <username>",
	"    The user's flags, passwords and selectors.",
	"GENPASS [<bits>]",
	"    A random password of 256 bits, or of the given number of bits.",
	"LIST",
	"    Every user, as a line of the ACL file.",
	"LOAD",
	"    Replace the users with the ACL file's.",
	"LOG [<count> | RESET]",
	"    The newest entries of the ACL log, or empty it.",
	"SAVE",
	"    Write the users to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create a user, or change one, with the given rules.",
	"USERS",
	"    The user names.",
	"WHOAMI",
	"    The user of this connection.",
}

// ACL HELP
func aclHelpCommand(c *Client) { c.writeHelp("ACL", aclHelp) }

// aclHandlers binds the ACL subcommands.
func aclHandlers() []srvHandler {
	return []srvHandler{
		{spec: command.AclCat, proc: aclCatCommand},
		{spec: command.AclDeluser, proc: aclDeluserCommand},
		{spec: command.AclDryrun, proc: aclDryrunCommand},
		{spec: command.AclGenpass, proc: aclGenpassCommand},
		{spec: command.AclGetuser, proc: aclGetuserCommand},
		{spec: command.AclHelp, proc: aclHelpCommand},
		{spec: command.AclList, proc: aclListCommand},
		{spec: command.AclLoad, proc: aclLoadCommand},
		{spec: command.AclLog, proc: aclLogCommand},
		{spec: command.AclSave, proc: aclSaveCommand},
		{spec: command.AclSetuser, proc: aclSetuserCommand},
		{spec: command.AclUsers, proc: aclUsersCommand},
		{spec: command.AclWhoami, proc: aclWhoamiCommand},
	}
}
