package resp

import "testing"

func TestAppendRepr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{"a\"\\\n\r\t\a\b\x00\xffz", `"a\"\\\n\r\t\a\b\x00\xffz"`},
		{"sp ace~", `"sp ace~"`},
		{"q\"\\\n\t\xfe", `"q\"\\\n\t\xfe"`},
	} {
		if got := string(AppendRepr(nil, tc.in)); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.in, got, tc.want)
		}
		if got := string(AppendRepr(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("[]byte %q: %s, want %s", tc.in, got, tc.want)
		}
		// SplitArgs reads it back (a line ends at a NUL, as in C).
		if containsNUL(tc.in) {
			continue
		}
		argv, ok := SplitArgs(nil, AppendRepr(nil, tc.in))
		if !ok || len(argv) != 1 || string(argv[0]) != tc.in {
			t.Errorf("%q: SplitArgs read back %q ok=%v", tc.in, argv, ok)
		}
	}
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
