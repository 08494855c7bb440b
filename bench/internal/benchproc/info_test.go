package benchproc

import (
	"testing"
)

func TestParseInfo(t *testing.T) {
	s := "# Memory\r\nused_memory:1234\r\nused_memory_human:1.21K\r\nmaxmemory_policy:noeviction\r\n\r\n# Other\r\nweird:a:b\r\n"
	m := ParseInfo(s)
	if n, err := InfoInt(m, "used_memory"); err != nil || n != 1234 {
		t.Errorf("used_memory = %d, %v; want 1234", n, err)
	}
	if m["maxmemory_policy"] != "noeviction" {
		t.Errorf("maxmemory_policy = %q", m["maxmemory_policy"])
	}
	if m["weird"] != "a:b" {
		t.Errorf("weird = %q, want a:b (split at the first colon)", m["weird"])
	}
	if _, ok := m["# Memory"]; ok {
		t.Error("section header parsed as a field")
	}
	if _, err := InfoInt(m, "missing"); err == nil {
		t.Error("missing field: want an error")
	}
	if _, err := InfoInt(m, "used_memory_human"); err == nil {
		t.Error("non-integer field: want an error")
	}
}
