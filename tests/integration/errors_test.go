package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestCommandErrors checks the texts clients see for unknown commands and
// subcommands and wrong arity, over raw RESP and through go-redis, and that
// an error never desynchronizes the connection. (tests/compat compares many
// more against Redis.)
func TestCommandErrors(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	long := strings.Repeat("a", 200)
	cases := []struct {
		want string
		args []string
	}{
		{"-ERR unknown command 'FOO', with args beginning with: ", []string{"FOO"}},
		{"-ERR unknown command 'foo', with args beginning with: 'a' 'b c' ", []string{"foo", "a", "b c"}},
		{"-ERR unknown command '" + long[:128] + "', with args beginning with: ", []string{long}},
		{"-ERR unknown command 'X', with args beginning with: '" + long[:128] + "' ", []string{"X", long, "more"}},
		{"-ERR unknown command 'a  b', with args beginning with: 'c d' ", []string{"a\r\nb", "c\nd"}}, // each CR and LF becomes a space
		{"-ERR unknown subcommand 'NOPE'. Try OBJECT HELP.", []string{"OBJECT", "NOPE"}},
		{"-ERR unknown subcommand 'nope'. Try OBJECT HELP.", []string{"object", "nope", "x"}},
		{"-ERR unknown subcommand 'NOPE'. Try CLIENT HELP.", []string{"client", "NOPE"}},
		{"-ERR unknown subcommand 'NOPE'. Try CONFIG HELP.", []string{"CONFIG", "NOPE"}},
		{"-ERR wrong number of arguments for 'get' command", []string{"GET"}},
		{"-ERR wrong number of arguments for 'get' command", []string{"gEt", "a", "b"}},
		{"-ERR wrong number of arguments for 'set' command", []string{"SET", "k"}},
		{"-ERR wrong number of arguments for 'mset' command", []string{"MSET", "a", "1", "b"}},
		{"-ERR wrong number of arguments for 'object|encoding' command", []string{"OBJECT", "ENCODING"}},
		{"-ERR wrong number of arguments for 'client|id' command", []string{"CLIENT", "ID", "x"}},
		{"-ERR wrong number of arguments for 'object' command", []string{"OBJECT"}},
		{"-ERR syntax error", []string{"SET", "k", "v", "NX", "XX"}},
		{"-ERR value is not an integer or out of range", []string{"INCRBY", "k", "x"}},
	}
	for _, tc := range cases {
		expect(t, c, tc.want, tc.args...)
	}
	expect(t, c, "+PONG", "PING")

	// go-redis reports the same text as the error.
	ctx := testCtx(t, 10*time.Second)
	gc := newClient(t, srv.Addr, 3)
	for _, tc := range cases[:10] {
		args := make([]interface{}, len(tc.args))
		for i, a := range tc.args {
			args[i] = a
		}
		err := gc.Do(ctx, args...).Err()
		if err == nil || err.Error() != tc.want[1:] {
			t.Errorf("go-redis %q: %v, want %s", tc.args, err, tc.want[1:])
		}
	}
	if err := gc.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}
