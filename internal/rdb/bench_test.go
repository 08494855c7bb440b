package rdb_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/rdb/rdbtest"
)

func benchDataset() []*rdb.Entry {
	return rdbtest.RandomDataset(rand.New(rand.NewPCG(1, 1)), 300, 2, 2)
}

// BenchmarkWrite writes a dataset of 300 mixed keys.
func BenchmarkWrite(b *testing.B) {
	entries := benchDataset()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		w := rdb.NewWriter(io.Discard, rdb.DefaultOptions())
		for _, e := range entries {
			if err := w.WriteEntry(e); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	var buf bytes.Buffer
	w := rdb.NewWriter(&buf, rdb.DefaultOptions())
	for _, e := range entries {
		w.WriteEntry(e)
	}
	w.Close()
	b.SetBytes(int64(buf.Len()))
}

// BenchmarkRead reads the same dataset back.
func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	w := rdb.NewWriter(&buf, rdb.DefaultOptions())
	for _, e := range benchDataset() {
		if err := w.WriteEntry(e); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	l := rdb.Loader{OnEntry: func(*rdb.Entry) error { return nil }}
	for b.Loop() {
		if _, err := l.Load(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
