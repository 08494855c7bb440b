package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TLS (issue 31): go-redis and rueidis over TLS with and without client
// certificates under each tls-auth-clients, plaintext refused on the TLS
// port, TLS only (port 0), bad certificates at start-up and on CONFIG
// SET, reload on CONFIG SET, redis-cli --tls, and replicas over TLS
// (Corvid to Corvid, Corvid of redis-server 7.0.15). Certificates are generated at run time (testutil.TLSFiles).

// tlsClient is a go-redis client over TLS (RESP proto).
func tlsClient(t *testing.T, addr string, cfg *tls.Config, proto int) *redis.Client {
	return newClient(t, addr, proto, func(o *redis.Options) { o.TLSConfig = cfg; o.PoolSize = 2 })
}

func TestTLSClients(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	p, taddr := testutil.StartCorvidTLS(t, f, true)
	ctx := testCtx(t, time.Minute)

	for _, proto := range []int{2, 3} {
		c := tlsClient(t, taddr, f.ClientConfig(t, true), proto)
		if err := c.Set(ctx, "k"+strconv.Itoa(proto), "v", 0).Err(); err != nil {
			t.Fatalf("RESP%d SET over TLS: %v", proto, err)
		}
		pipe := c.Pipeline()
		for i := range 100 {
			pipe.Incr(ctx, "n")
			_ = i
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatalf("pipeline: %v", err)
		}
	}
	plain := newClient(t, p.Addr, 2)
	if got := plain.Get(ctx, "n").Val(); got != "200" {
		t.Fatalf("n = %q through the plaintext port", got)
	}

	// rueidis (RESP3, auto-pipelining) with the client certificate.
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{taddr}, TLSConfig: f.ClientConfig(t, true),
		DisableCache: true, ConnWriteTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("rueidis over TLS: %v", err)
	}
	defer rc.Close()
	if err := rc.Do(ctx, rc.B().Set().Key("r").Value("rueidis").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if v, err := rc.Do(ctx, rc.B().Get().Key("r").Build()).ToString(); err != nil || v != "rueidis" {
		t.Fatalf("rueidis GET = %q, %v", v, err)
	}

	// tls-auth-clients yes (the default): no certificate, no service.
	nocert := tlsClient(t, taddr, f.ClientConfig(t, false), 2)
	if err := nocert.Ping(ctx).Err(); err == nil {
		t.Fatal("a client without a certificate was served under tls-auth-clients yes")
	}

	// Plaintext on the TLS port: no reply, the connection is closed.
	conn, err := net.DialTimeout("tcp", taddr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	conn.Write([]byte("*1\r\n$4\r\nPING\r\n"))
	b, err := io.ReadAll(conn)
	conn.Close()
	if strings.Contains(string(b), "PONG") {
		t.Fatalf("plaintext PING on the TLS port answered: %q (%v)", b, err)
	}

	// INFO: Valkey's listener lines; CLIENT LIST shows the TLS client's
	// socket like any other.
	info := plain.Info(ctx, "server").Val()
	tport := taddr[strings.LastIndexByte(taddr, ':')+1:]
	if !strings.Contains(info, "listener0:name=tcp,bind=127.0.0.1,port="+strconv.Itoa(p.Port)+"\r\n") ||
		!strings.Contains(info, "listener2:name=tls,bind=127.0.0.1,port="+tport+"\r\n") {
		t.Fatalf("INFO server listeners:\n%s", info)
	}
	c := tlsClient(t, taddr, f.ClientConfig(t, true), 2)
	line := c.ClientInfo(ctx).Val()
	if line == nil || line.LAddr != taddr || line.FD <= 0 {
		t.Fatalf("CLIENT INFO over TLS: %+v", line)
	}

	// CLIENT KILL of a TLS client closes it at once; QUIT answers +OK and
	// closes.
	for _, how := range []string{"kill", "quit"} {
		victim, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", taddr, f.ClientConfig(t, true))
		if err != nil {
			t.Fatal(err)
		}
		victim.SetDeadline(time.Now().Add(20 * time.Second))
		victim.Write([]byte("CLIENT ID\r\n"))
		buf := make([]byte, 64)
		n, err := victim.Read(buf)
		if err != nil || buf[0] != ':' {
			t.Fatalf("CLIENT ID over TLS: %q %v", buf[:n], err)
		}
		id := strings.TrimSpace(string(buf[1:n]))
		if how == "kill" {
			if k := plain.ClientKillByFilter(ctx, "ID", id).Val(); k != 1 {
				t.Fatalf("CLIENT KILL ID %s killed %d", id, k)
			}
		} else {
			victim.Write([]byte("QUIT\r\n"))
			if n, _ := victim.Read(buf); string(buf[:n]) != "+OK\r\n" {
				t.Fatalf("QUIT over TLS: %q", buf[:n])
			}
		}
		if n, err := victim.Read(buf); err == nil {
			t.Fatalf("%s: the TLS client still reads: %q", how, buf[:n])
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("%s: the TLS client was not closed", how)
		}
		victim.Close()
	}
}

func TestTLSAuthClientsModes(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	for _, mode := range []string{"yes", "optional", "no"} {
		t.Run(mode, func(t *testing.T) {
			_, taddr := testutil.StartCorvidTLS(t, f, false, "--tls-auth-clients", mode)
			ctx := testCtx(t, time.Minute)
			with := tlsClient(t, taddr, f.ClientConfig(t, true), 3).Ping(ctx).Err()
			without := tlsClient(t, taddr, f.ClientConfig(t, false), 3).Ping(ctx).Err()
			if with != nil {
				t.Errorf("with a client certificate: %v", with)
			}
			if (without == nil) != (mode != "yes") {
				t.Errorf("without a client certificate: %v", without)
			}
		})
	}
}

// TLS only: port 0 with tls-port opens no plaintext listener.
func TestTLSOnly(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	_, taddr := testutil.StartCorvidTLS(t, f, false)
	ctx := testCtx(t, time.Minute)
	c := tlsClient(t, taddr, f.ClientConfig(t, true), 2)
	info := c.Info(ctx, "server").Val()
	if !strings.Contains(info, "tcp_port:0\r\n") || strings.Contains(info, "listener0:") || !strings.Contains(info, "listener2:name=tls") {
		t.Fatalf("INFO server of a TLS-only server:\n%s", info)
	}
	if got := c.ConfigGet(ctx, "port").Val()["port"]; got != "0" {
		t.Fatalf("port = %q", got)
	}
}

func TestTLSBadCertificateAtStartup(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	garbage := filepath.Join(t.TempDir(), "garbage.crt")
	os.WriteFile(garbage, []byte("not a certificate\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"garbage certificate", []string{"--tls-cert-file", garbage}, "Failed to load certificate: " + garbage},
		{"missing key", []string{"--tls-key-file", "/nonexistent.key"}, "Failed to load private key: /nonexistent.key"},
		{"key of another certificate", []string{"--tls-key-file", f.ClientKey}, "Failed to load private key: " + f.ClientKey},
		{"no CA", []string{"--tls-ca-cert-file", ""}, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!"},
		{"unknown cipher", []string{"--tls-ciphers", "BOGUS-CIPHER"}, "Failed to configure ciphers: BOGUS-CIPHER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(f.ServerArgs(testutil.FreePort(t)), tc.args...)
			out, code := testutil.RunCorvid(t, 30*time.Second, args...)
			if code == 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "Failed to configure TLS. Check logs for more info.") {
				t.Fatalf("exit %d, output:\n%s", code, out)
			}
		})
	}
}

// peerCN returns the common name of the certificate the server at addr
// presents.
func peerCN(t *testing.T, addr string, cfg *tls.Config) string {
	t.Helper()
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
}

func TestTLSReloadOnConfigSet(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	p, taddr := testutil.StartCorvidTLS(t, f, true)
	ctx := testCtx(t, time.Minute)
	admin := testutil.Dial(t, p.Addr)
	old := tlsClient(t, taddr, f.ClientConfig(t, true), 2)
	if err := old.Set(ctx, "k", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if cn := peerCN(t, taddr, f.ClientConfig(t, true)); cn != "localhost" {
		t.Fatalf("CN = %q", cn)
	}

	// A bad file refuses the CONFIG SET with Redis's text (Valkey 8.0.1's
	// reference build lacks TLS); the old configuration stays.
	garbage := filepath.Join(t.TempDir(), "garbage.crt")
	os.WriteFile(garbage, []byte("garbage\n"), 0o644)
	for _, kv := range [][2]string{{"tls-cert-file", garbage}, {"tls-key-file", "/nonexistent"}, {"tls-ca-cert-file", garbage},
		{"tls-ciphers", "NOPE"}, {"tls-ciphersuites", "TLS_AES_128_CCM_SHA256"}, {"tls-protocols", "TLSv2"}} {
		want := "-ERR CONFIG SET failed (possibly related to argument '" + kv[0] + "') - Unable to update TLS configuration. Check server logs."
		if got := admin.Do("CONFIG", "SET", kv[0], kv[1]); got != want {
			t.Fatalf("CONFIG SET %s %s = %q", kv[0], kv[1], got)
		}
	}
	if got := admin.Do("CONFIG", "GET", "tls-cert-file"); !strings.Contains(got, f.ServerCert) {
		t.Fatalf("tls-cert-file after a refused CONFIG SET: %q", got)
	}
	if cn := peerCN(t, taddr, f.ClientConfig(t, true)); cn != "localhost" {
		t.Fatalf("CN after a refused CONFIG SET = %q", cn)
	}
	if !strings.Contains(p.Output(), "Failed to load certificate: "+garbage) {
		t.Fatalf("log lacks the reason:\n%s", p.Output())
	}

	// A new certificate: new connections get it, established ones go on.
	cert, key := f.Issue(t, "renewed", "renewed", x509.ExtKeyUsageServerAuth)
	if got := admin.Do("CONFIG", "SET", "tls-cert-file", cert, "tls-key-file", key); got != "+OK" {
		t.Fatalf("CONFIG SET of a new certificate: %q", got)
	}
	if cn := peerCN(t, taddr, f.ClientConfig(t, true)); cn != "renewed" {
		t.Fatalf("CN after reload = %q", cn)
	}
	if v, err := old.Get(ctx, "k").Result(); err != nil || v != "1" {
		t.Fatalf("established connection after reload: %q %v", v, err)
	}
	// The same file name with new contents: CONFIG SET of the same value
	// reloads it (tls-*-file directives are volatile, as in Valkey).
	cert2, key2 := f.Issue(t, "again", "again", x509.ExtKeyUsageServerAuth)
	copyFile(t, cert2, cert)
	copyFile(t, key2, key)
	if got := admin.Do("CONFIG", "SET", "tls-cert-file", cert); got != "+OK" {
		t.Fatal(got)
	}
	if cn := peerCN(t, taddr, f.ClientConfig(t, true)); cn != "again" {
		t.Fatalf("CN after reloading the same file = %q", cn)
	}

	// tls-auth-clients at run time applies to new connections.
	if got := admin.Do("CONFIG", "SET", "tls-auth-clients", "no"); got != "+OK" {
		t.Fatal(got)
	}
	if err := tlsClient(t, taddr, f.ClientConfig(t, false), 2).Ping(ctx).Err(); err != nil {
		t.Fatalf("no certificate after tls-auth-clients no: %v", err)
	}

	// CONFIG SET tls-port moves the TLS listener.
	np := testutil.FreePort(t)
	if got := admin.Do("CONFIG", "SET", "tls-port", strconv.Itoa(np)); got != "+OK" {
		t.Fatal(got)
	}
	naddr := "127.0.0.1:" + strconv.Itoa(np)
	if err := tlsClient(t, naddr, f.ClientConfig(t, false), 2).Ping(ctx).Err(); err != nil {
		t.Fatalf("on the new tls-port: %v", err)
	}
	if got := admin.Do("CONFIG", "SET", "tls-port", "0"); got != "+OK" {
		t.Fatal(got)
	}
	if c, err := net.DialTimeout("tcp", naddr, time.Second); err == nil {
		c.Close()
		t.Fatal("tls-port 0 left a TLS listener")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// redis-cli --tls (Debian's redis-tools, built with OpenSSL) against Corvid.
func TestTLSRedisCli(t *testing.T) {
	cli := lookTool(t, "redis-cli")
	if out, _ := exec.Command(cli, "--help").CombinedOutput(); !strings.Contains(string(out), "--tls") {
		t.Skip("redis-cli built without TLS")
	}
	f := testutil.NewTLSFiles(t)
	_, taddr := testutil.StartCorvidTLS(t, f, false)
	port := taddr[strings.LastIndexByte(taddr, ':')+1:]
	run := func(withCert bool, args ...string) (string, error) {
		full := []string{"--tls", "--cacert", f.CACert, "-h", "127.0.0.1", "-p", port}
		if withCert {
			full = append(full, "--cert", f.ClientCert, "--key", f.ClientKey)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, cli, append(full, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for _, step := range [][]string{{"SET", "greeting", "hello over TLS"}, {"GET", "greeting"}, {"PING"}} {
		out, err := run(true, step...)
		want := map[string]string{"SET": "OK", "GET": "hello over TLS", "PING": "PONG"}[step[0]]
		if err != nil || out != want {
			t.Fatalf("redis-cli --tls %v = %q, %v", step, out, err)
		}
	}
	if out, _ := run(false, "PING"); out == "PONG" {
		t.Fatal("redis-cli without a client certificate was served")
	}
	// Plaintext redis-cli on the TLS port gets no PONG.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, _ := exec.CommandContext(ctx, cli, "-h", "127.0.0.1", "-p", port, "PING").CombinedOutput(); strings.Contains(string(out), "PONG") {
		t.Fatalf("plaintext redis-cli on the TLS port: %q", out)
	}
}

// waitKey polls c until key holds want.
func waitKey(t *testing.T, c *redis.Client, key, want string) {
	t.Helper()
	if !waitFor(hangTimeout, func() bool { return c.Get(context.Background(), key).Val() == want }) {
		info := c.Info(context.Background(), "replication").Val()
		t.Fatalf("%s never became %q on the replica; INFO replication:\n%s", key, want, info)
	}
}

// A Corvid replica of a Corvid primary, the link over TLS: the replica
// presents its server certificate, the primary serves it on its TLS port
// and records the replica's TLS port.
func TestTLSReplicaCorvid(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	_, paddr := testutil.StartCorvidTLS(t, f, false, "--repl-diskless-sync-delay", "0")
	ptport := paddr[strings.LastIndexByte(paddr, ':')+1:]
	primary := tlsClient(t, paddr, f.ClientConfig(t, true), 2)
	ctx := testCtx(t, 2*time.Minute)
	if err := primary.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, raddr := testutil.StartCorvidTLS(t, f, false, "--tls-replication", "yes", "--replicaof", "127.0.0.1", ptport)
	replica := tlsClient(t, raddr, f.ClientConfig(t, true), 2)
	waitKey(t, replica, "before", "1")
	for i := range 50 {
		primary.Set(ctx, "k"+strconv.Itoa(i), i, 0)
	}
	waitKey(t, replica, "k49", "49")
	rinfo := replica.Info(ctx, "replication").Val()
	if !strings.Contains(rinfo, "master_link_status:up") {
		t.Fatalf("replica INFO:\n%s", rinfo)
	}
	rport := raddr[strings.LastIndexByte(raddr, ':')+1:]
	if pinfo := primary.Info(ctx, "replication").Val(); !strings.Contains(pinfo, "port="+rport+",") {
		t.Fatalf("the primary does not list the replica's TLS port %s:\n%s", rport, pinfo)
	}
}

// redisTLS starts redis-server 7.0.15 (built with OpenSSL) with a TLS
// listener, or skips.
func redisTLS(t *testing.T, f *testutil.TLSFiles, args ...string) (*testutil.Proc, string) {
	t.Helper()
	testutil.RedisServerPath(t)
	tport := testutil.FreePort(t)
	p := testutil.StartRedis(t, append(f.ServerArgs(tport), args...)...)
	return p, "127.0.0.1:" + strconv.Itoa(tport)
}

// Corvid replica of redis-server 7.0.15 over TLS (the other way round
// cannot work with or without TLS: Redis 7.0 does not load RDB version 11).
func TestTLSReplicaRedis(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	ctx := testCtx(t, 2*time.Minute)

	rp, rtaddr := redisTLS(t, f, "--repl-diskless-sync-delay", "0")
	rprimary := newClient(t, rp.Addr, 2)
	rprimary.Set(ctx, "from-redis", "yes", 0)
	_, caddr := testutil.StartCorvidTLS(t, f, false, "--tls-replication", "yes",
		"--replicaof", "127.0.0.1", rtaddr[strings.LastIndexByte(rtaddr, ':')+1:])
	creplica := tlsClient(t, caddr, f.ClientConfig(t, true), 2)
	waitKey(t, creplica, "from-redis", "yes")
	rprimary.Set(ctx, "streamed", "1", 0)
	waitKey(t, creplica, "streamed", "1")

}

// Connections in their handshake count against maxclients: silent peers
// on the TLS port cannot hold more than maxclients goroutines, and once
// they go a TLS client is served again.
func TestTLSMaxClients(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	_, taddr := testutil.StartCorvidTLS(t, f, false, "--maxclients", "2")
	ctx := testCtx(t, time.Minute)
	// Two silent connections the server keeps (one refused because the
	// start-up probe's client was not yet gone is opened again).
	alive := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		_, err := c.Read(make([]byte, 1))
		ne, ok := err.(net.Error)
		return ok && ne.Timeout()
	}
	silent := make([]net.Conn, 2)
	if !waitFor(hangTimeout, func() bool {
		for i, c := range silent {
			if c != nil && alive(c) {
				continue
			}
			if c != nil {
				c.Close()
			}
			var err error
			if silent[i], err = net.DialTimeout("tcp", taddr, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			return false
		}
		return true
	}) {
		t.Fatal("the server did not keep two silent connections")
	}
	refused := waitFor(hangTimeout, func() bool {
		c := tlsClient(t, taddr, f.ClientConfig(t, true), 2)
		defer c.Close()
		return c.Ping(ctx).Err() != nil
	})
	if !refused {
		t.Fatal("a third connection was served with two silent ones in their handshake and maxclients 2")
	}
	for _, c := range silent {
		c.Close()
	}
	if !waitFor(hangTimeout, func() bool {
		c := tlsClient(t, taddr, f.ClientConfig(t, true), 2)
		defer c.Close()
		return c.Ping(ctx).Err() == nil
	}) {
		t.Fatal("no TLS client served after the silent connections closed")
	}
}

// TestTLSServedLikePlaintext: what moves a client between the event
// loop and other goroutines (a blocking pop served later, pub/sub
// messages pushed from a publisher's goroutine, a transaction, replies
// far larger than a TLS record, requests pipelined in one write) works
// over TLS 1.3, which the loops serve themselves (package tlsrec), and
// over TLS 1.2, which stays on crypto/tls; the same under net-engine
// goroutine, where both stay on crypto/tls.
func TestTLSServedLikePlaintext(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	p, taddr := testutil.StartCorvidTLS(t, f, true)
	ctx := testCtx(t, time.Minute)
	plain := newClient(t, p.Addr, 2)
	for _, version := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		name := map[uint16]string{tls.VersionTLS13: "TLS 1.3", tls.VersionTLS12: "TLS 1.2"}[version]
		cfg := f.ClientConfig(t, true)
		cfg.MinVersion, cfg.MaxVersion = version, version
		c := tlsClient(t, taddr, cfg, 3)

		big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: 64 records
		if err := c.Set(ctx, "big", big, 0).Err(); err != nil {
			t.Fatalf("%s: SET of 1 MiB: %v", name, err)
		}
		if got := c.Get(ctx, "big").Val(); got != big {
			t.Fatalf("%s: GET of 1 MiB returned %d bytes", name, len(got))
		}

		// A blocked pop, woken by a plaintext client.
		done := make(chan []string, 1)
		go func() { done <- c.BLPop(ctx, 10*time.Second, "q").Val() }()
		if !waitFor(hangTimeout, func() bool {
			return strings.Contains(plain.Info(ctx, "clients").Val(), "blocked_clients:1")
		}) {
			t.Fatalf("%s: the TLS client never blocked", name)
		}
		plain.LPush(ctx, "q", "item")
		if got := <-done; len(got) != 2 || got[1] != "item" {
			t.Fatalf("%s: BLPOP = %v", name, got)
		}

		// Pub/sub: messages pushed to a TLS subscriber.
		sub := c.Subscribe(ctx, "ch")
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			plain.Publish(ctx, "ch", "m"+strconv.Itoa(i))
		}
		for i := range 20 {
			m, err := sub.ReceiveMessage(ctx)
			if err != nil || m.Payload != "m"+strconv.Itoa(i) {
				t.Fatalf("%s: message %d = %v, %v", name, i, m, err)
			}
		}
		sub.Close()

		// A transaction and a pipeline of 1,000 commands in one write.
		if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "tx", "1", 0)
			p.Incr(ctx, "tx")
			return nil
		}); err != nil || plain.Get(ctx, "tx").Val() != "2" {
			t.Fatalf("%s: MULTI/EXEC: %v, tx=%q", name, err, plain.Get(ctx, "tx").Val())
		}
		pipe := c.Pipeline()
		for i := range 1000 {
			pipe.Set(ctx, "p"+strconv.Itoa(i), i, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatalf("%s: pipeline: %v", name, err)
		}
		if got := plain.Get(ctx, "p999").Val(); got != "999" {
			t.Fatalf("%s: p999 = %q", name, got)
		}
		plain.Del(ctx, "big", "tx")
	}
}

// TestTLSMigrate: with tls-cluster yes MIGRATE dials its target with TLS
// (its tls-port), as Valkey does; without it, a MIGRATE to a TLS port
// fails with Valkey's IOERR and the key stays.
func TestTLSMigrate(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	ctx := testCtx(t, time.Minute)
	src, _ := testutil.StartCorvidTLS(t, f, true, "--tls-cluster", "yes")
	_, dstTLS := testutil.StartCorvidTLS(t, f, true)
	host, port, _ := net.SplitHostPort(dstTLS)
	sc := newClient(t, src.Addr, 2)
	dc := tlsClient(t, dstTLS, f.ClientConfig(t, true), 2)

	sc.Set(ctx, "k1", "v1", 0)
	sc.RPush(ctx, "l", "a", "b", "c")
	if got, err := sc.Do(ctx, "MIGRATE", host, port, "", "0", "5000", "KEYS", "k1", "l").Text(); err != nil || got != "OK" {
		t.Fatalf("MIGRATE over TLS = %q, %v", got, err)
	}
	if got := dc.Get(ctx, "k1").Val(); got != "v1" {
		t.Fatalf("target k1 = %q", got)
	}
	if got := dc.LRange(ctx, "l", 0, -1).Val(); strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("target l = %v", got)
	}
	if n := sc.Exists(ctx, "k1", "l").Val(); n != 0 {
		t.Fatalf("%d keys left on the source", n)
	}
	// The cached connection is reused.
	sc.Set(ctx, "k2", "v2", 0)
	if got, err := sc.Do(ctx, "MIGRATE", host, port, "k2", "0", "5000").Text(); err != nil || got != "OK" {
		t.Fatalf("second MIGRATE over TLS = %q, %v", got, err)
	}
	if got := dc.Get(ctx, "k2").Val(); got != "v2" {
		t.Fatalf("target k2 = %q", got)
	}

	// tls-cluster yes to a plaintext port: the handshake fails, IOERR.
	plainDst, _ := testutil.StartCorvidTLS(t, f, true)
	sc.Set(ctx, "k4", "v4", 0)
	err := sc.Do(ctx, "MIGRATE", "127.0.0.1", strconv.Itoa(plainDst.Port), "k4", "0", "1000").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "IOERR") {
		t.Fatalf("TLS MIGRATE to a plaintext port: %v, want IOERR", err)
	}
	if got := sc.Get(ctx, "k4").Val(); got != "v4" {
		t.Fatalf("k4 after a failed MIGRATE = %q", got)
	}

	// tls-cluster no: plaintext to a TLS port is a failed exchange.
	plainSrc, _ := testutil.StartCorvidTLS(t, f, true)
	pc := newClient(t, plainSrc.Addr, 2)
	pc.Set(ctx, "k3", "v3", 0)
	err = pc.Do(ctx, "MIGRATE", host, port, "k3", "0", "1000").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "IOERR") {
		t.Fatalf("plaintext MIGRATE to a TLS port: %v, want IOERR", err)
	}
	if got := pc.Get(ctx, "k3").Val(); got != "v3" {
		t.Fatalf("k3 after a failed MIGRATE = %q", got)
	}
}
