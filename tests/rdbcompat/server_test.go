//go:build linux

package rdbcompat

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// server is a valkey-server or redis-server started by these tests, with
// its data directory under our control (testutil's helpers choose the
// directory themselves, and here the RDB file must be in place before the
// server starts).
type server struct {
	addr string
	dir  string
	cmd  *exec.Cmd
	out  *strings.Builder
	mu   sync.Mutex
}

func (s *server) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(b)
}

func (s *server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// startServer runs bin on a free loopback port with dir as its data
// directory and x.rdb as its file, no saving and no AOF, and waits until
// it has loaded its data and answers PING.
func startServer(t *testing.T, bin, dir string, args ...string) *server {
	t.Helper()
	port := testutil.FreePort(t)
	full := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--dbfilename", "x.rdb", "--save", "", "--appendonly", "no", "--daemonize", "no"}, args...)
	s := &server{addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, out: &strings.Builder{}}
	s.cmd = exec.Command(bin, full...)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = s, s
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-done
	})
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return s
		}
		select {
		case <-done:
			t.Fatalf("%s exited: %s", filepath.Base(bin), s.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready: %v\n%s", filepath.Base(bin), err, s.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) client(db int) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.addr, DB: db, Protocol: 2, ReadTimeout: time.Minute, MaxRetries: -1})
}

// fill writes entries with commands as a client would: SET, RPUSH one
// element at a time, SADD/ZADD/HSET with all elements at once, PEXPIREAT.
func fill(t *testing.T, s *server, entries []*rdb.Entry) {
	t.Helper()
	ctx := context.Background()
	clients := map[int]*redis.Client{}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for _, e := range entries {
		c := clients[e.DB]
		if c == nil {
			c = s.client(e.DB)
			clients[e.DB] = c
		}
		p := c.Pipeline()
		switch e.Kind {
		case rdb.KindString:
			p.Set(ctx, string(e.Key), e.String, 0)
		case rdb.KindList:
			for _, v := range e.List {
				p.RPush(ctx, string(e.Key), v)
			}
		case rdb.KindSet:
			args := make([]any, len(e.Set))
			for i, m := range e.Set {
				args[i] = m
			}
			p.SAdd(ctx, string(e.Key), args...)
		case rdb.KindZSet:
			args := []any{"zadd", string(e.Key)}
			for _, z := range e.ZSet {
				args = append(args, strconv.FormatFloat(z.Score, 'g', -1, 64), z.Member)
			}
			p.Do(ctx, args...)
		case rdb.KindHash:
			args := make([]any, 0, 2*len(e.Hash))
			for _, h := range e.Hash {
				args = append(args, h.Field, h.Value)
			}
			p.HSet(ctx, string(e.Key), args...)
		}
		if e.ExpireMs != -1 {
			p.PExpireAt(ctx, string(e.Key), time.UnixMilli(e.ExpireMs))
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatalf("fill %q: %v", e.Key, err)
		}
	}
}

// fetch reads key's value over RESP into an Entry (no expiry).
func fetch(t *testing.T, c *redis.Client, db int, key []byte) (*rdb.Entry, error) {
	ctx := context.Background()
	k := string(key)
	typ, err := c.Type(ctx, k).Result()
	if err != nil {
		return nil, err
	}
	e := rdb.NewEntry(db, key, 0)
	switch typ {
	case "string":
		e.Kind = rdb.KindString
		v, err := c.Get(ctx, k).Result()
		e.String = []byte(v)
		return e, err
	case "list":
		e.Kind = rdb.KindList
		vs, err := c.LRange(ctx, k, 0, -1).Result()
		for _, v := range vs {
			e.List = append(e.List, []byte(v))
		}
		return e, err
	case "set":
		e.Kind = rdb.KindSet
		vs, err := c.SMembers(ctx, k).Result()
		for _, v := range vs {
			e.Set = append(e.Set, []byte(v))
		}
		return e, err
	case "zset":
		e.Kind = rdb.KindZSet
		vs, err := c.Do(ctx, "zrange", k, 0, -1, "withscores").StringSlice()
		for i := 0; i+1 < len(vs); i += 2 {
			f, perr := strconv.ParseFloat(vs[i+1], 64)
			if perr != nil {
				return nil, perr
			}
			e.ZSet = append(e.ZSet, rdb.ZMember{Member: []byte(vs[i]), Score: f})
		}
		return e, err
	case "hash":
		e.Kind = rdb.KindHash
		vs, err := c.Do(ctx, "hgetall", k).StringSlice()
		for i := 0; i+1 < len(vs); i += 2 {
			e.Hash = append(e.Hash, rdb.HashField{Field: []byte(vs[i]), Value: []byte(vs[i+1])})
		}
		return e, err
	}
	return nil, fmt.Errorf("TYPE %q = %q", k, typ)
}

// checkTTL compares a server's PTTL for e's key with e's expiry.
func checkTTL(t *testing.T, c *redis.Client, e *rdb.Entry) {
	t.Helper()
	pttl, err := c.Do(context.Background(), "pttl", string(e.Key)).Int64()
	if err != nil {
		t.Fatal(err)
	}
	if e.ExpireMs == -1 {
		if pttl != -1 {
			t.Errorf("%q: PTTL %d, want -1", e.Key, pttl)
		}
		return
	}
	want := e.ExpireMs - time.Now().UnixMilli()
	if math.Abs(float64(pttl-want)) > 60000 {
		t.Errorf("%q: PTTL %d, want about %d", e.Key, pttl, want)
	}
}

func valkeyPath(t *testing.T) string { return testutil.ValkeyServerPath(t) }

// checkRDBPath is valkey-check-rdb beside valkey-server, or "".
func checkRDBPath(server string) string {
	p := filepath.Join(filepath.Dir(server), "valkey-check-rdb")
	if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
		return p
	}
	if p, err := exec.LookPath("valkey-check-rdb"); err == nil {
		return p
	}
	return ""
}
