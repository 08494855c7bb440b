package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// decode parses the generator's output back into commands.
func decode(t *testing.T, b []byte) [][]string {
	t.Helper()
	var cmds [][]string
	for len(b) > 0 {
		v, n, err := wire.Parse(b)
		if err != nil || n == 0 || v.Type != '*' {
			t.Fatalf("bad command encoding: %v %d %v", v.Text(), n, err)
		}
		var args []string
		for _, a := range v.Elems {
			if a.Type != '$' {
				t.Fatalf("argument %s is not a bulk string", a.Text())
			}
			args = append(args, a.Str)
		}
		cmds = append(cmds, args)
		b = b[n:]
	}
	return cmds
}

func generate(t *testing.T, spec caseSpec, per, size int, seed uint64) [][]string {
	g := newGenerator(spec, per, size, seed)
	var b []byte
	n := 0
	for {
		var ok bool
		if b, ok = g.next(b); !ok {
			break
		}
		n++
	}
	cmds := decode(t, b)
	if len(cmds) != n {
		t.Fatalf("%d commands decoded, %d generated", len(cmds), n)
	}
	return cmds
}

func TestGeneratorBigCases(t *testing.T) {
	cases, err := makeCases("list,set,zset,hash", 250, 3, 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range cases {
		cmds := generate(t, spec, 100, 128, 7)
		if len(cmds) != 3 {
			t.Errorf("%s: %d commands, want 3 (100+100+50)", spec.name, len(cmds))
		}
		members := map[string]bool{}
		fields := map[string]bool{}
		for _, c := range cmds {
			if c[0] != spec.cmd || c[1] != spec.key {
				t.Fatalf("%s: command %v %v", spec.name, c[0], c[1])
			}
			step := 1
			if spec.pairs() {
				step = 2
			}
			if (len(c)-2)%step != 0 {
				t.Fatalf("%s: %d arguments", spec.name, len(c))
			}
			for j := 2; j < len(c); j += step {
				v := c[j+step-1]
				if len(v) != 128 {
					t.Fatalf("%s: value of %d bytes", spec.name, len(v))
				}
				members[v] = true
				if step == 2 {
					fields[c[j]] = true
					if spec.cmd == "ZADD" {
						if _, err := strconv.ParseFloat(c[j], 64); err != nil {
							t.Fatalf("score %q: %v", c[j], err)
						}
					} else if !strings.HasPrefix(c[j], "f:") {
						t.Fatalf("field %q", c[j])
					}
				}
			}
		}
		if len(members) != 250 {
			t.Errorf("%s: %d distinct values, want 250", spec.name, len(members))
		}
		if spec.cmd == "HSET" && len(fields) != 250 {
			t.Errorf("%s: %d distinct fields, want 250", spec.name, len(fields))
		}
	}
}

func TestGeneratorSmallHashes(t *testing.T) {
	cases, err := makeCases("smallhash", 1, 5, 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	spec := cases[0]
	if spec.elements() != 50 || spec.keyName(3) != "h:3" {
		t.Fatalf("spec %+v", spec)
	}
	cmds := generate(t, spec, 100, 128, 1)
	if len(cmds) != 5 {
		t.Fatalf("%d commands, want one HSET per hash", len(cmds))
	}
	for i, c := range cmds {
		if c[0] != "HSET" || c[1] != "h:"+strconv.Itoa(i) || len(c) != 22 {
			t.Fatalf("command %d: %v ... (%d args)", i, c[:2], len(c))
		}
		if c[2] != "f:0" || c[20] != "f:9" {
			t.Errorf("fields %q..%q, want f:0..f:9", c[2], c[20])
		}
	}
	// Fewer elements per command than fields: several HSETs per hash.
	if cmds := generate(t, spec, 4, 16, 1); len(cmds) != 15 {
		t.Errorf("-per 4: %d commands, want 15", len(cmds))
	}
}

func TestGeneratorDeterministic(t *testing.T) {
	spec := caseSpec{"zset", "ZADD", "k", 1, 30, 0}
	a := generate(t, spec, 7, 40, 3)
	b := generate(t, spec, 7, 40, 3)
	c := generate(t, spec, 7, 40, 4)
	if strings.Join(a[0], " ") != strings.Join(b[0], " ") {
		t.Error("same seed, different data")
	}
	if strings.Join(a[0], " ") == strings.Join(c[0], " ") {
		t.Error("different seeds, same data")
	}
}

func TestValue(t *testing.T) {
	g := newGenerator(caseSpec{}, 1, 128, 1)
	v := string(g.value(12345))
	if len(v) != 128 || !strings.HasPrefix(v, "12345:") || strings.Trim(v[6:], valueAlphabet) != "" {
		t.Errorf("value = %q", v)
	}
	g = newGenerator(caseSpec{}, 1, 3, 1)
	if v := string(g.value(12345)); v != "123" {
		t.Errorf("short value = %q, want the prefix cut to 3 bytes", v)
	}
}

func TestMakeCases(t *testing.T) {
	cs, err := makeCases("hash, list,hash", 10, 2, 3, 16)
	if err != nil || len(cs) != 2 || cs[0].name != "hash" || cs[1].name != "list" {
		t.Errorf("makeCases = %+v, %v", cs, err)
	}
	if _, err := makeCases("list,stream", 10, 2, 3, 16); err == nil {
		t.Error("unknown case: want an error")
	}
	if _, err := makeCases("", 10, 2, 3, 16); err == nil {
		t.Error("no case: want an error")
	}
	got := map[string]string{}
	cs, _ = makeCases(strings.Join(allCases, ","), 10, 2, 3, 16)
	for _, c := range cs {
		got[c.name] = strings.Join(c.countCommand(), " ")
		if small := strings.HasPrefix(c.name, "lp") || strings.HasPrefix(c.name, "one"); small != (c.size == 16) {
			t.Errorf("%s: element size %d", c.name, c.size)
		}
	}
	want := map[string]string{"list": "LLEN mem:list", "set": "SCARD mem:set", "zset": "ZCARD mem:zset",
		"hash": "HLEN mem:hash", "smallhash": "HLEN h:0", "smallzset": "ZCARD z:0", "string": "EXISTS s:0",
		"lplist": "LLEN lplist:0", "lpset": "SCARD lpset:0", "lpzset": "ZCARD lpzset:0", "lphash": "HLEN lphash:0",
		"onelist": "LLEN onelist:0", "oneset": "SCARD oneset:0", "onezset": "ZCARD onezset:0", "onehash": "HLEN onehash:0"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s count command = %q, want %q", k, got[k], w)
		}
	}
}

func TestParsePeers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // the peers joined by ",", or "error"
	}{
		{"redis", "redis"},
		{"valkey", "valkey"},
		{"valkey,redis", "valkey,redis"},
		{"redis, valkey", "redis,valkey"},
		{"valkey,valkey,redis,", "valkey,redis"},
		{"", "error"},
		{",", "error"},
		{"keydb", "error"},
		{"valkey,Redis", "error"},
	} {
		got, err := parsePeers(tc.in)
		s := strings.Join(got, ",")
		if err != nil {
			s = "error"
		}
		if s != tc.want {
			t.Errorf("parsePeers(%q) = %q (%v), want %q", tc.in, s, err, tc.want)
		}
	}
}

func TestTurnOrder(t *testing.T) {
	for _, tc := range []struct {
		peers []string
		k     int
		want  string
	}{
		// One peer: the two servers alternate, corvid first in case 0.
		{[]string{"redis"}, 0, "corvid,redis"},
		{[]string{"redis"}, 1, "redis,corvid"},
		{[]string{"redis"}, 2, "corvid,redis"},
		// Two peers: each of the three goes first in turn.
		{[]string{"valkey", "redis"}, 0, "corvid,valkey,redis"},
		{[]string{"valkey", "redis"}, 1, "valkey,redis,corvid"},
		{[]string{"valkey", "redis"}, 2, "redis,corvid,valkey"},
		{[]string{"valkey", "redis"}, 3, "corvid,valkey,redis"},
	} {
		if got := strings.Join(turnOrder(tc.k, tc.peers), ","); got != tc.want {
			t.Errorf("turnOrder(%d, %v) = %s, want %s", tc.k, tc.peers, got, tc.want)
		}
	}
	// The caller's slice is not changed.
	peers := []string{"valkey", "redis"}
	turnOrder(1, peers)
	if peers[0] != "valkey" || peers[1] != "redis" {
		t.Errorf("turnOrder changed its argument: %v", peers)
	}
}
