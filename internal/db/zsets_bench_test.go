package db

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// The write paths the seed benchmark hammers: SADD and ZADD of random
// 128-byte members into keys that keep growing. Each call goes through the
// procedure with its stripe locked, as the dispatcher runs it.
//
//	go test ./internal/db -run XXX -bench 'SAdd|ZAdd' -benchmem

func benchWrite(b *testing.B, proc Proc, argv func(i int) [][]byte, key []byte) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(1 << 16), Now: testNow}
	st := ks.StripeOf(key)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Argv = argv(i)
		c.W.Reset()
		ks.LockStripe(st)
		proc(c)
		ks.UnlockStripe(st)
	}
}

// uniqueMember writes a new random-looking 128-byte member for call i into
// buf: the procedures copy what they keep, so one buffer serves all calls.
func uniqueMember(buf []byte, i int) []byte {
	x := uint64(i)*0x9E3779B97F4A7C15 + 1
	const hex = "0123456789abcdef"
	for j := range buf {
		if j%16 == 0 {
			x ^= x >> 29
			x *= 0xBF58476D1CE4E5B9
		}
		buf[j] = hex[(x>>(4*(j%16)))&15]
	}
	return buf
}

func BenchmarkSAdd(b *testing.B) {
	argv := [][]byte{[]byte("SADD"), []byte("set"), make([]byte, 128)}
	benchWrite(b, saddCommand, func(i int) [][]byte {
		uniqueMember(argv[2], i)
		return argv
	}, argv[1])
}

func BenchmarkSAddExisting(b *testing.B) {
	argv := [][]byte{[]byte("SADD"), []byte("set"), make([]byte, 128)}
	benchWrite(b, saddCommand, func(i int) [][]byte {
		uniqueMember(argv[2], i&4095)
		return argv
	}, argv[1])
}

func benchScores() [][]byte {
	scores := make([][]byte, 1<<16)
	for i := range scores {
		scores[i] = strconv.AppendFloat(nil, rand.Float64()*1e6, 'f', 3, 64)
	}
	return scores
}

func BenchmarkZAdd(b *testing.B) {
	scores := benchScores()
	argv := [][]byte{[]byte("ZADD"), []byte("zset"), nil, make([]byte, 128)}
	benchWrite(b, zaddCommand, func(i int) [][]byte {
		argv[2] = scores[i&(1<<16-1)]
		uniqueMember(argv[3], i)
		return argv
	}, argv[1])
}

func BenchmarkZAddUpdate(b *testing.B) {
	scores := benchScores()
	argv := [][]byte{[]byte("ZADD"), []byte("zset"), nil, make([]byte, 128)}
	benchWrite(b, zaddCommand, func(i int) [][]byte {
		argv[2] = scores[i&(1<<16-1)]
		uniqueMember(argv[3], i&4095)
		return argv
	}, argv[1])
}

// BenchmarkParseDouble parses ZADD scores: plain integers (parseSmallInt,
// memtier's key numbers) and decimals (strtod).
func BenchmarkParseDouble(b *testing.B) {
	for _, c := range []struct{ name, in string }{{"int", "4711"}, {"decimal", "123456.789"}} {
		in := []byte(c.in)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, ok := parseDouble(in); !ok {
					b.Fatal("not parsed")
				}
			}
		})
	}
}

// benchSmall runs proc's adds on a collection that stays a listpack: 16
// members of 16 bytes (member i%16 of round i/16), then DEL, and again.
// argv returns the add's arguments for member m.
func benchSmall(b *testing.B, proc Proc, argv func(m []byte) [][]byte) {
	del := [][]byte{[]byte("DEL"), []byte("small")}
	member := make([]byte, 16)
	benchWrite(b, func(c *Ctx) {
		if len(c.Argv) == 2 {
			delCommand(c)
			c.W.Reset()
			c.Argv = argv(uniqueMember(member, 0))
		}
		proc(c)
	}, func(i int) [][]byte {
		if i%16 == 0 {
			return del
		}
		return argv(uniqueMember(member, i))
	}, del[1])
}

// BenchmarkSAddSmall: SADD to a listpack-encoded set (Pack inline in the
// object).
func BenchmarkSAddSmall(b *testing.B) {
	argv := [][]byte{[]byte("SADD"), []byte("small"), nil}
	benchSmall(b, saddCommand, func(m []byte) [][]byte { argv[2] = m; return argv })
}

// BenchmarkZAddSmall: ZADD to a listpack-encoded sorted set.
func BenchmarkZAddSmall(b *testing.B) {
	scores := benchScores()
	argv := [][]byte{[]byte("ZADD"), []byte("small"), nil, nil}
	n := 0
	benchSmall(b, zaddCommand, func(m []byte) [][]byte {
		n++
		argv[2], argv[3] = scores[n&(1<<16-1)], m
		return argv
	})
}
