package integration

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestSupervisedSystemd: with supervised systemd (and auto) the server
// sends systemd's readiness and stopping notifications to NOTIFY_SOCKET,
// and INFO says so. The peer is Debian's redis-server 7.0.15, built with
// libsystemd as distributions build Valkey too (the reference
// valkey-server in ../shared/bin is built without it and sends nothing);
// the messages are the same code in both.
func TestSupervisedSystemd(t *testing.T) {
	type server struct {
		name  string
		start func(t *testing.T, args ...string) *testutil.Proc
	}
	servers := []server{{"corvid", func(t *testing.T, args ...string) *testutil.Proc { return testutil.StartCorvid(t, args...) }}}
	servers = append(servers, server{"redis", func(t *testing.T, args ...string) *testutil.Proc { return testutil.StartRedis(t, args...) }})
	for _, srv := range servers {
		for _, mode := range []string{"systemd", "auto"} {
			t.Run(srv.name+"/"+mode, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "notify")
				sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
				if err != nil {
					t.Fatal(err)
				}
				defer sock.Close()
				t.Setenv("NOTIFY_SOCKET", path)
				p := srv.start(t, "--supervised", mode)
				read := func() string {
					buf := make([]byte, 512)
					sock.SetReadDeadline(time.Now().Add(10 * time.Second))
					n, err := sock.Read(buf)
					if err != nil {
						return "<" + err.Error() + ">"
					}
					return string(buf[:n])
				}
				var got []string
				for len(got) == 0 || got[len(got)-1] != "READY=1\n" {
					m := read()
					if strings.HasPrefix(m, "<") {
						t.Fatalf("notifications so far %q: %s", got, m)
					}
					got = append(got, m)
				}
				name := map[string]string{"corvid": "Valkey", "redis": "Redis"}[srv.name]
				want := []string{"STATUS=" + name + " is loading...\n", "STATUS=Ready to accept connections\n", "READY=1\n"}
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("start-up notifications %q, want %q", got, want)
				}
				c := testutil.Dial(t, p.Addr)
				if r := c.Do("INFO", "server"); !strings.Contains(r, "process_supervised:systemd") {
					t.Errorf("INFO server does not say systemd")
				}
				c.Send("SHUTDOWN", "NOSAVE")
				if m := read(); m != "STOPPING=1\n" {
					t.Errorf("at shutdown: %q", m)
				}
			})
		}
	}
}
