package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// ACL users from a go-redis application's point of view: a user with its
// own password, commands and keys, and the attacks a restricted user (or
// one without a password) tries. Exact texts are pinned down against
// valkey-server by acl_diff_test.go; these tests check effects.

func TestACLUsersWithGoRedis(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx := testCtx(t, 20*time.Second)
	admin := newClient(t, srv.Addr, 3)
	if err := admin.Do(ctx, "ACL", "SETUSER", "app", "on", ">s3cret", "~app:*", "&app.*", "+@all", "-@admin", "-@dangerous").Err(); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []int{2, 3} {
		app := newClient(t, srv.Addr, proto, func(o *redis.Options) { o.Username, o.Password = "app", "s3cret" })
		if err := app.Set(ctx, "app:1", "v", 0).Err(); err != nil {
			t.Fatalf("RESP%d: SET in the user's keys: %v", proto, err)
		}
		if who, err := app.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != "app" {
			t.Errorf("RESP%d: WHOAMI = %q %v", proto, who, err)
		}
		if err := app.Get(ctx, "other").Err(); err == nil || err.Error() != "NOPERM No permissions to access a key" {
			t.Errorf("RESP%d: GET outside the user's keys: %v", proto, err)
		}
		if err := app.ConfigGet(ctx, "maxmemory").Err(); err == nil || !strings.HasPrefix(err.Error(), "NOPERM User app has no permissions to run the 'config|get' command") {
			t.Errorf("RESP%d: CONFIG GET: %v", proto, err)
		}
		bad := newClient(t, srv.Addr, proto, func(o *redis.Options) { o.Username, o.Password = "app", "wrong" })
		if err := bad.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
			t.Errorf("RESP%d: wrong password: %v", proto, err)
		}
	}
	if who, err := admin.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != "default" {
		t.Errorf("WHOAMI = %q %v", who, err)
	}
}

// TestACLAttacks: a user without @admin or @dangerous tries the server's
// dangerous commands, reaches outside its key patterns through
// multi-key commands, SORT patterns and scripts, and publishes or
// subscribes outside its channels. Every attempt is refused and nothing
// outside its keys changes.
func TestACLAttacks(t *testing.T) {
	srv := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	root := testutil.Dial(t, srv.Addr)
	expect(t, root, "+OK", "SET", "secret", "s")
	expect(t, root, "+OK", "ACL", "SETUSER", "mallory", "on", ">m", "~m:*", "&m.*", "+@all", "-@admin", "-@dangerous", "+sort")
	m := testutil.Dial(t, srv.Addr)
	expect(t, m, "+OK", "AUTH", "mallory", "m")
	deny := func(want string, args ...string) {
		t.Helper()
		if got := m.Do(args...); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %s (want %s...)", strings.Join(args, " "), got, want)
		}
	}
	for _, args := range [][]string{
		{"CONFIG", "SET", "dir", "/tmp"}, {"CONFIG", "GET", "requirepass"}, {"DEBUG", "SLEEP", "0"},
		{"SHUTDOWN", "NOSAVE"}, {"MONITOR"}, {"SAVE"}, {"BGSAVE"}, {"REPLICAOF", "127.0.0.1", "1"},
		{"SLAVEOF", "127.0.0.1", "1"}, {"FLUSHALL"}, {"FLUSHDB"}, {"KEYS", "*"},
		{"MIGRATE", "127.0.0.1", "1", "m:1", "0", "100"}, {"ACL", "SETUSER", "mallory", "+@all"},
		{"ACL", "DELUSER", "default"}, {"CLIENT", "KILL", "ID", "1"},
	} {
		deny("-NOPERM User mallory has no permissions to run the '", args...)
	}
	const noKey = "-NOPERM No permissions to access a key"
	for _, args := range [][]string{
		{"GET", "secret"}, {"MSET", "m:1", "x", "secret", "x"}, {"MGET", "m:1", "secret"},
		{"RENAME", "m:1", "secret"}, {"RENAME", "secret", "m:1"}, {"COPY", "secret", "m:2"},
		{"SMOVE", "m:s", "secret", "x"}, {"LMOVE", "secret", "m:l", "LEFT", "RIGHT"},
		{"SUNIONSTORE", "m:u", "secret"}, {"SORT", "secret"}, {"SORT", "m:l", "STORE", "secret"},
		{"EVAL", "return 1", "1", "secret"}, {"OBJECT", "ENCODING", "secret"}, {"DUMP", "secret"},
		{"BITOP", "AND", "m:b", "secret"}, {"PFMERGE", "m:h", "secret"}, {"GEOSEARCHSTORE", "secret", "m:g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
		{"XREAD", "STREAMS", "secret", "0"}, {"WATCH", "secret"},
	} {
		deny(noKey, args...)
	}
	deny("-ERR BY option of SORT denied due to insufficient ACL permissions.", "SORT", "m:l", "BY", "secret*")
	deny("-ERR GET option of SORT denied due to insufficient ACL permissions.", "SORT", "m:l", "GET", "secret")
	deny("-ERR ACL failure in script: No permissions to access a key", "EVAL", "return redis.call('get', 'secret')", "0")
	deny("-ERR ACL failure in script: User mallory has no permissions to run the 'flushall' command", "EVAL", "return redis.call('flushall')", "0")
	deny("-ERR ACL failure in script: No permissions to access a channel", "EVAL", "return redis.call('publish', 'other', 'x')", "0")
	deny("-NOPERM No permissions to access a channel", "PUBLISH", "other", "x")
	deny("-NOPERM No permissions to access a channel", "SUBSCRIBE", "m.ok", "other")
	deny("-NOPERM No permissions to access a channel", "PSUBSCRIBE", "*")
	deny("-NOPERM No permissions to access a channel", "SPUBLISH", "other", "x")
	// Inside MULTI the command is refused when queued, and EXEC aborts.
	expect(t, m, "+OK", "MULTI")
	deny(noKey, "DEL", "secret")
	expect(t, m, "-EXECABORT Transaction discarded because of previous errors.", "EXEC")
	expect(t, root, `"s"`, "GET", "secret")
	expect(t, root, ":1", "EXISTS", "secret")
	// Every denial is in the log (and the server kept serving).
	if got := root.Do("ACL", "LOG", "1"); !strings.Contains(got, `"username", "mallory"`) {
		t.Errorf("ACL LOG: %s", got)
	}
	expect(t, m, "+PONG", "PING")
}

// TestACLExecRecheck: rules that change between MULTI's queueing and EXEC
// are applied at EXEC, command by command.
func TestACLExecRecheck(t *testing.T) {
	srv := testutil.StartCorvid(t)
	root := testutil.Dial(t, srv.Addr)
	expect(t, root, "+OK", "ACL", "SETUSER", "u", "on", "nopass", "~*", "&*", "+@all")
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "+OK", "AUTH", "u", "x")
	expect(t, c, "+OK", "MULTI")
	expect(t, c, "+QUEUED", "SET", "a", "1")
	expect(t, c, "+QUEUED", "GET", "a")
	expect(t, c, "+QUEUED", "PUBLISH", "ch", "m")
	expect(t, root, "+OK", "ACL", "SETUSER", "u", "-get", "resetchannels")
	expect(t, c, `*[+OK, -NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to execute the command or subcommand, -NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to access one of the channels used as arguments]`, "EXEC")
	if got := root.Do("ACL", "LOG", "1"); !strings.Contains(got, `"context", "multi"`) {
		t.Errorf("ACL LOG: %s", got)
	}
}

// TestACLDisconnects: deleting a user closes its connections; revoking a
// channel closes its subscribers on that channel (and only them); CLIENT
// KILL USER closes a user's connections.
func TestACLDisconnects(t *testing.T) {
	srv := testutil.StartCorvid(t)
	root := testutil.Dial(t, srv.Addr)
	expect(t, root, "+OK", "ACL", "SETUSER", "u", "on", ">p", "~*", "&a", "&b", "+@all")
	login := func() *testutil.Raw {
		c := testutil.Dial(t, srv.Addr)
		expect(t, c, "+OK", "AUTH", "u", "p")
		return c
	}
	subA, subB, plain := login(), login(), login()
	expect(t, subA, `*["subscribe", "a", :1]`, "SUBSCRIBE", "a")
	expect(t, subB, `*["subscribe", "b", :1]`, "SUBSCRIBE", "b")
	// Adding a channel revokes nothing.
	expect(t, root, "+OK", "ACL", "SETUSER", "u", "&c")
	expect(t, root, ":1", "PUBLISH", "a", "still")
	expect(t, subA, `*["message", "a", "still"]`)
	expect(t, root, "+OK", "ACL", "SETUSER", "u", "resetchannels", "&a", "&c")
	expectClosed(t, subB)
	expect(t, root, ":1", "PUBLISH", "a", "m")
	if got := subA.Read(); got != `*["message", "a", "m"]` {
		t.Errorf("the subscriber on a still allowed channel: %s", got)
	}
	expect(t, plain, "+PONG", "PING")

	// CLIENT KILL USER.
	expect(t, root, ":2", "CLIENT", "KILL", "USER", "u")
	expectClosed(t, plain)
	expectClosed(t, subA)
	expect(t, root, "-ERR No such user 'nosuch'", "CLIENT", "KILL", "USER", "nosuch")

	// ACL DELUSER closes the user's connections; the deleted user cannot
	// log in again. "off" keeps connections, as in Valkey, but refuses
	// new logins.
	c := login()
	expect(t, root, "+OK", "ACL", "SETUSER", "u", "off")
	expect(t, c, "+PONG", "PING")
	expect(t, testutil.Dial(t, srv.Addr), "-WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "u", "p")
	expect(t, root, ":1", "ACL", "DELUSER", "u")
	expectClosed(t, c)
	expect(t, testutil.Dial(t, srv.Addr), "-WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "u", "p")
}

// TestACLBruteForce: many wrong passwords fill the ACL log only up to
// acllog-max-len (grouped while they are alike), and the server keeps
// serving everyone.
func TestACLBruteForce(t *testing.T) {
	srv := testutil.StartCorvid(t, "--acllog-max-len", "5")
	root := testutil.Dial(t, srv.Addr)
	expect(t, root, "+OK", "ACL", "SETUSER", "victim", "on", ">right", "~*", "+@all")
	atk := testutil.Dial(t, srv.Addr)
	for i := 0; i < 2000; i++ {
		user := "victim"
		if i%2 == 1 {
			user = "u" + strings.Repeat("x", i%50)
		}
		atk.Send("AUTH", user, "guess"+strings.Repeat("y", i%7))
	}
	for i := 0; i < 2000; i++ {
		if got := atk.Read(); got != "-WRONGPASS invalid username-password pair or user is disabled." {
			t.Fatalf("attempt %d: %s", i, got)
		}
	}
	// An oversized AUTH is just a wrong password.
	expect(t, atk, "-WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "victim", strings.Repeat("z", 1<<20))
	if got := root.Do("ACL", "LOG", "100"); strings.Count(got, `"reason", "auth"`) != 5 {
		t.Errorf("ACL LOG holds more than acllog-max-len entries: %.300s", got)
	}
	if got := root.Do("INFO", "stats"); !strings.Contains(got, "acl_access_denied_auth:2001") {
		t.Errorf("INFO stats lacks the failures: %.100s", got)
	}
	expect(t, testutil.Dial(t, srv.Addr), "+OK", "AUTH", "victim", "right")
	// A lower limit applies when the next entry is added (as Valkey).
	expect(t, root, "+OK", "CONFIG", "SET", "acllog-max-len", "0")
	atk.Do("AUTH", "someone-new", "again")
	expect(t, root, "*[]", "ACL", "LOG")
}

// TestACLConfigFileUsers: users declared in the configuration file, an
// ACL file with ACL LOAD/SAVE, requirepass's link with the default user,
// and the refusal to start with both or with a bad rule.
func TestACLConfigFileUsers(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "corvid.conf")
	os.WriteFile(conf, []byte("user default on >rootpw ~* &* +@all\nuser app on >apppw ~app:* +@read\n"), 0o644)
	srv := testutil.StartCorvid(t, conf)
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "-NOAUTH Authentication required.", "PING")
	expect(t, c, "+OK", "AUTH", "app", "apppw")
	expect(t, c, "(nil)", "GET", "app:1")
	expect(t, c, "-NOPERM User app has no permissions to run the 'set' command", "SET", "app:1", "v")
	expect(t, c, "+OK", "AUTH", "rootpw")
	expect(t, c, "-ERR This instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a configuration file set) in order to store users in the configuration.", "ACL", "SAVE")
	// CONFIG REWRITE writes the users back.
	expect(t, c, "+OK", "ACL", "SETUSER", "added", "on", "nopass")
	expect(t, c, "+OK", "CONFIG", "REWRITE")
	b, _ := os.ReadFile(conf)
	if !strings.Contains(string(b), "user added on nopass sanitize-payload resetchannels -@all") {
		t.Errorf("CONFIG REWRITE:\n%s", b)
	}
	// requirepass replaces the default user's passwords.
	expect(t, c, "+OK", "CONFIG", "SET", "requirepass", "newpw")
	expect(t, testutil.Dial(t, srv.Addr), "-WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "rootpw")
	expect(t, testutil.Dial(t, srv.Addr), "+OK", "AUTH", "newpw")
	expect(t, c, "+OK", "CONFIG", "SET", "requirepass", "")
	expect(t, testutil.Dial(t, srv.Addr), "+PONG", "PING")

	// An ACL file: loaded at start-up, reloaded and saved by ACL LOAD/SAVE.
	aclPath := filepath.Join(dir, "users.acl")
	os.WriteFile(aclPath, []byte("user default on nopass ~* &* +@all\nuser ro on >ro ~* -@all +@read\n"), 0o644)
	srv2 := testutil.StartCorvid(t, "--aclfile", aclPath)
	a := testutil.Dial(t, srv2.Addr)
	expect(t, a, `*["user default on nopass sanitize-payload ~* &* +@all", "user ro on sanitize-payload #`+sha256hex("ro")+` ~* resetchannels -@all +@read"]`, "ACL", "LIST")
	expect(t, a, "+OK", "ACL", "SETUSER", "w", "on", ">w", "+@write", "~w:*")
	expect(t, a, "+OK", "ACL", "SAVE")
	os.WriteFile(aclPath, []byte("user default on nopass ~* &* +@all\nuser bad on +nosuch\n"), 0o644)
	if got := a.Do("ACL", "LOAD"); !strings.HasPrefix(got, "-ERR "+aclPath+":2: Error in applying operation '+nosuch'") {
		t.Errorf("ACL LOAD of a bad file: %s", got)
	}
	expect(t, a, `*["default", "ro", "w"]`, "ACL", "USERS")
	os.WriteFile(aclPath, []byte("user default on nopass ~* &* +@all\n"), 0o644)
	expect(t, a, "+OK", "ACL", "LOAD")
	expect(t, a, `*["default"]`, "ACL", "USERS")
}

// TestACLStartupRefusals: a bad user line or users in both the
// configuration and an ACL file stop the server at start-up.
func TestACLStartupRefusals(t *testing.T) {
	bin := testutil.ServerBinary(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		conf, want string
	}{
		{"user u on bogus\n", "Error in user declaration 'u': Syntax error"},
		{"user u on\naclfile " + filepath.Join(dir, "x.acl") + "\n", "define either an ACL file or declare users directly"},
	} {
		conf := filepath.Join(dir, "c.conf")
		os.WriteFile(conf, []byte(tc.conf), 0o644)
		out, err := runBriefly(bin, conf, "--port", "0")
		if err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("%q: err %v, output:\n%s", tc.conf, err, out)
		}
	}
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// runBriefly runs the server binary, which is expected to refuse to start,
// for at most 10 seconds, and returns its output.
func runBriefly(bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	return string(out), err
}
