package migrate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/migrate"
)

func argv(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		if f == `""` {
			f = ""
		}
		out = append(out, []byte(f))
	}
	return out
}

// TestParse: the replies Valkey 8.0.1 gives for each malformed MIGRATE
// (checked against valkey-server by tests/integration/migrate_test.go),
// and what the well-formed ones mean.
func TestParse(t *testing.T) {
	type want struct {
		err           string
		db            int64
		timeout       time.Duration
		copy, replace bool
		auth, auth2   bool
		user, pass    string
		keys          string
	}
	for _, tc := range []struct {
		args string
		want want
	}{
		{"h 1 k 0 100", want{db: 0, timeout: 100 * time.Millisecond, keys: "k"}},
		{"h 1 k 3 0", want{db: 3, timeout: time.Second, keys: "k"}},
		{"h 1 k -1 -5", want{db: -1, timeout: time.Second, keys: "k"}},
		{"h 1 k 99 9223372036854775807", want{db: 99, timeout: time.Duration(1<<63 - 1).Truncate(time.Millisecond), keys: "k"}},
		{"h 1 k 0 1 COPY replace", want{timeout: time.Millisecond, copy: true, replace: true, keys: "k"}},
		{"h 1 k 0 1 copy copy", want{timeout: time.Millisecond, copy: true, keys: "k"}},
		{"h 1 k 0 1 AUTH pw", want{timeout: time.Millisecond, auth: true, pass: "pw", keys: "k"}},
		{"h 1 k 0 1 auth2 u pw", want{timeout: time.Millisecond, auth: true, auth2: true, user: "u", pass: "pw", keys: "k"}},
		{"h 1 k 0 1 AUTH2 u pw AUTH p2", want{timeout: time.Millisecond, auth: true, pass: "p2", keys: "k"}},
		{"h 1 k 0 1 AUTH keys", want{timeout: time.Millisecond, auth: true, pass: "keys", keys: "k"}},
		{`h 1 "" 0 1 KEYS a b a`, want{timeout: time.Millisecond, keys: "a b a"}},
		{`h 1 "" 0 1 REPLACE KEYS copy`, want{timeout: time.Millisecond, replace: true, keys: "copy"}},
		{`h 1 "" 0 1 KEYS`, want{timeout: time.Millisecond}},
		{`h 1 "" 0 1`, want{timeout: time.Millisecond, keys: ""}},

		{"h 1 k 0 1 AUTH", want{err: "ERR syntax error"}},
		{"h 1 k 0 1 AUTH2 u", want{err: "ERR syntax error"}},
		{"h 1 k 0 1 bogus", want{err: "ERR syntax error"}},
		{"h 1 k 0 1 COPY bogus KEYS a", want{err: "ERR syntax error"}},
		{"h 1 k 0 1 KEYS a", want{err: "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"}},
		{"h 1 k x x KEYS a", want{err: "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"}},
		{"h 1 k 0 1 KEYS a bogus", want{err: "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"}},
		{"h 1 k x 1", want{err: "ERR value is not an integer or out of range"}},
		{"h 1 k 0 x", want{err: "ERR value is not an integer or out of range"}},
		{"h 1 k 01 1", want{err: "ERR value is not an integer or out of range"}},
		{"h 1 k 0 +1", want{err: "ERR value is not an integer or out of range"}},
		{"h 1 k 0 9223372036854775808", want{err: "ERR value is not an integer or out of range"}},
		{"h 1 k x 1 bogus", want{err: "ERR syntax error"}},
	} {
		a, err := migrate.Parse(argv("MIGRATE " + tc.args))
		var got want
		if err != nil {
			got.err = err.Error()
		} else {
			var keys []string
			for _, k := range a.Keys {
				keys = append(keys, string(k))
			}
			got = want{db: a.DB, timeout: a.Timeout, copy: a.Copy, replace: a.Replace, auth: a.Auth, auth2: a.Auth2,
				user: string(a.Username), pass: string(a.Password), keys: strings.Join(keys, " ")}
			if string(a.Host) != "h" || string(a.Port) != "1" {
				t.Errorf("%s: host %q port %q", tc.args, a.Host, a.Port)
			}
		}
		if got != tc.want {
			t.Errorf("MIGRATE %s:\n got %+v\nwant %+v", tc.args, got, tc.want)
		}
	}
}
