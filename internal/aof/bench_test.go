package aof

import (
	"context"
	"os"
	"testing"

	"github.com/corvid-kv/corvid/internal/effects"
)

// Run with -benchtime 1x: the machines' cores are shared, these check
// that the paths work and allocate little, they are not timing runs.

// BenchmarkAppend: rendering a unit and queuing it (the effects sink's
// cost under Stream.mu), with the buffer written by the policy "no".
func BenchmarkAppend(b *testing.B) {
	w, err := Open(b.TempDir(), "appendonly.aof", Options{Fsync: FsyncNo, FlushInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var u effects.Unit
	u.AddStrings(0, "SET", "key:000000001", "value-value-value-value")
	n := 0
	for b.Loop() {
		w.AppendUnit(&u)
		if n++; n%1024 == 0 {
			w.Flush(true)
		}
	}
}

// BenchmarkGroupCommit: parallel appenders waiting for durability under
// always, with a fake fsync; reports fsyncs per append.
func BenchmarkGroupCommit(b *testing.B) {
	w, err := Open(b.TempDir(), "appendonly.aof", Options{Fsync: FsyncAlways, FlushInterval: -1,
		SyncFile: func(*os.File) error { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	p := cmd("SET key:000000001 value-value-value-value")
	ctx := context.Background()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := w.WaitDurable(ctx, w.Append(p)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(w.Stats().Fsyncs)/float64(b.N), "fsyncs/op")
}
