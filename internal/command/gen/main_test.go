package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedUpToDate regenerates the table and compares it with the
// committed specs_gen.go. The JSON specs live outside the repository, so the
// test is skipped where they are absent (CI).
func TestGeneratedUpToDate(t *testing.T) {
	const dir = "../../../../shared/valkey-8.0.1-commands"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("JSON specs not available: %v", err)
	}
	cmds, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := emit(cmds)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../specs_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, committed) {
		t.Error("specs_gen.go is stale: run go generate ./internal/command")
	}
}
