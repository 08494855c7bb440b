package server

import (
	"net"
	"testing"

	"github.com/corvid-kv/corvid/internal/config"
)

// peerConn is a net.Conn whose peer address a test chooses: the
// integration tests can only connect over loopback, so the refusal of
// other peers is tested here.
type peerConn struct {
	net.Conn
	remote net.Addr
}

func (p peerConn) RemoteAddr() net.Addr { return p.remote }

// valkeyDenied is Valkey 8's reply to a non-loopback client in protected
// mode (clientAcceptHandler in valkey src/networking.c).
const valkeyDenied = "DENIED Running in protected mode because protected mode is enabled and no password is set for the default user. " +
	"In this mode connections are only accepted from the loopback interface. " +
	"If you want to connect from external computers, you may adopt one of the following solutions: " +
	"1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting from the same host the server is running, however MAKE SURE it's not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. " +
	"2) Alternatively you can just disable the protected mode by editing the configuration file, and setting the protected mode option to 'no', and then restarting the server. " +
	"3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. " +
	"4) Set up an authentication password for the default user. " +
	"NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside."

func TestProtectedModeRefusal(t *testing.T) {
	remote := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 40000}
	remote6 := &net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 40000}
	lo := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 40000}
	lo2 := &net.TCPAddr{IP: net.ParseIP("127.0.0.2"), Port: 40000}
	lo6 := &net.TCPAddr{IP: net.ParseIP("::1"), Port: 40000}
	cases := []struct {
		name string
		args []string
		peer net.Addr
		want string
	}{
		{"remote, defaults", nil, remote, valkeyDenied},
		{"remote IPv6, defaults", nil, remote6, valkeyDenied},
		{"loopback", nil, lo, ""},
		{"loopback range", nil, lo2, ""},
		{"loopback IPv6", nil, lo6, ""},
		{"protected-mode no", []string{"--protected-mode", "no"}, remote, ""},
		{"password set", []string{"--requirepass", "secret"}, remote, ""},
		{"bind does not lift it", []string{"--bind", "0.0.0.0"}, remote, valkeyDenied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Load("", tc.args)
			if err != nil {
				t.Fatal(err)
			}
			s := &Server{cfg: cfg}
			if err := s.initACL(); err != nil {
				t.Fatal(err)
			}
			if got := s.protectedModeRefusal(peerConn{remote: tc.peer}); got != tc.want {
				t.Errorf("refusal:\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}
}
