package command_test

import (
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		nocase     bool
		want       bool
	}{
		{"*", "", false, true},
		{"*", "anything", false, true},
		{"", "", false, true},
		{"", "a", false, false},
		{"get", "get", false, true},
		{"get", "GET", false, false},
		{"get", "GET", true, true},
		{"g?t", "get", false, true},
		{"g?t", "gt", false, false},
		{"client|*", "client|list", false, true},
		{"*|list", "client|list", false, true},
		{"*list", "client|list", false, true},
		{"*l*st*", "client|list", false, true},
		{"z*store", "zunionstore", false, true},
		{"z*store", "zunionstorex", false, false},
		{"[gs]et", "set", false, true},
		{"[^gs]et", "set", false, false},
		{"[^gs]et", "net", false, true},
		{"[a-c]x", "bx", false, true},
		{"[c-a]x", "bx", false, true}, // reversed range
		{"[a-c]x", "Bx", true, true},
		{"[a-c]x", "Bx", false, false},
		{`\*`, "*", false, true},
		{`\*`, "a", false, false},
		{`[\]]`, "]", false, true},
		{`a\`, `a\`, false, true},  // trailing backslash is literal
		{"[abc", "b", false, true}, // unterminated class runs to the end
		{"a*b*c", "aXbYc", false, true},
		{"a*b*c", "aXbY", false, false},
		{"***a", "bbba", false, true},
		{"?", "", false, false},
	}
	for _, tt := range tests {
		if got := command.Glob(tt.pattern, tt.s, tt.nocase); got != tt.want {
			t.Errorf("Glob(%q, %q, %v) = %v, want %v", tt.pattern, tt.s, tt.nocase, got, tt.want)
		}
	}
}

func names(ms []*command.Meta) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m.FullName] = true
	}
	return out
}

func TestFilter(t *testing.T) {
	if n := len(command.Filter(nil)); n != 399 {
		t.Errorf("Filter(nil) = %d commands, want 399", n)
	}
	str := names(command.Filter(command.FilterACLCat("STRING")))
	if !str["get"] || !str["set"] || str["lpush"] {
		t.Errorf("FilterACLCat(string) = %v", str)
	}
	if len(command.Filter(command.FilterACLCat("nosuch"))) != 0 {
		t.Error("unknown ACL category matched")
	}
	cl := names(command.Filter(command.FilterPattern("CLIENT|*")))
	if !cl["client|list"] || !cl["client|kill"] || cl["client"] || cl["get"] {
		t.Errorf("FilterPattern(client|*) = %v", cl)
	}
	if len(command.Filter(command.FilterModule("any"))) != 0 {
		t.Error("module filter matched")
	}
	// Subcommands are filtered on their own categories.
	adm := names(command.Filter(command.FilterACLCat("admin")))
	if !adm["client|kill"] || adm["client"] {
		t.Errorf("FilterACLCat(admin): client|kill=%v client=%v", adm["client|kill"], adm["client"])
	}
}
