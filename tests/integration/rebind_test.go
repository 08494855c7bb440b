package integration

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestConfigSetListeners: CONFIG SET port and bind apply at run time as
// in Valkey: the new listener serves, the old one stops accepting, and a
// client connected before keeps its connection; an address that cannot
// be bound fails with Valkey's text and changes nothing. CONFIG SET dir
// (a protected config) changes the working directory once protected
// configs are allowed, and a missing directory gets strerror's text.
func TestConfigSetListeners(t *testing.T) {
	dir := t.TempDir()
	p := testutil.StartCorvid(t, "--enable-protected-configs", "yes")
	c := testutil.Dial(t, p.Addr)
	expect(t, c, "+OK", "SET", "k", "v")

	port := testutil.FreePort(t)
	expect(t, c, "+OK", "CONFIG", "SET", "port", strconv.Itoa(port))
	n := testutil.Dial(t, "127.0.0.1:"+strconv.Itoa(port))
	expect(t, n, `"v"`, "GET", "k")
	expect(t, n, `*["port", "`+strconv.Itoa(port)+`"]`, "CONFIG", "GET", "port")
	if got := infoFields(t, n, "server")["tcp_port"]; got != strconv.Itoa(port) {
		t.Errorf("tcp_port %s after CONFIG SET port %d", got, port)
	}
	if conn, err := net.DialTimeout("tcp", p.Addr, time.Second); err == nil {
		conn.Close()
		t.Errorf("the old port still accepts")
	}
	expect(t, c, "+PONG", "PING") // connected before: kept

	// A port in use: refused, the current one kept.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.",
		"CONFIG", "SET", "port", busyPort)
	expect(t, c, `*["port", "`+strconv.Itoa(port)+`"]`, "CONFIG", "GET", "port")
	expect(t, testutil.Dial(t, "127.0.0.1:"+strconv.Itoa(port)), "+PONG", "PING")

	// bind: an address this host does not have is refused.
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.",
		"CONFIG", "SET", "bind", "192.0.2.1")
	expect(t, c, "+OK", "CONFIG", "SET", "bind", "127.0.0.1 -::1")
	expect(t, testutil.Dial(t, "127.0.0.1:"+strconv.Itoa(port)), "+PONG", "PING")

	// dir
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or directory",
		"CONFIG", "SET", "dir", filepath.Join(dir, "missing"))
	expect(t, c, "+OK", "CONFIG", "SET", "dir", dir)
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(p.Cmd.Process.Pid) + "/cwd")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(dir); cwd != want {
		t.Errorf("working directory %s after CONFIG SET dir %s", cwd, want)
	}
}
