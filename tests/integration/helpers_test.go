package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// testCtx returns a context that ends after d or when the test ends.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// newClient returns a go-redis client for addr speaking RESP proto (2 or 3).
// Identity (CLIENT SETINFO) and maintenance notifications are off and
// retries are disabled, so every command the test issues is exactly one
// request and an error surfaces instead of being retried.
func newClient(t *testing.T, addr string, proto int, tweak ...func(*redis.Options)) *redis.Client {
	t.Helper()
	opt := &redis.Options{
		Addr:                     addr,
		Protocol:                 proto,
		DisableIdentity:          true,
		MaxRetries:               -1,
		DialTimeout:              5 * time.Second,
		ReadTimeout:              10 * time.Second,
		WriteTimeout:             10 * time.Second,
		PoolSize:                 4,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	for _, f := range tweak {
		f(opt)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// expect sends args on c and fails the test unless the canonical reply is want.
func expect(t *testing.T, c *testutil.Raw, want string, args ...string) {
	t.Helper()
	if got := c.Do(args...); got != want {
		t.Errorf("%s:\n got: %s\nwant: %s", strings.Join(args, " "), got, want)
	}
}

// expectRead reads one reply (for requests written with WriteRaw) and
// fails the test unless its canonical form is want.
func expectRead(t *testing.T, c *testutil.Raw, want string) {
	t.Helper()
	if got := c.Read(); got != want {
		t.Errorf("reply:\n got: %s\nwant: %s", got, want)
	}
}

// expectExact is expect on the exact wire bytes.
func expectExact(t *testing.T, c *testutil.Raw, want string, args ...string) {
	t.Helper()
	if got := c.DoExact(args...); got != want {
		t.Errorf("%s:\n got: %q\nwant: %q", strings.Join(args, " "), got, want)
	}
}

// expectClosed fails unless the server has closed c (after sending nothing
// more than what was already read).
func expectClosed(t *testing.T, c *testutil.Raw) {
	t.Helper()
	if got := c.ReadWithin(hangTimeout); got != "<EOF>" {
		t.Errorf("connection still open; next reply: %s", got)
	}
}

// abs resolves a testdata path (servers run in their own temp dir).
func abs(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lookTool returns the path of an external tool or skips the test.
func lookTool(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skipf("%s not installed", strings.Join(names, "/"))
	return ""
}

// redisAvailable reports whether redis-server is installed, for the
// sub-checks that confirm an expected text against Redis 7.0 where Valkey 8
// behaves the same.
func redisAvailable() bool {
	_, err := exec.LookPath("redis-server")
	return err == nil
}

// hangTimeout is the d of waitFor for what the server does on its own time
// (a client to block or to be noticed gone, a log line, a thread to
// stop): only a hang reaches it. The machines that run these tests are
// small and noisy, and no test may depend on how fast they are.
const hangTimeout = 30 * time.Second

// waitFor polls cond every 10ms until it is true or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

// forServers runs f against a fresh corvid-server (started with
// corvidArgs) and, when it is installed, against redis-server 7.0 as well:
// for behaviour where Valkey 8 and Redis 7.0 agree, so the expectations
// written in the test are themselves checked against a reference server.
func forServers(t *testing.T, corvidArgs []string, f func(t *testing.T, srv *testutil.Proc)) {
	t.Run("corvid", func(t *testing.T) { f(t, testutil.StartCorvid(t, corvidArgs...)) })
	t.Run("redis-7.0", func(t *testing.T) {
		if !redisAvailable() {
			t.Skip("redis-server not installed")
		}
		f(t, testutil.StartRedis(t, corvidArgs...))
	})
}
