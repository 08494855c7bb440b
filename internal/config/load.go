package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LoadError is a start-up configuration error, printed by the server to
// stderr before exiting with status 1. Line is 0 for errors found after all
// lines were read (e.g. the log file cannot be opened).
type LoadError struct {
	Line int    // 1-based line in the text being parsed
	Text string // the offending line, trimmed
	Msg  string // Valkey's reason text
}

// Error renders the error exactly as valkey-server prints it.
func (e *LoadError) Error() string {
	s := "\n*** FATAL CONFIG FILE ERROR (Version " + ValkeyVersion + ") ***\n"
	if e.Line > 0 {
		s += "Reading the configuration file, at line " + strconv.Itoa(e.Line) + "\n>>> '" + e.Text + "'\n"
	}
	return s + e.Msg
}

// LoadOptions extends Load for callers that need more control.
type LoadOptions struct {
	// Path of the configuration file; "" runs without one. Wildcards
	// (*, ?, [) load every matching file in order, as Valkey does.
	Path string
	// Args are the command-line words after the file name, e.g.
	// {"--port", "6380", "--bind", "127.0.0.1", "::1"} or {"--port 6380"}.
	// A "-" as the first word (without Path) or the last word reads more
	// configuration from Stdin.
	Args []string
	// Stdin is read when Args asks for it; nil means os.Stdin.
	Stdin io.Reader
	// CommandExists validates rename-command sources and targets; nil
	// accepts every name (the command table then applies RenamedCommands).
	CommandExists func(name string) bool
	// Unsupported replaces DefaultUnsupported() when non-nil.
	Unsupported map[string]func(value string) string
}

// Load reads the configuration like valkey-server: the optional file at
// path, then the command-line overrides in args (see LoadOptions.Args).
func Load(path string, args []string) (*Config, error) {
	return LoadWith(LoadOptions{Path: path, Args: args})
}

// LoadWith is Load with all options.
func LoadWith(o LoadOptions) (*Config, error) {
	c := newConfig(o.Unsupported)
	ld := &loader{c: c, st: c.snap().clone(), cmdExists: o.CommandExists,
		removed: map[string]bool{}, added: map[string]bool{}}

	var content strings.Builder
	if o.Path != "" {
		abs, err := filepath.Abs(o.Path)
		if err != nil {
			abs = o.Path
		}
		c.path = abs
		data, err := readConfigFiles(abs, abs)
		if err != nil {
			return nil, err
		}
		content.WriteString(data)
	}
	options, fromStdin := buildOptions(o.Path != "", o.Args)
	if fromStdin {
		in := o.Stdin
		if in == nil {
			in = os.Stdin
		}
		data, err := io.ReadAll(in)
		if err != nil {
			return nil, errors.New("Reading config from stdin: " + err.Error())
		}
		content.Write(data)
	}
	content.WriteString("\n")
	content.WriteString(options)

	if err := ld.loadString(content.String()); err != nil {
		return nil, err
	}
	if err := ld.finish(); err != nil {
		return nil, err
	}
	c.cur.Store(ld.st)
	c.renames, c.users = ld.renames, ld.users
	return c, nil
}

// buildOptions turns command-line words into config lines, following
// valkey-server's main(): "--name" starts a line, other words are quoted
// values, "--save" with no value means save "", and "-" reads stdin.
func buildOptions(haveFile bool, args []string) (string, bool) {
	var b strings.Builder
	fromStdin := false
	handledLast := true
	for j, a := range args {
		switch {
		case a == "-" && ((j == 0 && !haveFile) || j == len(args)-1):
			fromStdin = true
		case handledLast && strings.HasPrefix(a, "--"):
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(a[2:])
			b.WriteString(" ")
			words, _ := splitArgs(a)
			if len(words) == 1 {
				// Only the option name: its value follows.
				handledLast = false
				next := j + 1
				switch {
				case next < len(args) && strings.HasPrefix(args[next], "--") && strings.EqualFold(a, "--save"):
					b.WriteString(`""`)
					handledLast = true
				case next == len(args) && strings.EqualFold(a, "--save"):
					b.WriteString(`""`)
				case next < len(args) && strings.HasPrefix(args[next], "--") && strings.EqualFold(a, "--sentinel"):
					handledLast = true
				}
			} else {
				handledLast = true // "--port 6380" in one word
			}
		default:
			b.WriteString(repr(a))
			b.WriteString(" ")
			handledLast = true
		}
	}
	return b.String(), fromStdin
}

// readConfigFiles reads a file, or every file matching a wildcard pattern.
// A pattern matching nothing reads nothing, which allows empty conf.d dirs.
func readConfigFiles(path, shown string) (string, error) {
	if strings.ContainsAny(path, "*?[") {
		matches, err := filepath.Glob(path)
		if err != nil {
			return "", nil
		}
		var b strings.Builder
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				return "", errors.New("Fatal error, can't open config file '" + m + "': " + strerror(err))
			}
			b.Write(data)
		}
		return b.String(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", errors.New("Fatal error, can't open config file '" + shown + "': " + strerror(err))
	}
	return string(data), nil
}

// loader carries the state of one Load across included files.
type loader struct {
	c          *Config
	st         *state
	saveLoaded bool // the first "save" line replaced the default rules
	cmdExists  func(string) bool
	removed    map[string]bool // rename-command bookkeeping
	added      map[string]bool
	renames    []Rename
	users      [][]string
	moduleCfgs []string
	depth      int
}

// loadString is loadServerConfigFromString.
func (ld *loader) loadString(config string) error {
	lines := strings.Split(config, "\n")
	for i, raw := range lines {
		line := strings.Trim(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(msg string) error { return &LoadError{Line: i + 1, Text: line, Msg: msg} }
		argv, ok := splitArgs(line)
		if !ok {
			return fail("Unbalanced quotes in configuration line")
		}
		if len(argv) == 0 {
			continue
		}
		argv[0] = strings.ToLower(argv[0])
		if r := lookup(argv[0]); r != nil {
			e := r.e
			multi := e.has(fMultiArg)
			if !multi && len(argv) != 2 {
				return fail("wrong number of arguments")
			}
			args := argv[1:]
			if multi && len(argv) == 2 && argv[1] != "" {
				// --save "3600 1 300 100" style: one word holding several.
				args, _ = splitArgs(argv[1])
			}
			if msg := ld.setEntry(e, args); msg != "" {
				return fail(msg)
			}
			continue
		}
		if deprecatedDirectives[argv[0]] && len(argv) == 2 {
			continue
		}
		switch name := argv[0]; {
		case name == "include" && len(argv) == 2:
			if err := ld.include(argv[1]); err != nil {
				return err
			}
		case name == "rename-command" && len(argv) == 3:
			if msg := ld.rename(argv[1], argv[2]); msg != "" {
				return fail(msg)
			}
		case name == "user" && len(argv) >= 2:
			ld.users = append(ld.users, append([]string(nil), argv[1:]...))
		case name == "loadmodule" && len(argv) >= 2:
			if msg := ld.c.checkUnsupported("loadmodule", strings.Join(argv[1:], " ")); msg != "" {
				return fail(msg)
			}
		case strings.Contains(name, "."):
			if len(argv) < 2 {
				return fail("Module config specified without value")
			}
			ld.moduleCfgs = append(ld.moduleCfgs, name)
		case name == "sentinel":
			if len(argv) != 1 {
				return fail("sentinel directive while not in sentinel mode")
			}
		default:
			return fail("Bad directive or wrong number of arguments")
		}
	}
	return nil
}

// setEntry applies one directive while loading: parse, Unsupported check.
func (ld *loader) setEntry(e *entry, args []string) string {
	nv, _, msg := e.set(ld.st.v[e.idx], args, ld)
	if msg != "" {
		return msg
	}
	if msg := ld.c.checkUnsupported(e.name, e.format(nv)); msg != "" {
		return msg
	}
	ld.st.v[e.idx] = nv
	return ""
}

// include loads another file (or wildcard) with its own line numbers.
func (ld *loader) include(path string) error {
	if ld.depth > 64 { // Valkey recurses without limit; a cycle would never end.
		return &LoadError{Msg: "include nesting too deep at '" + path + "'"}
	}
	shown := path
	if !filepath.IsAbs(path) {
		// fopen() resolves against the working directory, which a previous
		// "dir" line would have changed in Valkey.
		path = filepath.Join(ld.st.v[idxDir].s, path)
	}
	data, err := readConfigFiles(path, shown)
	if err != nil {
		return err
	}
	ld.depth++
	defer func() { ld.depth-- }()
	return ld.loadString(data)
}

// rename is the rename-command directive against the command table view.
func (ld *loader) rename(from, to string) string {
	exists := func(name string) bool {
		n := strings.ToLower(name)
		if ld.added[n] {
			return true
		}
		return !ld.removed[n] && (ld.cmdExists == nil || ld.cmdExists(n))
	}
	if ld.cmdExists != nil && !exists(from) {
		return "No such command in rename-command"
	}
	f := strings.ToLower(from)
	delete(ld.added, f)
	ld.removed[f] = true
	if to != "" {
		t := strings.ToLower(to)
		if ld.cmdExists != nil && exists(t) {
			return "Target command name already exists"
		}
		ld.added[t] = true
	}
	ld.renames = append(ld.renames, Rename{From: from, To: to})
	return ""
}

// finish runs the checks Valkey makes once every line was read.
func (ld *loader) finish() error {
	st := ld.st
	if lf := st.v[idxLogFile].s; lf != "" {
		p := lf
		if !filepath.IsAbs(p) {
			p = filepath.Join(st.v[idxDir].s, p)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return &LoadError{Msg: "Can't open the log file: " + strerror(err)}
		}
		f.Close()
	}
	if st.v[idxClusterEnabled].n != 0 && primaryOf(st.v[idxReplicaOf]) != nil {
		return &LoadError{Msg: "replicaof directive not allowed in cluster mode"}
	}
	if st.v[idxClusterEnabled].n != 0 && st.v[idxDatabases].n > 1 {
		st.v[idxDatabases].n = 1 // Valkey logs a warning and uses one database
	}
	st.v[idxHz].n = clampHz(st.v[idxHz].n)
	if len(ld.moduleCfgs) > 0 {
		return errors.New("Module Configuration detected without loadmodule directive or no ApplyConfig call: aborting")
	}
	return nil
}
