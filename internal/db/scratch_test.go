package db

import "testing"

func TestScratchU32(t *testing.T) {
	for _, n := range []uint64{0, 1, 1000, scratchMapMin/4 + 1, 3 << 20} {
		tab, release := scratchU32(n)
		if uint64(len(tab)) != n {
			t.Fatalf("len %d, want %d", len(tab), n)
		}
		for i, v := range tab {
			if v != 0 {
				t.Fatalf("n=%d: tab[%d] = %d, want a zeroed table", n, i, v)
			}
			tab[i] = uint32(i)
		}
		for i, v := range tab {
			if v != uint32(i) {
				t.Fatalf("n=%d: tab[%d] = %d after writing %d", n, i, v, i)
			}
		}
		release()
	}
}
