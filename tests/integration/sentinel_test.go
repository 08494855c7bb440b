package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Valkey's own Sentinel (valkey-sentinel 8.0.1, unmodified) watching Corvid:
// three sentinels monitor a Corvid primary with two Corvid replicas, and
// when the primary is killed they promote one replica and repoint the
// other, with every write the old primary had WAIT-acknowledged by both
// replicas still there.

const sentinelMaster = "mymaster"

// sentinelCluster is the deployment under test.
type sentinelCluster struct {
	t         *testing.T
	dir       string // every process's directory is under it
	primary   *testutil.Proc
	rejoined  *testutil.Proc // the old primary, restarted
	restarted *testutil.Proc // the remaining replica, restarted
	replicas  [2]*testutil.Proc
	confs     map[*testutil.Proc]string // each Corvid's configuration file
	sentinels []*testutil.Proc
}

// sentinelWait polls f every 50 ms until it reports done or timeout passes;
// then the test fails with what, f's last detail and the logs.
func sentinelWait(t *testing.T, timeout time.Duration, what string, f func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var detail string
	for {
		var ok bool
		ok, detail = f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last: %s", what, timeout, detail)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startCorvidNode starts a Corvid with a writable configuration file of
// its own (so CONFIG REWRITE, which Sentinel sends with every REPLICAOF,
// has a file to persist the role in).
func (sc *sentinelCluster) startCorvidNode(name string) *testutil.Proc {
	dir := sc.mkdir(name)
	conf := filepath.Join(dir, "corvid.conf")
	if err := os.WriteFile(conf, []byte("# "+name+" (sentinel test)\n"), 0o644); err != nil {
		sc.t.Fatal(err)
	}
	p := testutil.StartCorvidIn(sc.t, dir, append([]string{conf}, corvidNodeArgs...)...)
	sc.confs[p] = conf
	return p
}

// corvidNodeArgs: no persistence, full syncs without delay.
var corvidNodeArgs = []string{"--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"}

// mkdir makes a directory for one process.
func (sc *sentinelCluster) mkdir(name string) string {
	dir := filepath.Join(sc.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		sc.t.Fatal(err)
	}
	return dir
}

// dumpLogs prints every process's output (and the sentinels' rewritten
// configuration files) when the test failed.
func (sc *sentinelCluster) dumpLogs() {
	t := sc.t
	if !t.Failed() {
		return
	}
	if sc.primary != nil {
		t.Logf("---- corvid primary %s ----\n%s", sc.primary.Addr, sc.primary.Output())
	}
	if sc.rejoined != nil {
		conf, _ := os.ReadFile(sc.confs[sc.rejoined])
		t.Logf("---- corvid old primary restarted %s ----\n%s\n---- its configuration file ----\n%s", sc.rejoined.Addr, sc.rejoined.Output(), conf)
	}
	if sc.restarted != nil {
		t.Logf("---- corvid remaining replica restarted %s ----\n%s", sc.restarted.Addr, sc.restarted.Output())
	}
	for i, r := range sc.replicas {
		if r != nil {
			conf, _ := os.ReadFile(sc.confs[r])
			t.Logf("---- corvid replica %d %s ----\n%s\n---- its configuration file ----\n%s", i, r.Addr, r.Output(), conf)
		}
	}
	for i, s := range sc.sentinels {
		conf, _ := os.ReadFile(filepath.Join(s.Dir, "sentinel.conf"))
		t.Logf("---- sentinel %d %s ----\n%s\n---- sentinel %d config ----\n%s", i, s.Addr, s.Output(), i, conf)
	}
}

// sentinelFields turns a RESP2 flat key/value array (SENTINEL MASTER, one
// entry of SENTINEL REPLICAS) into a map.
func sentinelFields(v any) map[string]string {
	m := map[string]string{}
	a, _ := v.([]any)
	for i := 0; i+1 < len(a); i += 2 {
		k, _ := a[i].(string)
		val, _ := a[i+1].(string)
		m[k] = val
	}
	return m
}

// sentinelInfoField returns field's value in an INFO text ("" if absent).
func sentinelInfoField(info, field string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// sentinelRole returns ROLE's reply, nil when the server does not answer.
func sentinelRole(ctx context.Context, c *redis.Client) []any {
	v, err := c.Do(ctx, "ROLE").Slice()
	if err != nil {
		return nil
	}
	return v
}

// sentinelReady reports whether sentinel s sees the primary with two
// healthy replicas and two other sentinels.
func sentinelReady(ctx context.Context, s *redis.Client) (bool, string) {
	info, err := s.Info(ctx, "sentinel").Result()
	if err != nil {
		return false, err.Error()
	}
	line := sentinelInfoField(info, "master0")
	if !strings.Contains(line, "status=ok") || !strings.Contains(line, "slaves=2") || !strings.Contains(line, "sentinels=3") {
		return false, "INFO sentinel: " + line
	}
	m, err := s.Do(ctx, "SENTINEL", "MASTER", sentinelMaster).Result()
	if err != nil {
		return false, err.Error()
	}
	if f := sentinelFields(m)["flags"]; f != "master" {
		return false, "master flags " + f
	}
	reps, err := s.Do(ctx, "SENTINEL", "REPLICAS", sentinelMaster).Slice()
	if err != nil {
		return false, err.Error()
	}
	if len(reps) != 2 {
		return false, fmt.Sprintf("%d replicas", len(reps))
	}
	for _, r := range reps {
		f := sentinelFields(r)
		if f["flags"] != "slave" || f["master-link-status"] != "ok" {
			return false, fmt.Sprintf("replica %s:%s flags=%s master-link-status=%s", f["ip"], f["port"], f["flags"], f["master-link-status"])
		}
	}
	sents, err := s.Do(ctx, "SENTINEL", "SENTINELS", sentinelMaster).Slice()
	if err != nil {
		return false, err.Error()
	}
	if len(sents) != 2 {
		return false, fmt.Sprintf("%d other sentinels", len(sents))
	}
	for _, x := range sents {
		if f := sentinelFields(x)["flags"]; f != "sentinel" {
			return false, "sentinel flags " + f
		}
	}
	return true, ""
}

// TestSentinelFailover: three valkey-sentinel processes monitor a Corvid
// primary and its two Corvid replicas; keys written on the primary are
// acknowledged by both replicas (WAIT 2); the primary is killed with
// SIGKILL. A client following the master through SENTINEL
// get-master-addr-by-name must then reach a promoted replica whose ROLE is
// master and which accepts writes, the other replica must follow it, both
// must hold every acknowledged key, the sentinels' CONFIG REWRITE must
// have persisted the new roles in the Corvids' configuration files, and
// all three sentinels must end the failover agreeing on the new master.
// Then the old primary, restarted empty at its address, is turned into a
// replica of the new one by the sentinels and gets every key; and the
// remaining replica, killed and restarted on its rewritten configuration
// file, follows the new primary by itself. Before the sentinels start,
// CLIENT LIST TYPE replica/master name the links' two ends (flags S, M)
// and CLIENT KILL TYPE normal, which Sentinel sends with every
// REPLICAOF, leaves them alone.
func TestSentinelFailover(t *testing.T) {
	testutil.SentinelPath(t) // skips when there is no valkey-sentinel
	ctx := testCtx(t, 2*time.Minute)
	// t.TempDir's removal is registered before dumpLogs, so it runs
	// after it: the logs are printed after the processes were stopped
	// (with everything they wrote), the files before they are removed.
	sc := &sentinelCluster{t: t, dir: t.TempDir(), confs: map[*testutil.Proc]string{}}
	t.Cleanup(sc.dumpLogs)

	// The Corvids: a primary and two replicas.
	sc.primary = sc.startCorvidNode("primary")
	pc := newClient(t, sc.primary.Addr, 2)
	var rc [2]*redis.Client
	for i := range sc.replicas {
		sc.replicas[i] = sc.startCorvidNode("replica" + strconv.Itoa(i))
		rc[i] = newClient(t, sc.replicas[i].Addr, 2)
		if err := rc[i].Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(sc.primary.Port)).Err(); err != nil {
			t.Fatalf("REPLICAOF: %v", err)
		}
	}
	sentinelWait(t, 15*time.Second, "both replicas online at the primary", func() (bool, string) {
		info, err := pc.Info(ctx, "replication").Result()
		if err != nil {
			return false, err.Error()
		}
		n := 0
		for i := range 2 {
			if strings.Contains(sentinelInfoField(info, "slave"+strconv.Itoa(i)), "state=online") {
				n++
			}
		}
		return n == 2, info
	})

	// The replication links' ends are the replica clients (flag S) on the
	// primary and the primary's client (flag M) on each replica, and the
	// CLIENT KILL TYPE normal Sentinel sends with every REPLICAOF leaves
	// them alone. (Checked before the sentinels start: killing their
	// connections would delay their PINGs past down-after-milliseconds.)
	linkClients := func(c *redis.Client, typ, flags string, n int) string {
		t.Helper()
		list, err := c.Do(ctx, "CLIENT", "LIST", "TYPE", typ).Text()
		lines := strings.Split(strings.TrimSpace(list), "\n")
		var ids []string
		for _, line := range lines {
			if id, _, _ := strings.Cut(line, " "); strings.Contains(line, " flags="+flags+" ") {
				ids = append(ids, id)
			}
		}
		if err != nil || len(lines) != n || len(ids) != n {
			t.Fatalf("CLIENT LIST TYPE %s = %q, %v; want %d clients with flags=%s", typ, list, err, n, flags)
		}
		return strings.Join(ids, " ")
	}
	sentinelWait(t, 5*time.Second, "both replicas streaming", func() (bool, string) {
		for i := range rc {
			if list, err := rc[i].Do(ctx, "CLIENT", "LIST", "TYPE", "master").Text(); err != nil || list == "" {
				return false, fmt.Sprintf("replica %d: CLIENT LIST TYPE master = %q, %v", i, list, err)
			}
		}
		return true, ""
	})
	replicaIDs := linkClients(pc, "replica", "S", 2)
	primaryIDs := [2]string{linkClients(rc[0], "master", "M", 1), linkClients(rc[1], "master", "M", 1)}
	for _, c := range []*redis.Client{pc, rc[0], rc[1]} {
		if err := c.Do(ctx, "CLIENT", "KILL", "TYPE", "normal").Err(); err != nil {
			t.Fatalf("CLIENT KILL TYPE normal: %v", err)
		}
	}
	if ids := linkClients(pc, "replica", "S", 2); ids != replicaIDs {
		t.Errorf("CLIENT KILL TYPE normal on the primary cut a replica: %s, then %s", replicaIDs, ids)
	}
	for i := range rc {
		if id := linkClients(rc[i], "master", "M", 1); id != primaryIDs[i] {
			t.Errorf("CLIENT KILL TYPE normal on replica %d cut its link: %s, then %s", i, primaryIDs[i], id)
		}
	}
	// The kills closed the clients' other pooled connections: new clients.
	pc = newClient(t, sc.primary.Addr, 2)
	for i := range rc {
		rc[i] = newClient(t, sc.replicas[i].Addr, 2)
	}

	// The sentinels.
	ports := make([]int, 3)
	for i := range ports {
		ports[i] = testutil.FreePort(t)
	}
	sclients := make([]*redis.Client, len(ports))
	for i, port := range ports {
		dir := sc.mkdir("sentinel" + strconv.Itoa(i))
		conf := testutil.SentinelConf(port, dir, sentinelMaster, sc.primary.Port, 2,
			"sentinel down-after-milliseconds "+sentinelMaster+" 1000",
			"sentinel failover-timeout "+sentinelMaster+" 10000",
			"sentinel parallel-syncs "+sentinelMaster+" 1")
		sc.sentinels = append(sc.sentinels, testutil.StartSentinel(t, dir, port, conf))
		sclients[i] = newClient(t, sc.sentinels[i].Addr, 2)
	}
	for i, s := range sclients {
		sentinelWait(t, 20*time.Second, fmt.Sprintf("sentinel %d sees 2 replicas and 2 sentinels", i), func() (bool, string) {
			return sentinelReady(ctx, s)
		})
	}

	// Writes both replicas acknowledged.
	want := map[string]string{}
	for batch := range 3 {
		pipe := pc.Pipeline()
		for i := range 100 {
			k := fmt.Sprintf("key:%d:%d", batch, i)
			v := fmt.Sprintf("value-%d-%d-%s", batch, i, strings.Repeat("x", i))
			want[k] = v
			pipe.Set(ctx, k, v, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := pc.Do(ctx, "WAIT", "2", "5000").Int()
		if err != nil || n != 2 {
			t.Fatalf("WAIT 2 5000 = %d, %v; want 2", n, err)
		}
	}

	// The primary dies.
	oldAddr := sc.primary.Addr
	sc.primary.Stop() // SIGKILL
	killedAt := time.Now()

	// A client that follows the master through the sentinels. It waits
	// for all three to name the same promoted replica as a plain master:
	// under load a sentinel that missed the first election's outcome can
	// still see the old primary objectively down and win a second one
	// (epoch 2) with the vote of a sentinel that also had not yet heard the
	// new configuration, which then demotes the first promoted replica.
	// That is Sentinel's design (writes taken by the first promoted replica
	// in that window are lost); once every sentinel has switched, no one
	// is left to start another failover, so the first write goes there.
	byAddr := map[string]int{sc.replicas[0].Addr: 0, sc.replicas[1].Addr: 1}
	newIdx := -1
	sentinelWait(t, 40*time.Second, "every sentinel naming the same promoted replica, accepting writes", func() (bool, string) {
		agreed := ""
		for i, s := range sclients {
			a, err := s.Do(ctx, "SENTINEL", "get-master-addr-by-name", sentinelMaster).StringSlice()
			if err != nil || len(a) != 2 {
				return false, fmt.Sprintf("sentinel %d: %v %v", i, a, err)
			}
			addr := a[0] + ":" + a[1]
			if addr == oldAddr {
				return false, fmt.Sprintf("sentinel %d: still %s", i, addr)
			}
			if _, ok := byAddr[addr]; !ok {
				t.Fatalf("sentinel %d names %s, neither replica", i, addr)
			}
			if agreed != "" && addr != agreed {
				return false, fmt.Sprintf("sentinels name %s and %s", agreed, addr)
			}
			agreed = addr
			m, err := s.Do(ctx, "SENTINEL", "MASTER", sentinelMaster).Result()
			if err != nil {
				return false, fmt.Sprintf("sentinel %d: %v", i, err)
			}
			if f := sentinelFields(m); f["flags"] != "master" {
				return false, fmt.Sprintf("sentinel %d: %s flags=%s", i, addr, f["flags"])
			}
		}
		idx := byAddr[agreed]
		role := sentinelRole(ctx, rc[idx])
		if len(role) == 0 || role[0] != "master" {
			return false, fmt.Sprintf("%s ROLE %v", agreed, role)
		}
		if err := rc[idx].Set(ctx, "after-failover", "yes", 0).Err(); err != nil {
			return false, fmt.Sprintf("%s SET: %v", agreed, err)
		}
		newIdx = idx
		return true, ""
	})
	t.Logf("failover to %s %v after the kill", sc.replicas[newIdx].Addr, time.Since(killedAt).Round(time.Millisecond))
	newp, other := rc[newIdx], rc[1-newIdx]
	newPort := sc.replicas[newIdx].Port

	// The other replica follows the new primary.
	sentinelWait(t, 20*time.Second, "the other replica replicating from the new primary", func() (bool, string) {
		role := sentinelRole(ctx, other)
		if len(role) != 5 || role[0] != "slave" || role[2] != int64(newPort) || role[3] != "connected" {
			return false, fmt.Sprintf("ROLE %v", role)
		}
		info, err := other.Info(ctx, "replication").Result()
		if err != nil {
			return false, err.Error()
		}
		if sentinelInfoField(info, "master_port") != strconv.Itoa(newPort) || sentinelInfoField(info, "master_link_status") != "up" {
			return false, info
		}
		info, err = newp.Info(ctx, "replication").Result()
		if err != nil {
			return false, err.Error()
		}
		if sentinelInfoField(info, "role") != "master" || sentinelInfoField(info, "connected_slaves") != "1" ||
			!strings.Contains(sentinelInfoField(info, "slave0"), "port="+strconv.Itoa(sc.replicas[1-newIdx].Port)+",state=online") {
			return false, info
		}
		return true, ""
	})
	if n, err := newp.Do(ctx, "WAIT", "1", "5000").Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 5000 on the new primary = %d, %v; want 1", n, err)
	}

	// Every acknowledged key survived, on both.
	checkKeys := func(who string, c *redis.Client) {
		t.Helper()
		missing := 0
		for k, v := range want {
			got, err := c.Get(ctx, k).Result()
			if err != nil || got != v {
				if missing < 5 {
					t.Errorf("%s: GET %s = %q, %v; want %q", who, k, got, err, v)
				}
				missing++
			}
		}
		if missing > 0 {
			t.Errorf("%s: %d of %d acknowledged keys missing or wrong", who, missing, len(want))
		}
		if got, err := c.Get(ctx, "after-failover").Result(); err != nil || got != "yes" {
			t.Errorf("%s: GET after-failover = %q, %v", who, got, err)
		}
	}
	checkKeys("new primary", newp)
	checkKeys("remaining replica", other)

	// Sentinel's CONFIG REWRITE persisted the roles.
	promotedConf, otherConf := sc.confs[sc.replicas[newIdx]], sc.confs[sc.replicas[1-newIdx]]
	sentinelWait(t, 10*time.Second, "the configuration files rewritten with the new roles", func() (bool, string) {
		pb, err1 := os.ReadFile(promotedConf)
		ob, err2 := os.ReadFile(otherConf)
		if err1 != nil || err2 != nil {
			return false, fmt.Sprint(err1, err2)
		}
		if strings.Contains(string(pb), "replicaof") {
			return false, "promoted:\n" + string(pb)
		}
		if !strings.Contains(string(ob), "\nreplicaof 127.0.0.1 "+strconv.Itoa(newPort)+"\n") {
			return false, "other:\n" + string(ob)
		}
		return true, ""
	})

	// The failover completes: every sentinel names the new master, no
	// longer failing over, with the remaining replica reported as its
	// healthy replica (the leader ends its failover once it saw that
	// replica's INFO show the new primary with the link up).
	otherAddr := sc.replicas[1-newIdx]
	sentinelWait(t, 20*time.Second, "every sentinel done with the failover", func() (bool, string) {
		for i, s := range sclients {
			m, err := s.Do(ctx, "SENTINEL", "MASTER", sentinelMaster).Result()
			if err != nil {
				return false, fmt.Sprintf("sentinel %d: %v", i, err)
			}
			f := sentinelFields(m)
			if f["port"] != strconv.Itoa(newPort) || f["flags"] != "master" {
				return false, fmt.Sprintf("sentinel %d: master %s:%s flags=%s", i, f["ip"], f["port"], f["flags"])
			}
			reps, err := s.Do(ctx, "SENTINEL", "REPLICAS", sentinelMaster).Slice()
			if err != nil {
				return false, fmt.Sprintf("sentinel %d: %v", i, err)
			}
			found := false
			for _, r := range reps {
				f := sentinelFields(r)
				if f["port"] != strconv.Itoa(otherAddr.Port) {
					continue
				}
				found = true
				if f["flags"] != "slave" || f["master-link-status"] != "ok" || f["master-port"] != strconv.Itoa(newPort) {
					return false, fmt.Sprintf("sentinel %d: replica %s flags=%s master-link-status=%s master-port=%s",
						i, f["port"], f["flags"], f["master-link-status"], f["master-port"])
				}
			}
			if !found {
				return false, fmt.Sprintf("sentinel %d: %d replicas, not %s", i, len(reps), otherAddr.Addr)
			}
		}
		ended := false
		for _, p := range sc.sentinels {
			ended = ended || strings.Contains(p.Output(), "+failover-end ")
		}
		return ended, "no +failover-end in the sentinels' logs"
	})

	// The old primary comes back at its address (empty: it never saved);
	// the sentinels turn it into a replica of the new primary, which
	// gives it every key.
	old := sc.primary
	sc.rejoined = testutil.StartCorvidAt(t, old.Dir, old.Port, append([]string{sc.confs[old]}, corvidNodeArgs...)...)
	sc.confs[sc.rejoined] = sc.confs[old]
	oc := newClient(t, sc.rejoined.Addr, 2)
	sentinelWait(t, 30*time.Second, "the old primary back as a replica of the new one", func() (bool, string) {
		role := sentinelRole(ctx, oc)
		if len(role) != 5 || role[0] != "slave" || role[2] != int64(newPort) || role[3] != "connected" {
			return false, fmt.Sprintf("ROLE %v", role)
		}
		return true, ""
	})
	if err := newp.Set(ctx, "after-rejoin", "yes", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := newp.Do(ctx, "WAIT", "2", "5000").Int(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 5000 on the new primary = %d, %v; want 2", n, err)
	}
	checkKeys("old primary", oc)
	if got, err := oc.Get(ctx, "after-rejoin").Result(); err != nil || got != "yes" {
		t.Errorf("old primary: GET after-rejoin = %q, %v", got, err)
	}
	sentinelWait(t, 10*time.Second, "the old primary's configuration file rewritten", func() (bool, string) {
		b, err := os.ReadFile(sc.confs[old])
		return err == nil && strings.Contains(string(b), "\nreplicaof 127.0.0.1 "+strconv.Itoa(newPort)+"\n"), string(b)
	})
	sentinelWait(t, 15*time.Second, "every sentinel seeing two healthy replicas again", func() (bool, string) {
		for i, s := range sclients {
			reps, err := s.Do(ctx, "SENTINEL", "REPLICAS", sentinelMaster).Slice()
			if err != nil || len(reps) != 2 {
				return false, fmt.Sprintf("sentinel %d: %d replicas, %v", i, len(reps), err)
			}
			for _, r := range reps {
				f := sentinelFields(r)
				if f["flags"] != "slave" || f["master-link-status"] != "ok" || f["master-port"] != strconv.Itoa(newPort) {
					return false, fmt.Sprintf("sentinel %d: replica %s flags=%s master-link-status=%s master-port=%s",
						i, f["port"], f["flags"], f["master-link-status"], f["master-port"])
				}
			}
		}
		return true, ""
	})

	// The configuration file Sentinel's CONFIG REWRITE left is enough for
	// a replica killed and restarted on it to follow the new primary on
	// its own (its log has no REPLICAOF command this time). It offers the
	// history its RDB recorded (the initial full sync's file: the original
	// primary's ID, which the new primary holds as its second ID).
	rem := sc.replicas[1-newIdx]
	rem.Stop()
	sc.restarted = testutil.StartCorvidAt(t, rem.Dir, rem.Port, append([]string{sc.confs[rem]}, corvidNodeArgs...)...)
	sc.confs[sc.restarted] = sc.confs[rem]
	rc2 := newClient(t, sc.restarted.Addr, 2)
	sentinelWait(t, 15*time.Second, "the restarted replica following the new primary", func() (bool, string) {
		role := sentinelRole(ctx, rc2)
		if len(role) != 5 || role[0] != "slave" || role[2] != int64(newPort) || role[3] != "connected" {
			return false, fmt.Sprintf("ROLE %v", role)
		}
		return true, ""
	})
	if strings.Contains(sc.restarted.Output(), "REPLICAOF") {
		t.Errorf("the restarted replica was told REPLICAOF again:\n%s", sc.restarted.Output())
	}
	// Whether it can continue with a partial resync depends on where the
	// new primary's own backlog starts (its full sync may have come after
	// this replica's, whose offset its RDB holds): either is right, the
	// keys below are what must hold.
	if strings.Contains(sc.restarted.Output(), "Successful partial resynchronization") {
		t.Log("the restarted replica continued its RDB's history (partial resync)")
	} else {
		t.Log("the restarted replica's offset was before the new primary's backlog: full resync")
	}
	// "connected" comes with +CONTINUE, before the backlog it is sent
	// is applied: a write both replicas acknowledged orders the reads.
	if err := newp.Set(ctx, "after-restart", "yes", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := newp.Do(ctx, "WAIT", "2", "5000").Int(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 5000 on the new primary after the restart = %d, %v; want 2", n, err)
	}
	checkKeys("restarted replica", rc2)
	if got, err := rc2.Get(ctx, "after-restart").Result(); err != nil || got != "yes" {
		t.Errorf("restarted replica: GET after-restart = %q, %v", got, err)
	}
}
