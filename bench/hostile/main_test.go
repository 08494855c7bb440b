package main

import (
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	c, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.n != 3_000_000 || c.value != 10<<20 || c.gets != 50 || c.hold != 2*time.Second || c.conns != 3000 ||
		c.obufLimit != "normal 64mb 0 0" || c.pingEvery != time.Millisecond || c.redisBin != "redis-server" ||
		c.corvidBin != "" || c.valkeyBin != "" {
		t.Errorf("defaults: %+v", c)
	}
	if !slices.Equal(c.scenarios, allScenarios) || !slices.Equal(c.servers, allServers) {
		t.Errorf("default lists: %v %v", c.scenarios, c.servers)
	}

	args := []string{"-n", "300000", "-conns", "500", "-scenarios", "idle, Multibulk,idle", "-servers", "valkey,corvid", "-ping-every", "0"}
	c, err = parseFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	if c.n != 300000 || c.conns != 500 || c.pingEvery != 0 || !slices.Equal(c.argv, args) {
		t.Errorf("parsed %+v", c)
	}
	if !slices.Equal(c.scenarios, []string{"idle", "multibulk"}) || !slices.Equal(c.servers, []string{"valkey", "corvid"}) {
		t.Errorf("lists: %v %v", c.scenarios, c.servers)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "must be >= 1"},
		{[]string{"-conns", "-1"}, "must be >= 1"},
		{[]string{"-hold", "-1s"}, "must be >= 0"},
		{[]string{"-timeout", "0"}, "-timeout > 0"},
		{[]string{"-scenarios", "multibulk,flood"}, `-scenarios: unknown "flood"`},
		{[]string{"-servers", " , "}, "-servers: empty"},
		{[]string{"-servers", "dragonfly"}, `-servers: unknown "dragonfly"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		if _, err := parseFlags(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseFlags(%q) = %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

func TestParseFlagsHelp(t *testing.T) {
	// -h prints the usage (to stderr) and is not an error of main's.
	if _, err := parseFlags([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}
