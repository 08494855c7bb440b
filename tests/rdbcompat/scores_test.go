//go:build linux

package rdbcompat

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// TestValkeyScoreText: the text in which a zset listpack stores a score
// (d2string, fpconv_dtoa in Valkey 8.0.1) is the writer's, byte for byte,
// for doubles of every magnitude.
func TestValkeyScoreText(t *testing.T) {
	bin := valkeyPath(t)
	s := startServer(t, bin, t.TempDir())
	c := s.client(0)
	defer c.Close()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 22))
	bad := 0
	for k := range 40 {
		e := rdb.NewEntry(0, []byte("z"+strconv.Itoa(k)), rdb.KindZSet)
		args := []any{"zadd", string(e.Key)}
		for i := range 100 {
			var f float64
			switch i % 4 {
			case 0:
				f = r.Float64() * math.Pow(10, float64(r.IntN(60)-30))
			case 1:
				f = math.Float64frombits(r.Uint64())
			case 2:
				f = float64(r.IntN(1e6)) / 1000
			default:
				f = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
			}
			if math.IsNaN(f) {
				f = 1
			}
			m := []byte("m" + strconv.Itoa(i))
			e.ZSet = append(e.ZSet, rdb.ZMember{Member: m, Score: f})
			args = append(args, strconv.FormatFloat(f, 'g', -1, 64), m)
		}
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
		p, err := c.Dump(ctx, string(e.Key)).Result()
		if err != nil {
			t.Fatal(err)
		}
		mine, err := rdb.DumpPayload(e, rdb.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal([]byte(p), mine) {
			bad++
			for _, z := range e.ZSet {
				one := rdb.NewEntry(0, []byte("one"), rdb.KindZSet)
				one.ZSet = []rdb.ZMember{{Member: []byte("m"), Score: z.Score}}
				c.Del(ctx, "one")
				c.Do(ctx, "zadd", "one", strconv.FormatFloat(z.Score, 'g', -1, 64), "m")
				p1, _ := c.Dump(ctx, "one").Result()
				m1, _ := rdb.DumpPayload(one, rdb.DefaultOptions())
				if !bytes.Equal([]byte(p1), m1) {
					t.Errorf("score %v (%b): valkey %q, ours %q", z.Score, z.Score, p1[:len(p1)-10], m1[:len(m1)-10])
				}
			}
		}
	}
	t.Logf("%d of 40 payloads differ", bad)
}
