package acl

import (
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// Reason is why a command was denied, or why the log has an entry;
// values and order are Valkey's ACL_DENIED_* (when selectors disagree,
// the greatest reason is reported).
type Reason int

const (
	OK            Reason = 0
	DeniedCommand Reason = 1
	DeniedKey     Reason = 2
	DeniedAuth    Reason = 3
	DeniedChannel Reason = 4
)

// String is the reason as ACL LOG shows it.
func (r Reason) String() string {
	switch r {
	case DeniedCommand:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedChannel:
		return "channel"
	case DeniedAuth:
		return "auth"
	}
	return "unknown"
}

// channelSpec says which arguments of a pub/sub command are channels
// (Valkey's commands_with_channels; only the publishing and subscribing
// ones are checked).
func channelSpec(m *command.Meta) (first, count int, pattern bool) {
	switch m {
	case command.Subscribe, command.Ssubscribe:
		return 1, -1, false
	case command.Psubscribe:
		return 1, -1, true
	case command.Publish, command.Spublish:
		return 1, 1, false
	}
	return 0, 0, false
}

// keyCache holds a command's keys across selectors.
type keyCache struct {
	done bool
	refs []command.KeyRef
}

func (k *keyCache) get(m *command.Meta, argv [][]byte) []command.KeyRef {
	if !k.done {
		k.refs = m.KeyPositionsWithFlags(argv)
		k.done = true
	}
	return k.refs
}

// Check reports whether the user may run command m with argv (argv[0] is
// the command name; a subcommand's name is argv[1]). When it may not, it
// returns the reason and the index of the denied key or channel in argv
// (0 for a denied command), as Valkey's ACLCheckAllUserCommandPerm: the
// command is allowed if any selector allows all of it; otherwise the
// greatest reason, and for equal reasons the last position, is reported.
func (p *Perms) Check(m *command.Meta, argv [][]byte) (Reason, int) {
	if p.unrestricted {
		return OK, 0
	}
	var keys keyCache
	worst, pos := DeniedCommand, 0
	for _, s := range p.sels {
		r, i := s.check(m, argv, &keys)
		if r == OK {
			return OK, 0
		}
		if r > worst || (r == worst && i > pos) {
			worst, pos = r, i
		}
	}
	return worst, pos
}

func (s *selector) check(m *command.Meta, argv [][]byte, keys *keyCache) (Reason, int) {
	if s.flags&selAllCommands == 0 && m.Flags&command.FlagNoAuth == 0 {
		id := commandID(m)
		if id < 0 {
			return DeniedCommand, 0
		}
		if !s.bit(id) {
			args := s.firstArgs[id]
			if len(argv) < 2 || len(args) == 0 {
				return DeniedCommand, 0
			}
			idx := 1
			if m.Parent != nil {
				idx = 2
			}
			if idx >= len(argv) {
				return DeniedCommand, 0
			}
			ok := false
			for _, a := range args {
				if strings.EqualFold(a, string(argv[idx])) {
					ok = true
					break
				}
			}
			if !ok {
				return DeniedCommand, 0
			}
		}
	}
	if s.flags&selAllKeys == 0 && m.HasKeys() {
		for _, k := range keys.get(m, argv) {
			if !s.keyAllowed(argv[k.Pos], k.Flags) {
				return DeniedKey, k.Pos
			}
		}
	}
	if s.flags&selAllChannels == 0 {
		first, count, pattern := channelSpec(m)
		if first > 0 {
			stop := len(argv)
			if count > 0 && first+count < stop {
				stop = first + count
			}
			for i := first; i < stop; i++ {
				if !channelInList(s.channels, argv[i], pattern) {
					return DeniedChannel, i
				}
			}
		}
	}
	return OK, 0
}

// keyPerm is the access a key spec's flags need (Valkey: ACCESS reads;
// INSERT, DELETE and UPDATE write).
func keyPerm(f command.KeySpecFlag) uint8 {
	var p uint8
	if f&command.KeyAccess != 0 {
		p |= permRead
	}
	if f&(command.KeyInsert|command.KeyDelete|command.KeyUpdate) != 0 {
		p |= permWrite
	}
	return p
}

func (s *selector) keyAllowed(key []byte, f command.KeySpecFlag) bool {
	if s.flags&selAllKeys != 0 {
		return true
	}
	need := keyPerm(f)
	for i := range s.patterns {
		kp := &s.patterns[i]
		if kp.perm&need != need {
			continue
		}
		if ds.Match(kp.pattern, key, false) {
			return true
		}
	}
	return false
}

// channelInList: a channel matches the list's patterns; a pattern
// (PSUBSCRIBE's) only matches a list entry equal to it.
func channelInList(list []string, ch []byte, pattern bool) bool {
	for _, p := range list {
		if pattern {
			if p == string(ch) {
				return true
			}
		} else if ds.Match([]byte(p), ch, false) {
			return true
		}
	}
	return false
}

// KeyAllowed reports whether any selector allows the key with the given
// key-spec access flags (Valkey's ACLUserCheckKeyPerm).
func (p *Perms) KeyAllowed(key []byte, f command.KeySpecFlag) bool {
	if p.unrestricted {
		return true
	}
	for _, s := range p.sels {
		if s.keyAllowed(key, f) {
			return true
		}
	}
	return false
}

// ChannelAllowed reports whether any selector allows the channel (or,
// with pattern, the PSUBSCRIBE pattern).
func (p *Perms) ChannelAllowed(ch []byte, pattern bool) bool {
	if p.unrestricted {
		return true
	}
	for _, s := range p.sels {
		if s.flags&selAllChannels != 0 || channelInList(s.channels, ch, pattern) {
			return true
		}
	}
	return false
}

// UnrestrictedKeys reports whether some selector that allows the command
// also has access f (command.KeyAccess: reading) to every key: what SORT
// needs to accept BY and GET patterns (Valkey's
// ACLUserCheckCmdWithUnrestrictedKeyAccess).
func (p *Perms) UnrestrictedKeys(m *command.Meta, argv [][]byte, f command.KeySpecFlag) bool {
	if p.unrestricted {
		return true
	}
	var keys keyCache
	need := keyPerm(f)
	for _, s := range p.sels {
		if r, _ := s.check(m, argv, &keys); r != OK {
			continue
		}
		if s.flags&selAllKeys != 0 {
			return true
		}
		for _, kp := range s.patterns {
			if kp.perm&need == need && string(kp.pattern) == "*" {
				return true
			}
		}
	}
	return false
}

// RevokedSubscriptions compares a user's permissions before and after a
// change, as Valkey's ACLKillPubsubClientsIfNeeded: it returns nil when
// every subscription old allowed is still allowed, and otherwise a test
// of whether a subscribed channel (or pattern) is no longer allowed.
func RevokedSubscriptions(old, new *Perms) func(ch []byte, pattern bool) bool {
	var upcoming []string
	for _, s := range new.sels {
		if s.flags&selAllChannels != 0 {
			return nil
		}
		upcoming = append(upcoming, s.channels...)
	}
	if old != nil {
		superset := true
		for _, s := range old.sels {
			if s.flags&selAllChannels != 0 {
				superset = false
				break
			}
			for _, c := range s.channels {
				found := false
				for _, u := range upcoming {
					if u == c {
						found = true
						break
					}
				}
				if !found {
					superset = false
				}
			}
		}
		if superset {
			return nil
		}
	}
	return func(ch []byte, pattern bool) bool { return !channelInList(upcoming, ch, pattern) }
}

// Message is the NOPERM text (without "NOPERM ") for a denial. verbose
// names the key or channel (ACL DRYRUN); the check before a command runs
// does not.
func Message(r Reason, user string, m *command.Meta, arg []byte, verbose bool) string {
	switch r {
	case DeniedCommand:
		return "User " + user + " has no permissions to run the '" + m.FullName + "' command"
	case DeniedKey:
		if verbose {
			return "User " + user + " has no permissions to access the '" + string(arg) + "' key"
		}
		return "No permissions to access a key"
	case DeniedChannel:
		if verbose {
			return "User " + user + " has no permissions to access the '" + string(arg) + "' channel"
		}
		return "No permissions to access a channel"
	}
	return ""
}

// Resolve finds the command argv names as Valkey's lookupCommand does for
// ACL DRYRUN: a container's subcommand when argv has one (nil when it is
// unknown), the container itself otherwise.
func Resolve(argv [][]byte) *command.Meta {
	if len(argv) == 0 {
		return nil
	}
	m := command.Lookup(argv[0])
	if m == nil || !visible(m) {
		return nil
	}
	if m.IsContainer() && len(argv) >= 2 {
		return m.Sub(argv[1])
	}
	return m
}

// DryRun is ACL DRYRUN user command [arg ...]: the reply is "OK" or the
// verbose denial; errMsg (without "ERR ") is set when the user or command
// is unknown or the arity is wrong.
func (r *Users) DryRun(name []byte, argv [][]byte) (denial string, errMsg string) {
	u := r.Get(string(name))
	if u == nil {
		return "", "User '" + cString(name) + "' not found"
	}
	m := Resolve(argv)
	if m == nil {
		return "", "Command '" + cString(argv[0]) + "' not found"
	}
	if !m.CheckArity(len(argv)) {
		return "", "wrong number of arguments for '" + m.FullName + "' command"
	}
	reason, pos := u.Perms().Check(m, argv)
	if reason == OK {
		return "", ""
	}
	return Message(reason, u.name, m, argv[pos], true), ""
}

// cString is b as C's %s prints it: up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
