package aof

import (
	"os"
	"path/filepath"
	"strings"
)

// RemoveTemps deletes the temporary files a killed process left in the
// AOF directory dir: a rewrite's base (temp-rewriteaof-*.aof), the incr
// file of an unfinished CONFIG SET appendonly yes (temp-<name>.incr) and
// an unrenamed manifest (temp-<name>.manifest). None of them is ever
// listed in a manifest, so none holds data a load needs. Call it only
// while no Writer owns dir (at start-up). It reports each file removed
// through logf and returns the count.
func RemoveTemps(dir, name string, logf func(format string, args ...any)) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		f := e.Name()
		stale := strings.HasPrefix(f, "temp-rewriteaof-") && strings.HasSuffix(f, ".aof") ||
			f == tempPrefix+name+incrSuffix || f == tempPrefix+name+manifestSuffix
		if !stale || !e.Type().IsRegular() {
			continue
		}
		if os.Remove(filepath.Join(dir, f)) == nil {
			n++
			if logf != nil {
				logf("Removing the temporary file %s left by an earlier run", f)
			}
		}
	}
	return n
}
