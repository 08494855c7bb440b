package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/server"
)

func TestPubSubSubcommand(t *testing.T) {
	addr, stop, err := server.StartEmbedded()
	if err != nil {
		t.Fatalf("embedded corvid-server: %v", err)
	}
	t.Cleanup(stop)
	h, p := hostPort(addr)
	js := filepath.Join(t.TempDir(), "pubsub.json")
	out, errOut, code := run(t, "pubsub", "-s", h, "-p", p, "--subscribers", "4", "--channels", "2", "--publishers", "2",
		"--pipeline", "4", "--test-time", "500ms", "--json-out-file", js)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"PUBLISH", "Delivered", "Latency ms", "Check          ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["check"] != "ok" || doc["delivered"].(float64) <= 0 || doc["delivered"] != doc["publish_receivers"] {
		t.Fatalf("JSON: %s", b)
	}
	// --json prints the same object instead of the text.
	out, errOut, code = run(t, "pubsub", "-s", h, "-p", p, "--test-time", "200ms", "--json")
	if code != 0 || !strings.HasPrefix(out, "{") || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}

	if _, errOut, code = run(t, "pubsub", "--subscribers", "0"); code != 2 || !strings.Contains(errOut, "subscribers must be") {
		t.Fatalf("bad flag: exit %d: %s", code, errOut)
	}
	if out, _, code = run(t, "pubsub", "--help"); code != 0 || !strings.Contains(out, "--stalled-subscribers") {
		t.Fatalf("--help: exit %d:\n%s", code, out)
	}
}
