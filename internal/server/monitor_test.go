package server

import (
	"slices"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
)

func TestRedactions(t *testing.T) {
	metas := map[string]*command.Meta{"auth": command.Auth, "hello": command.Hello, "migrate": command.Migrate, "get": command.Get}
	for _, tc := range []struct {
		argv string
		want []int
	}{
		{"auth pw", []int{1}},
		{"auth user pw", []int{1, 2}},
		{"auth a b c", nil}, // a syntax error before Valkey redacts
		{"hello 3 auth u p", []int{3, 4}},
		{"hello 3 setname auth auth u p", []int{5, 6}},
		{"hello 4 auth u p", nil},
		{"hello 3 auth u", nil},
		{"migrate h 1 k 0 100 auth pw", []int{7}},
		{"migrate h 1 k 0 100 copy replace auth2 u pw keys a b", []int{9, 10}},
		{"migrate h 1 k 0 100 keys auth pw", nil},
		{"get auth", nil},
	} {
		argv := strings.Fields(tc.argv)
		b := make([][]byte, len(argv))
		for i := range argv {
			b[i] = []byte(argv[i])
		}
		red := redactions(&cmd{meta: metas[argv[0]]}, b)
		var got []int
		for i, r := range red {
			if r {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: redacted %v, want %v", tc.argv, got, tc.want)
		}
	}
}
