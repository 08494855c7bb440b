package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Hardening (issue 31): the settings that keep a reachable server from
// being turned against its host, replies compared byte for byte with
// valkey-server 8.0.1 where it is installed. Protected mode's refusal of
// non-loopback peers and the "local" settings seen from a remote peer
// are unit-tested in internal/server (only loopback can connect here).

// startPair starts Corvid and, when installed, Valkey 8.0.1 with args.
func startPair(t *testing.T, args ...string) map[string]*testutil.Raw {
	t.Helper()
	out := map[string]*testutil.Raw{"corvid": testutil.Dial(t, testutil.StartCorvid(t, args...).Addr)}
	if testutil.HaveValkey(t) {
		out["valkey"] = testutil.Dial(t, testutil.StartValkey(t, args...).Addr)
	}
	return out
}

// sameReplies sends each command to every server of the pair and wants
// the same exact reply from each (and want, when given, from Corvid).
func sameReplies(t *testing.T, servers map[string]*testutil.Raw, cmds [][]string, want map[int]string) {
	t.Helper()
	for i, cmd := range cmds {
		got := map[string]string{}
		for name, c := range servers {
			got[name] = c.DoExact(cmd...)
		}
		if w, ok := want[i]; ok && strings.TrimSuffix(got["corvid"], "\r\n") != strings.TrimSuffix(w, "\r\n") {
			t.Errorf("%q: Corvid replied %q, want %q", cmd, got["corvid"], w)
		}
		if v, ok := got["valkey"]; ok && v != got["corvid"] {
			t.Errorf("%q:\nCorvid: %q\nValkey: %q", cmd, got["corvid"], v)
		}
	}
}

// TestProtectedConfigs: CONFIG SET of the directives that choose where
// files are written (dir, dbfilename) is refused unless
// enable-protected-configs allows it (yes, or local from loopback), and
// the immutable ones always are.
func TestProtectedConfigs(t *testing.T) {
	target := t.TempDir()
	cmds := [][]string{
		{"CONFIG", "SET", "dir", target},
		{"CONFIG", "SET", "dbfilename", "authorized_keys"},
		{"CONFIG", "SET", "dbfilename", "x.rdb", "maxmemory", "1mb"},
		{"CONFIG", "SET", "appendfilename", "x.aof"},
		{"CONFIG", "SET", "appenddirname", "x"},
		{"CONFIG", "SET", "logfile", "/tmp/x.log"},
		{"CONFIG", "SET", "pidfile", "/tmp/x.pid"},
		{"CONFIG", "SET", "aclfile", "/tmp/x.acl"},
		{"CONFIG", "SET", "enable-protected-configs", "yes"},
		{"CONFIG", "SET", "enable-debug-command", "yes"},
		{"CONFIG", "SET", "enable-module-command", "yes"},
		{"CONFIG", "GET", "maxmemory"},
	}
	refused := "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"
	for _, mode := range []string{"no", "yes", "local"} {
		t.Run(mode, func(t *testing.T) {
			servers := startPair(t, "--enable-protected-configs", mode)
			want := map[int]string{0: "+OK"}
			if mode == "no" {
				want[0] = refused
			}
			sameReplies(t, servers, cmds, want)
		})
	}
}

// TestClassicConfigSetAttack: the attack that makes an unprotected
// server write an SSH key (or a crontab) through CONFIG SET dir +
// dbfilename + SAVE fails at its first step, and SAVE writes only the
// configured dump file.
func TestClassicConfigSetAttack(t *testing.T) {
	target := t.TempDir() // stands for /root/.ssh or /var/spool/cron
	p := testutil.StartCorvid(t, "--save", "")
	c := testutil.Dial(t, p.Addr)
	payload := "\n\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttackerKey attacker@evil\n\n"
	expect(t, c, "+OK", "SET", "x", payload)
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config", "CONFIG", "SET", "dir", target)
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config",
		"CONFIG", "SET", "dbfilename", "authorized_keys")
	// Both at once, as some scripts do: refused as a whole.
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config",
		"CONFIG", "SET", "dir", target, "dbfilename", "authorized_keys")
	expect(t, c, "+OK", "SAVE")
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Fatalf("the attack wrote into the target directory: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "dump.rdb")); err != nil {
		t.Fatalf("SAVE did not write dump.rdb in dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "authorized_keys")); err == nil {
		t.Fatal("SAVE wrote authorized_keys")
	}
	// The other route, a replica fed a crafted RDB, needs REPLICAOF: an
	// admin command a restricted user lacks (acl_test.go); for the
	// default user it is Valkey's behaviour too.
}

// TestDebugCommandSetting: enable-debug-command no refuses DEBUG with
// Valkey's text (also inside MULTI, which then aborts), yes and local
// (from loopback) allow it.
func TestDebugCommandSetting(t *testing.T) {
	cmds := [][]string{
		{"DEBUG", "SLEEP", "0"},
		{"MULTI"}, {"DEBUG", "SLEEP", "0"}, {"EXEC"},
	}
	denied := "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	for _, mode := range []string{"no", "yes", "local"} {
		t.Run(mode, func(t *testing.T) {
			want := map[int]string{0: "+OK"}
			if mode == "no" {
				want[0] = denied
			}
			sameReplies(t, startPair(t, "--enable-debug-command", mode), cmds, want)
		})
	}
}

// TestRenameCommand: rename-command renames a command (the old name is
// unknown) or disables it (renamed to ""), for clients, MULTI and
// scripts; bad renames fail start-up with Valkey's texts.
func TestRenameCommand(t *testing.T) {
	servers := startPair(t, "--rename-command", "CONFIG", "corvid-config-7f3a", "--rename-command", "FLUSHALL", "",
		"--rename-command", "debug", "", "--rename-command", "set", "put", "--enable-debug-command", "yes")
	cmds := [][]string{
		{"CONFIG", "GET", "maxmemory"},
		{"corvid-config-7f3a", "GET", "maxmemory"},
		{"CORVID-CONFIG-7F3A", "SET", "maxmemory", "0"},
		{"FLUSHALL"},
		{"DEBUG", "SLEEP", "0"},
		{"SET", "k", "v"},
		{"PUT", "k", "v"},
		{"GET", "k"},
		{"MULTI"}, {"FLUSHALL"}, {"PUT", "a", "1"}, {"EXEC"},
		{"MULTI"}, {"PUT", "a", "1"}, {"EXEC"},
		{"EVAL", "return redis.call('put', KEYS[1], 'fromlua')", "1", "k"},
		{"GET", "k"},
		{"EVAL", "return redis.pcall('set', 'k', 'x')['err'] ~= nil", "0"},
		{"EVAL", "return redis.pcall('flushall')['err'] ~= nil", "0"},
		{"DBSIZE"},
	}
	sameReplies(t, servers, cmds, map[int]string{
		1: "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n",
		3: "-ERR unknown command 'FLUSHALL', with args beginning with: \r\n",
		6: "+OK",
	})

	// Start-up refusals.
	for _, tc := range []struct{ line, want string }{
		{"rename-command nosuchcommand x", "No such command in rename-command"},
		{"rename-command get set", "Target command name already exists"},
	} {
		bad := filepath.Join(t.TempDir(), "bad.conf")
		os.WriteFile(bad, []byte(tc.line+"\n"), 0o644)
		out, code := testutil.RunCorvid(t, 30*time.Second, bad)
		if code == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: exit %d, output:\n%s", tc.line, code, out)
		}
	}
}
