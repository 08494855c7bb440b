// Command corvid-server is a Valkey-compatible in-memory data store.
//
// Usage mirrors valkey-server:
//
//	corvid-server [/path/to/corvid.conf] [--option value ...]
//	corvid-server -v | --version
//	corvid-server --check-rdb <file.rdb>
//	corvid-server --check-aof [--fix] [--truncate-to-timestamp <unix-time>] <file>
//
// Started under a name containing corvid-check-rdb or corvid-check-aof
// (a link, as valkey-check-rdb is to valkey-server) it is that checker;
// internal/filecheck holds both.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"syscall"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/filecheck"
	"github.com/corvid-kv/corvid/internal/server"
)

func main() {
	// The server serves no heap profiles; sampling one allocation per
	// 512 KB would keep ~1.5 MB of profile buckets (counted against the
	// runtime's memory limit, see internal/server's goMemLimitFor) and
	// cost a stack walk per sample.
	runtime.MemProfileRate = 0
	// The file checkers are plain tools: they run before the server's
	// signal handling and configuration, and exit.
	if tool, targs, ok := filecheck.ToolFor(os.Args[0], os.Args[1:]); ok {
		os.Exit(filecheck.Main(tool, targs, server.CorvidVersion, os.Stdout, os.Stderr))
	}
	// Signals first: a SIGHUP or SIGPIPE during start-up must not kill
	// the process (internal/server/signals.go).
	signals := server.NotifySignals()
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "-v" || args[0] == "--version") {
		fmt.Printf("Corvid server v=%s (Valkey %s compatible)\n", server.CorvidVersion, server.Version)
		return
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Println("Usage: ./corvid-server [/path/to/corvid.conf] [options] [-]")
		fmt.Println("       ./corvid-server - (read config from stdin)")
		fmt.Println("       ./corvid-server -v or --version")
		fmt.Println("       ./corvid-server --check-rdb <file.rdb>")
		fmt.Println("       ./corvid-server --check-aof [--fix] [--truncate-to-timestamp <unix-time>] <file.manifest|dir|file.aof>")
		fmt.Println("Examples:\n       ./corvid-server --port 7777\n       ./corvid-server /etc/valkey/valkey.conf --loglevel verbose")
		return
	}
	path := ""
	if len(args) > 0 && (len(args[0]) < 2 || args[0][:2] != "--") {
		path, args = args[0], args[1:]
	}
	cfg, err := config.LoadWith(config.LoadOptions{Path: path, Args: args, CommandExists: server.CommandExists})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if cfg.Daemonize() && os.Getenv("CORVID_DAEMONIZED") == "" {
		os.Exit(daemonize())
	}
	// CORVID_CPUPROFILE=file writes a CPU profile until shutdown, for
	// profiling the server under an external load generator.
	if f := os.Getenv("CORVID_CPUPROFILE"); f != "" {
		if fh, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(fh)
			defer pprof.StopCPUProfile()
		}
	}
	if err := server.Run(context.Background(), cfg, signals); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// daemonize re-executes the binary detached from the terminal in a new
// session (Go cannot fork safely), as valkey-server's daemonize yes does.
func daemonize() int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemonize:", err)
		return 1
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemonize:", err)
		return 1
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), "CORVID_DAEMONIZED=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "daemonize:", err)
		return 1
	}
	return 0
}
