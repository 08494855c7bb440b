package integration

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// ACL users compared with Valkey 8.0.1 byte for byte: the same ACL
// SETUSER / GETUSER / LIST / DRYRUN / CAT commands, and commands that the
// users' rules deny, go to a fresh Corvid and a fresh valkey-server, as
// RESP2 and as RESP3 clients, and every reply must be the same. Replies
// that differ from run to run (ACL LOG's ages, client details and
// timestamps, ACL CAT's order, which is Valkey's hash table's) are
// normalized on both sides.

var aclDiffSetup = [][]string{
	{"ACL", "SETUSER", "app", "on", ">apppw", "~app:*", "%R~ro:*", "%W~wo:*", "&news.*", "-@all", "+@read", "+@write", "-@dangerous", "+client|setname", "+select|0", "+multi", "+exec", "+discard", "+eval", "+publish", "+subscribe", "+sort", "(+get ~sel:*)"},
	{"ACL", "SETUSER", "ops", "on", ">opspw", "allkeys", "allchannels", "+@all", "-@admin", "+config|get", "-flushall"},
	{"ACL", "SETUSER", "off", "off", "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8", "~*"},
	{"ACL", "SETUSER", "np", "on", "nopass", "+ping", "skip-sanitize-payload"},
}

// aclDiffSteps run after the setup; "AS user pass" switches the
// connection's user (AUTH).
var aclDiffSteps = [][]string{
	{"ACL", "LIST"},
	{"ACL", "USERS"},
	{"ACL", "GETUSER", "app"},
	{"ACL", "GETUSER", "ops"},
	{"ACL", "GETUSER", "off"},
	{"ACL", "GETUSER", "np"},
	{"ACL", "GETUSER", "default"},
	{"ACL", "GETUSER", "nosuch"},
	{"ACL", "SETUSER", "e", "~*", "~x"},
	{"ACL", "SETUSER", "e", "&*", "&x"},
	{"ACL", "SETUSER", "e", "%X~x"},
	{"ACL", "SETUSER", "e", "+nosuch"},
	{"ACL", "SETUSER", "e", "+@nosuch"},
	{"ACL", "SETUSER", "e", "<nopw"},
	{"ACL", "SETUSER", "e", "#abc"},
	{"ACL", "SETUSER", "e", "+config|get|x"},
	{"ACL", "SETUSER", "e", "bogus"},
	{"ACL", "SETUSER", "e", "(+get", "x"},
	{"ACL", "SETUSER", "e", "+select|"},
	{"ACL", "SETUSER", "e", "-select|0"},
	{"ACL", "SETUSER", "a b"},
	{"ACL", "SETUSER", "e", "(+get", "~a)", "(&*", "%R~*)", "+@all", "-@dangerous", "+config|get", "%RW~x", "%R", "%W~", "&c", "+select|0", "+select|1"},
	{"ACL", "GETUSER", "e"},
	{"ACL", "LIST"},
	{"ACL", "DELUSER", "default"},
	{"ACL", "DELUSER", "e", "nosuch"},
	{"ACL", "DELUSER", "e"},
	{"ACL", "DRYRUN", "app", "get", "app:1"},
	{"ACL", "DRYRUN", "app", "get", "other"},
	{"ACL", "DRYRUN", "app", "set", "ro:1", "v"},
	{"ACL", "DRYRUN", "app", "get", "wo:1"},
	{"ACL", "DRYRUN", "app", "set", "wo:1", "v"},
	{"ACL", "DRYRUN", "app", "copy", "ro:1", "wo:1"},
	{"ACL", "DRYRUN", "app", "mset", "app:1", "v", "x", "v"},
	{"ACL", "DRYRUN", "app", "rename", "app:1", "x"},
	{"ACL", "DRYRUN", "app", "get", "sel:1"},
	{"ACL", "DRYRUN", "app", "flushall"},
	{"ACL", "DRYRUN", "app", "config", "get", "x"},
	{"ACL", "DRYRUN", "app", "client", "setname", "x"},
	{"ACL", "DRYRUN", "app", "client", "kill", "x"},
	{"ACL", "DRYRUN", "app", "select", "0"},
	{"ACL", "DRYRUN", "app", "select", "1"},
	{"ACL", "DRYRUN", "app", "publish", "news.x", "m"},
	{"ACL", "DRYRUN", "app", "publish", "other", "m"},
	{"ACL", "DRYRUN", "app", "subscribe", "news.a", "other"},
	{"ACL", "DRYRUN", "ops", "config", "set", "x", "y"},
	{"ACL", "DRYRUN", "ops", "config", "get", "x"},
	{"ACL", "DRYRUN", "ops", "flushall"},
	{"ACL", "DRYRUN", "ops", "debug", "sleep", "0"},
	{"ACL", "DRYRUN", "nosuch", "get", "x"},
	{"ACL", "DRYRUN", "app", "nosuch"},
	{"ACL", "DRYRUN", "app", "get"},
	{"ACL", "DRYRUN", "app", "config", "nosuch"},
	{"ACL", "CAT"},
	{"ACL", "CAT", "nosuch"},
	{"ACL", "GENPASS", "0"},
	{"ACL", "GENPASS", "x"},
	{"ACL", "GENPASS", "64", "x"}, // CAT, GENPASS and LOG take two or three arguments
	{"ACL", "LOG", "5", "x"},
	{"ACL", "LOG", "RESET", "x"},
	{"ACL", "CAT", "string", "x"},
	{"ACL", "LOAD"},
	{"ACL", "SAVE"},
	{"ACL", "LOG", "x"},
	{"ACL", "NOSUCH"},
	{"ACL", "WHOAMI"},
	{"CLIENT", "KILL", "USER", "nosuch"},
	{"AUTH", "off", "password"},
	{"AUTH", "app", "wrong"},
	{"AUTH", "nosuch", "x"},
	{"AS", "app", "apppw"},
	{"ACL", "WHOAMI"},
	{"GET", "app:1"},
	{"GET", "other"},
	{"SET", "ro:1", "v"},
	{"SET", "wo:1", "v"},
	{"GET", "wo:1"},
	{"MSET", "app:1", "v", "other", "v"},
	{"RENAME", "app:1", "other"},
	{"FLUSHALL"},
	{"CONFIG", "GET", "maxmemory"},
	{"DEBUG", "SLEEP", "0"},
	{"SHUTDOWN"},
	{"SAVE"},
	{"MONITOR"},
	{"REPLICAOF", "127.0.0.1", "1"},
	{"ACL", "SETUSER", "app", "+@all"},
	{"CLIENT", "SETNAME", "x"},
	{"CLIENT", "KILL", "ID", "99999"},
	{"SELECT", "1"},
	{"PUBLISH", "other", "m"},
	{"PUBLISH", "news.a", "m"},
	{"SORT", "app:list", "BY", "other*"},
	{"SORT", "app:list", "GET", "other*"},
	{"SORT", "app:list", "BY", "nosort"},
	{"EVAL", "return redis.call('get', 'other')", "0"},
	{"EVAL", "return redis.call('get', 'app:1')", "0"},
	{"EVAL", "return redis.acl_check_cmd('get', 'other')", "0"},
	{"EVAL", "return redis.acl_check_cmd('get', 'app:1')", "0"},
	{"EVAL", "return redis.acl_check_cmd('nosuch')", "0"},
	{"MULTI"},
	{"GET", "app:1"},
	{"GET", "other"},
	{"EXEC"},
	{"ACL", "LOG", "3"},
	{"AS", "default", "x"},
	{"ACL", "LOG"},
	{"ACL", "LOG", "RESET"},
	{"ACL", "LOG"},
	{"INFO", "stats"},
}

var (
	aclNormAge   = regexp.MustCompile(`"age-seconds", (,[^,\]]*|"[^"]*")`)
	aclNormInfo  = regexp.MustCompile(`"client-info", "(\\.|[^"\\])*"`)
	aclNormStamp = regexp.MustCompile(`"(timestamp-created|timestamp-last-updated)", :\d+`)
	aclInfoLines = regexp.MustCompile(`acl_access_denied_\w+:\d+`)
)

func aclNormalize(args []string, reply string) string {
	switch {
	case len(args) >= 2 && args[0] == "ACL" && args[1] == "LOG":
		reply = aclNormAge.ReplaceAllString(reply, `"age-seconds", AGE`)
		reply = aclNormInfo.ReplaceAllString(reply, `"client-info", INFO`)
		reply = aclNormStamp.ReplaceAllString(reply, `"$1", TIME`)
	case args[0] == "INFO":
		reply = strings.Join(aclInfoLines.FindAllString(reply, -1), " ")
	case args[0] == "ACL" && args[1] == "CAT" && len(args) == 3 && strings.HasPrefix(reply, "*["):
		items := strings.Split(strings.TrimSuffix(strings.TrimPrefix(reply, "*["), "]"), ", ")
		slices.Sort(items)
		reply = "*[" + strings.Join(items, ", ") + "]"
	}
	return reply
}

func runACLDiff(t *testing.T, addr string, proto string) []string {
	c := testutil.Dial(t, addr)
	if proto == "3" {
		c.Do("HELLO", "3")
	}
	var out []string
	for _, args := range aclDiffSetup {
		out = append(out, c.Do(args...))
	}
	for _, args := range aclDiffSteps {
		if args[0] == "AS" {
			if args[1] == "default" {
				out = append(out, c.Do("AUTH", "default", "x"))
			} else {
				out = append(out, c.Do("AUTH", args[1], args[2]))
			}
			continue
		}
		out = append(out, aclNormalize(args, c.Do(args...)))
	}
	for _, cat := range []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection", "transaction", "scripting"} {
		args := []string{"ACL", "CAT", cat}
		out = append(out, aclNormalize(args, c.Do(args...)))
	}
	return out
}

func TestACLDiffValkey(t *testing.T) {
	for _, proto := range []string{"2", "3"} {
		cv := testutil.StartCorvid(t)
		vk := testutil.StartValkey(t)
		got := runACLDiff(t, cv.Addr, proto)
		want := runACLDiff(t, vk.Addr, proto)
		steps := append(append([][]string{}, aclDiffSetup...), aclDiffSteps...)
		t.Logf("RESP%s: %d replies compared", proto, len(want))
		if testing.Verbose() {
			for i, s := range steps {
				t.Logf("%s => %.300s", strings.Join(s, " "), want[i])
			}
		}
		for i := range want {
			name := "ACL CAT (category)"
			if i < len(steps) {
				name = strings.Join(steps[i], " ")
			}
			if got[i] != want[i] {
				t.Errorf("RESP%s %s:\n corvid: %s\n valkey: %s", proto, name, got[i], want[i])
			}
		}
	}
}
