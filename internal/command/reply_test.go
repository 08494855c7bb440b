package command_test

import (
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/resp"
)

// The expected bytes were captured from redis-server 7.0.15, whose COMMAND
// INFO encoding is the same as Valkey 8's, for commands whose specs did not
// change between the two and whose key specs carry no notes.
func TestWriteInfo(t *testing.T) {
	tests := []struct {
		name  string
		proto int
		want  string
	}{
		{"get", 2, "*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n" +
			"*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n" +
			"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n" +
			"$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n" +
			"*0\r\n"},
		{"get", 3, "*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n" +
			"~3\r\n+@read\r\n+@string\r\n+@fast\r\n~0\r\n" +
			"~1\r\n%3\r\n$5\r\nflags\r\n~2\r\n+RO\r\n+access\r\n" +
			"$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n" +
			"~0\r\n"},
		{"mset", 2, "*10\r\n$4\r\nmset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:-1\r\n:2\r\n" +
			"*3\r\n+@write\r\n+@string\r\n+@slow\r\n" +
			"*2\r\n$26\r\nrequest_policy:multi_shard\r\n$29\r\nresponse_policy:all_succeeded\r\n" +
			"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+OW\r\n+update\r\n" +
			"$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:2\r\n$5\r\nlimit\r\n:0\r\n" +
			"*0\r\n"},
		{"xread", 2, "*10\r\n$5\r\nxread\r\n:-4\r\n*3\r\n+readonly\r\n+blocking\r\n+movablekeys\r\n:0\r\n:0\r\n:0\r\n" +
			"*4\r\n+@read\r\n+@stream\r\n+@slow\r\n+@blocking\r\n*0\r\n" +
			"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n" +
			"$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$7\r\nkeyword\r\n$4\r\nspec\r\n*4\r\n$7\r\nkeyword\r\n$7\r\nSTREAMS\r\n$9\r\nstartfrom\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:2\r\n" +
			"*0\r\n"},
		{"zunionstore", 2, "*10\r\n$11\r\nzunionstore\r\n:-4\r\n*3\r\n+write\r\n+denyoom\r\n+movablekeys\r\n:1\r\n:1\r\n:1\r\n" +
			"*3\r\n+@write\r\n+@sortedset\r\n+@slow\r\n*0\r\n" +
			"*2\r\n*6\r\n$5\r\nflags\r\n*2\r\n+OW\r\n+update\r\n" +
			"$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n" +
			"*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n" +
			"$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:2\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$6\r\nkeynum\r\n$4\r\nspec\r\n*6\r\n$9\r\nkeynumidx\r\n:0\r\n$8\r\nfirstkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n" +
			"*0\r\n"},
		{"client|list", 2, "*10\r\n$11\r\nclient|list\r\n:-2\r\n*4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n" +
			"*4\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n+@connection\r\n*1\r\n$23\r\nnondeterministic_output\r\n*0\r\n*0\r\n"},
		{"nosuchcommand", 2, "$-1\r\n"},
	}
	for _, tt := range tests {
		w := resp.NewWriter(512)
		w.Proto = tt.proto
		command.WriteInfo(w, command.LookupFullName([]byte(tt.name)))
		if got := string(w.Bytes()); got != tt.want {
			t.Errorf("%s RESP%d:\n got %q\nwant %q", tt.name, tt.proto, got, tt.want)
		}
	}
}

func TestWriteInfoContainer(t *testing.T) {
	w := resp.NewWriter(1 << 16)
	m := command.Lookup([]byte("object"))
	command.WriteInfo(w, m)
	// The subcommands follow as an array of full entries, by name.
	sub := resp.NewWriter(1 << 12)
	for _, s := range m.Subcommands() {
		command.WriteInfo(sub, s)
	}
	head := "*10\r\n$6\r\nobject\r\n:-2\r\n*0\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@slow\r\n*0\r\n*0\r\n*5\r\n"
	if got := string(w.Bytes()); got != head+string(sub.Bytes()) {
		t.Errorf("OBJECT:\n got %q\nwant %q+subcommands", got[:min(len(got), 200)], head)
	}
	if n := len(m.Subcommands()); n != 5 || m.Subcommands()[0].FullName != "object|encoding" {
		t.Errorf("OBJECT subcommands: %d", n)
	}
}

func TestWriteDocs(t *testing.T) {
	// summary is Corvid's own text, whatever it says: the expected replies
	// take it from the table.
	summary := func(name string) string {
		s := command.LookupFullName([]byte(name)).Summary
		return "$7\r\nsummary\r\n" + bulk(s)
	}
	tests := []struct {
		name string
		want string
	}{
		// Valkey 8's field order (summary, since, group, complexity, ...)
		// and display_text after type for non-nested arguments.
		{"get", "*10\r\n" + summary("get") + "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n" +
			"$10\r\ncomplexity\r\n$4\r\nO(1)\r\n$9\r\narguments\r\n" +
			"*1\r\n*8\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$12\r\ndisplay_text\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n"},
		{"flushdb", "*12\r\n" + summary("flushdb") + "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nserver\r\n" +
			"$10\r\ncomplexity\r\n" + bulk("O(N) where N is the number of keys in the selected database") +
			"$7\r\nhistory\r\n*2\r\n" +
			"*2\r\n$5\r\n4.0.0\r\n" + bulk(command.Flushdb.History[0].Changes) +
			"*2\r\n$5\r\n6.2.0\r\n" + bulk(command.Flushdb.History[1].Changes) +
			"$9\r\narguments\r\n" +
			"*1\r\n*8\r\n$4\r\nname\r\n$10\r\nflush-type\r\n$4\r\ntype\r\n$5\r\noneof\r\n$5\r\nflags\r\n*1\r\n+optional\r\n$9\r\narguments\r\n" +
			"*2\r\n" +
			"*10\r\n$4\r\nname\r\n$5\r\nasync\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$12\r\ndisplay_text\r\n$5\r\nasync\r\n$5\r\ntoken\r\n$5\r\nASYNC\r\n$5\r\nsince\r\n$5\r\n4.0.0\r\n" +
			"*10\r\n$4\r\nname\r\n$4\r\nsync\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$12\r\ndisplay_text\r\n$4\r\nsync\r\n$5\r\ntoken\r\n$4\r\nSYNC\r\n$5\r\nsince\r\n$5\r\n6.2.0\r\n"},
		{"setnx", "*16\r\n" + summary("setnx") + "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n" +
			"$10\r\ncomplexity\r\n$4\r\nO(1)\r\n" +
			"$9\r\ndoc_flags\r\n*1\r\n+deprecated\r\n$16\r\ndeprecated_since\r\n$6\r\n2.6.12\r\n" +
			"$11\r\nreplaced_by\r\n" + bulk("`SET` with the `NX` argument") + "$9\r\narguments\r\n" +
			"*2\r\n*8\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$12\r\ndisplay_text\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n" +
			"*6\r\n$4\r\nname\r\n$5\r\nvalue\r\n$4\r\ntype\r\n$6\r\nstring\r\n$12\r\ndisplay_text\r\n$5\r\nvalue\r\n"},
		{"zcard", "*10\r\n" + summary("zcard") + "$5\r\nsince\r\n$5\r\n1.2.0\r\n$5\r\ngroup\r\n$10\r\nsorted-set\r\n" +
			"$10\r\ncomplexity\r\n$4\r\nO(1)\r\n$9\r\narguments\r\n" +
			"*1\r\n*8\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$12\r\ndisplay_text\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n"},
	}
	for _, tt := range tests {
		w := resp.NewWriter(512)
		command.WriteDocs(w, command.LookupFullName([]byte(tt.name)))
		if got := string(w.Bytes()); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// bulk is s as a RESP bulk string.
func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

func TestWriteDocsContainer(t *testing.T) {
	w := resp.NewWriter(1 << 16)
	w.Proto = 3
	command.WriteDocs(w, command.Lookup([]byte("config")))
	want := "%5\r\n$7\r\nsummary\r\n" + bulk(command.Config.Summary) +
		"$5\r\nsince\r\n$5\r\n2.0.0\r\n$5\r\ngroup\r\n$6\r\nserver\r\n$10\r\ncomplexity\r\n" +
		bulk("Depends on subcommand.") + "$11\r\nsubcommands\r\n%5\r\n$10\r\nconfig|get\r\n"
	if got := string(w.Bytes()); len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("CONFIG docs start %q, want %q", got[:min(len(got), len(want))], want)
	}
}

// Every entry must be well-formed RESP whatever the command: count the
// elements back with a tiny parser.
func TestWriteInfoDocsWellFormed(t *testing.T) {
	for _, proto := range []int{2, 3} {
		command.Walk(func(m *command.Meta) {
			for _, write := range []func(*resp.Writer, *command.Meta){command.WriteInfo, command.WriteDocs} {
				w := resp.NewWriter(1 << 12)
				w.Proto = proto
				write(w, m)
				if rest, ok := skipValue(w.Bytes()); !ok || len(rest) != 0 {
					t.Fatalf("%s RESP%d: malformed reply %q", m.FullName, proto, w.Bytes())
				}
			}
		})
	}
}

func skipValue(b []byte) ([]byte, bool) {
	if len(b) == 0 {
		return nil, false
	}
	end := 0
	for end+1 < len(b) && !(b[end] == '\r' && b[end+1] == '\n') {
		end++
	}
	if end+1 >= len(b) {
		return nil, false
	}
	n := 0
	neg := false
	for _, c := range b[1:end] {
		if c == '-' {
			neg = true
			continue
		}
		n = n*10 + int(c-'0')
	}
	t, rest := b[0], b[end+2:]
	switch t {
	case '+', ':', '-', '_':
		return rest, true
	case '$':
		if neg {
			return rest, true
		}
		if len(rest) < n+2 {
			return nil, false
		}
		return rest[n+2:], true
	case '*', '~', '%':
		if t == '%' {
			n *= 2
		}
		var ok bool
		for range n {
			if rest, ok = skipValue(rest); !ok {
				return nil, false
			}
		}
		return rest, true
	}
	return nil, false
}
