package ds

import (
	"hash/maphash"
	"math/rand/v2"
	"unsafe"
)

// hashSeed is shared by every Dict in the process so that a hash computed
// once (for example to pick a lock stripe) is valid for any Dict. It is
// random per process, which keeps bucket placement unpredictable to clients,
// the role siphash's seed plays in Valkey.
var hashSeed = maphash.MakeSeed()

// Hash returns the hash of key used by every Dict, for the *Hashed methods.
func Hash(key []byte) uint64 { return maphash.Bytes(hashSeed, key) }

// HashString is Hash for a string key; HashString(s) == Hash([]byte(s)).
func HashString(key string) uint64 { return maphash.String(hashSeed, key) }

// Stripe maps a hash from Hash to one of n lock stripes (n > 0). It uses the
// high 32 bits, which Dict does not use to pick buckets (tables are far below
// 2^32 buckets), so the keys of one stripe still spread over the whole table
// of that stripe's Dict.
func Stripe(h uint64, n int) int {
	return int((h >> 32) * uint64(n) >> 32)
}

// bstr views b as a string without copying. The result must not outlive the
// call that made it: Dict only compares and hashes it, and copies it when it
// has to keep the key.
func bstr(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Source supplies the randomness of RandomKeyFrom, SampleFrom and
// IntSet.Random. *math/rand/v2.Rand satisfies it. A nil Source means the
// process-wide generator of math/rand/v2.
type Source interface {
	Uint64() uint64
}

func rnd(r Source) uint64 {
	if r == nil {
		return rand.Uint64()
	}
	return r.Uint64()
}
