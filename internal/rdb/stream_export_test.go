package rdb

import (
	"encoding/hex"
	"slices"
)

// ValkeyStreamDumps returns the hex payloads of stream_test.go, in key
// order (for the fuzz seeds of package rdb_test).
func ValkeyStreamDumps() []string {
	var out []string
	for _, k := range []string{"e", "s", "t"} {
		out = append(out, valkeyStreamDumps[k])
	}
	return out
}

// OldStreamBodies returns the "s" stream as type 15 and 19 bodies.
func OldStreamBodies() [][]byte {
	p, _ := hex.DecodeString(valkeyStreamDumps["s"])
	e, err := ParseDumpPayload(p)
	if err != nil {
		panic(err)
	}
	return [][]byte{
		slices.Clone(oldStreamBody(e.Stream, typeStreamListpacks)),
		slices.Clone(oldStreamBody(e.Stream, typeStreamListpacks2)),
	}
}
