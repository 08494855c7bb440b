package lua

// Lua 5.1's runtime type errors (ldebug.c): "attempt to index local 't'
// (a nil value)". The operation names the value it failed on when the
// value is in a register of the running Lua function, by what put it
// there (getobjname): a local variable, a global, a field or a method
// read with a constant name, an upvalue. The bytecode is gopher-lua's,
// read as Lua 5.1's symbexec reads its own: the last instruction before
// the failing one that wrote the register, following forward jumps that
// do not pass the failing instruction.

// typeError raises luaG_typeerror's error for v, an operand of the
// running Lua function's current instruction in register reg (-1: not in
// a register, a constant or a value computed on the way).
func (ls *LState) typeError(v LValue, reg int, op string) {
	if kind, name := ls.objName(ls.currentFrame, reg); kind != "" {
		ls.runError("attempt to %s %s '%s' (a %s value)", op, kind, name, v.Type().String())
	}
	ls.runError("attempt to %s a %s value", op, v.Type().String())
}

// runError raises luaG_runerror's error: placed at the running function
// when it is Lua code, nowhere when a Go function raised it (rawset's
// "table index is nil"); RaiseError is luaL_error, placed at the Go
// function's caller.
func (ls *LState) runError(format string, args ...interface{}) {
	if cf := ls.currentFrame; cf != nil && !cf.Fn.IsG {
		ls.raiseError(1, format, args...)
	}
	ls.raiseError(0, format, args...)
}

// opReg returns the register the running Lua function's current
// instruction reads the operand of op ("index", "call") from, or -1.
func (ls *LState) opReg(op string) int {
	cf := ls.currentFrame
	if cf == nil || cf.Fn.IsG || cf.Pc < 1 {
		return -1
	}
	inst := cf.Fn.Proto.Code[cf.Pc-1]
	switch opGetOpCode(inst) {
	case OP_GETTABLE, OP_GETTABLEKS, OP_SELF:
		if op == "index" {
			return opGetArgB(inst)
		}
	case OP_SETTABLE, OP_SETTABLEKS:
		if op == "index" {
			return opGetArgA(inst)
		}
	case OP_CALL, OP_TAILCALL:
		if op == "call" {
			return opGetArgA(inst)
		}
	case OP_TFORLOOP:
		if op == "call" {
			return opGetArgA(inst) + 3 // Lua calls a copy of the generator
		}
	}
	return -1
}

// rkReg is the register of an RK operand, -1 for a constant.
func rkReg(rk int) int {
	if opIsK(rk) {
		return -1
	}
	return rk
}

// objName is getobjname: how register reg of frame cf got its value,
// ("", "") when it cannot tell.
func (ls *LState) objName(cf *callFrame, reg int) (kind, name string) {
	if reg < 0 || cf == nil || cf.Fn.IsG || cf.Pc < 1 {
		return "", ""
	}
	p := cf.Fn.Proto
	return objName(p, cf.Pc-1, reg)
}

func objName(p *FunctionProto, pc, reg int) (kind, name string) {
	for depth := 0; depth < 256; depth++ {
		if name, ok := localName(p, reg+1, pc); ok {
			return "local", name
		}
		inst := symbexec(p, pc, reg)
		switch opGetOpCode(inst) {
		case OP_GETGLOBAL:
			return "global", constName(p, opGetArgBx(inst))
		case OP_MOVE, OP_MOVEN:
			a, b := opGetArgA(inst), opGetArgB(inst)
			if b < a {
				reg = b // the name of what was moved
				continue
			}
		case OP_GETTABLE, OP_GETTABLEKS:
			return "field", kname(p, opGetArgC(inst))
		case OP_GETUPVAL:
			if b := opGetArgB(inst); b < len(p.DbgUpvalues) {
				return "upvalue", p.DbgUpvalues[b]
			}
			return "upvalue", "?"
		case OP_SELF:
			return "method", kname(p, opGetArgC(inst))
		}
		return "", ""
	}
	return "", ""
}

// kname is the name of a key operand: a string constant's text, else "?".
func kname(p *FunctionProto, rk int) string {
	if opIsK(rk) {
		return constName(p, opIndexK(rk))
	}
	return "?"
}

func constName(p *FunctionProto, i int) string {
	if i < len(p.Constants) {
		if s, ok := p.Constants[i].(LString); ok {
			return string(s)
		}
	}
	return "?"
}

// localName is luaF_getlocalname: the name of the n-th local variable
// active at pc (registers hold the active locals in order).
func localName(p *FunctionProto, n, pc int) (string, bool) {
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc <= l.EndPc {
			n--
			if n == 0 {
				return l.Name, true
			}
		}
	}
	return "", false
}

// symbexec returns the last instruction before lastpc that changed
// register reg (the function's final return when none did).
func symbexec(p *FunctionProto, lastpc, reg int) uint32 {
	code := p.Code
	last := len(code) - 1 // the final return, a neutral instruction
	for pc := 0; pc < lastpc && pc < len(code); pc++ {
		inst := code[pc]
		op := opGetOpCode(inst)
		a := opGetArgA(inst)
		switch op {
		case OP_MOVE, OP_MOVEN, OP_LOADK, OP_LOADBOOL, OP_GETUPVAL, OP_GETGLOBAL,
			OP_GETTABLE, OP_GETTABLEKS, OP_NEWTABLE, OP_ADD, OP_SUB, OP_MUL, OP_DIV,
			OP_MOD, OP_POW, OP_UNM, OP_NOT, OP_LEN, OP_CONCAT, OP_TEST, OP_TESTSET,
			OP_CLOSURE, OP_VARARG:
			if a == reg {
				last = pc
			}
		case OP_LOADNIL:
			if a <= reg && reg <= opGetArgB(inst) {
				last = pc
			}
		case OP_SELF:
			if a == reg || a+1 == reg {
				last = pc
			}
		case OP_TFORLOOP:
			if reg >= a+2 {
				last = pc
			}
		case OP_CALL, OP_TAILCALL:
			if reg >= a {
				last = pc
			}
		case OP_FORLOOP, OP_FORPREP, OP_JMP:
			if op != OP_JMP && a == reg {
				last = pc
			}
			// a forward jump that does not pass lastpc is taken
			sbx := opGetArgSbx(inst)
			if dest := pc + 1 + sbx; pc < dest && dest <= lastpc {
				pc += sbx
			}
		case OP_SETLIST:
			if opGetArgC(inst) == 0 {
				pc++ // the next word is the count
			}
		}
		if op == OP_CLOSURE {
			// its upvalues' pseudo-instructions are not executed
			if bx := opGetArgBx(inst); bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		}
	}
	if last < 0 {
		return 0
	}
	return code[last]
}

// ordError is luaG_ordererror: comparing values of other types than two
// numbers or two strings.
func (ls *LState) ordError(lhs, rhs LValue) {
	t1, t2 := lhs.Type().String(), rhs.Type().String()
	if t1[2] == t2[2] { // Lua compares the names' third letters
		ls.runError("attempt to compare two %s values", t1)
	}
	ls.runError("attempt to compare %s with %s", t1, t2)
}

// calledName is getfuncname for the running Go function: the name its
// Lua caller called it by and how ("global", "method", ...), for
// luaL_argerror.
func (ls *LState) calledName() (name, namewhat string) {
	cf := ls.currentFrame
	if cf == nil || cf.Parent == nil {
		return "", ""
	}
	if !cf.Fn.IsG && cf.TailCall > 0 {
		return "", ""
	}
	caller := cf.Parent
	if caller.Fn.IsG || caller.Pc < 1 {
		return "", ""
	}
	inst := caller.Fn.Proto.Code[caller.Pc-1]
	switch opGetOpCode(inst) {
	case OP_CALL, OP_TAILCALL, OP_TFORLOOP:
		kind, name := ls.objName(caller, opGetArgA(inst))
		return name, kind
	}
	return "", ""
}

// argError is luaL_argerror.
func (ls *LState) argError(n int, extramsg string) {
	name, namewhat := ls.calledName()
	if namewhat == "method" {
		n-- // self is not counted
		if n == 0 {
			ls.RaiseError("calling '%s' on bad self (%s)", name, extramsg)
		}
	}
	if name == "" {
		name = "?"
	}
	ls.RaiseError("bad argument #%d to '%s' (%s)", n, name, extramsg)
}

// indexError raises the error of indexing v, which is not a table and
// has no metamethod; loop is the step of the __index chain (only the
// operand itself, step 0, is in a register).
func (ls *LState) indexError(v LValue, loop int) {
	reg := -1
	if loop == 0 {
		reg = ls.opReg("index")
	}
	ls.typeError(v, reg, "index")
}

// concatReg is the register of the running Lua function that the stack
// slot at abs is, when the current instruction is a CONCAT (its operands
// are consecutive registers), else -1.
func (ls *LState) concatReg(abs int) int {
	cf := ls.currentFrame
	if cf == nil || cf.Fn.IsG || cf.Pc < 1 || opGetOpCode(cf.Fn.Proto.Code[cf.Pc-1]) != OP_CONCAT {
		return -1
	}
	return abs - cf.LocalBase
}
