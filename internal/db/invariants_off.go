//go:build !invariants

package db

// Without the invariants tag the held-stripe bookkeeping compiles to
// nothing (see invariants_on.go). Invariants lets callers skip even the
// calls (if db.Invariants { ... } is compiled out).

type heldStripes struct{}

const Invariants = false

// HoldStripe records that the dispatcher holds stripe s for the command
// (checked only with -tags invariants).
func (c *Ctx) HoldStripe(int) {}

// HoldSet records that the command holds the stripes of l.
func (c *Ctx) HoldSet(*LockSet) {}

func (c *Ctx) holdMask(*stripeMask) {}

// ReleaseHeld forgets the held stripes.
func (c *Ctx) ReleaseHeld() {}

func (c *Ctx) mustHold([]byte) {}
