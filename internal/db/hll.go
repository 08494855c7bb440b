package db

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/corvid-kv/corvid/internal/command"
)

// HyperLogLog commands (PFADD, PFCOUNT, PFMERGE, PFDEBUG), as Valkey
// 8.0.1's hyperloglog.c. The value is a plain string (hll_repr.go holds
// its format): every command that finds a valid HLL makes the string
// "raw" first, as Valkey's dbUnshareStringValue does.
//
// PFSELFTEST names no key: LockNone.
var HLLCommands = []Handler{
	{Spec: command.Pfadd, Proc: pfaddCommand},
	{Spec: command.Pfcount, Proc: pfcountCommand},
	{Spec: command.Pfmerge, Proc: pfmergeCommand},
	{Spec: command.Pfdebug, Proc: pfdebugCommand},
	{Spec: command.Pfselftest, Proc: pfselftestCommand, Lock: LockNone},
}

// hllSparseMaxBytes is hll-sparse-max-bytes.
func (c *Ctx) hllSparseMaxBytes() int { return int(c.KS.cfg.hllSparseMax.Load()) }

// hllCheck is Valkey's isHLLObjectOrReply: o must be a string holding a
// well-formed HLL header; it writes the error otherwise.
func (c *Ctx) hllCheck(o *Object) bool {
	if o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return false
	}
	if !isHLL(o.Str()) {
		c.W.Error(errHLLWrongType)
		return false
	}
	return true
}

// PFADD key [element ...]
func pfaddCommand(c *Ctx) {
	key := c.Argv[1]
	o := c.LookupWrite(key)
	updated := 0
	if o == nil {
		o = c.Create(key, TypeString)
		o.SetStr(newHLL())
		o.SetForm(StrRaw)
		updated++
	} else {
		if !c.hllCheck(o) {
			return
		}
		o.SetForm(StrRaw)
	}
	maxBytes := c.hllSparseMaxBytes()
	for _, ele := range c.Argv[2:] {
		b, r := hllAdd(o.Str(), ele, maxBytes)
		o.SetStr(b)
		switch r {
		case 1:
			updated++
		case -1:
			// Registers set before the corruption showed stay set, as in
			// Valkey, which counts no change for them.
			c.remeasure(key)
			c.W.Error(errHLLInvalid)
			return
		}
	}
	if updated > 0 {
		hllInvalidateCache(o.Str())
		c.Touch(key)
		c.Dirty += updated - 1 // Valkey adds every changed register
		c.Notify(NotifyString, "pfadd", key)
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// PFCOUNT key [key ...]
//
// One key: the cached cardinality, or a fresh one, which is stored in
// the header; that changes the string, so it counts as a write and is
// propagated (PFCOUNT is may-replicate), with no keyspace event. Several
// keys: the cardinality of their union, stored nowhere.
func pfcountCommand(c *Ctx) {
	if len(c.Argv) > 2 {
		var max [hllRegisters]uint8
		for _, key := range c.Argv[1:] {
			o := c.LookupRead(key)
			if o == nil {
				continue
			}
			if !c.hllCheck(o) {
				return
			}
			if !hllMerge(&max, o.Str()) {
				c.W.Error(errHLLInvalid)
				return
			}
		}
		c.W.Int(int64(hllCountRaw(&max)))
		return
	}
	key := c.Argv[1]
	o := c.LookupRead(key)
	if o == nil {
		c.W.Int(0)
		return
	}
	if !c.hllCheck(o) {
		return
	}
	o.SetForm(StrRaw)
	if hllValidCache(o.Str()) {
		c.W.Int(int64(hllCachedCard(o.Str())))
		return
	}
	card, invalid := hllCountValue(o.Str())
	if invalid {
		c.W.Error(errHLLInvalid)
		return
	}
	c.KS.beforeWrite(c.DB, key, o)
	hllSetCachedCard(o.Str(), card)
	c.Touch(key)
	c.W.Int(int64(card))
}

// PFMERGE destkey [sourcekey ...]
func pfmergeCommand(c *Ctx) {
	var max [hllRegisters]uint8
	useDense := false
	dest := c.Argv[1]
	for _, key := range c.Argv[1:] {
		o := c.LookupRead(key)
		if o == nil {
			continue
		}
		if !c.hllCheck(o) {
			return
		}
		if o.Str()[4] == hllDense {
			useDense = true
		}
		if !hllMerge(&max, o.Str()) {
			c.W.Error(errHLLInvalid)
			return
		}
	}
	o := c.LookupWrite(dest)
	if o == nil {
		o = c.Create(dest, TypeString)
		o.SetStr(newHLL())
	}
	o.SetForm(StrRaw)
	if useDense {
		d, ok := hllSparseToDense(o.Str())
		if !ok { // not reached: dest was merged above
			c.W.Error(errHLLInvalid)
			return
		}
		o.SetStr(d)
		regs := d[hllHdrSize:]
		for j, v := range max {
			hllDenseSetReg(regs, j, v)
		}
	} else {
		maxBytes := c.hllSparseMaxBytes()
		s := o.Str()
		for j, v := range max {
			if v == 0 {
				continue
			}
			if s[4] == hllDense {
				hllDenseSet(s[hllHdrSize:], j, v)
			} else {
				s, _ = hllSparseSet(s, j, v, maxBytes)
			}
		}
		o.SetStr(s)
	}
	hllInvalidateCache(o.Str())
	c.Touch(dest)
	// A mass-add of elements: Valkey announces it as PFADD.
	c.Notify(NotifyString, "pfadd", dest)
	c.W.OK()
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key
//
// GETREG and TODENSE convert a sparse HLL to dense for good; that counts
// as a change (propagated) though, as in Valkey, no one watching the key
// is told.
func pfdebugCommand(c *Ctx) {
	sub := c.Argv[1]
	key := c.Argv[2]
	o := c.LookupWrite(key)
	if o == nil {
		c.W.Error("ERR The specified key does not exist")
		return
	}
	if !c.hllCheck(o) {
		return
	}
	o.SetForm(StrRaw)
	switch {
	case EqualFold(sub, "getreg"):
		if o.Str()[4] == hllSparse {
			if !c.hllToDense(key, o) {
				return
			}
		}
		regs := o.Str()[hllHdrSize:]
		c.W.ArrayLen(hllRegisters)
		for j := 0; j < hllRegisters; j++ {
			c.W.Int(int64(hllDenseGet(regs, j)))
		}
	case EqualFold(sub, "decode"):
		if o.Str()[4] != hllSparse {
			c.W.Error("ERR HLL encoding is not sparse")
			return
		}
		c.W.Bulk(hllDecode(o.Str()))
	case EqualFold(sub, "encoding"):
		if o.Str()[4] == hllDense {
			c.W.Simple("dense")
		} else {
			c.W.Simple("sparse")
		}
	case EqualFold(sub, "todense"):
		if o.Str()[4] == hllSparse {
			if !c.hllToDense(key, o) {
				return
			}
			c.W.Int(1)
			return
		}
		c.W.Int(0)
	default:
		c.W.Error("ERR Unknown PFDEBUG subcommand '" + string(sub) + "'")
	}
}

// hllToDense converts o (sparse) to dense in place, for PFDEBUG.
func (c *Ctx) hllToDense(key []byte, o *Object) bool {
	d, ok := hllSparseToDense(o.Str())
	if !ok {
		c.W.Error(errHLLInvalid)
		return false
	}
	c.KS.beforeWrite(c.DB, key, o)
	o.SetStr(d)
	c.Dirty++ // propagated, as Valkey forces it; no signalModifiedKey
	c.remeasure(key)
	return true
}

// hllDecode is PFDEBUG DECODE's text: "z:n", "Z:n" and "v:value,n" for
// the opcodes, space-separated.
func hllDecode(s []byte) []byte {
	var out []byte
	for p := hllHdrSize; p < len(s); {
		b := s[p]
		switch {
		case spIsZero(b):
			out = append(out, "z:"...)
			out = strconv.AppendInt(out, int64(spZeroLen(b)), 10)
			p++
		case spIsXZero(b):
			out = append(out, "Z:"...)
			out = strconv.AppendInt(out, int64(spXZeroLen(s, p)), 10)
			p += 2
		default:
			out = append(out, "v:"...)
			out = strconv.AppendInt(out, int64(spValValue(b)), 10)
			out = append(out, ',')
			out = strconv.AppendInt(out, int64(spValLen(b)), 10)
			p++
		}
		out = append(out, ' ')
	}
	if len(out) > 0 {
		out = out[:len(out)-1]
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

// PFSELFTEST
func pfselftestCommand(c *Ctx) {
	if msg := hllSelfTest(1000, 10000000, c.hllSparseMaxBytes()); msg != "" {
		c.W.Error(msg)
		return
	}
	c.W.OK()
}

// hllSelfTest is Valkey's PFSELFTEST with its sizes as parameters: the
// register access test (cycles rounds of random values) and the
// approximation test (dense and sparse fed the same elements, compared
// with each other and with the true count at every power of ten up to
// elements). It returns the error, or "".
func hllSelfTest(cycles, elements, maxBytes int) string {
	dense := make([]byte, hllDenseSize)
	regs := dense[hllHdrSize:]
	var bytecounters [hllRegisters]uint8
	for j := 0; j < cycles; j++ {
		for i := range bytecounters {
			r := uint8(rand.Uint32() & hllRegisterMax)
			bytecounters[i] = r
			hllDenseSetReg(regs, i, r)
		}
		for i := range bytecounters {
			if v := hllDenseGet(regs, i); v != bytecounters[i] {
				return "ERR TESTFAILED Register " + strconv.Itoa(i) + " should be " +
					strconv.Itoa(int(bytecounters[i])) + " but is " + strconv.Itoa(int(v))
			}
		}
	}
	clear(regs)
	copy(dense, "HYLL")
	sparse := newHLL()
	relerr := 1.04 / math.Sqrt(hllRegisters)
	checkpoint := 1
	seed := rand.Uint64()
	var ele [8]byte
	for j := 1; j <= elements; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		hllAdd(dense, ele[:], maxBytes)
		sparse, _ = hllAdd(sparse, ele[:], maxBytes)
		if j != checkpoint {
			continue
		}
		if j < maxBytes/2 && sparse[4] != hllSparse {
			return "ERR TESTFAILED sparse encoding not used"
		}
		dc, _ := hllCountValue(dense)
		if sc, _ := hllCountValue(sparse); dc != sc {
			return "ERR TESTFAILED dense/sparse disagree"
		}
		abserr := int64(checkpoint) - int64(dc)
		maxerr := int64(math.Ceil(relerr * 6 * float64(checkpoint)))
		if j == 10 {
			maxerr = 1
		}
		if abserr < 0 {
			abserr = -abserr
		}
		if abserr > maxerr {
			return "ERR TESTFAILED Too big error. card:" + strconv.Itoa(checkpoint) +
				" abserr:" + strconv.FormatInt(abserr, 10)
		}
		checkpoint *= 10
	}
	return ""
}
