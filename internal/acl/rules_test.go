package acl

import (
	"strings"
	"testing"
)

// The renderings below are valkey-server 8.0.1's ACL LIST for the same
// ACL SETUSER arguments (after "user <name> ").
func TestSetUserDescribe(t *testing.T) {
	const pwHash = "5e884898da28047151d0e56f8dc6292773603d0d181d8ef42a8663b59dbd6a89" // not "password"'s
	tests := []struct {
		rules []string
		want  string
	}{
		{[]string{"on", ">pw"}, "on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 resetchannels -@all"},
		{[]string{"+get", "+set", "-get"}, "off sanitize-payload resetchannels -@all +set -get"},
		{[]string{"+@all", "-@dangerous", "+config|get"}, "off sanitize-payload resetchannels +@all -@dangerous +config|get"},
		{[]string{"-@all", "+@read", "-get"}, "off sanitize-payload resetchannels -@all +@read -get"},
		{[]string{"+@read", "+@write", "-@read"}, "off sanitize-payload resetchannels -@all +@write -@read"},
		{[]string{"+client|list", "+client", "-client|kill"}, "off sanitize-payload resetchannels -@all +client -client|kill"},
		{[]string{"+select|0", "+select|1", "+select|0"}, "off sanitize-payload resetchannels -@all +select|1 +select|0"},
		{[]string{"+select|0", "+select|1", "+select|0", "-select"}, "off sanitize-payload resetchannels -@all -select"},
		{[]string{"~a", "~b", "%R~c", "%W~c", "%R~a", "~*"}, "off sanitize-payload ~* resetchannels -@all"},
		{[]string{"~a", "~b", "%R~c", "%W~c", "%R~a"}, "off sanitize-payload ~a ~b ~c resetchannels -@all"},
		{[]string{"%RW~x", "%R", "%W~"}, "off sanitize-payload ~x ~ resetchannels -@all"},
		{[]string{"&a", "&b", "resetchannels", "&c"}, "off sanitize-payload resetchannels &c -@all"},
		{[]string{"&a", "&b", "&a"}, "off sanitize-payload resetchannels &a &b -@all"},
		{[]string{"allchannels", "allkeys", "allcommands"}, "off sanitize-payload ~* &* +@all"},
		{[]string{"nocommands", "resetkeys"}, "off sanitize-payload resetchannels -@all"},
		{[]string{"(+get ~a)", "(-@all +set %W~b &c)", "clearselectors", "(+ping)"}, "off sanitize-payload resetchannels -@all (resetchannels -@all +ping)"},
		{[]string{"(+get ~a)", "(-@all +set %W~b &c)"}, "off sanitize-payload resetchannels -@all (~a resetchannels -@all +get) (%W~b resetchannels &c -@all +set)"},
		{[]string{"(+get", "~a)", "(&*", "%R~*)"}, "off sanitize-payload resetchannels -@all (~a resetchannels -@all +get) (%R~* &* -@all)"},
		{[]string{"+@slow", "+@fast", "-@keyspace", "+@hash"}, "off sanitize-payload resetchannels -@all +@slow +@fast -@keyspace +@hash"},
		{[]string{"+config", "+config|get", "-config|set", "+@admin"}, "off sanitize-payload resetchannels -@all +config +config|get -config|set +@admin"},
		{[]string{"+@all", "-config|get", "-config"}, "off sanitize-payload resetchannels +@all -config"},
		{[]string{"+@all", "-config|get", "+config|set"}, "off sanitize-payload resetchannels +@all -config|get +config|set"},
		{[]string{"reset", "on", ">x", "nopass"}, "on nopass sanitize-payload resetchannels -@all"},
		{[]string{"#" + pwHash, ">password"}, "off sanitize-payload #" + pwHash + " #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 resetchannels -@all"},
		{[]string{"skip-sanitize-payload", "on"}, "on skip-sanitize-payload resetchannels -@all"},
		{[]string{"+GET", "+Config|GET", "+@READ"}, "off sanitize-payload resetchannels -@all +get +config|get +@read"},
		{[]string{"-@all", "+@all", "-get"}, "off sanitize-payload resetchannels +@all -get"},
		{[]string{"+@all", "+get"}, "off sanitize-payload resetchannels +@all +get"},
		{[]string{"%RW~*"}, "off sanitize-payload ~* resetchannels -@all"},
		{[]string{`(+get "~a)`}, "off sanitize-payload resetchannels -@all (resetchannels -@all)"},
		{[]string{"()"}, "off sanitize-payload resetchannels -@all (resetchannels -@all)"},
		{[]string{""}, "off sanitize-payload resetchannels -@all"},
	}
	for _, tt := range tests {
		r := New()
		_, msg := r.SetUser("u", tt.rules)
		if msg != "" {
			t.Errorf("SetUser %q: %s", tt.rules, msg)
			continue
		}
		if got := r.Get("u").Perms().Description(); got != tt.want {
			t.Errorf("SetUser %q:\n got %s\nwant %s", tt.rules, got, tt.want)
		}
		checkRoundTrip(t, r.Get("u").Perms())
	}
}

// checkRoundTrip is Valkey's ACLDescribeSelectorCommandRules sanity
// check: replaying a selector's rendered command rules on a fresh
// selector gives the same command bitmap.
func checkRoundTrip(t testing.TB, p *Perms) {
	t.Helper()
	for i, s := range p.sels {
		f := newSelector(0, false)
		for _, op := range strings.Fields(s.describeCommands()) {
			if err := f.apply(op); err != nil {
				t.Fatalf("selector %d: rule %q of %q: %v", i, op, s.describeCommands(), err)
			}
		}
		for w := range s.allowed {
			if f.allowed[w] != s.allowed[w] {
				t.Fatalf("selector %d: %q does not rebuild the command bitmap (word %d: %x != %x)", i, s.describeCommands(), w, f.allowed[w], s.allowed[w])
			}
		}
	}
}

// Errors, with valkey-server 8.0.1's texts.
func TestSetUserErrors(t *testing.T) {
	tests := []struct {
		rules []string
		want  string
	}{
		{[]string{"~*", "~x"}, "Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"},
		{[]string{"&*", "&x"}, "Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"},
		{[]string{"%X~x"}, "Error in ACL SETUSER modifier '%X~x': Syntax error"},
		{[]string{"%~x"}, "Error in ACL SETUSER modifier '%~x': Syntax error"},
		{[]string{"%RR~x"}, "Error in ACL SETUSER modifier '%RR~x': Syntax error"},
		{[]string{"+nosuch"}, "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{[]string{"+@nosuch"}, "Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL"},
		{[]string{"<nopw"}, "Error in ACL SETUSER modifier '<nopw': The password you are trying to remove from the user does not exist"},
		{[]string{"#abc"}, "Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"},
		{[]string{"+config|get|x"}, "Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported"},
		{[]string{"bogus"}, "Error in ACL SETUSER modifier 'bogus': Syntax error"},
		{[]string{"(+get", "x"}, "Unmatched parenthesis in acl selector starting at '(+get'."},
		{[]string{"+select|"}, "Error in ACL SETUSER modifier '+select|': Syntax error"},
		{[]string{"-select|0"}, "Error in ACL SETUSER modifier '-select|0': Unknown command or category name in ACL"},
		{[]string{`(+get "~a b")`}, `Error in ACL SETUSER modifier '(+get "~a b")': Syntax error`},
		{[]string{"~* ", "x"}, "Error in ACL SETUSER modifier '~* ': Syntax error"},
		{[]string{"+sentinel"}, "Error in ACL SETUSER modifier '+sentinel': Unknown command or category name in ACL"},
	}
	for _, tt := range tests {
		r := New()
		r.SetUser("u", []string{"on", "~k"})
		before := r.Get("u").Perms()
		_, msg := r.SetUser("u", tt.rules)
		if msg != tt.want {
			t.Errorf("SetUser %q:\n got %s\nwant %s", tt.rules, msg, tt.want)
		}
		if r.Get("u").Perms() != before {
			t.Errorf("SetUser %q changed the user despite the error", tt.rules)
		}
	}
}

func TestDefaultUserAndRequirePass(t *testing.T) {
	r := New()
	if got := r.List(); len(got) != 1 || got[0] != "user default on nopass sanitize-payload ~* &* +@all" {
		t.Fatalf("List = %q", got)
	}
	if r.AuthRequired() || !r.Default().Perms().Unrestricted() {
		t.Fatal("the default user must be nopass and unrestricted")
	}
	r.SetRequirePass("secret")
	if !r.AuthRequired() {
		t.Fatal("requirepass: AUTH is required")
	}
	if _, ok := r.Authenticate([]byte("default"), []byte("secret")); !ok {
		t.Fatal("the password does not authenticate")
	}
	if _, ok := r.Authenticate([]byte("default"), []byte("Secret")); ok {
		t.Fatal("a wrong password authenticates")
	}
	want := "user default on sanitize-payload #" + hashPassword([]byte("secret")) + " ~* &* +@all"
	if got := r.List()[0]; got != want {
		t.Fatalf("List = %q, want %q", got, want)
	}
	r.SetRequirePass("")
	if r.AuthRequired() {
		t.Fatal("requirepass '': nopass again")
	}
	r.SetUser("default", []string{"off"})
	if !r.AuthRequired() {
		t.Fatal("a disabled default user requires AUTH")
	}
	if _, msg := r.DelUser([]string{"x", "default"}); msg != "The 'default' user cannot be removed" {
		t.Fatalf("DelUser default: %q", msg)
	}
}

func TestAuthenticate(t *testing.T) {
	r := New()
	r.SetUser("a", []string{"on", ">one", ">two"})
	r.SetUser("b", []string{"off", ">pw"})
	r.SetUser("c", []string{"on", "nopass"})
	for _, tt := range []struct {
		user, pass string
		ok         bool
	}{
		{"a", "one", true}, {"a", "two", true}, {"a", "three", false}, {"a", "", false},
		{"b", "pw", false}, // disabled
		{"c", "anything", true}, {"nosuch", "x", false},
	} {
		if _, ok := r.Authenticate([]byte(tt.user), []byte(tt.pass)); ok != tt.ok {
			t.Errorf("Authenticate(%s, %s) = %v", tt.user, tt.pass, ok)
		}
	}
	r.SetUser("a", []string{"<one"})
	if _, ok := r.Authenticate([]byte("a"), []byte("one")); ok {
		t.Error("a removed password still authenticates")
	}
	gone, _ := r.DelUser([]string{"a", "nosuch"})
	if len(gone) != 1 || !gone[0].Perms().Deleted() {
		t.Fatalf("DelUser returned %v", gone)
	}
	if r.Get("a") != nil {
		t.Fatal("a deleted user is still listed")
	}
}

func TestPubsubDefault(t *testing.T) {
	r := New()
	r.SetPubsubDefault(true)
	r.SetUser("u", []string{"(+get)"})
	if got := r.Get("u").Perms().Description(); got != "off sanitize-payload &* -@all (&* -@all +get)" {
		t.Fatalf("got %q", got)
	}
	r.SetUser("u", []string{"resetchannels", "&x", "reset"})
	if got := r.Get("u").Perms().Description(); got != "off sanitize-payload &* -@all" {
		t.Fatalf("after reset: %q", got)
	}
}
