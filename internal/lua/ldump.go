package lua

import (
	"encoding/binary"
	"math"
)

// A binary chunk in Lua 5.1's format (ldump.c) for string.dump, on
// x86-64 (4-byte int, 8-byte size_t, little endian). The instructions are
// gopher-lua's, re-encoded as Lua 5.1's (opcodes renumbered, fields in
// Lua's places; MOVEN as MOVE, GETTABLEKS and SETTABLEKS as GETTABLE and
// SETTABLE, NOP as a jump to the next instruction), so a function whose
// code gopher-lua compiles as luac does dumps to the same bytes; others
// differ where the code generators do.

// luaHeader is luaU_header's.
const luaHeader = "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"

// lua51Op maps gopher-lua's opcodes to Lua 5.1's.
var lua51Op = [opCodeMax + 1]uint32{
	OP_MOVE: 0, OP_MOVEN: 0, OP_LOADK: 1, OP_LOADBOOL: 2, OP_LOADNIL: 3,
	OP_GETUPVAL: 4, OP_GETGLOBAL: 5, OP_GETTABLE: 6, OP_GETTABLEKS: 6,
	OP_SETGLOBAL: 7, OP_SETUPVAL: 8, OP_SETTABLE: 9, OP_SETTABLEKS: 9,
	OP_NEWTABLE: 10, OP_SELF: 11, OP_ADD: 12, OP_SUB: 13, OP_MUL: 14,
	OP_DIV: 15, OP_MOD: 16, OP_POW: 17, OP_UNM: 18, OP_NOT: 19, OP_LEN: 20,
	OP_CONCAT: 21, OP_JMP: 22, OP_EQ: 23, OP_LT: 24, OP_LE: 25, OP_TEST: 26,
	OP_TESTSET: 27, OP_CALL: 28, OP_TAILCALL: 29, OP_RETURN: 30,
	OP_FORLOOP: 31, OP_FORPREP: 32, OP_TFORLOOP: 33, OP_SETLIST: 34,
	OP_CLOSE: 35, OP_CLOSURE: 36, OP_VARARG: 37, OP_NOP: 22,
}

func dumpFunction(p *FunctionProto) []byte {
	b := []byte(luaHeader)
	return dumpProto(b, p, "")
}

func dumpInt(b []byte, n int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(int32(n))) }

// dumpString is DumpString: a size_t length counting a final NUL, 0 for
// none.
func dumpString(b []byte, s string, none bool) []byte {
	if none {
		return binary.LittleEndian.AppendUint64(b, 0)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)+1))
	b = append(b, s...)
	return append(b, 0)
}

func dumpProto(b []byte, p *FunctionProto, parentSource string) []byte {
	b = dumpString(b, p.SourceName, p.SourceName == parentSource)
	b = dumpInt(b, p.LineDefined)
	b = dumpInt(b, p.LastLineDefined)
	b = append(b, p.NumUpvalues, p.NumParameters, p.IsVarArg, max(p.NumUsedRegisters, 2))
	// code
	b = dumpInt(b, len(p.Code))
	for pc := 0; pc < len(p.Code); pc++ {
		b = binary.LittleEndian.AppendUint32(b, lua51Instruction(p.Code[pc]))
		if op := opGetOpCode(p.Code[pc]); op == OP_SETLIST && opGetArgC(p.Code[pc]) == 0 && pc+1 < len(p.Code) {
			pc++ // the block number, a raw word
			b = binary.LittleEndian.AppendUint32(b, p.Code[pc])
		}
	}
	// constants
	b = dumpInt(b, len(p.Constants))
	for _, k := range p.Constants {
		switch v := k.(type) {
		case LBool:
			b = append(b, 1)
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case LNumber:
			b = append(b, 3)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v)))
		case LString:
			b = append(b, 4)
			b = dumpString(b, string(v), false)
		default:
			b = append(b, 0)
		}
	}
	b = dumpInt(b, len(p.FunctionPrototypes))
	for _, f := range p.FunctionPrototypes {
		b = dumpProto(b, f, p.SourceName)
	}
	// debug information
	b = dumpInt(b, len(p.DbgSourcePositions))
	for _, l := range p.DbgSourcePositions {
		b = dumpInt(b, l)
	}
	b = dumpInt(b, len(p.DbgLocals))
	for _, l := range p.DbgLocals {
		b = dumpString(b, l.Name, false)
		b = dumpInt(b, l.StartPc)
		// Lua's endpc is the first pc past the scope; the function's own
		// scope ends at its final return in both
		end := l.EndPc
		if end < len(p.Code)-1 {
			end++
		}
		b = dumpInt(b, end)
	}
	b = dumpInt(b, len(p.DbgUpvalues))
	for _, u := range p.DbgUpvalues {
		b = dumpString(b, u, false)
	}
	return b
}

// lua51Instruction re-encodes a gopher-lua instruction as Lua 5.1's
// (OP in bits 0-5, A 6-13, C 14-22, B 23-31; Bx and sBx in 14-31).
func lua51Instruction(inst uint32) uint32 {
	op := opGetOpCode(inst)
	a := uint32(opGetArgA(inst))
	code := lua51Op[op]
	switch op {
	case OP_NOP:
		return code | uint32(opMaxArgSbx)<<14 // JMP 0
	case OP_LOADK, OP_GETGLOBAL, OP_SETGLOBAL, OP_CLOSURE:
		return code | a<<6 | uint32(opGetArgBx(inst))<<14
	case OP_JMP, OP_FORLOOP, OP_FORPREP:
		return code | a<<6 | uint32(opGetArgSbx(inst)+opMaxArgSbx)<<14
	}
	return code | a<<6 | uint32(opGetArgC(inst))<<14 | uint32(opGetArgB(inst))<<23
}
