package integration

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/repl"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// FAILOVER, histories that survive restarts, and SHUTDOWN waiting for its
// replicas: the coordinated hand-overs of docs/architecture.md,
// "Replication". Servers are Corvid unless a test says otherwise.

// foInfo reads one field of INFO section from c ("" if absent).
func foInfo(ctx context.Context, c *redis.Client, section, field string) string {
	s, err := c.Info(ctx, section).Result()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == field {
			return v
		}
	}
	return ""
}

// foReplicaOf starts a Corvid replica of primary and waits until its
// link is up and it applied everything the primary streamed so far.
func foReplicaOf(t *testing.T, ctx context.Context, primary *testutil.Proc, args ...string) (*testutil.Proc, *redis.Client) {
	t.Helper()
	r := testutil.StartCorvid(t, append([]string{"--replicaof", "127.0.0.1", strconv.Itoa(primary.Port)}, args...)...)
	rc := newClient(t, r.Addr, 2)
	foInSync(t, ctx, newClient(t, primary.Addr, 2), rc)
	return r, rc
}

// foInSync waits until replica's link is up and its offset is the
// primary's.
func foInSync(t *testing.T, ctx context.Context, primary, replica *redis.Client) {
	t.Helper()
	if !waitFor(15*time.Second, func() bool {
		return foInfo(ctx, replica, "replication", "master_link_status") == "up" &&
			foInfo(ctx, replica, "replication", "slave_repl_offset") == foInfo(ctx, primary, "replication", "master_repl_offset")
	}) {
		t.Fatalf("replica not in sync: replica offset %s, primary offset %s, link %s",
			foInfo(ctx, replica, "replication", "slave_repl_offset"), foInfo(ctx, primary, "replication", "master_repl_offset"),
			foInfo(ctx, replica, "replication", "master_link_status"))
	}
}

func foRole(ctx context.Context, c *redis.Client) string {
	v, err := c.Do(ctx, "ROLE").Slice()
	if err != nil || len(v) == 0 {
		return ""
	}
	s, _ := v[0].(string)
	return s
}

func TestReplFailoverErrors(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	p := testutil.StartCorvid(t, "--repl-diskless-sync-delay", "0")
	pc := newClient(t, p.Addr, 2)
	cases := []struct {
		args []any
		want string
	}{
		{[]any{"FAILOVER"}, "ERR FAILOVER requires connected replicas."},
		{[]any{"FAILOVER", "ABORT"}, "ERR No failover in progress."},
		{[]any{"FAILOVER", "BOGUS"}, "ERR syntax error"},
		{[]any{"FAILOVER", "TIMEOUT", "0"}, "ERR FAILOVER timeout must be greater than 0"},
		{[]any{"FAILOVER", "TIMEOUT", "x"}, "ERR value is not an integer or out of range"},
		{[]any{"FAILOVER", "FORCE", "FORCE"}, "ERR syntax error"},
	}
	for _, tc := range cases {
		if err := pc.Do(ctx, tc.args...).Err(); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	_, rc := foReplicaOf(t, ctx, p)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"FAILOVER", "FORCE"}, "ERR FAILOVER with force option requires both a timeout and target HOST and IP."},
		{[]any{"FAILOVER", "TO", "127.0.0.1", "1", "TIMEOUT", "100"}, "ERR FAILOVER target HOST and PORT is not a replica."},
	} {
		if err := pc.Do(ctx, tc.args...).Err(); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if err := rc.Do(ctx, "FAILOVER").Err(); err == nil || err.Error() != "ERR FAILOVER is not valid when server is a replica." {
		t.Errorf("FAILOVER on a replica: %v", err)
	}
	if err := rc.Do(ctx, "WAIT", "1", "0").Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR WAIT cannot be used with replica instances.") {
		t.Errorf("WAIT on a replica: %v", err)
	}
}

// TestReplFailover: FAILOVER hands the primary's role to a replica without
// losing an acknowledged write; the old primary follows the new one with
// a partial resync, and so does the other replica.
func TestReplFailover(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--repl-diskless-sync-delay", "0")
	pc := newClient(t, p.Addr, 2)
	r1, r1c := foReplicaOf(t, ctx, p)
	_, r2c := foReplicaOf(t, ctx, p)

	// Writers keep going during the failover: every write the old primary
	// acknowledged must be on the new one.
	stop := make(chan struct{})
	acked := make(chan int, 1)
	go func() {
		n := 0
		defer func() { acked <- n }()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if pc.Do(ctx, "SET", "w:"+strconv.Itoa(i), i).Err() != nil {
				return // READONLY once the failover has happened
			}
			n = i + 1
		}
	}()
	time.Sleep(50 * time.Millisecond) // let the writer get going (not a synchronization)
	if err := pc.Do(ctx, "FAILOVER", "TO", "127.0.0.1", r1.Port, "TIMEOUT", "5000").Err(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(15*time.Second, func() bool { return foRole(ctx, r1c) == "master" && foRole(ctx, pc) == "slave" }) {
		t.Fatalf("roles after FAILOVER: new %q old %q; state %s", foRole(ctx, r1c), foRole(ctx, pc),
			foInfo(ctx, pc, "replication", "master_failover_state"))
	}
	close(stop)
	n := <-acked
	if n == 0 {
		t.Fatal("no write was acknowledged before the failover")
	}
	if got := foInfo(ctx, pc, "replication", "master_failover_state"); got != "no-failover" {
		t.Errorf("master_failover_state after the failover: %q", got)
	}
	for i := 0; i < n; i++ {
		if v, err := r1c.Get(ctx, "w:"+strconv.Itoa(i)).Result(); err != nil || v != strconv.Itoa(i) {
			t.Fatalf("acknowledged write w:%d on the new primary: %q %v (of %d)", i, v, err, n)
		}
	}
	// The old primary follows with a partial resync, and the other
	// replica through it.
	if got := foInfo(ctx, r1c, "stats", "sync_partial_ok"); got != "1" {
		t.Errorf("new primary's sync_partial_ok = %s, want 1 (the old primary continued)", got)
	}
	if err := r1c.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	foInSync(t, ctx, r1c, pc)
	if !waitFor(15*time.Second, func() bool { return r2c.Get(ctx, "after").Val() == "1" }) {
		t.Fatal("the other replica does not receive the new primary's writes")
	}
	if err := pc.Set(ctx, "x", "1", 0).Err(); err == nil || err.Error() != "READONLY You can't write against a read only replica." {
		t.Errorf("write to the demoted primary: %v", err)
	}
}

// TestReplFailoverAbort: a FAILOVER whose target cannot catch up before
// its timeout aborts, and ABORT ends one that waits; either way the
// primary stays one and writes resume. The replica is held behind with
// DEBUG SLEEP, which holds every stripe, so its link cannot apply.
func TestReplFailoverAbort(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--repl-diskless-sync-delay", "0")
	pc := newClient(t, p.Addr, 2)
	r, rc := foReplicaOf(t, ctx, p, "--enable-debug-command", "yes")
	sleeper := newClient(t, r.Addr, 2)
	for _, tc := range []struct {
		name  string
		args  []any
		abort bool
	}{
		{"timeout", []any{"FAILOVER", "TO", "127.0.0.1", r.Port, "TIMEOUT", "300"}, false},
		{"abort", []any{"FAILOVER", "TO", "127.0.0.1", r.Port, "TIMEOUT", "60000"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- sleeper.Do(ctx, "DEBUG", "SLEEP", "2").Err() }()
			if !waitFor(5*time.Second, func() bool {
				return strings.Contains(rc.ClientList(ctx).Val(), "cmd=debug")
			}) {
				t.Fatal("DEBUG SLEEP did not start")
			}
			if err := pc.Set(ctx, "k", tc.name, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if err := pc.Do(ctx, tc.args...).Err(); err != nil {
				t.Fatal(err)
			}
			if got := foInfo(ctx, pc, "replication", "master_failover_state"); got != "waiting-for-sync" {
				t.Errorf("master_failover_state while waiting: %q", got)
			}
			if tc.abort {
				if err := pc.Do(ctx, "FAILOVER", "ABORT").Err(); err != nil {
					t.Fatal(err)
				}
			}
			if !waitFor(5*time.Second, func() bool {
				return foInfo(ctx, pc, "replication", "master_failover_state") == "no-failover"
			}) {
				t.Fatal("the failover did not end")
			}
			if foRole(ctx, pc) != "master" {
				t.Fatalf("after an aborted FAILOVER the primary is %q", foRole(ctx, pc))
			}
			if err := pc.Set(ctx, "k2", "v", 0).Err(); err != nil {
				t.Fatalf("write after the aborted FAILOVER: %v", err)
			}
			want := "Replica never caught up before timeout"
			if tc.abort {
				want = "Failover manually aborted"
			}
			// The log line reaches the test through the process's output
			// pipe, after the state it reports.
			if !waitFor(5*time.Second, func() bool { return strings.Contains(p.Output(), "aborted: "+want) }) {
				t.Errorf("log lacks %q", want)
			}
			<-done
			foInSync(t, ctx, pc, rc)
		})
	}
}

// TestReplRestartContinues: histories survive restarts through the RDB: a
// replica restarted from its dump continues with a partial resync in the
// database it had selected, and so do replicas of a restarted primary.
func TestReplRestartContinues(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	pdir, rdir := t.TempDir(), t.TempDir()
	p := testutil.StartCorvidIn(t, pdir, "--repl-diskless-sync-delay", "0")
	pc := newClient(t, p.Addr, 2)
	replicaArgs := []string{"--replicaof", "127.0.0.1", strconv.Itoa(p.Port)}
	r := testutil.StartCorvidIn(t, rdir, replicaArgs...)
	rc := newClient(t, r.Addr, 2)
	foInSync(t, ctx, pc, rc)
	// The stream selects database 3 and stays there.
	pc3 := newClient(t, p.Addr, 2, func(o *redis.Options) { o.DB = 3 })
	pc3.Incr(ctx, "n")
	foInSync(t, ctx, pc, rc)
	if err := rc.Do(ctx, "SHUTDOWN", "SAVE").Err(); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Fatal(err)
	}
	r.WaitExit(10 * time.Second)
	pc3.Incr(ctx, "n") // while the replica is down: no SELECT follows in the stream
	partial := foInfo(ctx, pc, "stats", "sync_partial_ok")
	r = testutil.StartCorvidIn(t, rdir, replicaArgs...)
	rc = newClient(t, r.Addr, 2)
	foInSync(t, ctx, pc, rc)
	if got := foInfo(ctx, pc, "stats", "sync_partial_ok"); got == partial {
		t.Errorf("the restarted replica did a full sync (sync_partial_ok stayed %s)", got)
	}
	rc3 := newClient(t, r.Addr, 2, func(o *redis.Options) { o.DB = 3 })
	if v := rc3.Get(ctx, "n").Val(); v != "2" {
		t.Errorf("n on the restarted replica = %q, want 2", v)
	}

	// The primary restarts from its dump (on another port: the harness
	// picks a free one), the replica follows it there and continues.
	if err := pc.Do(ctx, "SHUTDOWN", "SAVE").Err(); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Fatal(err)
	}
	p.WaitExit(10 * time.Second)
	p = testutil.StartCorvidIn(t, pdir, "--repl-diskless-sync-delay", "0")
	pc = newClient(t, p.Addr, 2)
	if err := rc.Do(ctx, "REPLICAOF", "127.0.0.1", p.Port).Err(); err != nil {
		t.Fatal(err)
	}
	pc3 = newClient(t, p.Addr, 2, func(o *redis.Options) { o.DB = 3 })
	pc3.Incr(ctx, "n")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("primary:\n%s\nreplica:\n%s", p.Output(), r.Output())
		}
	})
	foInSync(t, ctx, pc, rc)
	if got := foInfo(ctx, pc, "stats", "sync_partial_ok"); got != "1" {
		t.Errorf("after the primary's restart sync_partial_ok = %q, want 1", got)
	}
	if v := rc3.Get(ctx, "n").Val(); v != "3" {
		t.Errorf("n on the replica after the primary's restart = %q, want 3", v)
	}
}

// TestReplShutdownWaitsForReplicas: SHUTDOWN (without NOW) lets replicas
// acknowledge the whole stream first, so the last writes survive on them.
func TestReplShutdownWaitsForReplicas(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--repl-diskless-sync-delay", "0")
	pc := newClient(t, p.Addr, 2)
	_, rc := foReplicaOf(t, ctx, p)
	pipe := pc.Pipeline()
	for i := 0; i < 2000; i++ {
		pipe.Set(ctx, "s:"+strconv.Itoa(i), i, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	pc.Do(ctx, "SHUTDOWN", "NOSAVE")
	p.WaitExit(15 * time.Second)
	if !strings.Contains(p.Output(), "Waiting for replicas before shutting down.") {
		t.Errorf("SHUTDOWN did not wait for its replica:\n%s", p.Output())
	}
	if v := rc.Get(ctx, "s:1999").Val(); v != "1999" {
		t.Errorf("the last write before SHUTDOWN on the replica = %q", v)
	}
}

// TestReplRDBOnlyTransfers: REPLCONF rdb-only 1 gets the RDB and then the
// connection closes (valkey-cli --rdb); rdb-filter-only functions gets
// the function libraries and no keys (valkey-cli --functions-rdb), and
// an empty filter neither; an unknown filter is Valkey's error.
func TestReplRDBOnlyTransfers(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	p := testutil.StartCorvid(t)
	pc := newClient(t, p.Addr, 2)
	pc.Set(ctx, "a", "1", 0)
	if err := pc.Do(ctx, "FUNCTION", "LOAD", "#!lua name=mylib\nserver.register_function('f', function() return 1 end)").Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		filter    string // "-": none
		keys, fns int
	}{{"-", 1, 1}, {"functions", 0, 1}, {"", 0, 0}} {
		conn, br := testutil.DialConn(t, p.Addr)
		send := func(args ...string) string {
			bs := make([][]byte, len(args))
			for i, a := range args {
				bs[i] = []byte(a)
			}
			conn.Write(effects.AppendCommand(nil, bs...))
			line, _ := br.ReadString('\n')
			return strings.TrimSpace(line)
		}
		send("REPLCONF", "capa", "eof")
		send("REPLCONF", "rdb-only", "1")
		if tc.filter != "-" {
			if got := send("REPLCONF", "rdb-filter-only", tc.filter); got != "+OK" {
				t.Fatalf("filter %q: %s", tc.filter, got)
			}
		}
		conn.Write([]byte("SYNC\r\n"))
		n, mark, err := repl.ReadPayloadHeader(br)
		if err != nil {
			t.Fatal(err)
		}
		var keys, fns int
		l := rdb.Loader{
			OnEntry:    func(*rdb.Entry) error { keys++; return nil },
			OnFunction: func([]byte) error { fns++; return nil },
		}
		if _, err := l.Load(repl.Payload(br, n, mark)); err != nil {
			t.Fatalf("filter %q: %v", tc.filter, err)
		}
		if keys != tc.keys || fns != tc.fns {
			t.Errorf("filter %q: %d keys, %d libraries; want %d, %d", tc.filter, keys, fns, tc.keys, tc.fns)
		}
		if _, err := br.ReadByte(); err == nil {
			t.Errorf("filter %q: the connection stays open after an rdb-only transfer", tc.filter)
		}
	}
	conn, br := testutil.DialConn(t, p.Addr)
	conn.Write([]byte("REPLCONF rdb-filter-only \"functions keys\"\r\n"))
	if line, _ := br.ReadString('\n'); strings.TrimSpace(line) != "-ERR Unsupported rdb-filter-only option: keys" {
		t.Errorf("unknown filter: %q", line)
	}
}

// TestReplWriteGuards: min-replicas-to-write refuses writes (NOREPLICAS)
// until enough replicas acknowledge within min-replicas-max-lag; a replica
// with replica-serve-stale-data no answers MASTERDOWN while its link is
// down; replica-announce-ip/port are what the primary lists; WAITAOF
// counts a replica that fsynced (appendonly yes there).
func TestReplWriteGuards(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--repl-diskless-sync-delay", "0", "--min-replicas-to-write", "1", "--min-replicas-max-lag", "10")
	pc := newClient(t, p.Addr, 2)
	if err := pc.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != "NOREPLICAS Not enough good replicas to write." {
		t.Fatalf("write with no replica: %v", err)
	}
	if err := pc.Get(ctx, "k").Err(); err != redis.Nil {
		t.Errorf("a read is refused too: %v", err)
	}
	_, rc := foReplicaOf(t, ctx, p, "--replica-announce-ip", "10.1.2.3", "--replica-announce-port", "7777",
		"--replica-serve-stale-data", "no", "--appendonly", "yes")
	if !waitFor(5*time.Second, func() bool { return pc.Set(ctx, "k", "v", 0).Err() == nil }) {
		t.Fatalf("writes stay refused with a good replica: %v", pc.Set(ctx, "k", "v", 0).Err())
	}
	if got := foInfo(ctx, pc, "replication", "slave0"); !strings.HasPrefix(got, "ip=10.1.2.3,port=7777,state=online,") {
		t.Errorf("slave0 = %q, want the announced address", got)
	}
	if v, err := pc.Do(ctx, "WAITAOF", "0", "1", "5000").Slice(); err != nil || len(v) != 2 || v[1] != int64(1) {
		t.Errorf("WAITAOF 0 1 with an appendonly replica: %v %v", v, err)
	}
	// The primary goes away: the replica refuses what is not flagged
	// stale, and still answers INFO.
	pc.Do(ctx, "SHUTDOWN", "NOSAVE", "NOW")
	p.WaitExit(10 * time.Second)
	if !waitFor(10*time.Second, func() bool { return foInfo(ctx, rc, "replication", "master_link_status") == "down" }) {
		t.Fatal("the replica does not see its link down")
	}
	if err := rc.Get(ctx, "k").Err(); err == nil || err.Error() != "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." {
		t.Errorf("GET with the link down and replica-serve-stale-data no: %v", err)
	}
	if err := rc.Do(ctx, "CONFIG", "SET", "replica-serve-stale-data", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := rc.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Errorf("GET with replica-serve-stale-data yes: %q %v", v, err)
	}
}

// TestReplFailoverForce: with FORCE, a target that has not caught up when
// the timeout passes is failed over to anyway; the old primary ends up
// its replica with the new primary's data.
func TestReplFailoverForce(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--repl-diskless-sync-delay", "0")
	pc := newClient(t, p.Addr, 2)
	r, rc := foReplicaOf(t, ctx, p, "--enable-debug-command", "yes")
	sleeper := newClient(t, r.Addr, 2)
	done := make(chan error, 1)
	go func() { done <- sleeper.Do(ctx, "DEBUG", "SLEEP", "1").Err() }()
	if !waitFor(5*time.Second, func() bool { return strings.Contains(rc.ClientList(ctx).Val(), "cmd=debug") }) {
		t.Fatal("DEBUG SLEEP did not start")
	}
	pc.Set(ctx, "k", "v", 0)
	if err := pc.Do(ctx, "FAILOVER", "TO", "127.0.0.1", r.Port, "TIMEOUT", "200", "FORCE").Err(); err != nil {
		t.Fatal(err)
	}
	<-done
	if !waitFor(15*time.Second, func() bool { return foRole(ctx, rc) == "master" && foRole(ctx, pc) == "slave" }) {
		t.Fatalf("roles after FAILOVER FORCE: target %q, old primary %q", foRole(ctx, rc), foRole(ctx, pc))
	}
	if !strings.Contains(p.Output(), "time out exceeded, failing over.") {
		t.Error("the log does not say the forced failover went ahead")
	}
	if err := rc.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatalf("SET on the new primary: %v\nROLE %v / %v\nold primary log:\n%s\ntarget log:\n%s", err, rc.Do(ctx, "ROLE").Val(), pc.Do(ctx, "ROLE").Val(), p.Output(), r.Output())
	}
	foInSync(t, ctx, rc, pc)
	if v, err := pc.Get(ctx, "after").Result(); v != "1" {
		t.Errorf("the old primary does not follow the new one: after=%q (%v); its replication: %s", v, err, pc.Info(ctx, "replication").Val())
	}
}
