package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// TestValues: the values are -size bytes, the same for the same seed, and
// compressible (a node's worth shrinks at least 1.5x with LZF).
func TestValues(t *testing.T) {
	a, b := newValues(1, 100), newValues(1, 100)
	var node []byte
	for i := range 80 {
		x, y := a.next(i), b.next(i)
		if len(x) != 100 || !bytes.Equal(x, y) || !bytes.HasPrefix(x, []byte(strconv.Itoa(i)+":")) {
			t.Fatalf("value %d: %q / %q", i, x, y)
		}
		node = append(node, x...)
	}
	var htab ds.LZFTable
	if c := ds.LZFCompress(node, len(node)*2/3, &htab, nil); c == nil {
		t.Fatalf("80 values (%d bytes) do not compress 1.5x", len(node))
	}
}

// TestReport: the table has a row per result and the ratios against
// Valkey and against depth 0.
func TestReport(t *testing.T) {
	res := []result{
		{server: "corvid", depth: 0, used: 1100, nodes: "3", compressed: "0"},
		{server: "valkey", depth: 0, used: 1000, nodes: "3", compressed: "0"},
		{server: "corvid", depth: 1, used: 500, nodes: "3", compressed: "1"},
		{server: "valkey", depth: 1, used: 550, nodes: "3", compressed: "1"},
	}
	md := report([]string{"h"}, res, 10)
	for _, want := range []string{"| 0 | corvid | 110.0 |", "| 1.10 |", "| 1 | corvid | 50.0 |", "| 0.91 | 0.45 |", "| 1 | valkey | 55.0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if got := field("Value at:0x1 ql_nodes:254 ql_compressed:1", "ql_nodes"); got != "254" {
		t.Errorf("field: %q", got)
	}
}
