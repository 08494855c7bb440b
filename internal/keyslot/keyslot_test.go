package keyslot

import "testing"

// The slots Valkey gives these keys (CLUSTER KEYSLOT on valkey-server
// 8.0.1, and the examples of the cluster specification).
func TestOf(t *testing.T) {
	tests := []struct {
		key  string
		want int
	}{
		{"", 0},
		{"foo", 12182},
		{"bar", 5061},
		{"123456789", 12739}, // CRC-16/XMODEM's check value 0x31C3
		{"{user1000}.following", 3443},
		{"{user1000}.followers", 3443},
		{"user1000", 3443},
		{"foo{}{bar}", 8363},    // empty first tag: the whole key
		{"foo{{bar}}zap", 4015}, // the tag is "{bar"
		{"foo{bar}{zap}", 5061}, // the first tag only
		{"{", 4092},
		{"}{", 12793},
	}
	for _, tc := range tests {
		if got := Of([]byte(tc.key)); got != tc.want {
			t.Errorf("Of(%q) = %d, want %d", tc.key, got, tc.want)
		}
	}
}
