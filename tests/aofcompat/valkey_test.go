package aofcompat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// valkey is a valkey-server running in dir.
type valkey struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

type lockedWriter struct{ v *valkey }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.v.mu.Lock()
	defer w.v.mu.Unlock()
	return w.v.log.Write(b)
}

func (v *valkey) output() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.log.String()
}

// startValkey runs valkey-server in dir (which may already hold an AOF
// directory) on a free loopback port and waits until it answers PONG
// (after loading).
func startValkey(t *testing.T, dir string, args ...string) *valkey {
	t.Helper()
	v := launchValkey(t, dir, args...)
	if !v.ready(t) {
		t.Fatalf("valkey-server exited:\n%s", v.output())
	}
	return v
}

// launchValkey starts valkey-server without waiting for it.
func launchValkey(t *testing.T, dir string, args ...string) *valkey {
	t.Helper()
	bin := testutil.ValkeyServerPath(t)
	port := testutil.FreePort(t)
	full := append([]string{"--save", "", "--daemonize", "no", "--appendfsync", "always"}, args...)
	full = append(full, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir)
	v := &valkey{addr: "127.0.0.1:" + strconv.Itoa(port), done: make(chan struct{})}
	v.cmd = exec.Command(bin, full...)
	v.cmd.Dir = dir
	v.cmd.Stdout, v.cmd.Stderr = lockedWriter{v}, lockedWriter{v}
	v.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := v.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { v.cmd.Wait(); close(v.done) }()
	t.Cleanup(func() { v.cmd.Process.Kill(); <-v.done })
	return v
}

// ready waits until the server answers PONG (true) or exits (false).
func (v *valkey) ready(t *testing.T) bool {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-v.done:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", v.addr, 200*time.Millisecond); err == nil {
			c.SetDeadline(time.Now().Add(time.Second))
			c.Write([]byte("PING\r\n"))
			buf := make([]byte, 16)
			n, _ := c.Read(buf)
			c.Close()
			if strings.HasPrefix(string(buf[:n]), "+PONG") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("valkey-server neither answered nor exited:\n%s", v.output())
	return false
}

// stop shuts valkey down cleanly (SIGTERM: it flushes and fsyncs its AOF).
func (v *valkey) stop(t *testing.T) {
	t.Helper()
	v.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-v.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("valkey-server did not stop:\n%s", v.output())
	}
}

func do(t *testing.T, c *testutil.Raw, want string, args ...string) {
	t.Helper()
	if got := c.Do(args...); want != "" && got != want {
		t.Fatalf("%v: got %s, want %s", args, got, want)
	}
}

// waitInfo polls INFO persistence until field has value.
func waitInfo(t *testing.T, c *testutil.Raw, field, value string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s, _ := strconv.Unquote(c.Do("INFO", "persistence"))
		if strings.Contains(s, field+":"+value+"\r\n") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never became %s", field, value)
}

type loaded struct {
	file string
	argv []string
}

// loadAll loads dir with our loader, noting which file each command came
// from (by counting: the files are loaded in manifest order).
func loadAll(t *testing.T, dir string, truncated bool) ([]string, *aof.LoadResult) {
	t.Helper()
	var cmds []string
	res, err := aof.Load(dir, "appendonly.aof", aof.LoadOptions{Truncated: truncated,
		Command: func(argv [][]byte) error {
			cmds = append(cmds, string(bytes.Join(argv, []byte(" "))))
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return cmds, res
}

func cmdName(s string) string { return strings.ToUpper(strings.SplitN(s, " ", 2)[0]) }

// TestLoadValkeyAOF: valkey-server writes commands of every type, rewrites
// its AOF (RESP base, no preamble) and writes more; our loader reads the
// directory back: the manifest Valkey left, a base that rebuilds every key
// and the incr commands exactly as Valkey propagated them.
func TestLoadValkeyAOF(t *testing.T) {
	for _, ts := range []string{"no", "yes"} {
		t.Run("timestamps="+ts, func(t *testing.T) {
			dir := t.TempDir()
			v := startValkey(t, dir, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--aof-timestamp-enabled", ts)
			c := testutil.Dial(t, v.addr)
			do(t, c, "+OK", "SET", "s", "v")
			do(t, c, "+OK", "SET", "bin", "a\r\nb\x00c")
			do(t, c, ":3", "RPUSH", "l", "a", "b", "c")
			do(t, c, ":2", "SADD", "set", "x", "y")
			do(t, c, ":2", "ZADD", "z", "1.5", "m", "2", "n")
			do(t, c, ":2", "HSET", "h", "f1", "v1", "f2", "v2")
			do(t, c, "", "XADD", "st", "1-1", "k", "v")
			do(t, c, ":1", "PFADD", "hll", "a")
			do(t, c, "+OK", "SELECT", "2")
			do(t, c, "+OK", "SET", "in2", "2")
			do(t, c, "+OK", "SELECT", "0")
			do(t, c, "+Background append only file rewriting started", "BGREWRITEAOF")
			waitInfo(t, c, "aof_rewrite_in_progress", "0")
			waitInfo(t, c, "aof_rewrite_scheduled", "0")
			// After the rewrite: the new incr file.
			do(t, c, "+OK", "SET", "after", "1")
			do(t, c, ":1", "EXPIRE", "after", "1000")
			do(t, c, "+OK", "MULTI")
			do(t, c, "+QUEUED", "INCR", "n")
			do(t, c, "+QUEUED", "LPUSH", "l", "z")
			do(t, c, "*[:1, :4]", "EXEC")
			do(t, c, "+OK", "SELECT", "3")
			do(t, c, ":0", "DEL", "nothing-here", "x") // deletes nothing: not propagated
			do(t, c, "+OK", "SET", "x", "1")
			do(t, c, ":1", "DEL", "x")
			do(t, c, "+OK", "SELECT", "5")
			do(t, c, "+OK", "MULTI")
			do(t, c, "+QUEUED", "SET", "y", "1")
			do(t, c, "+QUEUED", "SET", "z", "2")
			do(t, c, "*[+OK, +OK]", "EXEC")
			v.stop(t)

			adir := filepath.Join(dir, "appendonlydir")
			m, err := aof.ReadManifest(adir, "appendonly.aof")
			if err != nil {
				t.Fatal(err)
			}
			want := "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
			if m.String() != want {
				t.Fatalf("manifest\n%s\nwant\n%s", m, want)
			}
			cmds, res := loadAll(t, adir, false)
			if res.Truncated {
				t.Fatal("truncated")
			}
			// Split base and incr at the first command after the rewrite.
			i := 0
			for i < len(cmds) && cmds[i] != "SET after 1" {
				i++
			}
			if i == len(cmds) || i == 0 || cmds[i-1] != "SELECT 0" {
				t.Fatalf("no incr part in %q", cmds)
			}
			base, incr := cmds[:i-1], cmds[i-1:]
			keys := map[string]bool{}
			for _, s := range base {
				f := strings.Fields(s)
				if len(f) > 1 {
					keys[cmdName(s)+" "+f[1]] = true
				}
			}
			for _, k := range []string{"SELECT 0", "SET s", "RPUSH l", "SADD set", "ZADD z", "HMSET h", "XADD st", "SELECT 2", "SET in2"} {
				if !keys[k] {
					t.Errorf("base lacks %q: %q", k, base)
				}
			}
			if !keys["SET bin"] {
				t.Errorf("binary value lost: %q", base)
			}
			if len(incr) != 15 {
				t.Fatalf("incr %q", incr)
			}
			// A transaction in another database: SELECT inside MULTI.
			wantIncr := []string{"SELECT 0", "SET after 1", "PEXPIREAT after", "MULTI", "INCR n", "LPUSH l z", "EXEC",
				"SELECT 3", "SET x 1", "DEL x", "MULTI", "SELECT 5", "SET y 1", "SET z 2", "EXEC"}
			got := append([]string{}, incr[:2]...)
			got = append(got, strings.Join(strings.Fields(incr[2])[:2], " "))
			got = append(got, incr[3:]...)
			if strings.Join(got, "|") != strings.Join(wantIncr, "|") {
				t.Errorf("incr\n%q\nwant\n%q", incr, wantIncr)
			}
			// The same changes as effects units, rendered by our Encoder
			// (a fresh one, as at a new incr file), are Valkey's bytes.
			pexpire := strings.Fields(incr[2])
			units := []func(u *effects.Unit){
				func(u *effects.Unit) { u.AddStrings(0, "SET", "after", "1") },
				func(u *effects.Unit) { u.AddStrings(0, pexpire...) },
				func(u *effects.Unit) { u.AddStrings(0, "INCR", "n"); u.AddStrings(0, "LPUSH", "l", "z") },
				func(u *effects.Unit) { u.AddStrings(3, "SET", "x", "1") },
				func(u *effects.Unit) { u.AddStrings(3, "DEL", "x") },
				func(u *effects.Unit) { u.AddStrings(5, "SET", "y", "1"); u.AddStrings(5, "SET", "z", "2") },
			}
			var enc aof.Encoder
			var rendered []byte
			for _, fill := range units {
				var u effects.Unit
				fill(&u)
				rendered = enc.AppendUnit(rendered, &u)
			}
			// Valkey's incr bytes are what AppendCommand renders for the
			// commands loaded, once the "#TS:" annotations are set apart
			// (a new incr file gets one only when the second changed: the
			// rewrite does not reset aof_cur_timestamp).
			data, _ := os.ReadFile(filepath.Join(adir, "appendonly.aof.2.incr.aof"))
			var b []byte
			for _, s := range incr {
				var argv [][]byte
				for _, f := range strings.Split(s, " ") {
					argv = append(argv, []byte(f))
				}
				b = effects.AppendCommand(b, argv...)
			}
			if got := stripTS(data); !bytes.Equal(b, got) || !bytes.Equal(rendered, got) {
				t.Errorf("incr bytes\n%q\nwant\n%q\nencoder\n%q", got, b, rendered)
			}
			baseData, _ := os.ReadFile(filepath.Join(adir, "appendonly.aof.2.base.aof"))
			if hasTS := bytes.HasPrefix(baseData, []byte("#TS:")); hasTS != (ts == "yes") {
				t.Errorf("base starts %q", baseData[:min(20, len(baseData))])
			}
		})
	}
}

// tsLine is a "#TS:" annotation line (the test's values hold none).
var tsLine = regexp.MustCompile(`(?m)^#TS:[0-9]+\r\n`)

func stripTS(b []byte) []byte { return tsLine.ReplaceAll(b, nil) }

func checkAOF(t *testing.T, manifest string) {
	t.Helper()
	// valkey-check-aof is valkey-server under another name: it picks its
	// mode from argv[0].
	cmd := exec.Command(testutil.ValkeyServerPath(t), manifest)
	cmd.Args[0] = "valkey-check-aof"
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is valid") {
		t.Fatalf("valkey-check-aof %s: %v\n%s", manifest, err, out)
	}
}

// TestValkeyLoadsOurAOF: our writer writes a RESP base, units in several
// databases (MULTI/EXEC, timestamps), a rewrite and more units;
// valkey-check-aof accepts the manifest and valkey-server loads it into
// the keys expected.
func TestValkeyLoadsOurAOF(t *testing.T) {
	testutil.ValkeyServerPath(t)
	dir := t.TempDir()
	adir := filepath.Join(dir, "appendonlydir")
	ctx := context.Background()
	w, err := aof.Open(adir, "appendonly.aof", aof.Options{Fsync: aof.FsyncAlways, Timestamps: true,
		Snapshot: func(f io.Writer) error {
			b := aof.AppendTimestamp(nil, time.Now().Unix())
			b = aof.AppendSelect(b, 0)
			b = effects.AppendCommand(b, []byte("SET"), []byte("base"), []byte("1"))
			b = effects.AppendCommand(b, []byte("RPUSH"), []byte("list"), []byte("a"), []byte("b"))
			_, err := f.Write(b)
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	var u effects.Unit
	u.AddStrings(0, "SET", "k", "v")
	w.AppendUnit(&u)
	u.Reset()
	u.AddStrings(1, "HSET", "h", "f", "v")
	u.AddStrings(1, "ZADD", "z", "1", "m")
	w.AppendUnit(&u)
	u.Reset()
	u.Add(0, []byte("SET"), []byte("bin"), []byte("a\r\n\x00b"))
	if err := w.WaitDurable(ctx, w.AppendUnit(&u)); err != nil {
		t.Fatal(err)
	}
	rw, err := w.StartRewrite()
	if err != nil {
		t.Fatal(err)
	}
	u.Reset()
	u.AddStrings(0, "SADD", "s", "x", "y")
	w.AppendUnit(&u)
	var snap []byte
	snap = aof.AppendTimestamp(snap, time.Now().Unix())
	snap = aof.AppendSelect(snap, 0)
	for _, c := range [][]string{{"SET", "base", "1"}, {"RPUSH", "list", "a", "b"}, {"SET", "k", "v"}, {"SET", "bin", "a\r\n\x00b"}} {
		var argv [][]byte
		for _, a := range c {
			argv = append(argv, []byte(a))
		}
		snap = effects.AppendCommand(snap, argv...)
	}
	snap = aof.AppendSelect(snap, 1)
	snap = effects.AppendCommand(snap, []byte("HSET"), []byte("h"), []byte("f"), []byte("v"))
	snap = effects.AppendCommand(snap, []byte("ZADD"), []byte("z"), []byte("1"), []byte("m"))
	rw.File().Write(snap)
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	u.Reset()
	u.AddStrings(2, "SET", "two", "2")
	w.AppendUnit(&u)
	u.Reset()
	u.AddStrings(0, "DEL", "k")
	w.AppendUnit(&u)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(adir, "appendonly.aof.manifest")
	if m, _ := os.ReadFile(manifest); string(m) != "file appendonly.aof.2.base.aof seq 2 type b\n"+
		"file appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatalf("manifest %q", m)
	}
	checkAOF(t, manifest)

	v := startValkey(t, dir, "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
	c := testutil.Dial(t, v.addr)
	do(t, c, `"1"`, "GET", "base")
	do(t, c, `*["a", "b"]`, "LRANGE", "list", "0", "-1")
	do(t, c, "(nil)", "GET", "k")
	do(t, c, strconv.Quote("a\r\n\x00b"), "GET", "bin")
	do(t, c, ":2", "SCARD", "s")
	do(t, c, ":4", "DBSIZE")
	do(t, c, "+OK", "SELECT", "1")
	do(t, c, `"v"`, "HGET", "h", "f")
	do(t, c, `"1"`, "ZSCORE", "z", "m")
	do(t, c, "+OK", "SELECT", "2")
	do(t, c, `"2"`, "GET", "two")
	if out := v.output(); strings.Contains(out, "Truncating") || !strings.Contains(out, "DB loaded from incr file appendonly.aof.2.incr.aof") {
		t.Errorf("valkey log:\n%s", out)
	}
}

// TestLoadLikeValkey: AOF directories with a good base and a last incr
// file (or a base) that is cut, malformed or merely odd; valkey-server
// (aof-load-truncated yes, then no) and our loader agree on whether it
// loads, on the message when it does not, and on the offset where a
// short last file is cut.
func TestLoadLikeValkey(t *testing.T) {
	testutil.ValkeyServerPath(t)
	c := func(args ...string) []byte {
		var argv [][]byte
		for _, a := range args {
			argv = append(argv, []byte(a))
		}
		return effects.AppendCommand(nil, argv...)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	setA, setB := c("SET", "a", "1"), c("SET", "b", "2")
	cases := []struct {
		name       string
		base, incr []byte
	}{
		{"clean", c("SET", "base", "0"), cat(setA, setB)},
		{"inside a command", nil, cat(setA, setB[:12])},
		{"a lone star", nil, cat(setA, []byte("*"))},
		{"inside a length line", nil, cat(setA, []byte("*3\r\n$3"))},
		{"unclosed MULTI", nil, cat(setA, c("MULTI"), setB)},
		{"annotation without newline at the end", nil, cat(setA, []byte("#TS:1700000000"))},
		{"annotations between commands", nil, cat([]byte("#TS:1\r\n"), setA, []byte("#anything\r\n"), setB)},
		{"lenient numbers and CRLF", nil, []byte("* 3junk\r\n$3x\r\nSET\r\n$1\r\na\r\n$1\r\n1xx")},
		{"garbage line in the middle", nil, cat(setA, []byte("garbage\r\n"), setB)},
		{"zero arguments", nil, cat(setA, []byte("*0\r\n"), setB)},
		{"no dollar", nil, cat(setA, []byte("*1\r\n:3\r\n"), setB)},
		{"base cut short", setA[:7], setB},
		{"base with unclosed MULTI", cat(setA, c("MULTI")), setB},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, allow := range []string{"yes", "no"} {
				// Valkey first, on its own copy.
				vdir := t.TempDir()
				writeAOF(t, filepath.Join(vdir, "appendonlydir"), tc.base, tc.incr)
				v := launchValkey(t, vdir, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--aof-load-truncated", allow)
				vOK := v.ready(t)
				if vOK {
					v.stop(t)
				}
				vlog := v.output()

				cdir := filepath.Join(t.TempDir(), "appendonlydir")
				writeAOF(t, cdir, tc.base, tc.incr)
				var logs []string
				res, err := aof.Load(cdir, "appendonly.aof", aof.LoadOptions{Truncated: allow == "yes",
					Command: func([][]byte) error { return nil },
					Logf:    func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
				where := fmt.Sprintf("aof-load-truncated %s", allow)
				if vOK != (err == nil) {
					t.Fatalf("%s: valkey loads: %v, we: %v\nvalkey log:\n%s", where, vOK, err, vlog)
				}
				if err != nil {
					var le *aof.LoadError
					if !errors.As(err, &le) || !strings.Contains(vlog, le.Msg) {
						t.Fatalf("%s: our error %v is not in valkey's log:\n%s", where, err, vlog)
					}
					continue
				}
				for _, l := range logs {
					if strings.HasPrefix(l, "DB loaded from") {
						continue
					}
					if !strings.Contains(vlog, l) {
						t.Errorf("%s: we log %q, valkey does not:\n%s", where, l, vlog)
					}
				}
				if res.Truncated {
					// Valkey appended nothing (we stopped it at once): the
					// sizes of the cut file compare.
					vst, _ := os.Stat(filepath.Join(vdir, "appendonlydir", res.TruncatedFile))
					if vst == nil || vst.Size() != res.TruncatedAt {
						t.Errorf("%s: we cut %s at %d, valkey at %v", where, res.TruncatedFile, res.TruncatedAt, vst.Size())
					}
				}
			}
		})
	}
}

// writeAOF writes a manifest listing a RESP base (when base is not nil)
// and one incr file.
func writeAOF(t *testing.T, dir string, base, incr []byte) {
	t.Helper()
	m := &aof.Manifest{Incr: []aof.FileInfo{{Name: "appendonly.aof.1.incr.aof", Seq: 1, Type: aof.Incr}}}
	if base != nil {
		m.Base = &aof.FileInfo{Name: "appendonly.aof.1.base.aof", Seq: 1, Type: aof.Base}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := aof.WriteManifest(dir, "appendonly.aof", m); err != nil {
		t.Fatal(err)
	}
	if base != nil {
		os.WriteFile(filepath.Join(dir, m.Base.Name), base, 0o644)
	}
	os.WriteFile(filepath.Join(dir, m.Incr[0].Name), incr, 0o644)
}

// TestUpgradeLikeValkey: an old-style appendonly.aof in the data
// directory is migrated by valkey-server and by UpgradeOldStyle followed
// by Open into the same manifest, and both load the same commands.
func TestUpgradeLikeValkey(t *testing.T) {
	testutil.ValkeyServerPath(t)
	old := bytes.Join([][]byte{aof.AppendSelect(nil, 0),
		effects.AppendCommand(nil, []byte("SET"), []byte("a"), []byte("1")),
		effects.AppendCommand(nil, []byte("RPUSH"), []byte("l"), []byte("x"))}, nil)
	vdir, cdir := t.TempDir(), t.TempDir()
	for _, d := range []string{vdir, cdir} {
		os.WriteFile(filepath.Join(d, "appendonly.aof"), old, 0o644)
	}
	v := startValkey(t, vdir, "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
	c := testutil.Dial(t, v.addr)
	do(t, c, `"1"`, "GET", "a")
	v.stop(t)
	if !strings.Contains(v.output(), "Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).") {
		t.Errorf("valkey log:\n%s", v.output())
	}

	ok, err := aof.UpgradeOldStyle(cdir, "appendonlydir", "appendonly.aof", nil)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	w, err := aof.Open(filepath.Join(cdir, "appendonlydir"), "appendonly.aof", aof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	vm, _ := os.ReadFile(filepath.Join(vdir, "appendonlydir", "appendonly.aof.manifest"))
	cm, _ := os.ReadFile(filepath.Join(cdir, "appendonlydir", "appendonly.aof.manifest"))
	if string(vm) != string(cm) || string(cm) != "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" {
		t.Errorf("valkey's manifest %q, ours %q", vm, cm)
	}
	vc, _ := loadAll(t, filepath.Join(vdir, "appendonlydir"), false)
	cc, _ := loadAll(t, filepath.Join(cdir, "appendonlydir"), false)
	if strings.Join(vc, "|") != strings.Join(cc, "|") || len(cc) != 3 {
		t.Errorf("valkey's dir loads %q, ours %q", vc, cc)
	}
}

// TestEnableLikeValkey: CONFIG SET appendonly yes on a valkey-server with
// data, and aof.Enable on an empty directory, leave the same manifest;
// valkey-server loads the directory our Enable left.
func TestEnableLikeValkey(t *testing.T) {
	testutil.ValkeyServerPath(t)
	vdir := t.TempDir()
	v := startValkey(t, vdir, "--appendonly", "no", "--aof-use-rdb-preamble", "no")
	c := testutil.Dial(t, v.addr)
	do(t, c, "+OK", "SET", "before", "1")
	do(t, c, "+OK", "CONFIG", "SET", "appendonly", "yes")
	waitInfo(t, c, "aof_rewrite_in_progress", "0")
	waitInfo(t, c, "aof_rewrite_scheduled", "0")
	waitInfo(t, c, "aof_enabled", "1")
	do(t, c, "+OK", "SET", "after", "2")
	v.stop(t)
	vm, err := os.ReadFile(filepath.Join(vdir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}

	cdir := t.TempDir()
	adir := filepath.Join(cdir, "appendonlydir")
	w, rw, err := aof.Enable(adir, "appendonly.aof", aof.Options{Fsync: aof.FsyncAlways})
	if err != nil {
		t.Fatal(err)
	}
	var u effects.Unit
	u.AddStrings(0, "SET", "during", "3")
	w.AppendUnit(&u)
	rw.File().Write(append(aof.AppendSelect(nil, 0), effects.AppendCommand(nil, []byte("SET"), []byte("before"), []byte("1"))...))
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	u.Reset()
	u.AddStrings(0, "SET", "after", "2")
	w.AppendUnit(&u)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cm, _ := os.ReadFile(filepath.Join(adir, "appendonly.aof.manifest"))
	if string(vm) != string(cm) {
		t.Errorf("valkey's manifest %q, ours %q", vm, cm)
	}
	checkAOF(t, filepath.Join(adir, "appendonly.aof.manifest"))
	v = startValkey(t, cdir, "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
	c = testutil.Dial(t, v.addr)
	do(t, c, `"1"`, "GET", "before")
	do(t, c, `"3"`, "GET", "during")
	do(t, c, `"2"`, "GET", "after")
}
