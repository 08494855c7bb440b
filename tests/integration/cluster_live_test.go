package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestClusterMixedReshardUnderWrites: a cluster of three Valkey 8.0.1
// primaries; two Corvid nodes join it with valkey-cli --cluster add-node
// and take slots from the Valkey nodes with --cluster reshard while
// cluster clients keep writing and reading. Every acknowledged write is
// readable afterwards (a key is written by one writer only, in sequence,
// so it reads back its last acknowledged value or a later one whose reply
// was lost), and the clients saw nothing but what a cluster client
// retries (MOVED, ASK, TRYAGAIN are handled inside go-redis).
func TestClusterMixedReshardUnderWrites(t *testing.T) {
	valkeyCLIPath(t)
	if !testutil.HaveValkey(t) {
		t.Skip("valkey-server not found")
	}
	valkeys := []clusterNode{startClusterValkey(t), startClusterValkey(t), startClusterValkey(t)}
	clusterCreate(t, valkeys)
	corvids := []clusterNode{startClusterCorvid(t), startClusterCorvid(t)}
	for _, n := range corvids {
		out, err := runCLI(t, 60*time.Second, "--cluster", "add-node", n.p.Addr, valkeys[0].p.Addr)
		if err != nil || !strings.Contains(out, "[OK] New node added correctly.") {
			t.Fatalf("--cluster add-node %s: %v\n%s", n.p.Addr, err, out)
		}
	}
	for _, n := range append(append([]clusterNode(nil), valkeys...), corvids...) {
		waitClusterOK(t, n.p.Addr, 5)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:        []string{valkeys[0].p.Addr},
		MaxRedirects: 16,
		MaxRetries:   10,
	})
	defer cc.Close()

	const writers, keysPerWriter = 3, 500
	acked := make([][]int, writers)
	var (
		wg      sync.WaitGroup
		errMu   sync.Mutex
		errs    []string
		reads   int
		written int
	)
	note := func(format string, a ...any) {
		errMu.Lock()
		if len(errs) < 10 {
			errs = append(errs, fmt.Sprintf(format, a...))
		}
		errMu.Unlock()
	}
	for w := range writers {
		acked[w] = make([]int, keysPerWriter)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 1; ctx.Err() == nil; seq++ {
				i := seq % keysPerWriter
				key := fmt.Sprintf("w%d:k%d", w, i)
				if err := cc.Set(ctx, key, seq, 0).Err(); err != nil {
					if ctx.Err() == nil {
						note("SET %s: %v", key, err)
					}
					continue
				}
				acked[w][i] = seq
				v, err := cc.Get(ctx, key).Int()
				if err != nil && ctx.Err() == nil {
					note("GET %s: %v", key, err)
				} else if err == nil && v < seq {
					note("GET %s = %d after SET %d was acknowledged", key, v, seq)
				}
				errMu.Lock()
				written++
				reads++
				errMu.Unlock()
			}
		}()
	}

	id := func(n clusterNode) string { return strings.Trim(testutil.Dial(t, n.p.Addr).Do("CLUSTER", "MYID"), `"`) }
	// Each Corvid node takes 1000 slots from the Valkey nodes in one go,
	// so every primary loses or gains slots with keys while the writers
	// run.
	for _, to := range corvids {
		out, err := runCLI(t, 120*time.Second, "--cluster", "reshard", valkeys[0].p.Addr,
			"--cluster-from", id(valkeys[0])+","+id(valkeys[1])+","+id(valkeys[2]),
			"--cluster-to", id(to), "--cluster-slots", "1000", "--cluster-yes")
		if err != nil || strings.Contains(out, "ERR") {
			cancel()
			wg.Wait()
			t.Fatalf("--cluster reshard to %s: %v\n%s", to.p.Addr, err, out)
		}
	}
	cancel()
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("the cluster clients saw errors during the reshard:\n%s", strings.Join(errs, "\n"))
	}
	if written < 1000 {
		t.Fatalf("only %d writes during the reshard", written)
	}

	out, err := runCLI(t, 30*time.Second, "--cluster", "check", corvids[0].p.Addr)
	if err != nil || !strings.Contains(out, "[OK] All nodes agree about slots configuration.") ||
		!strings.Contains(out, "[OK] All 16384 slots covered.") {
		t.Fatalf("--cluster check after the reshard: %v\n%s", err, out)
	}
	// Both Corvid nodes serve slots they took, with their keys.
	for _, n := range corvids {
		c := testutil.Dial(t, n.p.Addr)
		if size, _ := strconv.Atoi(strings.TrimPrefix(c.Do("DBSIZE"), ":")); size == 0 {
			t.Errorf("%s holds no keys after taking 1000 slots", n.p.Addr)
		}
		c.Close()
	}
	// Every acknowledged write is there.
	rc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{corvids[1].p.Addr}})
	defer rc.Close()
	bg := context.Background()
	for w := range writers {
		for i, seq := range acked[w] {
			if seq == 0 {
				continue
			}
			key := fmt.Sprintf("w%d:k%d", w, i)
			v, err := rc.Get(bg, key).Int()
			if err != nil || v < seq {
				t.Fatalf("after the reshard: GET %s = %d, %v; acknowledged SET %d", key, v, err, seq)
			}
		}
	}
	t.Logf("%d writes and %d reads during the reshard", written, reads)
}

// TestClusterPartitionedPrimary: a primary cut off from the rest of the
// cluster (the other primaries stopped with SIGSTOP, so its bus hears
// nothing while its client port stays up) refuses writes with CLUSTERDOWN
// once the node timeout has passed, as Valkey's minority side does, and
// serves them again after the partition heals (the others resumed).
func TestClusterPartitionedPrimary(t *testing.T) {
	valkeyCLIPath(t)
	const timeout = 1000
	nodes := []clusterNode{
		startClusterCorvidIn(t, t.TempDir(), testutil.FreePort(t), timeout),
		startClusterCorvidIn(t, t.TempDir(), testutil.FreePort(t), timeout),
		startClusterCorvidIn(t, t.TempDir(), testutil.FreePort(t), timeout),
	}
	clusterCreate(t, nodes)
	c := testutil.Dial(t, nodes[0].p.Addr)
	defer c.Close()
	key := ""
	for i := 0; key == ""; i++ {
		k := "p" + strconv.Itoa(i)
		if r := c.Do("SET", k, "before"); r == "+OK" {
			key = k
		} else if !strings.HasPrefix(r, "-MOVED ") || i > 1000 {
			t.Fatalf("SET %s: %s", k, r)
		}
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			for _, n := range nodes[1:] {
				n.p.Signal(syscall.SIGCONT)
			}
		}
	}
	defer resume()
	stopped := time.Now()
	for _, n := range nodes[1:] {
		if err := n.p.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	// Within the node timeout (PFAIL for both others, no majority) plus
	// a margin, the isolated primary goes down and refuses writes.
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := c.Do("SET", key, "during")
		if r == "-CLUSTERDOWN The cluster is down" {
			break
		}
		if r != "+OK" || time.Now().After(deadline) {
			t.Fatalf("SET on the isolated primary %v after the partition: %s\n%s", time.Since(stopped), r, c.Do("CLUSTER", "INFO"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := time.Since(stopped); d < timeout*time.Millisecond {
		t.Errorf("the primary went down %v after the partition, before the node timeout", d)
	}
	if r := c.Do("GET", key); r != "-CLUSTERDOWN The cluster is down" {
		t.Errorf("GET on the isolated primary: %s", r)
	}
	info, _ := strconv.Unquote(c.Do("CLUSTER", "INFO"))
	if !strings.Contains(info, "cluster_state:fail\r\n") {
		t.Errorf("CLUSTER INFO on the isolated primary:\n%s", info)
	}

	resume()
	for _, n := range nodes {
		waitClusterOK(t, n.p.Addr, 3)
	}
	deadline = time.Now().Add(15 * time.Second)
	for {
		r := c.Do("SET", key, "after")
		if r == "+OK" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SET after the partition healed: %s", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := c.Do("GET", key); r != `"after"` {
		t.Errorf("GET after the partition healed: %s", r)
	}
}
