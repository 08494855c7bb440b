package server

import (
	"net"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/config"
)

// The "local" settings of enable-debug-command and
// enable-protected-configs, seen from a loopback and from a remote peer
// (the integration tests can only connect over loopback).
func TestLocalSettingsFromRemotePeers(t *testing.T) {
	remote := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 40000}
	mapped := &net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.10"), Port: 40000}
	lo := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 40000}
	tbl := buildTable(dataHandlers(), serverHandlers())
	for _, tc := range []struct {
		setting string
		peer    net.Addr
		allowed bool
	}{
		{"no", lo, false}, {"no", remote, false},
		{"local", lo, true}, {"local", remote, false}, {"local", mapped, false},
		{"yes", lo, true}, {"yes", remote, true},
	} {
		cfg, err := config.Load("", []string{"--enable-debug-command", tc.setting, "--enable-protected-configs", tc.setting})
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{cfg: cfg, table: tbl}
		c := &Client{srv: s, conn: peerConn{remote: tc.peer}}
		if got := c.protectedRefusal(tbl.find(command.Debug)) == ""; got != tc.allowed {
			t.Errorf("enable-debug-command %s from %v: allowed %v", tc.setting, tc.peer, got)
		}
		err = cfg.SetWith([][2]string{{"dir", t.TempDir()}}, config.SetOptions{ClientIsLocal: c.isLocal()})
		if (err == nil) != tc.allowed {
			t.Errorf("enable-protected-configs %s from %v: CONFIG SET dir: %v", tc.setting, tc.peer, err)
		} else if err != nil && err.Error() != "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config" {
			t.Errorf("refusal text: %q", err)
		}
	}
}
