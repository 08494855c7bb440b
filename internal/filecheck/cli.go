package filecheck

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// The tools, as Main names them.
const (
	ToolRDB = "check-rdb"
	ToolAOF = "check-aof"
)

// ToolFor says whether a command line runs a check tool rather than the
// server, as valkey-server becomes valkey-check-rdb or valkey-check-aof
// by its name: argv0 (the program name) containing corvid-check-rdb or
// corvid-check-aof (or Valkey's or Redis's tool names, so that a link
// under those names works as a drop-in), or args starting with
// --check-rdb or --check-aof. toolArgs are the tool's own arguments.
func ToolFor(argv0 string, args []string) (tool string, toolArgs []string, ok bool) {
	base := filepath.Base(argv0)
	for _, prog := range []string{"corvid", "valkey", "redis"} {
		switch {
		case strings.Contains(base, prog+"-check-rdb"):
			return ToolRDB, args, true
		case strings.Contains(base, prog+"-check-aof"):
			return ToolAOF, args, true
		}
	}
	if len(args) > 0 {
		switch args[0] {
		case "--check-rdb":
			return ToolRDB, args[1:], true
		case "--check-aof":
			return ToolAOF, args[1:], true
		}
	}
	return "", nil, false
}

const (
	usageRDB = "Usage: corvid-check-rdb <file.rdb>\n" +
		"       corvid-server --check-rdb <file.rdb>\n"
	usageAOF = "Usage: corvid-check-aof [--fix] [--truncate-to-timestamp <unix-time>] <file.manifest|appendonlydir|file.aof>\n" +
		"       corvid-server --check-aof [--fix] [--truncate-to-timestamp <unix-time>] <file>\n"
)

// Main runs tool (ToolRDB or ToolAOF) with its arguments, writes the
// report to stdout and usage errors to stderr, and returns the exit
// status: 0 when the file is sound (or was repaired), 1 otherwise.
// version is printed for -v and --version.
func Main(tool string, args []string, version string, stdout, stderr io.Writer) int {
	switch tool {
	case ToolRDB:
		return mainRDB(args, version, stdout, stderr)
	case ToolAOF:
		return mainAOF(args, version, stdout, stderr)
	}
	fmt.Fprintf(stderr, "unknown check tool %q\n", tool)
	return 1
}

func mainRDB(args []string, version string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-v" || args[0] == "--version") {
		fmt.Fprintf(stdout, "corvid-check-rdb %s\n", version)
		return 0
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		io.WriteString(stdout, usageRDB)
		return 0
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		io.WriteString(stderr, usageRDB)
		return 1
	}
	rep, err := CheckRDB(args[0])
	if err != nil {
		fmt.Fprintf(stdout, "cannot check %s: %v\n", args[0], err)
		return 1
	}
	rep.WriteText(stdout)
	return rep.Verdict.ExitCode()
}

func mainAOF(args []string, version string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-v" || args[0] == "--version") {
		fmt.Fprintf(stdout, "corvid-check-aof %s\n", version)
		return 0
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		io.WriteString(stdout, usageAOF)
		return 0
	}
	var opts AOFOptions
	path := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--fix":
			opts.Fix = true
		case a == "--truncate-to-timestamp" || strings.HasPrefix(a, "--truncate-to-timestamp="):
			v, inline := strings.CutPrefix(a, "--truncate-to-timestamp=")
			if !inline {
				if i+1 >= len(args) {
					io.WriteString(stderr, usageAOF)
					return 1
				}
				i++
				v = args[i]
			}
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				fmt.Fprintf(stderr, "invalid timestamp %q: want Unix seconds\n", v)
				return 1
			}
			opts.TruncateToTimestamp = ts
		case strings.HasPrefix(a, "-") || path != "":
			io.WriteString(stderr, usageAOF)
			return 1
		default:
			path = a
		}
	}
	if path == "" {
		io.WriteString(stderr, usageAOF)
		return 1
	}
	rep, err := CheckAOF(path, opts)
	if err != nil {
		fmt.Fprintf(stdout, "cannot check %s: %v\n", path, err)
		return 1
	}
	rep.WriteText(stdout)
	return rep.Verdict.ExitCode()
}
