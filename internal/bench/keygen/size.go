package keygen

import (
	"fmt"
	"math/rand/v2"
)

// Sizes picks value sizes: fixed (-d), or from a range (--data-size-range)
// either uniformly at random (pattern R) or spread linearly over the key
// range (pattern S: key min gets the smallest size, key max the largest),
// as memtier does.
type Sizes struct {
	Fixed    int
	Min, Max int
	Pattern  byte // 'R' or 'S'; only used with a range
	KeyMin   uint64
	KeyMax   uint64
}

// Validate checks the combination.
func (s Sizes) Validate() error {
	if s.Min == 0 && s.Max == 0 {
		if s.Fixed <= 0 {
			return fmt.Errorf("data-size must be greater than zero")
		}
		return nil
	}
	if s.Min < 1 || s.Max < s.Min {
		return fmt.Errorf("data-size-range must be expressed as [1-n]-[1-n]")
	}
	if s.Pattern != 'R' && s.Pattern != 'S' {
		return fmt.Errorf("data-size-pattern must be either R or S")
	}
	return nil
}

// Largest is the biggest size Pick can return; value buffers are sized to it.
func (s Sizes) Largest() int {
	if s.Min == 0 && s.Max == 0 {
		return s.Fixed
	}
	return s.Max
}

// Pick returns the size for a value stored under key index key.
func (s Sizes) Pick(r *rand.Rand, key uint64) int {
	if s.Min == 0 && s.Max == 0 {
		return s.Fixed
	}
	if s.Pattern == 'S' {
		if s.KeyMax <= s.KeyMin {
			return s.Min
		}
		if key < s.KeyMin {
			key = s.KeyMin
		}
		a := float64(key-s.KeyMin) / float64(s.KeyMax-s.KeyMin)
		if a > 1 {
			a = 1
		}
		return s.Min + int(float64(s.Max-s.Min)*a)
	}
	return s.Min + r.IntN(s.Max-s.Min+1)
}
