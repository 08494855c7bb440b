package config

// Directives whose "on" values Corvid cannot honour yet. Accepting them
// silently would make users believe data is persisted or replicated when it
// is not, so the value is refused at start-up (FATAL CONFIG FILE ERROR at the
// offending line) and by CONFIG SET. Each hook receives the value as CONFIG
// GET would show it and returns "" to accept or the reason to refuse.
//
// Relax a directive by deleting its row here when the feature lands, or per
// instance with LoadOptions.Unsupported / (*Config).SetUnsupported.

// DefaultUnsupported returns a fresh copy of Corvid's refusal hooks, keyed
// by canonical directive name ("loadmodule" covers that directive).
func DefaultUnsupported() map[string]func(value string) string {
	return map[string]func(string) string{
		"unixsocket": func(v string) string {
			if v != "" {
				return "unixsocket is not supported by Corvid yet: only TCP listeners are implemented"
			}
			return ""
		},
		"loadmodule": func(string) string {
			return "loadmodule is not supported by Corvid: modules are not implemented"
		},
	}
}
