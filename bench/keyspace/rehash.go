package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// rehashRow is the GET load of one window of the rehash test.
type rehashRow struct {
	Window                string // quiet, overwrite, grow
	Writer                string // what the second connection did
	Res                   benchResult
	WriterOps, WriterErrs int64
	WriterSecs            float64
	KeysBefore, KeysAfter int64
	LUTBefore, LUTAfter   int64 // MEMORY STATS overhead.db.hashtable.lut, -1 if absent
	// RehashingBefore and RehashingAfter are MEMORY STATS
	// db.dict.rehashing.count at the start and the end, -1 if absent.
	RehashingBefore, RehashingAfter int64
	Cmdline                         string
}

type rehashConfig struct {
	Kind     serverKind
	Bits     int   // boundary 2^Bits
	Margin   int64 // keys below 2^Bits at the start and above 2^(Bits+1) at the end
	Load     load  // Seconds is the window length
	Batch    int   // writer batch
	Populate bool
	BenchBin string
	Dir      string
	Log      io.Writer
}

// rehashRange is the key count at the start and the end of the grow
// window: 2^bits-margin and 2^(bits+1)+margin.
func rehashRange(bits int, margin int64) (from, to int64) {
	return int64(1)<<bits - margin, int64(1)<<(bits+1) + margin
}

// writerSpan is how long the writer is spread over inside a window of w:
// it starts after lead and ends one lead before the window does.
func writerSpan(w time.Duration) (lead, span time.Duration) {
	lead = min(w/10, time.Second)
	return lead, w - 2*lead
}

func rehashTest(ctx context.Context, c rehashConfig) ([]rehashRow, error) {
	from, to := rehashRange(c.Bits, c.Margin)
	if from < 1 {
		return nil, fmt.Errorf("-rehash-margin %d is not below 2^%d", c.Margin, c.Bits)
	}
	s, err := start(c.Kind, c.Dir)
	if err != nil {
		return nil, err
	}
	defer s.Stop()
	method, secs, err := fillStrings(ctx, s.Addr, from, c.Populate, 1000, c.Load.DataSize)
	if err != nil {
		return nil, fmt.Errorf("fill: %w", err)
	}
	fmt.Fprintf(c.Log, "[rehash] filled %d keys (%s, %.1f s), rss %d MiB; grow window inserts key:%d..key:%d\n",
		from, method, secs, s.rssKiB()/1024, from+1, to)

	writes := to - from
	val := fillValue(c.Load.DataSize)
	windows := []struct {
		name, writer string
		spec         *pipeSpec
	}{
		{"quiet", "none", nil},
		{"overwrite", fmt.Sprintf("SET of existing keys, %d writes", writes), &pipeSpec{From: 1, To: writes, Batch: c.Batch, Gen: wrapIDs(from, setCmd(val))}},
		{"grow", fmt.Sprintf("SET of %d new keys (%d -> %d)", writes, from, to), &pipeSpec{From: from + 1, To: to, Batch: c.Batch, Gen: setCmd(val)}},
	}
	w := time.Duration(c.Load.Seconds) * time.Second
	lead, span := writerSpan(w)
	var rows []rehashRow
	for _, win := range windows {
		row := rehashRow{Window: win.name, Writer: win.writer}
		if n, err := settle(ctx, s.Addr, from, 5); err != nil {
			return rows, fmt.Errorf("settle: %w", err)
		} else if n > 0 {
			fmt.Fprintf(c.Log, "[rehash] %s: %d dicts still rehashing at the start\n", win.name, n)
		}
		row.KeysBefore = dbsize(s.Addr)
		row.LUTBefore, row.RehashingBefore = memStats(s.Addr)
		jp := jsonPathFor(c.Dir, "rehash-"+win.name)
		args := benchArgs(c.Load, "GET", from, "127.0.0.1", s.Port, jp)
		row.Cmdline = benchDisplay(args)

		type wres struct {
			st  pipeStats
			err error
		}
		wch := make(chan wres, 1)
		if win.spec != nil {
			spec := *win.spec
			spec.Span = span
			go func() {
				select {
				case <-time.After(lead):
				case <-ctx.Done():
					wch <- wres{err: ctx.Err()}
					return
				}
				st, err := pipeline(ctx, s.Addr, spec)
				wch <- wres{st, err}
			}()
		}
		res, err := runBench(ctx, c.BenchBin, args, jp, filepath.Join(c.Dir, "bench.log"))
		if win.spec != nil {
			wr := <-wch
			if wr.err != nil {
				return rows, fmt.Errorf("%s writer: %w", win.name, wr.err)
			}
			row.WriterOps, row.WriterErrs, row.WriterSecs = wr.st.Ops, wr.st.Errors, wr.st.Elapsed.Seconds()
			if lead+wr.st.Elapsed > w {
				fmt.Fprintf(c.Log, "[rehash] %s: the writer ran %.1f s past the GET window\n", win.name, (lead + wr.st.Elapsed - w).Seconds())
			}
		}
		if err != nil {
			return rows, err
		}
		row.Res = res
		row.KeysAfter = dbsize(s.Addr)
		row.LUTAfter, row.RehashingAfter = memStats(s.Addr)
		fmt.Fprintf(c.Log, "[rehash] %-9s GET %9.0f ops/s  p50 %.3f  p99 %.3f  p99.9 %.3f  p99.99 %.3f  max %.3f ms; keys %d -> %d, bucket tables %s -> %s\n",
			win.name, res.OpsSec, res.P50, res.P99, res.P999, res.P9999, res.MaxMs, row.KeysBefore, row.KeysAfter,
			mib(row.LUTBefore), mib(row.LUTAfter))
		rows = append(rows, row)
	}
	return rows, nil
}

// wrapIDs maps the ids 1, 2, ... onto 1..n cyclically, so that a writer
// of more than n commands only touches existing keys.
func wrapIDs(n int64, gen func([]byte, int64) []byte) func([]byte, int64) []byte {
	return func(buf []byte, id int64) []byte { return gen(buf, (id-1)%n+1) }
}

// settle brings the dicts to rest before a window: while MEMORY STATS
// reports dicts being rehashed it reads every key 1..n once more with
// pipelined EXISTS (each lookup moves a rehash step along; Corvid has no
// idle-time rehashing), up to passes times. It returns the number of dicts
// still rehashing (-1 when the server does not say).
func settle(ctx context.Context, addr string, n int64, passes int) (int64, error) {
	for p := 0; ; p++ {
		_, r := memStats(addr)
		if r <= 0 || p == passes {
			return r, nil
		}
		if _, err := pipeline(ctx, addr, pipeSpec{From: 1, To: n, Batch: 1000, Gen: existsCmd()}); err != nil {
			return r, err
		}
	}
}

// memStats reads MEMORY STATS' bucket-table bytes and the number of dicts
// being rehashed; -1 for what the server does not report.
func memStats(addr string) (lut, rehashing int64) {
	lut, rehashing = -1, -1
	c, err := dial(addr)
	if err != nil {
		return
	}
	defer c.Close()
	v, err := benchproc.Do(c, "MEMORY", "STATS")
	if err != nil {
		return
	}
	if n, ok := lookupInt(v, "overhead.db.hashtable.lut"); ok {
		lut = n
	}
	if n, ok := lookupInt(v, "db.dict.rehashing.count"); ok {
		rehashing = n
	}
	return
}

// lookupInt finds key in a flattened key/value reply (MEMORY STATS) and
// returns its integer value; ok is false when it is absent.
func lookupInt(v wire.Value, key string) (int64, bool) {
	for i := 0; i+1 < len(v.Elems); i += 2 {
		if k, val := v.Elems[i], v.Elems[i+1]; k.Str == key && val.Type == ':' {
			return val.Int, true
		}
	}
	return 0, false
}

func mib(b int64) string {
	switch {
	case b < 0:
		return "?"
	case b < 1<<20:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return fmt.Sprintf("%.1fMiB", float64(b)/(1<<20))
}
