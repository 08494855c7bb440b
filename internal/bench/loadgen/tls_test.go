package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// newFakeTLS is newFake behind a TLS listener presenting f's server
// certificate; clientAuth says whether a client certificate is required.
func newFakeTLS(t *testing.T, f *testutil.TLSFiles, clientAuth bool, handle func([]string) string) *fakeServer {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: f.Pool}
	if clientAuth {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveFake(t, tls.NewListener(ln, cfg), handle)
}

// tlsArgs are the flags for f's CA and client certificate.
func tlsArgs(f *testutil.TLSFiles) string {
	return " --tls --cacert " + f.CACert + " --cert " + f.ClientCert + " --key " + f.ClientKey
}

func TestTLSRun(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	srv := newFakeTLS(t, f, true, simpleHandler())
	cfg := parse(t, "-t 2 -c 2 -n 320 --ratio 1:1 --pipeline 16 --key-maximum 50 -p 1"+tlsArgs(f))
	if loopEligible(cfg) {
		t.Fatal("a TLS run on the event loops")
	}
	res, err := Run(context.Background(), cfg, []string{srv.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	sets, gets := row(t, res[0], "Sets"), row(t, res[0], "Gets")
	if sets.Ops != 640 || gets.Ops != 640 || sets.Errors+gets.Errors != 0 || gets.Hits == 0 {
		t.Fatalf("sets %+v gets %+v", sets.Counters, gets.Counters)
	}
	if srv.count("SET") != 640 || srv.count("GET") != 640 {
		t.Fatalf("server saw %d SETs, %d GETs", srv.count("SET"), srv.count("GET"))
	}
}

// The refusals come before the run, as one clear error, not a hang.
func TestTLSConnectErrors(t *testing.T) {
	f, other := testutil.NewTLSFiles(t), testutil.NewTLSFiles(t)
	withAuth := newFakeTLS(t, f, true, simpleHandler())
	plain := newFake(t, simpleHandler())
	for _, tc := range []struct {
		name, args, addr, want string
	}{
		{"another CA", " --tls --cacert " + other.CACert + " --cert " + f.ClientCert + " --key " + f.ClientKey, withAuth.addr(),
			"server certificate not trusted: x509: certificate signed by unknown authority"},
		// TLS 1.3: the server's refusal arrives after the client's side
		// of the handshake, at the first reply (the pre-flight PING).
		{"no client certificate", " --tls --cacert " + f.CACert, withAuth.addr(), "certificate required"},
		{"plaintext server", tlsArgs(f), plain.addr(), "cannot connect to " + plain.addr() + ": TLS handshake: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parse(t, "-t 1 -c 2 -n 10 -p 1"+tc.args)
			done := make(chan error, 1)
			go func() {
				_, err := Run(context.Background(), cfg, []string{tc.addr}, Progress{})
				done <- err
			}()
			select {
			case err := <-done:
				var ce *ConnectError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want a ConnectError with %q", err, tc.want)
				}
				t.Log(err)
			case <-time.After(hangTimeout):
				t.Fatal("the run hung")
			}
		})
	}
}

// Cluster mode over TLS: nodes learnt from MOVED are dialled with TLS too.
func TestTLSClusterFollowsMoved(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	b := newFakeTLS(t, f, true, simpleHandler())
	var aAddr string
	a := newFakeTLS(t, f, true, func(args []string) string {
		switch strings.ToUpper(args[0]) {
		case "CLUSTER":
			host, port, _ := net.SplitHostPort(aAddr)
			return "*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$" + strconv.Itoa(len(host)) + "\r\n" + host + "\r\n:" + port + "\r\n"
		case "SET", "GET":
			if slot := wire.Slot([]byte(args[1])); slot%2 == 0 {
				return "-MOVED " + strconv.Itoa(slot) + " " + b.addr() + "\r\n"
			}
			return simpleHandler()(args)
		}
		return "+OK\r\n"
	})
	aAddr = a.addr()
	cfg := parse(t, "--cluster-mode -t 1 -c 2 -n 300 --key-maximum 200 --pipeline 4 -p 1"+tlsArgs(f))
	res, err := Run(context.Background(), cfg, []string{a.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	tot := res[0].Totals()
	if tot.Ops != 600 || tot.Errors != 0 || tot.Moved == 0 {
		t.Fatalf("ops %d errors %d moved %d: %s", tot.Ops, tot.Errors, tot.Moved, res[0].FirstError)
	}
	if b.count("SET")+b.count("GET") == 0 {
		t.Fatal("node B served nothing")
	}
}
