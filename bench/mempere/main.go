package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

type options struct {
	n, small, fields int
	smallSize        int
	load             loadOptions
	peer             string // -peer as given; run parses it into peers
	cases            string
	restart          bool
	out              string
	corvidBin        string
	redisBin         string // redis-server (-redis)
	valkeyBin        string // valkey-server (-valkey)
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 1_000_000, "elements in each of the list, set, zset and hash cases, and string keys in the string case")
	flag.IntVar(&o.small, "small", 100_000, "number of small hashes, and of small sorted sets (2 members each)")
	flag.IntVar(&o.fields, "fields", 10, "fields per small hash")
	flag.IntVar(&o.load.size, "size", 128, "value size in bytes")
	flag.IntVar(&o.smallSize, "smallsize", 16, "element size in bytes in the lp* and one* cases (listpack-encoded collections)")
	flag.IntVar(&o.load.per, "per", 100, "elements per write command")
	flag.IntVar(&o.load.batch, "batch", 1000, "commands per pipelined batch")
	flag.Uint64Var(&o.load.seed, "seed", 1, "random seed of the data (the same for every server)")
	flag.DurationVar(&o.load.settle, "settle", time.Second, "wait before each memory sample")
	flag.StringVar(&o.cases, "cases", strings.Join(allCases, ","), "cases to run, comma-separated")
	flag.BoolVar(&o.restart, "restart", true, "start fresh servers for every case (else one of each server for the whole run, FLUSHALL between cases)")
	flag.StringVar(&o.out, "out", "/tmp/mem-per-element", "write the report to PREFIX.md and PREFIX.csv")
	flag.StringVar(&o.corvidBin, "corvid", "", "corvid-server binary (default: build ./cmd/corvid-server)")
	flag.StringVar(&o.redisBin, "redis", "", "redis-server binary, for -peer redis (default: redis-server from PATH)")
	flag.StringVar(&o.valkeyBin, "valkey", "", "valkey-server binary, for -peer valkey (default: $CORVID_VALKEY_SERVER, ../shared/bin/valkey-server relative to the repo, then PATH)")
	flag.StringVar(&o.peer, "peer", "redis", "the servers to compare with, comma-separated, in the order of the report's columns: redis (7.0.15), valkey (8.0.1), or valkey,redis")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "mempere: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "mempere:", err)
		benchproc.StopAll()
		os.Exit(1)
	}
}

func run(o options) (err error) {
	if o.n < 1 || o.small < 1 || o.fields < 1 || o.load.size < 1 || o.smallSize < 1 || o.load.per < 1 || o.load.batch < 1 {
		return fmt.Errorf("-n, -small, -fields, -size, -smallsize, -per and -batch must be positive")
	}
	peers, err := parsePeers(o.peer)
	if err != nil {
		return err
	}
	if o.redisBin != "" && !slices.Contains(peers, "redis") {
		return fmt.Errorf("-redis is redis-server's binary, and redis is not in -peer %s (valkey-server's binary is -valkey)", o.peer)
	}
	if o.valkeyBin != "" && !slices.Contains(peers, "valkey") {
		return fmt.Errorf("-valkey is valkey-server's binary, and valkey is not in -peer %s", o.peer)
	}
	cases, err := makeCases(o.cases, o.n, o.small, o.fields, o.smallSize)
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		logf("interrupted: stopping the servers")
		benchproc.StopAll()
		os.Exit(130)
	}()

	tmp, err := os.MkdirTemp("", "mempere-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			logf("server logs kept in %s", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()

	root, err := benchproc.ModuleRoot()
	if err != nil {
		return err
	}
	bins := map[string]string{}
	versions := map[string]string{}
	for _, p := range peers {
		if bins[p], err = peerBinary(p, o, root); err != nil {
			return err
		}
		versions[p] = output(bins[p], "--version")
		if want := "v=" + peerVersions[p]; !strings.Contains(versions[p], want) {
			logf("warning: the issues compare against %s %s; this is %s", p, peerVersions[p], versions[p])
		}
	}
	if o.corvidBin == "" {
		o.corvidBin = filepath.Join(tmp, "corvid-server")
		logf("building corvid-server in %s", tmp)
		if err := benchproc.Build(context.Background(), root, o.corvidBin, "./cmd/corvid-server", os.Stderr); err != nil {
			return err
		}
	}
	bins["corvid"] = o.corvidBin

	header := []string{
		"command: `bench/mem-per-element.sh " + benchproc.ShellJoin(os.Args[1:]) + "`",
		"date: " + time.Now().UTC().Format(time.RFC3339),
		"machine: " + machine(),
		"load average at start: " + orUnknown(benchproc.LoadAvg()),
		fmt.Sprintf("corvid: %s, commit %s, built with %s", output(o.corvidBin, "--version"), gitRevision(root), runtime.Version()),
	}
	for _, p := range peers {
		header = append(header, p+": "+versions[p])
	}
	all := "both servers"
	if len(peers) > 1 {
		all = "all servers"
	}
	header = append(header,
		fmt.Sprintf("data: %d elements per big case, %d hashes of %d fields, %d-byte values (%d-byte elements in the lp* and one* cases), %d elements per command, %d commands per batch, seed %d",
			o.n, o.small, o.fields, o.load.size, o.smallSize, o.load.per, o.load.batch, o.load.seed),
		fmt.Sprintf("method: restart per case %v, settle %v, MEMORY PURGE before each sample, %s --save '' --appendonly no", o.restart, o.load.settle, all),
	)

	servers := map[string]*benchproc.Server{}
	ctls := map[string]*wire.Conn{}
	if !o.restart {
		for _, name := range turnOrder(0, peers) {
			if servers[name], err = start(name, bins[name], tmp, name); err != nil {
				return err
			}
			defer servers[name].Stop()
			if ctls[name], err = dial(servers[name].Addr); err != nil {
				return err
			}
			defer ctls[name].Close()
		}
	}

	var rows []row
	for k, spec := range cases {
		res := map[string]measurement{}
		for _, name := range turnOrder(k, peers) {
			logf("%s: %s (%d keys x %d elements)", spec.name, name, spec.keys, spec.perKey)
			m, err := measureOn(o, name, bins[name], tmp, spec, servers, ctls)
			if err != nil {
				return err
			}
			logf("  load %.2fs; used_memory %+d B, RSS %+d B (%+d B before purge); encoding %s; MEMORY USAGE %d",
				m.load.Seconds(), m.after.used-m.before.used, m.after.rss-m.before.rss,
				m.settledRSS-m.before.rss, m.encoding, m.usage)
			res[name] = m
		}
		peerRes := make([]measurement, len(peers))
		for i, p := range peers {
			peerRes[i] = res[p]
		}
		rows = append(rows, rowsFor(spec, res["corvid"], peerRes)...)
	}
	header = append(header, "load average at end: "+orUnknown(benchproc.LoadAvg()))

	rep := report{peers: peers, rows: rows}
	md := rep.markdown(header)
	fmt.Print("\n" + md)
	if err := os.WriteFile(o.out+".md", []byte(md), 0o644); err != nil {
		return err
	}
	f, err := os.Create(o.out + ".csv")
	if err != nil {
		return err
	}
	if err := rep.writeCSV(f, header); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	logf("wrote %s.md and %s.csv", o.out, o.out)
	return nil
}

// peerBinary finds the server binary of peer p: -valkey, else
// $CORVID_VALKEY_SERVER, ../shared/bin/valkey-server relative to the repo
// root, then valkey-server from PATH; -redis, else redis-server from PATH.
func peerBinary(p string, o options, root string) (string, error) {
	var bin string
	var err error
	switch {
	case p == "valkey":
		bin, err = benchproc.FindValkey(o.valkeyBin, root)
	case o.redisBin == "":
		bin, err = exec.LookPath("redis-server")
	default:
		bin, err = exec.LookPath(o.redisBin)
	}
	if err != nil {
		return "", fmt.Errorf("-peer %s: %w", p, err)
	}
	return bin, nil
}

// measureOn runs one case on one server: a fresh one with -restart, else
// the long-running one in servers.
func measureOn(o options, name, bin, dir string, spec caseSpec, servers map[string]*benchproc.Server, ctls map[string]*wire.Conn) (measurement, error) {
	if !o.restart {
		return measureCase(servers[name], ctls[name], spec, o.load)
	}
	srv, err := start(name, bin, dir, name+"-"+spec.name)
	if err != nil {
		return measurement{}, err
	}
	defer srv.Stop()
	ctl, err := dial(srv.Addr)
	if err != nil {
		return measurement{}, err
	}
	defer ctl.Close()
	return measureCase(srv, ctl, spec, o.load)
}
