//go:build invariants

package db

import "fmt"

// Built with -tags invariants, a Ctx knows which stripes its command
// holds and panics when a procedure touches a key outside them: a
// procedure that reaches a key its command's key specs do not name (so
// the dispatcher did not lock it) is a data race in a normal build. CI
// runs the db and server tests this way.

// heldStripes is the set of stripes the command holds.
type heldStripes struct {
	m   stripeMask
	any bool // some stripe is held: checks apply
}

const Invariants = true

// HoldStripe records that the dispatcher holds stripe s for the command.
func (c *Ctx) HoldStripe(s int) {
	c.held.m.set(s)
	c.held.any = true
}

// HoldSet records that the command holds the stripes of l.
func (c *Ctx) HoldSet(l *LockSet) {
	c.held.m.fromLockSet(l)
	c.held.any = true
}

// holdMask records that the command holds the stripes of m.
func (c *Ctx) holdMask(m *stripeMask) {
	c.held.m = *m
	c.held.any = true
}

// ReleaseHeld forgets the held stripes (they are about to be unlocked).
func (c *Ctx) ReleaseHeld() { c.held = heldStripes{} }

// mustHold panics unless key's stripe is held (when the command holds
// any: contexts that lock nothing through these calls, such as tests'
// harnesses, are not checked).
func (c *Ctx) mustHold(key []byte) {
	if c.held.any && !c.held.m.has(c.KS.StripeOf(key)) {
		panic(fmt.Sprintf("invariants: key %q touched without its stripe (%d) held", key, c.KS.StripeOf(key)))
	}
}
