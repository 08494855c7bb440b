package db

import (
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// TestStripeOfHash: the inlinable shift is ds.Stripe for StripeCount, the
// mapping the rest of the keyspace (and its documentation) assumes.
func TestStripeOfHash(t *testing.T) {
	hs := []uint64{0, 1, 1 << 56, 1<<56 - 1, ^uint64(0), 0x8000_0000_0000_0000}
	for range 10000 {
		hs = append(hs, rand.Uint64())
	}
	for _, h := range hs {
		if got, want := stripeOfHash(h), ds.Stripe(h, StripeCount); got != want {
			t.Fatalf("stripeOfHash(%#x) = %d, ds.Stripe = %d", h, got, want)
		}
	}
}
