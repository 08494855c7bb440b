package matrix

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/clusterup"
	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// FlushTimeout bounds the FLUSHALL that empties a cluster node between
// runs (a 180-second run of 1-4 KB values leaves gigabytes to free).
var FlushTimeout = 2 * time.Minute

// startCluster starts server s as a cluster of c.Cluster primaries for
// scenario sc; each node is an Instance measured through /proc.
func startCluster(ctx context.Context, c SideConfig, s peer.Server, sc Scenario) ([]Instance, error) {
	if s.Path == InProcess {
		return nil, fmt.Errorf("%s: a cluster needs server processes, and this build runs %s in process (pass --server %s=/path/to/server)", s.Name, s.Name, s.Name)
	}
	cl, err := clusterup.Start(ctx, s, c.Cluster, clusterup.Options{Peer: peer.Options{IOThreads: sc.IOThreads, Extra: c.Extra}})
	if err != nil {
		return nil, err
	}
	in := make([]Instance, len(cl.Procs))
	for i, p := range cl.Procs {
		in[i] = procInstance{p}
	}
	return in, nil
}

func addrsOf(in []Instance) []string {
	out := make([]string, len(in))
	for i, x := range in {
		out[i] = x.Address()
	}
	return out
}

// flushAll empties every node of a cluster (FLUSHALL on each, at once),
// so each run starts from the same empty state and the data one run
// writes does not stay in memory while the other servers run.
func flushAll(addrs []string) error {
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = flushOne(a)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func flushOne(addr string) error {
	c, err := wire.Dial("tcp", addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("FLUSHALL %s: %w", addr, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(FlushTimeout))
	v, err := c.Do("FLUSHALL")
	if err == nil {
		err = v.Err()
	}
	if err != nil {
		return fmt.Errorf("FLUSHALL %s: %w", addr, err)
	}
	return nil
}
