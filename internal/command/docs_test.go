package command_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/corvid-kv/corvid/internal/command"
)

// specDir holds Valkey 8.0.1's JSON command specs beside the repository on
// the project's machines; the tests that compare with them skip elsewhere.
const specDir = "../../../shared/valkey-8.0.1-commands"

// specProse is the prose of one command in Valkey's JSON specs: what
// Corvid must not copy.
type specProse struct {
	Summary string     `json:"summary"`
	History [][]string `json:"history"`
}

// loadSpecProse reads the specs' summaries and history texts by full name,
// or skips the test when the specs are absent.
func loadSpecProse(t *testing.T) map[string]specProse {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(specDir, "*.json"))
	if len(files) == 0 {
		t.Skipf("JSON specs not found in %s: the comparison with Valkey's wording is skipped", specDir)
	}
	out := map[string]specProse{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]struct {
			specProse
			Container string `json:"container"`
		}
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, c := range top {
			full := strings.ToLower(name)
			if c.Container != "" {
				full = strings.ToLower(c.Container) + "|" + full
			}
			out[full] = c.specProse
		}
	}
	return out
}

// words splits s into lower-case words, dropping punctuation and markup
// (backquotes, commas, the final period).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// maxSimilarity is the largest share of words two texts may have in common,
// in the same order, before one counts as a rewording of the other: the
// longest common word subsequence over the longer text's length. At 0.6,
// "Returns the string value stored at a key." is caught as a copy of
// "Returns the string value of a key." (6 of 8 words).
const maxSimilarity = 0.6

// similarity returns the longest common subsequence of a's and b's words
// divided by the longer one's word count (1 for texts equal but for case,
// spacing and punctuation).
func similarity(a, b string) float64 {
	x, y := words(a), words(b)
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for i := range x {
		for j := range y {
			switch {
			case x[i] == y[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(y)]) / float64(max(len(x), len(y)))
}

func TestSimilarity(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		copy bool
	}{
		{"Returns the string value of a key.", "returns the string value of a key", true},
		{"Returns the string value of a key.", "Returns the string value stored at a key.", true},
		{"Returns the string value of a key.", "Reads the string held at a key; nil when the key is missing.", false},
		{"Added the `KEEPTTL` option.", "KEEPTTL leaves the key's expiry as it was.", false},
	} {
		if got := similarity(tc.a, tc.b) >= maxSimilarity; got != tc.copy {
			t.Errorf("similarity(%q, %q) = %.2f", tc.a, tc.b, similarity(tc.a, tc.b))
		}
	}
}

// checkLine reports what is wrong with a one-line documentation text.
func checkLine(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "empty"
	case strings.ContainsAny(s, "\r\n\t"):
		return "not one line"
	case s != strings.TrimSpace(s):
		return "leading or trailing space"
	case !strings.HasSuffix(s, "."):
		return "no final period"
	}
	return ""
}

// TestSummaries: every command and subcommand has a summary of its own, one
// line, and no summary is written for a command the table lacks.
func TestSummaries(t *testing.T) {
	seen := map[string]bool{}
	command.Walk(func(m *command.Meta) {
		seen[m.FullName] = true
		if msg := checkLine(m.Summary); msg != "" {
			t.Errorf("%s: summary %s: %q", m.FullName, msg, m.Summary)
		}
	})
	for name := range command.SummaryTable {
		if !seen[name] {
			t.Errorf("summaries.go: %q is no command in the table", name)
		}
	}
}

// TestSummariesOwnWords fails on a summary equal, or nearly so, to the
// sentence Valkey's spec gives the same command.
func TestSummariesOwnWords(t *testing.T) {
	prose := loadSpecProse(t)
	command.Walk(func(m *command.Meta) {
		p, ok := prose[m.FullName]
		if !ok || p.Summary == "" {
			return
		}
		if sim := similarity(m.Summary, p.Summary); sim >= maxSimilarity {
			t.Errorf("%s: summary %q is too close to Valkey's %q (%.2f)", m.FullName, m.Summary, p.Summary, sim)
		}
	})
}

// TestHistoryNotes: each history entry the specs give (generated versions)
// has Corvid's note, the notes list the same versions in the same order,
// and no note is written for a command without history.
func TestHistoryNotes(t *testing.T) {
	command.Walk(func(m *command.Meta) {
		notes := command.HistoryTable[m.FullName]
		if len(notes) != len(m.History) {
			t.Errorf("%s: %d history notes for %d entries", m.FullName, len(notes), len(m.History))
			return
		}
		for i, h := range m.History {
			if notes[i].Since != h.Since {
				t.Errorf("%s: history note %d is for %s, the entry for %s", m.FullName, i, notes[i].Since, h.Since)
			}
			if msg := checkLine(h.Changes); msg != "" {
				t.Errorf("%s: history %s: %s: %q", m.FullName, h.Since, msg, h.Changes)
			}
		}
	})
	for name := range command.HistoryTable {
		if command.LookupFullName([]byte(name)) == nil {
			t.Errorf("history.go: %q is no command in the table", name)
		}
	}
}

// TestHistoryNotesOwnWords fails on a history note equal, or nearly so, to
// the text Valkey's spec gives the same entry.
func TestHistoryNotesOwnWords(t *testing.T) {
	prose := loadSpecProse(t)
	command.Walk(func(m *command.Meta) {
		p := prose[m.FullName]
		for i, h := range m.History {
			if i >= len(p.History) || len(p.History[i]) != 2 {
				t.Errorf("%s: the spec has no history entry %d", m.FullName, i)
				continue
			}
			if sim := similarity(h.Changes, p.History[i][1]); sim >= maxSimilarity {
				t.Errorf("%s %s: note %q is too close to Valkey's %q (%.2f)", m.FullName, h.Since, h.Changes, p.History[i][1], sim)
			}
		}
	})
}
