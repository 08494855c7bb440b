//go:build invariants

package db

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// TestInvariantsCatchUnlockedKey: with -tags invariants a procedure that
// touches a key whose stripe its command does not hold panics, naming it;
// one whose stripe is held runs.
func TestInvariantsCatchUnlockedKey(t *testing.T) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(64)}
	a, b := []byte("a"), []byte("b")
	for ks.StripeOf(a) == ks.StripeOf(b) {
		b = append(b, 'b')
	}
	ks.LockStripe(ks.StripeOf(a))
	c.HoldStripe(ks.StripeOf(a))
	c.SetString(a, []byte("v"), false) // held: fine
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(r.(string), "without its stripe") {
				t.Fatalf("touching an unheld key: %v", r)
			}
		}()
		c.Lookup(b)
	}()
	c.ReleaseHeld()
	ks.UnlockStripe(ks.StripeOf(a))
}
