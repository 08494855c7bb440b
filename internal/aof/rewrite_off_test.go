package aof

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRewriteOff: a rewrite with the AOF off leaves a manifest listing
// only the new base, whether the directory was empty or held a whole
// AOF (whose files become history and are deleted), and the result
// loads.
func TestRewriteOff(t *testing.T) {
	for _, existing := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "appendonlydir")
		if existing {
			w, err := Open(dir, "appendonly.aof", Options{FlushInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			w.Append([]byte("*3\r\n$3\r\nSET\r\n$3\r\nold\r\n$1\r\n1\r\n"))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		r, err := RewriteOff(dir, "appendonly.aof", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.File().Write([]byte("*3\r\n$3\r\nSET\r\n$3\r\nnew\r\n$1\r\n2\r\n")); err != nil {
			t.Fatal(err)
		}
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(dir, "appendonly.aof")
		if err != nil {
			t.Fatal(err)
		}
		if m.Base == nil || len(m.Incr) != 0 || len(m.History) != 0 {
			t.Fatalf("existing=%v: manifest %q", existing, m.AppendText(nil))
		}
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if want := []string{m.Base.Name, "appendonly.aof.manifest"}; !slices.Equal(names, want) {
			t.Fatalf("existing=%v: files %v, want %v", existing, names, want)
		}
		var got []string
		if _, err := Load(dir, "appendonly.aof", LoadOptions{Command: func(argv [][]byte) error {
			got = append(got, string(argv[1]))
			return nil
		}}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []string{"new"}) {
			t.Fatalf("existing=%v: loaded %v", existing, got)
		}
	}
}
