package db

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/effects"
)

// TestGeoPropagation: GEOADD replays as the ZADD it runs (Valkey's
// replaceClientCommandVector), with its options and the encoded scores,
// and not at all when it changed nothing; the STORE forms replay as
// sent; plain searches write nothing.
func TestGeoPropagation(t *testing.T) {
	h := newMemHarness(t)
	for _, hd := range GeoCommands {
		h.cmd[hd.Spec.FullName] = hd
	}
	rec := recordEffects(h)
	var u effects.Unit
	run := func(args ...string) {
		t.Helper()
		h.c.Prop = &u
		h.c.BeginOwn()
		reply := h.do(args...)
		h.c.CommitUnit()
		h.c.Prop = nil
		if strings.HasPrefix(reply, "-") {
			t.Fatalf("%v: %q", args, reply)
		}
	}
	run("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
	run("GEOADD", "Sicily", "NX", "CH", "13.361389", "38.115556", "Palermo")
	run("GEOADD", "Sicily", "CH", "XX", "13", "38", "Palermo")
	run("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km")
	run("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "dst")
	run("GEORADIUS_RO", "Sicily", "15", "37", "200", "km")
	run("GEOSEARCHSTORE", "dst2", "Sicily", "FROMMEMBER", "Catania", "BYBOX", "10", "10", "km", "STOREDIST")
	var got []string
	for _, op := range rec.Ops() {
		got = append(got, opText(op))
	}
	want := []string{
		"zadd Sicily 3479099956230698 Palermo 3479447370796909 Catania",
		"zadd Sicily CH XX 3479065152021743 Palermo",
		"GEORADIUS Sicily 15 37 200 km STORE dst",
		"GEOSEARCHSTORE dst2 Sicily FROMMEMBER Catania BYBOX 10 10 km STOREDIST",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ops:\n%q\nwant\n%q", got, want)
	}
}
