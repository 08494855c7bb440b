package tracking

import (
	"bytes"
	"slices"
	"sync/atomic"
)

// Tracker flags (Valkey's CLIENT_TRACKING_*).
const (
	FlagOn          uint32 = 1 << iota // tracking is enabled (CLIENT LIST t)
	FlagBcast                          // broadcast mode (B)
	FlagOptin                          // remember reads only after CLIENT CACHING YES
	FlagOptout                         // remember reads except after CLIENT CACHING NO
	FlagNoloop                         // no invalidations for the client's own writes
	FlagBrokenRedir                    // the redirect client is gone (R)
)

// Tracker is one connection's tracking state (see the package doc for who
// may call what).
type Tracker struct {
	t     *Table
	conn  atomic.Pointer[connRef] // nil once Closed
	flags atomic.Uint32
	redir atomic.Int64 // redirect client id, 0 for none
	// caching is CLIENT CACHING's one-command flag (owner only).
	caching bool
	// prefixes are the BCAST prefixes, sorted (owner only; changed under
	// the broadcast mutex, which the table's prefix sets share).
	prefixes []string
}

type connRef struct{ c Conn }

// NewTracker returns conn's tracker, with tracking off.
func (t *Table) NewTracker(conn Conn) *Tracker {
	tr := &Tracker{t: t}
	tr.conn.Store(&connRef{conn})
	return tr
}

// Flags returns the tracker's flags. Any goroutine.
func (tr *Tracker) Flags() uint32 { return tr.flags.Load() }

// On reports whether tracking is enabled. Any goroutine.
func (tr *Tracker) On() bool { return tr.flags.Load()&FlagOn != 0 }

// Redirect returns the redirect client id, 0 for none. Any goroutine.
func (tr *Tracker) Redirect() int64 { return tr.redir.Load() }

func (tr *Tracker) setFlag(f uint32) { tr.flags.Or(f) }

// Options are the arguments of CLIENT TRACKING ON.
type Options struct {
	Redirect int64 // 0: none
	Bcast    bool
	Optin    bool
	Optout   bool
	Noloop   bool
	Prefixes [][]byte
}

// Valkey's refusals of CLIENT TRACKING ON and CLIENT CACHING.
const (
	ErrPrefixNeedsBcast = "ERR PREFIX option requires BCAST mode to be enabled"
	ErrBcastSwitch      = "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."
	ErrOptWithBcast     = "ERR OPTIN and OPTOUT are not compatible with BCAST"
	ErrOptinAndOptout   = "ERR You can't specify both OPTIN mode and OPTOUT mode"
	ErrOptSwitch        = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."
	ErrCachingOff       = "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"
	ErrCachingYes       = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
	ErrCachingNo        = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."
)

// Enable is CLIENT TRACKING ON with o. It checks o against itself and the
// current state in Valkey's order and returns the first refusal, if any.
// enabled reports whether tracking was (re)enabled: normally exactly when
// refusal is empty, but Valkey 8.0.1's overlap check of the given prefixes
// reports an overlap found for any prefix but the first and then goes on
// (checkPrefixCollisionsOrReply returns the index of the prefix instead of
// 0), so the client gets the error and then OK, and tracking is enabled
// with every prefix. Owner only.
func (tr *Tracker) Enable(o *Options) (refusal string, enabled bool) {
	f := tr.flags.Load()
	on := f&FlagOn != 0
	switch {
	case !o.Bcast && len(o.Prefixes) > 0:
		return ErrPrefixNeedsBcast, false
	case on && (f&FlagBcast != 0) != o.Bcast:
		return ErrBcastSwitch, false
	case o.Bcast && (o.Optin || o.Optout):
		return ErrOptWithBcast, false
	case o.Optin && o.Optout:
		return ErrOptinAndOptout, false
	// OPTIN and OPTOUT flags exist only while tracking is on.
	case o.Optin && f&FlagOptout != 0, o.Optout && f&FlagOptin != 0:
		return ErrOptSwitch, false
	}
	if o.Bcast {
		var stop bool
		if refusal, stop = tr.prefixCollision(o.Prefixes); stop {
			return refusal, false
		}
	}
	tr.enable(o)
	return refusal, true
}

// prefixCollision is Valkey's checkPrefixCollisionsOrReply: a new prefix
// must not be a prefix of, or have as prefix, one the client has, nor
// another new one. stop is false for the overlap Valkey reports and
// ignores (see Enable).
func (tr *Tracker) prefixCollision(ps [][]byte) (refusal string, stop bool) {
	for i, p := range ps {
		for _, q := range tr.prefixes {
			if overlap(p, []byte(q)) {
				return "ERR Prefix '" + cstr(p) + "' overlaps with an existing prefix '" + cstr([]byte(q)) +
					"'. Prefixes for a single client must not overlap.", true
			}
		}
		for _, q := range ps[i+1:] {
			if overlap(p, q) {
				return "ERR Prefix '" + cstr(p) + "' overlaps with another provided prefix '" + cstr(q) +
					"'. Prefixes for a single client must not overlap.", i == 0
			}
		}
	}
	return "", false
}

// overlap: one is a prefix of the other (Valkey's stringCheckPrefix).
func overlap(a, b []byte) bool {
	n := min(len(a), len(b))
	return bytes.Equal(a[:n], b[:n])
}

// cstr is a byte string as %s prints it: up to its first NUL.
func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// enable is Valkey's enableTracking.
func (tr *Tracker) enable(o *Options) {
	t := tr.t
	f := tr.flags.Load()
	wasOn := f&FlagOn != 0
	f = f&^(FlagBrokenRedir|FlagBcast|FlagOptin|FlagOptout|FlagNoloop) | FlagOn
	if o.Optin {
		f |= FlagOptin
	}
	if o.Optout {
		f |= FlagOptout
	}
	if o.Noloop {
		f |= FlagNoloop
	}
	if o.Bcast {
		f |= FlagBcast
	}
	tr.redir.Store(o.Redirect)
	if o.Bcast {
		// Prefixes from an earlier ON stay (Valkey keeps them too).
		t.addPrefixes(tr, o.Prefixes)
	}
	tr.flags.Store(f)
	if !wasOn {
		t.register(tr, true)
	}
}

// Disable is CLIENT TRACKING OFF (Valkey's disableTracking): the client
// leaves its prefixes and its flags are cleared; its entries in the key
// table stay until their keys change. Owner only.
func (tr *Tracker) Disable() {
	f := tr.flags.Load()
	if f&FlagBcast != 0 || len(tr.prefixes) > 0 {
		tr.t.removePrefixes(tr)
	}
	if f&FlagOn != 0 {
		tr.flags.Store(0)
		tr.caching = false
		tr.t.register(tr, false)
	}
}

// Close disables tracking and lets go of the connection (the connection
// is closing). Owner only.
func (tr *Tracker) Close() {
	tr.Disable()
	tr.conn.Store(nil)
}

// SetCaching is CLIENT CACHING YES (yes) or NO. Owner only.
func (tr *Tracker) SetCaching(yes bool) string {
	f := tr.flags.Load()
	switch {
	case f&FlagOn == 0:
		return ErrCachingOff
	case yes && f&FlagOptin == 0:
		return ErrCachingYes
	case !yes && f&FlagOptout == 0:
		return ErrCachingNo
	}
	tr.caching = true
	return ""
}

// EndCommand ends CLIENT CACHING's effect: the server calls it after every
// command but those of the CLIENT family, outside MULTI (Valkey's
// resetClient). Owner only.
func (tr *Tracker) EndCommand() { tr.caching = false }

// Reads reports whether the keys of the read-only command being run are
// to be remembered: tracking in default mode, and OPTIN with CACHING YES
// given, OPTOUT without CACHING NO, or neither. Owner only.
func (tr *Tracker) Reads() bool {
	f := tr.flags.Load()
	if f&FlagOn == 0 || f&FlagBcast != 0 {
		return false
	}
	if f&FlagOptin != 0 && !tr.caching || f&FlagOptout != 0 && tr.caching {
		return false
	}
	return true
}

// Info is CLIENT TRACKINGINFO's content: the flags in Valkey's order, the
// redirect id (-1 when off) and the BCAST prefixes (sorted). Owner only.
func (tr *Tracker) Info() (flags []string, redirect int64, prefixes []string) {
	f := tr.flags.Load()
	if f&FlagOn == 0 {
		return []string{"off"}, -1, tr.prefixes
	}
	flags = append(flags, "on")
	if f&FlagBcast != 0 {
		flags = append(flags, "bcast")
	}
	if f&FlagOptin != 0 {
		flags = append(flags, "optin")
		if tr.caching {
			flags = append(flags, "caching-yes")
		}
	}
	if f&FlagOptout != 0 {
		flags = append(flags, "optout")
		if tr.caching {
			flags = append(flags, "caching-no")
		}
	}
	if f&FlagNoloop != 0 {
		flags = append(flags, "noloop")
	}
	if f&FlagBrokenRedir != 0 {
		flags = append(flags, "broken_redirect")
	}
	return flags, tr.redir.Load(), tr.prefixes
}

// insertSorted adds p to the sorted list ps unless present; false if it
// was.
func insertSorted(ps []string, p string) ([]string, bool) {
	i, found := slices.BinarySearch(ps, p)
	if found {
		return ps, false
	}
	return slices.Insert(ps, i, p), true
}
