package db

import "math/rand/v2"

// fastRandFloat is a per-call cheap random float in [0,1). math/rand/v2's
// top-level functions use a per-thread ChaCha8 source with no lock.
func fastRandFloat() float64 { return rand.Float64() }
