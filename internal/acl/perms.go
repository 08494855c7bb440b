package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
)

// Perms is a user's flags, passwords and selectors. A published Perms is
// never changed (see the package doc); edits go to a copy.
type Perms struct {
	enabled      bool
	nopass       bool
	skipSanitize bool
	passwords    []string // SHA-256, lower-case hex
	sels         []*selector
	// unrestricted: the root selector allows every command, key and
	// channel (the check's fast path).
	unrestricted bool
	// deleted: the user was deleted; nothing is allowed.
	deleted bool
	desc    string
}

// newPerms is a new user's: off, no password, no permissions (channels
// per acl-pubsub-default).
func newPerms(pubsubAll bool) *Perms {
	return &Perms{sels: []*selector{newSelector(selRoot, pubsubAll)}}
}

func (p *Perms) clone() *Perms {
	d := *p
	d.passwords = append([]string(nil), p.passwords...)
	d.sels = make([]*selector, len(p.sels))
	for i, s := range p.sels {
		d.sels[i] = s.clone()
	}
	return &d
}

// freeze computes what readers use and must be called before the Perms
// is published.
func (p *Perms) freeze() *Perms {
	r := p.sels[0]
	p.unrestricted = !p.deleted && r.flags&(selAllCommands|selAllKeys|selAllChannels) == selAllCommands|selAllKeys|selAllChannels
	p.desc = p.describe()
	return p
}

// Enabled reports whether the user is on.
func (p *Perms) Enabled() bool { return p.enabled }

// NoPass reports whether any password authenticates the user.
func (p *Perms) NoPass() bool { return p.nopass }

// Unrestricted reports whether every command, key and channel is allowed.
func (p *Perms) Unrestricted() bool { return p.unrestricted }

// Deleted reports whether these are the permissions of a deleted user.
func (p *Perms) Deleted() bool { return p.deleted }

// Description is the user's rules as ACL LIST shows them (after the name).
func (p *Perms) Description() string { return p.desc }

// hashPassword is Valkey's ACLHashPassword: SHA-256 as lower-case hex.
func hashPassword(pass []byte) string {
	sum := sha256.Sum256(pass)
	return hex.EncodeToString(sum[:])
}

func validHash(h string) bool {
	if len(h) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// checkPassword reports whether pass authenticates these permissions,
// comparing its hash with every stored one in constant time.
func (p *Perms) checkPassword(pass []byte) bool {
	if !p.enabled {
		return false
	}
	if p.nopass {
		return true
	}
	h := []byte(hashPassword(pass))
	ok := 0
	for _, want := range p.passwords {
		ok |= subtle.ConstantTimeCompare(h, []byte(want))
	}
	return ok == 1
}

// apply applies one rule (Valkey's ACLSetUser); pubsubAll is
// acl-pubsub-default. An empty rule does nothing.
func (p *Perms) apply(op string, pubsubAll bool) error {
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		p.enabled = true
	case strings.EqualFold(op, "off"):
		p.enabled = false
	case strings.EqualFold(op, "skip-sanitize-payload"):
		p.skipSanitize = true
	case strings.EqualFold(op, "sanitize-payload"):
		p.skipSanitize = false
	case strings.EqualFold(op, "nopass"):
		p.nopass = true
		p.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		p.nopass = false
		p.passwords = nil
	case op[0] == '>' || op[0] == '#':
		var h string
		if op[0] == '>' {
			h = hashPassword([]byte(op[1:]))
		} else {
			if !validHash(op[1:]) {
				return errBadHash
			}
			h = op[1:]
		}
		found := false
		for _, x := range p.passwords {
			if x == h {
				found = true
				break
			}
		}
		if !found {
			p.passwords = append(p.passwords, h)
		}
		p.nopass = false
	case op[0] == '<' || op[0] == '!':
		var h string
		if op[0] == '<' {
			h = hashPassword([]byte(op[1:]))
		} else {
			if !validHash(op[1:]) {
				return errBadHash
			}
			h = op[1:]
		}
		i := -1
		for j, x := range p.passwords {
			if x == h {
				i = j
				break
			}
		}
		if i < 0 {
			return errNoSuchPassword
		}
		p.passwords = append(p.passwords[:i:i], p.passwords[i+1:]...)
	case op[0] == '(' && op[len(op)-1] == ')':
		s, err := selectorFromOps(op, pubsubAll)
		if err != nil {
			return err
		}
		p.sels = append(p.sels, s)
	case strings.EqualFold(op, "clearselectors"):
		p.sels = p.sels[:1]
	case strings.EqualFold(op, "reset"):
		p.nopass, p.passwords = false, nil
		r := p.sels[0]
		r.flags &^= selAllKeys | selAllChannels
		r.patterns, r.channels = nil, nil
		if pubsubAll {
			r.flags |= selAllChannels
		}
		p.enabled = false
		p.skipSanitize = false
		p.sels = p.sels[:1]
		r.setAll(false)
	default:
		return p.sels[0].apply(op)
	}
	return nil
}

// selectorFromOps builds a selector from "(rule rule ...)", the rules
// split as Valkey's sdssplitargs splits them.
func selectorFromOps(op string, pubsubAll bool) (*selector, error) {
	s := newSelector(0, pubsubAll)
	args, ok := splitArgs(op[1 : len(op)-1])
	if !ok {
		// Valkey's sdssplitargs fails on unbalanced quotes, and the
		// selector is then made of no rules.
		return s, nil
	}
	for _, a := range args {
		if err := s.apply(a); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// describe renders the user as ACL LIST does (without "user <name> ").
func (p *Perms) describe() string {
	var b strings.Builder
	if p.enabled {
		b.WriteString("on ")
	} else {
		b.WriteString("off ")
	}
	if p.nopass {
		b.WriteString("nopass ")
	}
	if p.skipSanitize {
		b.WriteString("skip-sanitize-payload ")
	} else {
		b.WriteString("sanitize-payload ")
	}
	for _, h := range p.passwords {
		b.WriteString("#" + h + " ")
	}
	for i, s := range p.sels {
		if i == 0 {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	return b.String()
}

// Flags lists the user's flags as ACL GETUSER does.
func (p *Perms) Flags() []string {
	f := []string{"off"}
	if p.enabled {
		f[0] = "on"
	}
	if p.nopass {
		f = append(f, "nopass")
	}
	if p.skipSanitize {
		f = append(f, "skip-sanitize-payload")
	} else {
		f = append(f, "sanitize-payload")
	}
	return f
}

// Passwords lists the password hashes.
func (p *Perms) Passwords() []string { return append([]string(nil), p.passwords...) }

// SelectorDesc is one selector as ACL GETUSER shows it.
type SelectorDesc struct{ Commands, Keys, Channels string }

// Selectors describes the root selector and then the others.
func (p *Perms) Selectors() []SelectorDesc {
	out := make([]SelectorDesc, len(p.sels))
	for i, s := range p.sels {
		out[i] = SelectorDesc{s.describeCommands(), s.describeKeys(), s.describeChannels()}
	}
	return out
}

// SkipSanitizePayload reports skip-sanitize-payload (RESTORE).
func (p *Perms) SkipSanitizePayload() bool { return p.skipSanitize }
