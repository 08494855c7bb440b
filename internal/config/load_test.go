package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeConf writes content to dir/name and returns the path.
func writeConf(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadText loads content as a config file in a fresh temp dir.
func loadText(t *testing.T, content string, args ...string) (*Config, error) {
	t.Helper()
	return Load(writeConf(t, t.TempDir(), "valkey.conf", content), args)
}

func fatal(line int, text, msg string) string {
	return (&LoadError{Line: line, Text: text, Msg: msg}).Error()
}

func TestLoadSeedConfig(t *testing.T) {
	c, err := Load("testdata/seed-000.conf", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Port() != 6379 || !reflect.DeepEqual(c.Bind(), []string{"0.0.0.0"}) || c.ProtectedMode() ||
		!c.Daemonize() || c.MaxMemory() != 102<<30 || c.MaxMemoryPolicy() != "allkeys-lru" ||
		c.IOThreads() != 14 || !c.IOThreadsDoReads() {
		t.Fatalf("seed values: port=%d bind=%v pm=%v daemonize=%v maxmemory=%d policy=%s io=%d reads=%v",
			c.Port(), c.Bind(), c.ProtectedMode(), c.Daemonize(), c.MaxMemory(), c.MaxMemoryPolicy(),
			c.IOThreads(), c.IOThreadsDoReads())
	}
	if got := c.String("maxmemory"); got != "109521666048" {
		t.Errorf("CONFIG GET maxmemory = %q", got)
	}
	abs, _ := filepath.Abs("testdata/seed-000.conf")
	if c.ConfigFile() != abs {
		t.Errorf("ConfigFile = %q, want %q", c.ConfigFile(), abs)
	}
	// Everything else keeps its default (Valkey's save points, no AOF).
	if c.Save() != "3600 1 300 100 60 10000" || c.AppendOnly() || c.Databases() != 16 {
		t.Errorf("defaults changed: save=%q aof=%v dbs=%d", c.Save(), c.AppendOnly(), c.Databases())
	}

	// The article's literal lines with "// remark" are refused, as by Valkey.
	_, err = loadText(t, "port 6379\nmaxmemory 102gb   // 80% of 4xlarge\n")
	if want := fatal(2, "maxmemory 102gb   // 80% of 4xlarge", "wrong number of arguments"); err == nil || err.Error() != want {
		t.Errorf("article remark: got %v, want %q", err, want)
	}
}

func TestLoadErrorFormat(t *testing.T) {
	_, err := loadText(t, "port 7777\nfoo bar\n")
	want := "\n*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***\nReading the configuration file, at line 2\n>>> 'foo bar'\nBad directive or wrong number of arguments"
	if err == nil || err.Error() != want {
		t.Fatalf("got %q\nwant %q", err, want)
	}
	var le *LoadError
	if !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("not a *LoadError at line 2: %#v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	bind17 := "bind" + strings.Repeat(" 127.0.0.1", 17)
	tests := []struct {
		conf string
		line int    // line of the error; 0 for errors without a line
		text string // offending line (defaults to conf)
		msg  string
	}{
		{conf: "# comment\n\n   \tbogus 1  \n", line: 3, text: "bogus 1", msg: "Bad directive or wrong number of arguments"},
		{conf: "include", line: 1, msg: "Bad directive or wrong number of arguments"},
		{conf: `port "abc`, line: 1, msg: "Unbalanced quotes in configuration line"},
		{conf: `port "6379"x`, line: 1, msg: "Unbalanced quotes in configuration line"},
		{conf: "port", line: 1, msg: "wrong number of arguments"},
		{conf: "port 1 2", line: 1, msg: "wrong number of arguments"},
		{conf: "port abc", line: 1, msg: "argument couldn't be parsed into an integer"},
		{conf: "port +1", line: 1, msg: "argument couldn't be parsed into an integer"},
		{conf: "port 70000", line: 1, msg: "argument must be between 0 and 65535 inclusive"},
		{conf: "io-threads 17", line: 1, msg: "argument must be between 1 and 16 inclusive"},
		{conf: "io-threads 0", line: 1, msg: "argument must be between 1 and 16 inclusive"},
		{conf: "maxclients 0", line: 1, msg: "argument must be between 1 and 4294967295 inclusive"},
		{conf: "maxclients -1", line: 1, msg: "argument must be between 1 and 4294967295 inclusive"},
		{conf: "slowlog-max-len -1", line: 1, msg: "argument must be between 0 and 9223372036854775807 inclusive"},
		{conf: "maxmemory 1.5gb", line: 1, msg: "argument must be a memory value"},
		{conf: "maxmemory -1", line: 1, msg: "argument must be a memory value"},
		{conf: "maxmemory 10tb", line: 1, msg: "argument must be a memory value"},
		{conf: "proto-max-bulk-len 1000", line: 1, msg: "argument must be between 1048576 and 9223372036854775807 inclusive"},
		{conf: "client-query-buffer-limit 9223372036854775808", line: 1, msg: "argument must be between 1048576 and 9223372036854775807 inclusive"},
		{conf: "maxmemory-clients 101%", line: 1, msg: "percentage argument must be less or equal to 100"},
		{conf: "maxmemory-clients -1%", line: 1, msg: "argument must be a memory or percent value"},
		{conf: "unixsocketperm 999", line: 1, msg: "argument couldn't be parsed as an octal number"},
		{conf: "unixsocketperm 1000", line: 1, msg: "argument must be between 0 and 777 inclusive"},
		{conf: "protected-mode maybe", line: 1, msg: "argument must be 'yes' or 'no'"},
		{conf: "maxmemory-policy lru", line: 1, msg: "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
		{conf: "loglevel loud", line: 1, msg: "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
		{conf: "shutdown-on-sigint save nosave", line: 1, msg: "shutdown options SAVE and NOSAVE can't be used simultaneously"},
		{conf: `shutdown-on-sigterm ""`, line: 1, msg: "argument(s) must be one of the following: default, save, nosave, now, force"},
		{conf: "save 10", line: 1, msg: "Invalid save parameters"},
		{conf: "save 0 10", line: 1, msg: "Invalid save parameters"},
		{conf: `save "3600 1" "10"`, line: 1, msg: "Invalid save parameters"},
		{conf: "client-output-buffer-limit master 0 0 0", line: 1, msg: "Invalid client class specified in buffer limit configuration."},
		{conf: "client-output-buffer-limit normal 0 0", line: 1, msg: "Wrong number of arguments in buffer limit configuration."},
		{conf: "client-output-buffer-limit normal 1x 0 0", line: 1, msg: "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{conf: "client-output-buffer-limit normal 0 0 -1", line: 1, msg: "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{conf: "oom-score-adj-values 1 2", line: 1, msg: "wrong number of arguments"},
		{conf: "oom-score-adj-values 0 200 2001", line: 1, msg: "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
		{conf: "notify-keyspace-events KEZ", line: 1, msg: "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."},
		{conf: bind17, line: 1, msg: "Too many bind addresses specified."},
		{conf: "replicaof host", line: 1, msg: "wrong number of arguments"},
		{conf: "replicaof host 70000", line: 1, msg: "Invalid primary port"},
		{conf: "latency-tracking-info-percentiles 50 101", line: 1, msg: "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{conf: "latency-tracking-info-percentiles 50 abc", line: 1, msg: "Invalid latency-tracking-info-percentiles parameters"},
		{conf: "dbfilename a/b.rdb", line: 1, msg: "dbfilename can't be a path, just a filename"},
		{conf: `dbfilename ""`, line: 1, msg: "dbfilename can't be empty"},
		{conf: "appenddirname a/b", line: 1, msg: "appenddirname can't be a path, just a dirname"},
		{conf: `cluster-config-file ""`, line: 1, msg: "cluster-config-file can't be empty"},
		{conf: "cluster-announce-hostname a_b", line: 1, msg: "Hostnames may only contain alphanumeric characters, hyphens or dots"},
		{conf: "cluster-announce-client-ipv4 ::1", line: 1, msg: "Invalid IPv4 address"},
		{conf: "cluster-announce-client-ipv6 10.0.0.1", line: 1, msg: "Invalid IPv6 address"},
		{conf: "proc-title-template {nope}", line: 1, msg: "template format is invalid or contains unknown variables"},
		{conf: "proc-title-template {title}", line: 1, msg: "template format is invalid or contains unknown variables"},
		{conf: "proc-title-template {port", line: 1, msg: "template format is invalid or contains unknown variables"},
		{conf: "cluster-announce-human-nodename a{b", line: 1, msg: "Announced human node name contained invalid character"},
		{conf: "cluster-announce-hostname " + strings.Repeat("a", 256), line: 1, msg: "Hostnames must be less than 256 characters"},
		{conf: `dir ""`, line: 1, msg: "dir can't be empty"},
		{conf: "dir /nonexistent-corvid-dir", line: 1, msg: "No such file or directory"},
		{conf: "activedefrag yes", line: 1, msg: "Active defragmentation cannot be enabled: it requires a server compiled with a modified Jemalloc like the one shipped by default with the source distribution"},
		{conf: "sentinel monitor m 127.0.0.1 6379 2", line: 1, msg: "sentinel directive while not in sentinel mode"},
		{conf: "mymodule.knob", line: 1, msg: "Module config specified without value"},
		{conf: "rename-command get", line: 1, msg: "Bad directive or wrong number of arguments"},
		{conf: "list-max-ziplist-entries 1 2", line: 1, msg: "Bad directive or wrong number of arguments"},
		{conf: "logfile /nonexistent-corvid-dir/valkey.log", msg: "Can't open the log file: No such file or directory"},

		// Corvid's Unsupported hooks: the "on" values are refused at the line.
		{conf: "unixsocket /tmp/corvid.sock", line: 1, msg: "unixsocket is not supported by Corvid yet: only TCP listeners are implemented"},
		{conf: "loadmodule /usr/lib/x.so arg", line: 1, msg: "loadmodule is not supported by Corvid: modules are not implemented"},
	}
	for _, tc := range tests {
		_, err := loadText(t, tc.conf)
		text := tc.text
		if text == "" {
			text = strings.TrimSpace(tc.conf)
		}
		want := fatal(tc.line, text, tc.msg)
		if err == nil || err.Error() != want {
			t.Errorf("conf %q:\n got %q\nwant %q", tc.conf, err, want)
		}
	}
}

func TestLoadPlainErrors(t *testing.T) {
	if _, err := Load("/nonexistent-corvid-dir/valkey.conf", nil); err == nil ||
		err.Error() != "Fatal error, can't open config file '/nonexistent-corvid-dir/valkey.conf': No such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	if _, err := loadText(t, "mymodule.knob 5\n"); err == nil ||
		err.Error() != "Module Configuration detected without loadmodule directive or no ApplyConfig call: aborting" {
		t.Errorf("module config: %v", err)
	}
}

func TestLoadValues(t *testing.T) {
	tmp := t.TempDir()
	tests := []struct {
		conf, name, want string
	}{
		{"maxmemory 1k", "maxmemory", "1000"},
		{"maxmemory 1kb", "maxmemory", "1024"},
		{"maxmemory 1K", "maxmemory", "1000"},
		{"maxmemory 1Kb", "maxmemory", "1024"},
		{"maxmemory 2m", "maxmemory", "2000000"},
		{"maxmemory 2MB", "maxmemory", "2097152"},
		{"maxmemory 1g", "maxmemory", "1000000000"},
		{"maxmemory 1gb", "maxmemory", "1073741824"},
		{"maxmemory 100b", "maxmemory", "100"},
		{"maxmemory 18446744073709551615", "maxmemory", "18446744073709551615"},
		{"MAXMEMORY 5", "maxmemory", "5"},
		{"maxmemory-clients 5%", "maxmemory-clients", "5%"},
		{"maxmemory-clients 1mb", "maxmemory-clients", "1048576"},
		{"hz 0", "hz", "1"},
		{"hz 1000", "hz", "500"},
		{"requirepass \"p w\"", "requirepass", "p w"},
		{"masterauth secret", "primaryauth", "secret"},
		{"masterauth secret", "masterauth", "secret"},
		{"primaryuser u", "masteruser", "u"},
		{`save ""`, "save", ""},
		{"save \"\"\nsave \"\"", "save", ""},
		{"client-output-buffer-limit replica 1gb 2mb 30", "client-output-buffer-limit", "normal 0 0 0 slave 1073741824 2097152 30 pubsub 33554432 8388608 60"},
		{`client-output-buffer-limit "pubsub 1 2 3"`, "client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 1 2 3"},
		{"client-output-buffer-limit normal 1k 2k 3 slave 4 5 6", "client-output-buffer-limit", "normal 1000 2000 3 slave 4 5 6 pubsub 33554432 8388608 60"},
		{"bind 127.0.0.1 ::1", "bind", "127.0.0.1 ::1"},
		{`bind "127.0.0.1 -::1"`, "bind", "127.0.0.1 -::1"},
		{"bind 1.1.1.1\nbind 2.2.2.2", "bind", "2.2.2.2"},
		{`bind ""`, "bind", ""},
		{"notify-keyspace-events KEA", "notify-keyspace-events", "AKE"},
		{"notify-keyspace-events AnKm", "notify-keyspace-events", "AKm"},
		{"notify-keyspace-events g$nE", "notify-keyspace-events", "g$nE"},
		{"shutdown-on-sigterm \"save now\"", "shutdown-on-sigterm", "save now"},
		{"shutdown-on-sigint NOW force", "shutdown-on-sigint", "now force"},
		{"oom-score-adj relative", "oom-score-adj", "yes"},
		{"oom-score-adj-values \"-100 0 100\"", "oom-score-adj-values", "-100 0 100"},
		{"unixsocketperm 700", "unixsocketperm", "700"},
		{"list-max-ziplist-size -1", "list-max-listpack-size", "-1"},
		{"hash-max-ziplist-entries 64", "hash-max-listpack-entries", "64"},
		{"list-max-ziplist-entries 512\nlua-replicate-commands yes", "list-max-listpack-size", "-2"},
		{"slaveof no one", "replicaof", ""},
		{"replicaof NO ONE", "slaveof", ""},
		{"port 1\nport 2", "port", "2"},
		{"maxmemory-policy ALLKEYS-LFU", "maxmemory-policy", "allkeys-lfu"},
		{"protected-mode NO", "protected-mode", "no"},
		{"latency-tracking-info-percentiles \"50 99.99\"", "latency-tracking-info-percentiles", "50 99.99"},
		{`latency-tracking-info-percentiles ""`, "latency-tracking-info-percentiles", ""},
		{"dir " + tmp, "dir", tmp},
		{"dir " + tmp + "\ndir .", "dir", tmp},
		{"appendonly no\nsave \"\"\ncluster-enabled no\ntls-port 0", "appendonly", "no"},
		{"lua-time-limit 100", "busy-reply-threshold", "100"},
		{"sentinel", "port", "6379"}, // bare "sentinel" is handled by main()
		{"availability-zone us-east-1a", "availability-zone", "us-east-1a"},
		{"syslog-facility LOCAL3", "syslog-facility", "local3"},
		{"enable-debug-command local", "enable-debug-command", "local"},
		{"proc-title-template \"{{x} {title} {port} {server-mode}\"", "proc-title-template", "{{x} {title} {port} {server-mode}"},
		{"cluster-announce-human-nodename node-1.a", "cluster-announce-human-nodename", "node-1.a"},
		{"cluster-announce-hostname my-host.example", "cluster-announce-hostname", "my-host.example"},
		{"cluster-announce-client-ipv4 10.1.2.3", "cluster-announce-client-ipv4", "10.1.2.3"},
		{"cluster-announce-client-ipv6 fe80::1", "cluster-announce-client-ipv6", "fe80::1"},
		{"cluster-announce-client-ipv6 \"\"", "cluster-announce-client-ipv6", ""},
		{"tls-cert-file /x.crt", "tls-cert-file", "/x.crt"},
	}
	for _, tc := range tests {
		c, err := loadText(t, tc.conf)
		if err != nil {
			t.Errorf("conf %q: %v", tc.conf, err)
			continue
		}
		if got, _ := c.Lookup(tc.name); got != tc.want {
			t.Errorf("conf %q: %s = %q, want %q", tc.conf, tc.name, got, tc.want)
		}
	}
}

func TestBuildOptions(t *testing.T) {
	tests := []struct {
		haveFile bool
		args     []string
		want     string
		stdin    bool
	}{
		{false, []string{"--port", "6380"}, `port "6380" `, false},
		{false, []string{"--port 6380"}, `port 6380 `, false},
		{false, []string{"--bind", "a", "b", "--port", "1"}, "bind \"a\" \"b\" \nport \"1\" ", false},
		{false, []string{"--save"}, `save ""`, false},
		{false, []string{"--save", "--port", "1"}, "save \"\"\nport \"1\" ", false},
		{false, []string{"--requirepass", "--x"}, `requirepass "--x" `, false},
		{false, []string{"-"}, "", true},
		{false, []string{"-", "--port", "1"}, `port "1" `, true},
		{true, []string{"-", "--port", "1"}, "\"-\" \nport \"1\" ", false},
		{true, []string{"--port", "1", "-"}, `port "1" `, true},
		{false, []string{"--sentinel", "--port", "1"}, "sentinel \nport \"1\" ", false},
	}
	for _, tc := range tests {
		got, stdin := buildOptions(tc.haveFile, tc.args)
		if got != tc.want || stdin != tc.stdin {
			t.Errorf("buildOptions(%v, %q) = %q, %v; want %q, %v", tc.haveFile, tc.args, got, stdin, tc.want, tc.stdin)
		}
	}
}

func TestLoadArgs(t *testing.T) {
	c, err := Load("", []string{"--port", "6380", "--bind", "127.0.0.1", "::1", "--maxmemory", "1gb", "--save", "--appendonly", "no"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Port() != 6380 || !reflect.DeepEqual(c.Bind(), []string{"127.0.0.1", "::1"}) || c.MaxMemory() != 1<<30 || c.ConfigFile() != "" {
		t.Errorf("args: port=%d bind=%v maxmemory=%d file=%q", c.Port(), c.Bind(), c.MaxMemory(), c.ConfigFile())
	}

	// Command-line options come after the file and win; their line numbers
	// continue after the file's lines plus one separator line.
	p := writeConf(t, t.TempDir(), "a.conf", "port 1\nmaxmemory 5\n")
	c, err = Load(p, []string{"--port", "2"})
	if err != nil || c.Port() != 2 || c.MaxMemory() != 5 {
		t.Fatalf("file+args: %v port=%d", err, c.Port())
	}
	_, err = Load(p, []string{"--maxmemory", "1", "--port", "1x"})
	if want := fatal(5, `port "1x"`, "argument couldn't be parsed into an integer"); err == nil || err.Error() != want {
		t.Errorf("args error:\n got %q\nwant %q", err, want)
	}
	_, err = Load("", []string{"--port", "abc"})
	if want := fatal(2, `port "abc"`, "argument couldn't be parsed into an integer"); err == nil || err.Error() != want {
		t.Errorf("args error:\n got %q\nwant %q", err, want)
	}

	// "-" reads stdin, before the command-line options.
	c, err = LoadWith(LoadOptions{Args: []string{"-", "--hz", "20"}, Stdin: strings.NewReader("port 1234\nhz 5\n")})
	if err != nil || c.Port() != 1234 || c.Hz() != 20 {
		t.Errorf("stdin: %v port=%d hz=%d", err, c.Port(), c.Hz())
	}
}

func TestInclude(t *testing.T) {
	dir := t.TempDir()
	writeConf(t, dir, "conf.d/10-a.conf", "maxmemory 10\nport 10\n")
	writeConf(t, dir, "conf.d/20-b.conf", "port 20\n")
	writeConf(t, dir, "bad.conf", "# one\nport 1\nnot-a-directive\n")
	main := writeConf(t, dir, "valkey.conf", "port 1\ninclude "+dir+"/conf.d/*.conf\ninclude "+dir+"/empty.d/*.conf\nhz 7\n")
	c, err := Load(main, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Port() != 20 || c.MaxMemory() != 10 || c.Hz() != 7 {
		t.Errorf("include: port=%d maxmemory=%d hz=%d", c.Port(), c.MaxMemory(), c.Hz())
	}

	// Errors inside an included file report that file's own line numbers.
	main2 := writeConf(t, dir, "v2.conf", "port 1\n\ninclude "+dir+"/bad.conf\n")
	_, err = Load(main2, nil)
	if want := fatal(3, "not-a-directive", "Bad directive or wrong number of arguments"); err == nil || err.Error() != want {
		t.Errorf("included error:\n got %q\nwant %q", err, want)
	}

	// A missing include without wildcard is fatal; relative paths resolve
	// against "dir" like Valkey's fopen after chdir.
	main3 := writeConf(t, dir, "v3.conf", "include missing.conf\n")
	if _, err = Load(main3, nil); err == nil || err.Error() != "Fatal error, can't open config file 'missing.conf': No such file or directory" {
		t.Errorf("missing include: %v", err)
	}
	main4 := writeConf(t, dir, "v4.conf", "dir "+dir+"\ninclude conf.d/20-b.conf\n")
	if c, err = Load(main4, nil); err != nil || c.Port() != 20 {
		t.Errorf("relative include: %v", err)
	}
}

func TestRenameCommandAndUsers(t *testing.T) {
	cmds := map[string]bool{"get": true, "set": true, "flushall": true}
	exists := func(n string) bool { return cmds[n] }
	load := func(conf string) (*Config, error) {
		p := writeConf(t, t.TempDir(), "v.conf", conf)
		return LoadWith(LoadOptions{Path: p, CommandExists: exists})
	}
	c, err := load("rename-command flushall \"\"\nrename-command GET fetch\nuser alice on >pw ~* +@all\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Rename{{"flushall", ""}, {"GET", "fetch"}}; !reflect.DeepEqual(c.RenamedCommands(), want) {
		t.Errorf("renames = %v", c.RenamedCommands())
	}
	if want := [][]string{{"alice", "on", ">pw", "~*", "+@all"}}; !reflect.DeepEqual(c.Users(), want) {
		t.Errorf("users = %v", c.Users())
	}
	if _, err := load("rename-command nosuch x\n"); err == nil || err.Error() != fatal(1, "rename-command nosuch x", "No such command in rename-command") {
		t.Errorf("unknown rename: %v", err)
	}
	if _, err := load("rename-command get set\n"); err == nil || err.Error() != fatal(1, "rename-command get set", "Target command name already exists") {
		t.Errorf("rename onto existing: %v", err)
	}
	if _, err := load("rename-command get x\nrename-command get y\n"); err == nil ||
		err.Error() != fatal(2, "rename-command get y", "No such command in rename-command") {
		t.Errorf("double rename: %v", err)
	}
}

func TestUnsupportedOverride(t *testing.T) {
	p := writeConf(t, t.TempDir(), "v.conf", "appendonly yes\nsave 900 1\nsave 300 10\n")
	c, err := LoadWith(LoadOptions{Path: p, Unsupported: map[string]func(string) string{}})
	if err != nil {
		t.Fatal(err)
	}
	if !c.AppendOnly() || c.Save() != "900 1 300 10" {
		t.Errorf("relaxed: aof=%v save=%q", c.AppendOnly(), c.Save())
	}
	// The first save line replaces the defaults, "" resets, later lines append.
	p = writeConf(t, t.TempDir(), "v.conf", "save 1 1\nsave \"\"\nsave 60 5\nsave 30 7\n")
	c, err = LoadWith(LoadOptions{Path: p, Unsupported: map[string]func(string) string{}})
	if err != nil || c.Save() != "60 5 30 7" {
		t.Errorf("save accumulation: %v %q", err, c.Save())
	}
}
