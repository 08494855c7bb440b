package integration

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestPipelineGoRedis sends 1000 commands in one go-redis pipeline and
// checks every reply in order.
func TestPipelineGoRedis(t *testing.T) {
	srv := testutil.StartCorvid(t)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ctx := testCtx(t, 30*time.Second)
			c := newClient(t, srv.Addr, proto)
			if err := c.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			pipe := c.Pipeline()
			cmds := make([]redis.Cmder, 0, 1000)
			for i := 0; i < 250; i++ {
				k := "p:" + strconv.Itoa(i)
				cmds = append(cmds,
					pipe.Set(ctx, k, "v"+strconv.Itoa(i), 0),
					pipe.Incr(ctx, "p:counter"),
					pipe.Get(ctx, k),
					pipe.Get(ctx, "p:missing"))
			}
			if len(cmds) != 1000 {
				t.Fatalf("built %d commands", len(cmds))
			}
			_, err := pipe.Exec(ctx)
			if err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			for i := 0; i < 250; i++ {
				set, incr, get, miss := cmds[4*i].(*redis.StatusCmd), cmds[4*i+1].(*redis.IntCmd),
					cmds[4*i+2].(*redis.StringCmd), cmds[4*i+3].(*redis.StringCmd)
				if set.Val() != "OK" || set.Err() != nil {
					t.Fatalf("SET #%d: %v %v", i, set.Val(), set.Err())
				}
				if incr.Val() != int64(i+1) {
					t.Fatalf("INCR #%d: %d, want %d (replies out of order?)", i, incr.Val(), i+1)
				}
				if get.Val() != "v"+strconv.Itoa(i) {
					t.Fatalf("GET #%d: %q", i, get.Val())
				}
				if miss.Err() != redis.Nil {
					t.Fatalf("GET missing #%d: %v", i, miss.Err())
				}
			}
		})
	}
}

// TestPipelineRaw writes 1000 commands (multibulk and inline mixed) in a
// single write and reads the 1000 replies in order.
func TestPipelineRaw(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		s := strconv.Itoa(i)
		switch i % 4 {
		case 0:
			b.WriteString("*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n")
		case 1:
			b.WriteString("ECHO " + s + "\r\n") // inline
		case 2:
			b.WriteString("*1\r\n$4\r\nINCR\r\n") // arity error, must not desync
		case 3:
			b.WriteString("INCR rawcounter\n") // inline with a bare \n
		}
	}
	c.WriteRaw(b.String())
	n := 0
	for i := 0; i < 1000; i++ {
		got := c.Read()
		var want string
		switch i % 4 {
		case 0, 1:
			want = strconv.Quote(strconv.Itoa(i))
		case 2:
			want = "-ERR wrong number of arguments for 'incr' command"
		case 3:
			n++
			want = ":" + strconv.Itoa(n)
		}
		if got != want {
			t.Fatalf("reply #%d: got %s, want %s", i, got, want)
		}
	}
	// The same connection is still in sync afterwards.
	expect(t, c, "+PONG", "PING")
}

// TestPipelineLargeReplies pipelines commands whose replies together are
// far larger than the socket buffers, so the server must block on writes
// part-way through a batch and resume, without losing or reordering replies.
func TestPipelineLargeReplies(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	val := strings.Repeat("x", 64<<10)
	expect(t, c, "+OK", "SET", "big", val)
	const n = 200 // 200 x 64 KiB = 12.5 MiB of replies
	// The requests are small enough for the socket buffer, so one write
	// completes even though the server blocks on its replies until we read.
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n")
	}
	c.WriteRaw(b.String())
	for i := 0; i < n; i++ {
		if got := c.Read(); got != strconv.Quote(val) {
			t.Fatalf("reply #%d: %.40s...", i, got)
		}
	}
}
