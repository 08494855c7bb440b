package compat

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestScripts runs every testdata/*.txt script against both servers.
func TestScripts(t *testing.T) {
	testutil.RedisServerPath(t)
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	corvid := testutil.StartCorvid(t)
	redis := testutil.StartRedis(t)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) { runScript(t, f, corvid, redis) })
	}
}
