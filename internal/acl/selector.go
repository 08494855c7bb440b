package acl

import (
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
)

// Key pattern permissions (%R~, %W~, %RW~ or ~).
const (
	permRead  = 1
	permWrite = 2
	permAll   = permRead | permWrite
)

type selFlag uint8

const (
	selRoot selFlag = 1 << iota
	selAllKeys
	selAllChannels
	selAllCommands
)

type keyPattern struct {
	perm    uint8
	pattern []byte
}

// selector is one set of command, key and channel permissions: a user's
// root selector, or one of its "(...)" selectors. A command is allowed if
// any selector allows all of it.
type selector struct {
	flags   selFlag
	allowed []uint64 // command bits, by command id (ids.go)
	// firstArgs: for a command whose bit is clear, the first arguments
	// that are allowed anyway (+select|0), by command id.
	firstArgs map[int][]string
	patterns  []keyPattern
	channels  []string
	// rules are the +/- command and category rules since the last
	// +@all/-@all, in order, lower case, one rule per command (Valkey's
	// command_rules): what ACL LIST shows after +@all or -@all.
	rules []string
}

func newSelector(flags selFlag, pubsubAll bool) *selector {
	if pubsubAll {
		flags |= selAllChannels
	}
	return &selector{flags: flags, allowed: make([]uint64, bitWords)}
}

func (s *selector) clone() *selector {
	d := &selector{flags: s.flags, allowed: append([]uint64(nil), s.allowed...)}
	if s.firstArgs != nil {
		d.firstArgs = make(map[int][]string, len(s.firstArgs))
		for id, a := range s.firstArgs {
			d.firstArgs[id] = append([]string(nil), a...)
		}
	}
	d.patterns = append([]keyPattern(nil), s.patterns...)
	d.channels = append([]string(nil), s.channels...)
	d.rules = append([]string(nil), s.rules...)
	return d
}

func (s *selector) bit(id int) bool { return s.allowed[id/64]&(1<<(id%64)) != 0 }

func (s *selector) setBit(id int, v bool) {
	if v {
		s.allowed[id/64] |= 1 << (id % 64)
	} else {
		s.allowed[id/64] &^= 1 << (id % 64)
		s.flags &^= selAllCommands
	}
}

// changePerm allows or denies a command and, for a container, every
// subcommand; first-arg exceptions of the command are dropped.
func (s *selector) changePerm(m *command.Meta, allow bool) {
	id := commandID(m)
	s.setBit(id, allow)
	delete(s.firstArgs, id)
	for _, sub := range m.Subcommands() {
		s.setBit(commandID(sub), allow)
	}
}

// setCategory allows or denies every command in cat, as Valkey: a
// container in the category carries all its subcommands with it, and
// each subcommand in the category is set on its own.
func (s *selector) setCategory(cat command.ACLCat, allow bool) {
	for _, m := range command.All() {
		if !visible(m) {
			continue
		}
		if m.ACL&cat != 0 {
			s.changePerm(m, allow)
		}
		for _, sub := range m.Subcommands() {
			if sub.ACL&cat != 0 {
				s.changePerm(sub, allow)
			}
		}
	}
}

// updateRules records a command or category rule (name without its
// sign): it replaces an earlier rule on the same name, and on the
// name's subcommands, and goes last.
func (s *selector) updateRules(name string, allow bool) {
	name = lower(name)
	kept := s.rules[:0]
	for _, r := range s.rules {
		body := r[1:]
		if body == name || strings.HasPrefix(body, name+"|") {
			continue
		}
		kept = append(kept, r)
	}
	sign := "-"
	if allow {
		sign = "+"
	}
	s.rules = append(kept, sign+name)
}

func (s *selector) setAll(allow bool) {
	var w uint64
	if allow {
		w = ^uint64(0)
		s.flags |= selAllCommands
	} else {
		s.flags &^= selAllCommands
	}
	for i := range s.allowed {
		s.allowed[i] = w
	}
	s.rules = s.rules[:0]
	s.firstArgs = nil
}

func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// apply applies one selector rule (Valkey's ACLSetSelector).
func (s *selector) apply(op string) error {
	if op == "" {
		return errSyntax
	}
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.flags |= selAllKeys
		s.patterns = nil
		return nil
	case strings.EqualFold(op, "resetkeys"):
		s.flags &^= selAllKeys
		s.patterns = nil
		return nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.flags |= selAllChannels
		s.channels = nil
		return nil
	case strings.EqualFold(op, "resetchannels"):
		s.flags &^= selAllChannels
		s.channels = nil
		return nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.setAll(true)
		return nil
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.setAll(false)
		return nil
	}
	switch op[0] {
	case '~', '%':
		return s.addKeyPattern(op)
	case '&':
		if s.flags&selAllChannels != 0 {
			return errChannelAfterAll
		}
		ch := op[1:]
		if hasSpaces(ch) {
			return errSyntax
		}
		for _, c := range s.channels {
			if c == ch {
				return nil
			}
		}
		s.channels = append(s.channels, ch)
		return nil
	case '+', '-':
		if len(op) > 1 && op[1] == '@' {
			cat := command.ACLCatByName(op[2:])
			if cat == 0 {
				return errUnknownName
			}
			s.updateRules(op[1:], op[0] == '+')
			s.setCategory(cat, op[0] == '+')
			return nil
		}
		if op[0] == '-' {
			m := lookupCommand(op[1:])
			if m == nil {
				return errUnknownName
			}
			s.changePerm(m, false)
			s.updateRules(m.FullName, false)
			return nil
		}
		return s.allowCommand(op[1:])
	}
	return errSyntax
}

func (s *selector) addKeyPattern(op string) error {
	if s.flags&selAllKeys != 0 {
		return errKeyAfterAll
	}
	perm := uint8(permAll)
	off := 1
	if op[0] == '%' {
		perm = 0
		ok := true
	scan:
		for ; off < len(op); off++ {
			switch c := op[off]; {
			case (c == 'R' || c == 'r') && perm&permRead == 0:
				perm |= permRead
			case (c == 'W' || c == 'w') && perm&permWrite == 0:
				perm |= permWrite
			case c == '~':
				off++
				break scan
			default:
				ok = false
				break scan
			}
		}
		if perm == 0 || !ok {
			return errSyntax
		}
	}
	pat := op[off:]
	if hasSpaces(pat) {
		return errSyntax
	}
	for i := range s.patterns {
		if string(s.patterns[i].pattern) == pat {
			s.patterns[i].perm |= perm
			return nil
		}
	}
	s.patterns = append(s.patterns, keyPattern{perm: perm, pattern: []byte(pat)})
	s.flags &^= selAllKeys
	return nil
}

// allowCommand applies "+name" or "+name|arg".
func (s *selector) allowCommand(name string) error {
	bar := strings.LastIndexByte(name, '|')
	if bar < 0 {
		m := lookupCommand(name)
		if m == nil {
			return errUnknownName
		}
		s.changePerm(m, true)
		s.updateRules(m.FullName, true)
		return nil
	}
	m := lookupCommand(name[:bar])
	switch {
	case m == nil:
		return errUnknownName
	case m.Parent != nil:
		return errFirstArgOfSub
	case bar == len(name)-1:
		return errSyntax
	}
	if m.IsContainer() {
		sub := lookupCommand(name)
		if sub == nil {
			return errUnknownName
		}
		s.changePerm(sub, true)
	} else {
		arg := name[bar+1:]
		if hasSpaces(arg) {
			// Valkey would store it and fail (assert) when it renders
			// the rules, which are split on spaces: refused here.
			return errSyntax
		}
		id := commandID(m)
		if s.firstArgs == nil {
			s.firstArgs = make(map[int][]string)
		}
		dup := false
		for _, a := range s.firstArgs[id] {
			if strings.EqualFold(a, arg) {
				dup = true
				break
			}
		}
		if !dup {
			s.firstArgs[id] = append(s.firstArgs[id], arg)
		}
	}
	s.updateRules(name, true)
	return nil
}

// describeCommands renders the command rules as ACL LIST and GETUSER
// show them: +@all or -@all, then the rules since.
func (s *selector) describeCommands() string {
	var b strings.Builder
	if s.bit(futureBit) {
		b.WriteString("+@all")
	} else {
		b.WriteString("-@all")
	}
	for _, r := range s.rules {
		b.WriteByte(' ')
		b.WriteString(r)
	}
	return b.String()
}

func (p keyPattern) String() string {
	switch p.perm {
	case permAll:
		return "~" + string(p.pattern)
	case permRead:
		return "%R~" + string(p.pattern)
	default:
		return "%W~" + string(p.pattern)
	}
}

// describeKeys is GETUSER's "keys" field.
func (s *selector) describeKeys() string {
	if s.flags&selAllKeys != 0 {
		return "~*"
	}
	parts := make([]string, len(s.patterns))
	for i, p := range s.patterns {
		parts[i] = p.String()
	}
	return strings.Join(parts, " ")
}

// describeChannels is GETUSER's "channels" field.
func (s *selector) describeChannels() string {
	if s.flags&selAllChannels != 0 {
		return "&*"
	}
	parts := make([]string, len(s.channels))
	for i, c := range s.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// describe renders the selector as ACL LIST does.
func (s *selector) describe() string {
	var b strings.Builder
	if s.flags&selAllKeys != 0 {
		b.WriteString("~* ")
	} else {
		for _, p := range s.patterns {
			b.WriteString(p.String())
			b.WriteByte(' ')
		}
	}
	if s.flags&selAllChannels != 0 {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.describeCommands())
	return b.String()
}
