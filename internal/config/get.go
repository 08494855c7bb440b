package config

import (
	"strings"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Get is CONFIG GET with one or more patterns. A pattern without glob
// characters is an exact, case-insensitive lookup that also finds hidden
// directives and is echoed back as typed; a glob matches every non-hidden
// registered name (aliases included) case-insensitively. Each directive
// name appears once; results follow table order per pattern.
func (c *Config) Get(patterns ...string) [][2]string {
	st := c.snap()
	var out [][2]string
	seen := map[string]bool{}
	for _, p := range patterns {
		if !hasGlob(p) {
			r := lookup(p)
			key := strings.ToLower(p)
			if r == nil || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, [2]string{p, r.e.format(st.v[r.e.idx])})
			continue
		}
		for i := range reg.names {
			r := &reg.names[i]
			if r.e.has(fHidden) || seen[r.name] {
				continue
			}
			// Valkey matches with stringmatch(pattern, name, nocase=1).
			if ds.MatchString(p, r.name, true) {
				seen[r.name] = true
				out = append(out, [2]string{r.name, r.e.format(st.v[r.e.idx])})
			}
		}
	}
	return out
}
