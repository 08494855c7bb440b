package server

import (
	"slices"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/script"
)

// Functions: FCALL runs a library function as EVAL runs a script
// (script.go: the same stripes, host and replies); FUNCTION manages the
// libraries, which live in the script engine and in RDB files.

// fcallCommand is FCALL and FCALL_RO.
func fcallCommand(c *Client) {
	argv := c.ctx.Argv
	ro := c.curCmd.meta == command.FcallRo
	fn := c.srv.scripts.Function(string(argv[1]))
	if fn == nil {
		c.w.Error("ERR Function not found")
		return
	}
	numkeys, ok := c.scriptNumkeys(argv, "ERR Bad number of keys provided")
	if !ok {
		return
	}
	if c.srv.monitors.list.Load() != nil {
		c.feedMonitorsAlways(c.curCmd, argv)
	}
	ro, ok = c.scriptFlagsAllow(fn.Flags, ro)
	if !ok {
		return
	}
	c.runScript(script.Run{Function: fn, Keys: argv[3 : 3+numkeys], Args: argv[3+numkeys:]}, &fn.Hints, fn.Flags, ro)
}

// FUNCTION LOAD [REPLACE] code
func functionLoadCommand(c *Client) {
	argv := c.ctx.Argv
	replace := false
	i := 2
	for ; i < len(argv)-1; i++ {
		if !db.EqualFold(argv[i], "replace") {
			c.w.Error("ERR Unknown option given: " + cstr(argv[i]))
			return
		}
		replace = true
	}
	if i != len(argv)-1 {
		c.w.Error("ERR Function code is missing")
		return
	}
	// The code runs before the stripes are taken: only installing the
	// library happens under them.
	lib, msg := c.srv.scripts.CompileLibrary(argv[i])
	if lib == nil {
		c.w.Error(msg)
		return
	}
	if c.changeFunctions(func() string { return c.srv.scripts.InstallLibrary(lib, replace) }) {
		c.w.BulkString(lib.Name)
	}
}

// changeFunctions runs change, a change of the libraries, under every
// stripe (the point in time of a snapshot sees it whole: before or
// after), and when it succeeds counts it as a change of the dataset and
// propagates the command (AOF, replicas) as Valkey does. change returns
// the error reply, or "".
func (c *Client) changeFunctions(change func() string) bool {
	ctx := &c.ctx
	ks := c.srv.ks
	if !ctx.Locked { // inside EXEC, EXEC holds them and commits the unit
		ks.LockAll()
		defer ks.UnlockAll()
		ctx.Prop = nil
		ctx.StartProp()
	}
	if msg := change(); msg != "" {
		c.w.Error(msg)
		return false
	}
	ctx.Dirty++
	ctx.OwnAs(ctx.Argv...)
	if !ctx.Locked {
		ctx.CommitUnit()
		ctx.Prop = nil
	}
	return true
}

// FUNCTION DELETE library-name
func functionDeleteCommand(c *Client) {
	if c.changeFunctions(func() string {
		if !c.srv.scripts.DeleteLibrary(string(c.ctx.Argv[2])) {
			return "ERR Library not found"
		}
		return ""
	}) {
		c.w.OK()
	}
}

// FUNCTION FLUSH [ASYNC|SYNC]
func functionFlushCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + cstr(argv[1]) + "'. Try FUNCTION HELP.")
		return
	}
	if len(argv) == 3 && !db.EqualFold(argv[2], "sync") && !db.EqualFold(argv[2], "async") {
		c.w.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	if c.changeFunctions(func() string { c.srv.scripts.FlushFunctions(); return "" }) {
		c.w.OK()
	}
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]
func functionListCommand(c *Client) {
	argv := c.ctx.Argv
	var pattern []byte
	withCode, havePattern := false, false
	for i := 2; i < len(argv); i++ {
		switch {
		case db.EqualFold(argv[i], "withcode") && !withCode:
			withCode = true
		case db.EqualFold(argv[i], "libraryname") && !havePattern:
			if i+1 >= len(argv) {
				c.w.Error("ERR library name argument was not given")
				return
			}
			i++
			pattern, havePattern = argv[i], true
		default:
			c.w.Error("ERR Unknown argument " + cstr(argv[i]))
			return
		}
	}
	var libs []*script.Library
	for _, l := range c.srv.scripts.Libraries() {
		if !havePattern || ds.Match(pattern, []byte(l.Name), false) {
			libs = append(libs, l)
		}
	}
	w := c.w
	w.ArrayLen(len(libs))
	for _, l := range libs {
		n := 3
		if withCode {
			n = 4
		}
		w.MapLen(n)
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		names := make([]string, 0, len(l.Functions))
		for name := range l.Functions {
			names = append(names, name)
		}
		slices.Sort(names)
		w.ArrayLen(len(names))
		for _, name := range names {
			f := l.Functions[name]
			w.MapLen(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.Desc != nil {
				w.BulkString(*f.Desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			flags := f.Flags.Names()
			w.SetLen(len(flags))
			for _, fl := range flags {
				w.Simple(fl)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.Code)
		}
	}
}

// FUNCTION DUMP
func functionDumpCommand(c *Client) {
	c.w.Bulk(rdb.FunctionsPayload(c.srv.scripts.LibraryCodes(), c.srv.ks.RDBOptions()))
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
func functionRestoreCommand(c *Client) {
	argv := c.ctx.Argv
	policy := "APPEND"
	if len(argv) > 4 {
		c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + cstr(argv[1]) + "'. Try FUNCTION HELP.")
		return
	}
	if len(argv) == 4 {
		policy = strings.ToUpper(string(argv[3]))
		if policy != "FLUSH" && policy != "APPEND" && policy != "REPLACE" {
			c.w.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, err := rdb.ParseFunctionsPayload(argv[2])
	if err != nil {
		if pe, ok := err.(rdb.FunctionsPayloadError); ok {
			c.w.Error("ERR " + string(pe))
		} else {
			c.w.Error("ERR failed loading the given functions payload")
		}
		return
	}
	libs, msg := c.srv.scripts.CompileLibraries(codes)
	if libs == nil {
		c.w.Error(msg)
		return
	}
	if c.changeFunctions(func() string { return c.srv.scripts.RestoreLibraries(libs, policy) }) {
		c.w.OK()
	}
}

// FUNCTION STATS
func functionStatsCommand(c *Client) {
	w := c.w
	w.MapLen(2)
	w.BulkString("running_script")
	if name, _, d, argv, ok := c.srv.scripts.RunningInfo(time.Now()); ok {
		w.MapLen(3)
		w.BulkString("name")
		w.BulkString(name)
		w.BulkString("command")
		w.ArrayLen(len(argv))
		for _, a := range argv {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(d.Milliseconds())
	} else {
		w.Null()
	}
	libs, funcs := c.srv.scripts.FunctionCounts()
	w.BulkString("engines")
	w.MapLen(1)
	w.BulkString("LUA")
	w.MapLen(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(funcs))
}

// FUNCTION KILL
func functionKillCommand(c *Client) { c.killScripts(true) }

var functionHelp = []string{
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Load a library (its first line names it: #!lua name=<library>). REPLACE replaces one of the same name.",
	"DELETE <LIBRARY NAME>",
	"    Remove a library and its functions.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Libraries with their functions, those whose name matches PATTERN if given, with their code if asked.",
	"FLUSH [ASYNC|SYNC]",
	"    Remove every library.",
	"DUMP",
	"    A payload of every library, for FUNCTION RESTORE.",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Load the libraries of a payload: FLUSH removes the others first, APPEND (default) refuses names that exist, REPLACE replaces them.",
	"STATS",
	"    The running function, and how many libraries and functions there are.",
	"KILL",
	"    Stop the running function, unless it has written.",
}

// FUNCTION HELP
func functionHelpCommand(c *Client) { c.writeHelp("FUNCTION", functionHelp) }
