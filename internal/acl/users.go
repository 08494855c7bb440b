package acl

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/resp"
)

// User is an identity a connection authenticates as. Its name never
// changes; its permissions are swapped whole (Perms).
type User struct {
	name  string
	perms atomic.Pointer[Perms]
}

// Name is the user's name.
func (u *User) Name() string { return u.name }

// Perms returns the user's current permissions (one atomic load).
func (u *User) Perms() *Perms { return u.perms.Load() }

// Users is the set of users (Valkey's Users radix tree and DefaultUser).
type Users struct {
	mu        sync.Mutex
	byName    map[string]*User
	def       *User
	pubsubAll bool
	// needAuth mirrors whether the default user requires AUTH: it has
	// no nopass, or it is off (Valkey's authRequired).
	needAuth atomic.Bool

	// Log is the ACL log.
	Log Log
}

// New returns a set with only the default user: on, nopass, +@all ~* &*.
func New() *Users {
	r := &Users{byName: make(map[string]*User)}
	r.def = &User{name: "default"}
	r.def.perms.Store(defaultPerms())
	r.byName["default"] = r.def
	return r
}

func defaultPerms() *Perms {
	p := newPerms(false)
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		if err := p.apply(op, false); err != nil {
			panic("acl: default user: " + err.Error())
		}
	}
	return p.freeze()
}

// Default returns the default user.
func (r *Users) Default() *User { return r.def }

// AuthRequired reports whether a connection that has not authenticated
// must (Valkey's authRequired): the default user has a password or is
// off.
func (r *Users) AuthRequired() bool { return r.needAuth.Load() }

func (r *Users) noteDefault() {
	p := r.def.Perms()
	r.needAuth.Store(!p.nopass || !p.enabled)
}

// Get returns the user named name, or nil.
func (r *Users) Get(name string) *User {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byName[name]
}

// Authenticate returns the user if name exists, is on and pass is one
// of its passwords (any with nopass).
func (r *Users) Authenticate(name, pass []byte) (*User, bool) {
	r.mu.Lock()
	u := r.byName[string(name)]
	r.mu.Unlock()
	if u == nil {
		// Hash anyway: the time taken does not tell whether the user
		// exists.
		_ = hashPassword(pass)
		return nil, false
	}
	return u, u.Perms().checkPassword(pass)
}

// SetPubsubDefault sets acl-pubsub-default (allchannels when all): the
// channel permissions of new users and selectors, and of "reset".
func (r *Users) SetPubsubDefault(all bool) {
	r.mu.Lock()
	r.pubsubAll = all
	r.mu.Unlock()
}

// SetRequirePass applies requirepass to the default user (Valkey's
// ACLUpdateDefaultUserPassword): resetpass, then >pass, or nopass when
// pass is empty.
func (r *Users) SetRequirePass(pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.def.Perms().clone()
	p.apply("resetpass", r.pubsubAll)
	if pass != "" {
		p.apply(">"+pass, r.pubsubAll)
	} else {
		p.apply("nopass", r.pubsubAll)
	}
	r.def.perms.Store(p.freeze())
	r.noteDefault()
}

// Change is what a successful SetUser changed: the user and its
// permissions before (nil for a new user) and after.
type Change struct {
	User     *User
	Old, New *Perms
}

// mergeSelectors joins selector rules spread over several arguments
// ("(+get" "~x)") as Valkey's ACLMergeSelectorArguments; bad is the index
// of an unmatched "(" argument, or -1.
func mergeSelectors(args []string) (merged []string, bad int) {
	open := -1
	var cur string
	for j, op := range args {
		if open < 0 && op != "" && op[0] == '(' && op[len(op)-1] != ')' {
			cur, open = op, j
			continue
		}
		if open >= 0 {
			cur += " " + op
			if op != "" && op[len(op)-1] == ')' {
				merged = append(merged, cur)
				open = -1
			}
			continue
		}
		merged = append(merged, op)
	}
	if open >= 0 {
		return nil, open
	}
	return merged, -1
}

// ValidName reports whether name may be a user name: no spaces or NUL.
func ValidName(name string) bool { return !hasSpaces(name) }

// SetUser creates or changes a user (ACL SETUSER): every rule is applied
// to a copy, and the copy replaces the user's permissions only if all
// are valid. errMsg is Valkey's error text without "ERR ".
func (r *Users) SetUser(name string, rules []string) (ch Change, errMsg string) {
	merged, bad := mergeSelectors(rules)
	if bad >= 0 {
		return ch, "Unmatched parenthesis in acl selector starting at '" + rules[bad] + "'."
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.byName[name]
	var p *Perms
	if u != nil {
		ch.Old = u.Perms()
		p = ch.Old.clone()
	} else {
		p = newPerms(r.pubsubAll)
	}
	for _, op := range merged {
		if err := p.apply(op, r.pubsubAll); err != nil {
			return Change{}, "Error in ACL SETUSER modifier '" + op + "': " + err.Error()
		}
	}
	if u == nil {
		u = &User{name: name}
		r.byName[name] = u
	}
	ch.User, ch.New = u, p.freeze()
	u.perms.Store(ch.New)
	if u == r.def {
		r.noteDefault()
	}
	return ch, ""
}

var deletedPerms = func() *Perms {
	p := newPerms(false)
	p.deleted = true
	return p.freeze()
}()

// DelUser deletes the named users (ACL DELUSER) and returns the ones that
// existed; their connections must be closed. Deleting "default" is an
// error, and then nothing is deleted.
func (r *Users) DelUser(names []string) (gone []*User, errMsg string) {
	for _, n := range names {
		if n == "default" {
			return nil, "The 'default' user cannot be removed"
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		if u := r.byName[n]; u != nil {
			delete(r.byName, n)
			u.perms.Store(deletedPerms)
			gone = append(gone, u)
		}
	}
	return gone, ""
}

// Names lists the user names in ACL USERS order (bytewise).
func (r *Users) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sortedNames()
}

func (r *Users) sortedNames() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// List renders every user as ACL LIST does: "user <name> <rules>".
func (r *Users) List() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := r.sortedNames()
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "user " + n + " " + r.byName[n].Perms().Description()
	}
	return out
}

// ConfigLines are the users as CONFIG REWRITE writes them (the List lines
// without "user ").
func (r *Users) ConfigLines() []string {
	l := r.List()
	for i := range l {
		l[i] = strings.TrimPrefix(l[i], "user ")
	}
	return l
}

// ValidateConfigUser checks a "user" directive's arguments (name and
// rules) as Valkey's ACLAppendUserForLoading does when it reads the
// configuration: unknown command names pass here (they fail at loading).
// It returns the index of the offending argument among args and the
// error text, or -1.
func ValidateConfigUser(args []string) (int, string) {
	merged, bad := mergeSelectors(args[1:])
	if bad >= 0 {
		return bad + 1, "Wrong format"
	}
	p := newPerms(false)
	for j, op := range merged {
		if err := p.apply(op, false); err != nil && err != errUnknownName {
			// Valkey reports the merged index against the raw
			// arguments (off by the merge): it points at argv[j].
			return j, err.Error()
		}
	}
	return -1, ""
}

// LoadConfigured creates the users of the configuration's "user" lines
// (each: name, rules...), as Valkey's ACLLoadConfiguredUsers: "default"
// is reset first; a duplicate is an error.
func (r *Users) LoadConfigured(lines [][]string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, l := range lines {
		name := l[0]
		if seen[name] {
			return fmt.Errorf("Error in user declaration '%s': %s", name, errDuplicateUser)
		}
		seen[name] = true
		if hasSpaces(name) {
			return fmt.Errorf("Spaces not allowed in ACL usernames")
		}
		merged, bad := mergeSelectors(l[1:])
		if bad >= 0 {
			return fmt.Errorf("Error in user declaration '%s': Wrong format", l[1+bad])
		}
		p := newPerms(r.pubsubAll)
		if u := r.byName[name]; u != nil && u != r.def {
			p = u.Perms().clone()
		}
		for _, op := range merged {
			if err := p.apply(op, r.pubsubAll); err != nil {
				return fmt.Errorf("Error loading ACL rule '%s' for the user named '%s': %s", op, name, err)
			}
		}
		u := r.byName[name]
		if u == nil {
			u = &User{name: name}
			r.byName[name] = u
		}
		u.perms.Store(p.freeze())
	}
	r.noteDefault()
	return nil
}

// LoadFile replaces every user with the ACL file's (ACL LOAD, aclfile at
// start-up). On any error nothing changes and the error text lists every
// problem, as Valkey's ACLLoadFromFile. The returned users are those
// that no longer exist (their connections must be closed) and the
// changes to users that stay (for their pub/sub subscribers).
func (r *Users) LoadFile(path string) (gone []*User, changed []Change, errMsg string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Sprintf("Error loading ACLs, opening file '%s': %s", path, errnoText(err))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs strings.Builder
	next := map[string]*Perms{}
	for i, line := range strings.Split(string(data), "\n") {
		ln := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", path, ln)
			continue
		}
		name := argv[1]
		if hasSpaces(name) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", path, ln, name)
			continue
		}
		if _, dup := next[name]; dup {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", name, ln)
			continue
		}
		p := newPerms(r.pubsubAll)
		next[name] = p
		merged, bad := mergeSelectors(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", path, ln)
		}
		syntax := false
		for _, op := range merged {
			op = strings.Trim(op, "\t\r\n")
			if err := p.apply(op, r.pubsubAll); err != nil {
				if err == errUnknownName {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", path, ln, op, err)
				} else if !syntax {
					fmt.Fprintf(&errs, "%s:%d: %s. ", path, ln, err)
					syntax = true
				}
			}
		}
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, nil, errs.String()
	}
	if _, ok := next["default"]; !ok {
		next["default"] = defaultPerms()
	}
	for name, u := range r.byName {
		if _, ok := next[name]; !ok {
			delete(r.byName, name)
			u.perms.Store(deletedPerms)
			gone = append(gone, u)
		}
	}
	for name, p := range next {
		u := r.byName[name]
		if u == nil {
			u = &User{name: name}
			r.byName[name] = u
		} else {
			changed = append(changed, Change{User: u, Old: u.Perms(), New: p})
		}
		u.perms.Store(p.freeze())
	}
	r.noteDefault()
	return gone, changed, ""
}

// SaveFile writes every user to path (ACL SAVE): a temporary file, synced,
// renamed over path, and the directory synced.
func (r *Users) SaveFile(path string) error {
	var b strings.Builder
	for _, l := range r.List() {
		b.WriteString(l + "\n")
	}
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(dirOf(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if i == 0 {
			return "/"
		}
		return path[:i]
	}
	return "."
}

// errnoText is strerror's text for a file error.
func errnoText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

func splitArgs(s string) ([]string, bool) {
	argv, ok := resp.SplitArgs(nil, []byte(s))
	if !ok {
		return nil, false
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = string(a)
	}
	return out, true
}
