package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

func main() {
	if err := run(); err != nil {
		benchproc.StopAll()
		fmt.Fprintln(os.Stderr, "keyspace-scaling:", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("keyspace-scaling", flag.ContinueOnError)
	var (
		sizesF   = fs.String("sizes", "1e3,1e4,1e5,1e6,1e7", "keyspace sizes (comma-separated; 1000, 1e3 or 10^3)")
		maxF     = fs.String("max", "1e7", "drop sizes above this")
		rounds   = fs.Int("rounds", 1, "repeat the sweep; the tables show each row's median run")
		secs     = fs.Int("time", 10, "seconds of load per command and size (corvid-bench --test-time)")
		threads  = fs.Int("threads", 2, "corvid-bench -t")
		clients  = fs.Int("clients", 25, "corvid-bench -c")
		dsize    = fs.Int("data", 128, "value size in bytes (corvid-bench -d, and the fill)")
		cmdsF    = fs.String("commands", "get,set,zadd", "commands to measure")
		withR    = fs.Bool("redis", true, "also measure redis-server beside corvid-server")
		redisBin = fs.String("redis-server", "redis-server", "redis-server binary")
		populate = fs.Bool("populate", true, "fill with DEBUG POPULATE when the server accepts it (else pipelined SETs)")
		zfill    = fs.Bool("zfill", true, "before ZADD, create the sorted sets zkey:1..N with one member each")
		batch    = fs.Int("batch", 1000, "commands per pipelined fill batch")
		scaling  = fs.Bool("scaling", true, "run the keyspace sweep")
		rehash   = fs.Bool("rehash", true, "run the rehash-latency test against corvid")
		rbits    = fs.Int("rehash-bits", 20, "rehash test: grow from 2^b-margin to 2^(b+1)+margin keys")
		rmargin  = fs.Int64("rehash-margin", 1000, "rehash test: margin around the power-of-two boundaries")
		rtime    = fs.Int("rehash-time", 0, "rehash test: seconds per window (0: -time)")
		rbatch   = fs.Int("rehash-batch", 100, "rehash test: writer commands per pipelined batch")
		out      = fs.String("out", "/tmp/keyspace-scaling", "write PREFIX.md and PREFIX.csv")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: bench/keyspace-scaling.sh [flags]\n\n"+
			"Throughput of GET/SET/ZADD against keyspace size (corvid-server and redis-server),\n"+
			"and GET latency while corvid's dicts rehash. See the package doc for the method.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	maxN, err := parseCount(*maxF)
	if err != nil {
		return fmt.Errorf("-max: %w", err)
	}
	sizes, err := parseSizes(*sizesF, maxN)
	if err != nil {
		return fmt.Errorf("-sizes: %w", err)
	}
	commands, err := parseCommands(*cmdsF)
	if err != nil {
		return fmt.Errorf("-commands: %w", err)
	}
	if *scaling && (len(sizes) == 0 || len(commands) == 0) {
		return fmt.Errorf("nothing to measure: no sizes or no commands")
	}
	if *rbits < 4 || *rbits > 30 {
		return fmt.Errorf("-rehash-bits must be in 4..30")
	}
	if *rtime <= 0 {
		*rtime = *secs
	}
	if *secs < 1 || *rtime < 1 || *threads < 1 || *clients < 1 || *dsize < 1 || *batch < 1 || *rbatch < 1 || *rounds < 1 {
		return fmt.Errorf("-time, -rehash-time, -threads, -clients, -data, -batch, -rehash-batch and -rounds must be positive")
	}
	*withR = *withR && *scaling // the rehash test is corvid's only
	if *withR {
		if _, err := exec.LookPath(*redisBin); err != nil {
			fmt.Fprintf(os.Stderr, "keyspace-scaling: %s not found, measuring corvid only\n", *redisBin)
			*withR = false
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { // a blocking fill does not watch ctx: stop the servers and leave
		<-ctx.Done()
		time.Sleep(3 * time.Second)
		benchproc.StopAll()
		os.Exit(130)
	}()

	root, err := benchproc.ModuleRoot()
	if err != nil {
		return fmt.Errorf("%w (run bench/keyspace-scaling.sh)", err)
	}
	dir, err := os.MkdirTemp("", "keyspace-scaling-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	defer benchproc.StopAll()
	serverBin, benchBin := filepath.Join(dir, "corvid-server"), filepath.Join(dir, "corvid-bench")
	for bin, pkg := range map[string]string{serverBin: "./cmd/corvid-server", benchBin: "./cmd/corvid-bench"} {
		if err := benchproc.Build(ctx, root, bin, pkg, nil); err != nil {
			return err
		}
	}

	header := append([]string{
		"command: " + benchproc.ShellJoin(append([]string{"go", "run", "./bench/keyspace"}, os.Args[1:]...)),
		"date: " + time.Now().UTC().Format(time.RFC3339),
	}, machineLines(root, *redisBin, *withR)...)
	header = append(header, "load average at start: "+loadAvg())
	kinds := []serverKind{corvidKind(serverBin)}
	if *withR {
		kinds = append(kinds, redisKind(*redisBin))
	}
	for _, k := range kinds {
		line := benchproc.ShellJoin(append([]string{filepath.Base(k.Bin)}, k.Args(0, "TMPDIR")...))
		header = append(header, k.Name+" server: "+strings.Replace(line, "--port 0 ", "--port PORT ", 1)+" (a fresh server on a free port per size)")
	}
	ld := load{Threads: *threads, Clients: *clients, Seconds: *secs, DataSize: *dsize}
	for _, h := range header {
		fmt.Println(h)
	}
	fmt.Println()

	var tables []*table
	var cmdlines []string
	var scaleRuns, scaleRows []scaleRow
	var rehashRows []rehashRow
	var runErr error
	if *scaling {
		var notes []string
		scaleRuns, scaleRows, notes, runErr = sweep(ctx, sweepConfig{Sizes: sizes, Commands: commands, Kinds: kinds, Load: ld,
			Batch: *batch, Rounds: *rounds, Populate: *populate, ZFill: *zfill, BenchBin: benchBin, Dir: dir, Log: os.Stdout})
		tables = append(tables, scalingTables(scaleRows, commands)...)
		for _, n := range notes {
			header = append(header, "note: "+n)
		}
		for _, r := range scaleRuns {
			cmdlines = append(cmdlines, r.Cmdline)
		}
	}
	if *rehash && runErr == nil {
		rl := ld
		rl.Seconds = *rtime
		rehashRows, runErr = rehashTest(ctx, rehashConfig{Kind: corvidKind(serverBin), Bits: *rbits, Margin: *rmargin,
			Load: rl, Batch: *rbatch, Populate: *populate, BenchBin: benchBin, Dir: dir, Log: os.Stdout})
		if len(rehashRows) > 0 {
			tables = append(tables, rehashTable(rehashRows, *rbits, *rmargin))
		}
		for _, r := range rehashRows {
			cmdlines = append(cmdlines, r.Cmdline)
		}
	}
	header = append(header, "load average at end: "+loadAvg()+" (a busy shared machine makes ops/s noisy; server CPU per op is steadier)")
	if runErr != nil {
		header = append(header, "incomplete: "+runErr.Error())
	}

	fmt.Println()
	for _, t := range tables {
		t.text(os.Stdout)
	}
	if err := writeOutputs(*out, header, tables, cmdlines, scaleRows, scaleRuns, rehashRows); err != nil {
		return err
	}
	fmt.Printf("wrote %s.md and %s.csv\n", *out, *out)
	return runErr
}

func writeOutputs(prefix string, header []string, tables []*table, cmdlines []string, summary, runs []scaleRow, rehash []rehashRow) error {
	var md, cs bytes.Buffer
	writeMarkdown(&md, header, tables, cmdlines)
	if err := writeCSV(&cs, header, summary, runs, rehash); err != nil {
		return err
	}
	for path, b := range map[string]io.Reader{prefix + ".md": &md, prefix + ".csv": &cs} {
		data, _ := io.ReadAll(b)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
