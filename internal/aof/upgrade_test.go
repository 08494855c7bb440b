package aof

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUpgradeOldStyle(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "appendonlydir")
	old := append(fakeRDB("pre"), cmd("SET tail 1")...)
	os.WriteFile(filepath.Join(data, "appendonly.aof"), old, 0o644)
	var logs []string
	logf := func(f string, a ...any) { logs = append(logs, f) }
	ok, err := UpgradeOldStyle(data, "appendonlydir", "appendonly.aof", logf)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if m, _ := ReadManifest(dir, "appendonly.aof"); m.String() != "file appendonly.aof seq 1 type b\n" {
		t.Fatal(m)
	}
	if _, err := os.Stat(filepath.Join(data, "appendonly.aof")); !os.IsNotExist(err) {
		t.Fatal("old file still in the data dir")
	}
	// Nothing more to do the second time.
	if ok, err := UpgradeOldStyle(data, "appendonlydir", "appendonly.aof", logf); ok || err != nil {
		t.Fatal(ok, err)
	}
	var c collector
	var rdb string
	o := c.opts(false)
	o.RDB = readFakeRDB(&rdb)
	var lines []string
	o.Logf = func(f string, a ...any) { lines = append(lines, f) }
	if _, err := Load(dir, "appendonly.aof", o); err != nil {
		t.Fatal(err)
	}
	if rdb != "REDIS0011pre" || len(c.cmds) != 1 || lines[0] != "Reading RDB preamble from AOF file..." ||
		lines[1] != "Reading the remaining AOF tail..." {
		t.Fatal(rdb, c.cmds, lines)
	}
	// A crash after the manifest but before the rename: completed later.
	data2 := t.TempDir()
	os.WriteFile(filepath.Join(data2, "appendonly.aof"), old, 0o644)
	os.MkdirAll(filepath.Join(data2, "appendonlydir"), 0o755)
	WriteManifest(filepath.Join(data2, "appendonlydir"), "appendonly.aof",
		&Manifest{Base: &FileInfo{Name: "appendonly.aof", Seq: 1, Type: Base}})
	if ok, err := UpgradeOldStyle(data2, "appendonlydir", "appendonly.aof", nil); !ok || err != nil {
		t.Fatal(ok, err)
	}
	// A multi-part AOF already in place: the stray file is left alone.
	w := openTest(t, filepath.Join(data2, "other"), Options{})
	w.Close()
	os.WriteFile(filepath.Join(data2, "appendonly.aof"), old, 0o644)
	if ok, _ := UpgradeOldStyle(data2, "other", "appendonly.aof", nil); ok {
		t.Fatal("upgraded over a multi-part AOF")
	}
	if _, err := os.Stat(filepath.Join(data2, "appendonly.aof")); err != nil {
		t.Fatal(err)
	}
}
