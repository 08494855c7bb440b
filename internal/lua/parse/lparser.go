package parse

import (
	"io"
	"strconv"

	"github.com/corvid-kv/corvid/internal/lua/ast"
)

// The parser of Lua 5.1 (lparser.c), as a recursive descent in the same
// order: it builds gopher-lua's syntax tree instead of emitting code, but
// reads the same grammar (no goto or labels: `goto` is a name), checks
// what lparser.c checks where lparser.c checks it (so a syntax error is
// raised at the same token, with the same words) and keeps the same
// limits (LUAI_MAXVARS locals and LUAI_MAXUPVALUES upvalues per function,
// LUAI_MAXCCALLS levels of nesting).
//
// Lines: a node's line is the line Lua 5.1 gives the instruction that can
// fail for it, so that runtime errors name the same line: a call's is the
// line of its arguments' opening token, an operator's and an index's the
// line of the last token of its right operand or key (where lcode.c emits
// them), a name's or a constant's its own.

const (
	maxVars     = 200 // LUAI_MAXVARS
	maxUpvalues = 60  // LUAI_MAXUPVALUES
	maxCCalls   = 200 // LUAI_MAXCCALLS
)

// expKind is the part of lparser.c's expkind the grammar's checks need.
type expKind int

const (
	vVoid expKind = iota
	vNil
	vOther // a constant, an operation, a parenthesized expression
	vLocal
	vUpval
	vGlobal
	vIndexed
	vCall
	vVararg
)

// expDesc is an expression being parsed: its kind and its node.
type expDesc struct {
	k    expKind
	node ast.Expr
}

func hasMultRet(k expKind) bool { return k == vCall || k == vVararg }

// upvalDesc is an upvalue of a function: where it comes from in the
// enclosing function (a local's index or an upvalue's).
type upvalDesc struct {
	k    expKind
	info int
}

// blockCnt is BlockCnt.
type blockCnt struct {
	previous    *blockCnt
	nactvar     int
	isbreakable bool
}

// funcState is the part of FuncState the checks need.
type funcState struct {
	prev        *funcState
	actvar      []string // the active locals' names, by register
	pending     []string // locals declared, not active yet
	upvalues    []upvalDesc
	isVararg    bool
	linedefined int
	bl          *blockCnt
}

type parser struct {
	ls lexState
	fs *funcState
}

// Parse reads a chunk of Lua 5.1. name is the chunk's name as Lua's
// lua_load takes it ("@file", "=name", or the code itself), which syntax
// errors quote as luaO_chunkid does. The error is an *Error.
// The reader is read as the parser needs it, as Lua's is (up to the
// error, if there is one); its error other than io.EOF is Parse's.
func Parse(reader io.Reader, name string) (chunk []ast.Stmt, err error) {
	return parse("", reader, name)
}

// ParseString is Parse of a string.
func ParseString(src, name string) (chunk []ast.Stmt, err error) {
	return parse(src, nil, name)
}

func parse(src string, reader io.Reader, name string) (chunk []ast.Stmt, err error) {
	p := &parser{}
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *Error:
				chunk, err = nil, e
			case readError:
				chunk, err = nil, e.err
			default:
				panic(r)
			}
		}
	}()
	p.ls.reader = reader
	p.ls.init(src, name)
	fs := &funcState{isVararg: true} // the main function is vararg
	p.openFunc(fs)
	p.next()
	chunk = p.chunk()
	p.check(tkEOS)
	p.closeFunc()
	return chunk, nil
}

func (p *parser) next()         { p.ls.luaXNext() }
func (p *parser) tok() int      { return p.ls.t.tok }
func (p *parser) line() int     { return p.ls.linenumber }
func (p *parser) lastline() int { return p.ls.lastline }

func (p *parser) syntaxError(msg string) { p.ls.syntaxError(msg) }

func (p *parser) errorExpected(tok int) {
	p.syntaxError("'" + token2str(tok) + "' expected")
}

// errorLimit is errorlimit: "main function has more than N what".
func (p *parser) errorLimit(limit int, what string) {
	var msg string
	if p.fs.linedefined == 0 {
		msg = "main function has more than " + strconv.Itoa(limit) + " " + what
	} else {
		msg = "function at line " + strconv.Itoa(p.fs.linedefined) + " has more than " +
			strconv.Itoa(limit) + " " + what
	}
	p.ls.lexError(msg, 0)
}

func (p *parser) checkLimit(v, l int, what string) {
	if v > l {
		p.errorLimit(l, what)
	}
}

func (p *parser) testNext(c int) bool {
	if p.tok() == c {
		p.next()
		return true
	}
	return false
}

func (p *parser) check(c int) {
	if p.tok() != c {
		p.errorExpected(c)
	}
}

func (p *parser) checkNext(c int) {
	p.check(c)
	p.next()
}

func (p *parser) checkCondition(c bool, msg string) {
	if !c {
		p.syntaxError(msg)
	}
}

func (p *parser) checkMatch(what, who, where int) {
	if !p.testNext(what) {
		if where == p.line() {
			p.errorExpected(what)
		} else {
			p.syntaxError("'" + token2str(what) + "' expected (to close '" + token2str(who) +
				"' at line " + strconv.Itoa(where) + ")")
		}
	}
}

func (p *parser) strCheckName() string {
	p.check(tkName)
	s := p.ls.t.sem
	p.next()
	return s
}

// Variables.

func (p *parser) newLocalVar(name string, n int) {
	fs := p.fs
	p.checkLimit(len(fs.actvar)+n+1, maxVars, "local variables")
	fs.pending = append(fs.pending, name)
}

func (p *parser) adjustLocalVars(nvars int) {
	fs := p.fs
	fs.actvar = append(fs.actvar, fs.pending[:nvars]...)
	fs.pending = fs.pending[nvars:]
}

func (p *parser) removeVars(tolevel int) {
	p.fs.actvar = p.fs.actvar[:tolevel]
}

func (p *parser) indexUpvalue(fs *funcState, k expKind, info int) int {
	for i, u := range fs.upvalues {
		if u.k == k && u.info == info {
			return i
		}
	}
	if len(fs.upvalues)+1 > maxUpvalues {
		saved := p.fs
		p.fs = fs
		p.errorLimit(maxUpvalues, "upvalues")
		p.fs = saved
	}
	fs.upvalues = append(fs.upvalues, upvalDesc{k: k, info: info})
	return len(fs.upvalues) - 1
}

func searchVar(fs *funcState, name string) int {
	for i := len(fs.actvar) - 1; i >= 0; i-- {
		if fs.actvar[i] == name {
			return i
		}
	}
	return -1
}

// singleVarAux resolves name in fs and the functions around it: a local
// of fs, an upvalue (made so in every function between), or a global.
func (p *parser) singleVarAux(fs *funcState, name string) (expKind, int) {
	if fs == nil {
		return vGlobal, 0
	}
	if v := searchVar(fs, name); v >= 0 {
		return vLocal, v
	}
	k, info := p.singleVarAux(fs.prev, name)
	if k == vGlobal {
		return vGlobal, 0
	}
	return vUpval, p.indexUpvalue(fs, k, info)
}

func (p *parser) singleVar() expDesc {
	line := p.line()
	name := p.strCheckName()
	k, _ := p.singleVarAux(p.fs, name)
	e := &ast.IdentExpr{Value: name}
	e.SetLine(line)
	e.SetLastLine(line)
	return expDesc{k: k, node: e}
}

func (p *parser) enterLevel() {
	p.ls.nCcalls++
	if p.ls.nCcalls > maxCCalls {
		p.ls.lexError("chunk has too many syntax levels", 0)
	}
}

func (p *parser) leaveLevel() { p.ls.nCcalls-- }

func (p *parser) enterBlock(bl *blockCnt, isbreakable bool) {
	bl.isbreakable = isbreakable
	bl.nactvar = len(p.fs.actvar)
	bl.previous = p.fs.bl
	p.fs.bl = bl
}

func (p *parser) leaveBlock() {
	bl := p.fs.bl
	p.fs.bl = bl.previous
	p.removeVars(bl.nactvar)
}

func (p *parser) openFunc(fs *funcState) {
	fs.prev = p.fs
	p.fs = fs
}

func (p *parser) closeFunc() {
	p.removeVars(0)
	p.fs = p.fs.prev
}

// Grammar rules.

// field is `['.' | ':'] NAME`: v indexed by the name.
func (p *parser) field(v expDesc) expDesc {
	p.next() // skip the dot or colon
	key := p.checkName()
	return p.indexed(v, key)
}

// checkName reads a name as a string constant.
func (p *parser) checkName() ast.Expr {
	line := p.line()
	s := p.strCheckName()
	k := &ast.StringExpr{Value: s}
	k.SetLine(line)
	k.SetLastLine(line)
	return k
}

func (p *parser) indexed(v expDesc, key ast.Expr) expDesc {
	e := &ast.AttrGetExpr{Object: v.node, Key: key}
	e.SetLine(p.lastline())
	e.SetLastLine(p.lastline())
	return expDesc{k: vIndexed, node: e}
}

// yindex is `'[' expr ']'`.
func (p *parser) yindex() ast.Expr {
	p.next() // skip the '['
	v := p.expr()
	p.checkNext(']')
	return v.node
}

// Table constructors.

func (p *parser) recField(t *ast.TableExpr) {
	var key ast.Expr
	if p.tok() == tkName {
		key = p.checkName()
	} else {
		key = p.yindex()
	}
	p.checkNext('=')
	val := p.expr()
	t.Fields = append(t.Fields, &ast.Field{Key: key, Value: val.node})
}

func (p *parser) listField(t *ast.TableExpr) {
	v := p.expr()
	t.Fields = append(t.Fields, &ast.Field{Value: v.node})
}

func (p *parser) constructor() *ast.TableExpr {
	line := p.line()
	t := &ast.TableExpr{Fields: []*ast.Field{}}
	t.SetLine(line)
	p.checkNext('{')
	for {
		if p.tok() == '}' {
			break
		}
		switch p.tok() {
		case tkName: // a list field or a record field
			p.ls.luaXLookahead()
			if p.ls.lookahead.tok != '=' {
				p.listField(t)
			} else {
				p.recField(t)
			}
		case '[':
			p.recField(t)
		default:
			p.listField(t)
		}
		if !p.testNext(',') && !p.testNext(';') {
			break
		}
	}
	p.checkMatch('}', '{', line)
	t.SetLastLine(p.lastline())
	return t
}

// parList is `[ param { ',' param } ]`.
func (p *parser) parList() *ast.ParList {
	fs := p.fs
	pl := &ast.ParList{Names: []string{}}
	nparams := 0
	fs.isVararg = false
	if p.tok() != ')' {
		for {
			switch p.tok() {
			case tkName:
				name := p.strCheckName()
				p.newLocalVar(name, nparams)
				nparams++
				pl.Names = append(pl.Names, name)
			case tkDots:
				p.next()
				// LUA_COMPAT_VARARG: "arg" is a local
				p.newLocalVar("arg", nparams)
				nparams++
				fs.isVararg = true
				pl.HasVargs = true
			default:
				p.syntaxError("<name> or '...' expected")
			}
			if fs.isVararg || !p.testNext(',') {
				break
			}
		}
	}
	p.adjustLocalVars(nparams)
	return pl
}

// body is `'(' parlist ')' chunk END`.
func (p *parser) body(needself bool, line int) *ast.FunctionExpr {
	fs := &funcState{linedefined: line}
	p.openFunc(fs)
	p.checkNext('(')
	if needself {
		p.newLocalVar("self", 0)
		p.adjustLocalVars(1)
	}
	pl := p.parList()
	p.checkNext(')')
	stmts := p.chunk()
	lastline := p.line()
	p.checkMatch(tkEnd, tkFunction, line)
	p.closeFunc()
	f := &ast.FunctionExpr{ParList: pl, Stmts: stmts}
	f.SetLine(line)
	f.SetLastLine(lastline)
	return f
}

// expList1 is `expr { ',' expr }`; the last expression's kind comes too.
func (p *parser) expList1() ([]ast.Expr, expKind) {
	v := p.expr()
	list := []ast.Expr{v.node}
	for p.testNext(',') {
		v = p.expr()
		list = append(list, v.node)
	}
	return list, v.k
}

func (p *parser) funcArgs(f expDesc, call *ast.FuncCallExpr) expDesc {
	line := p.line()
	var args []ast.Expr
	switch p.tok() {
	case '(':
		if line != p.lastline() {
			p.syntaxError("ambiguous syntax (function call x new statement)")
		}
		p.next()
		if p.tok() == ')' {
			args = []ast.Expr{}
		} else {
			args, _ = p.expList1()
		}
		p.checkMatch(')', '(', line)
	case '{':
		args = []ast.Expr{p.constructor()}
	case tkString:
		s := &ast.StringExpr{Value: p.ls.t.sem}
		s.SetLine(line)
		s.SetLastLine(line)
		args = []ast.Expr{s}
		p.next()
	default:
		p.syntaxError("function arguments expected")
	}
	if call == nil {
		call = &ast.FuncCallExpr{Func: f.node}
	}
	call.Args = args
	call.SetLine(line)
	call.SetLastLine(p.lastline())
	return expDesc{k: vCall, node: call}
}

// Expressions.

// prefixExp is `NAME | '(' expr ')'`.
func (p *parser) prefixExp() expDesc {
	switch p.tok() {
	case '(':
		line := p.line()
		p.next()
		v := p.expr()
		p.checkMatch(')', '(', line)
		switch e := v.node.(type) {
		case *ast.FuncCallExpr:
			e.AdjustRet = true
		case *ast.Comma3Expr:
			e.AdjustRet = true
		}
		return expDesc{k: vOther, node: v.node}
	case tkName:
		return p.singleVar()
	default:
		p.syntaxError("unexpected symbol")
		return expDesc{}
	}
}

// primaryExp is prefixexp { '.' NAME | '[' exp ']' | ':' NAME funcargs |
// funcargs }.
func (p *parser) primaryExp() expDesc {
	v := p.prefixExp()
	for {
		switch p.tok() {
		case '.':
			v = p.field(v)
		case '[':
			key := p.yindex()
			v = p.indexed(v, key)
		case ':':
			p.next()
			name := p.strCheckName()
			v = p.funcArgs(v, &ast.FuncCallExpr{Receiver: v.node, Method: name})
		case '(', tkString, '{':
			v = p.funcArgs(v, nil)
		default:
			return v
		}
	}
}

// simpleExp is NUMBER | STRING | NIL | true | false | ... | constructor |
// FUNCTION body | primaryexp.
func (p *parser) simpleExp() expDesc {
	line := p.line()
	var v expDesc
	switch p.tok() {
	case tkNumber:
		v = expDesc{k: vOther, node: &ast.NumberExpr{Value: p.ls.t.sem}}
	case tkString:
		v = expDesc{k: vOther, node: &ast.StringExpr{Value: p.ls.t.sem}}
	case tkNil:
		v = expDesc{k: vNil, node: &ast.NilExpr{}}
	case tkTrue:
		v = expDesc{k: vOther, node: &ast.TrueExpr{}}
	case tkFalse:
		v = expDesc{k: vOther, node: &ast.FalseExpr{}}
	case tkDots:
		p.checkCondition(p.fs.isVararg, "cannot use '...' outside a vararg function")
		v = expDesc{k: vVararg, node: &ast.Comma3Expr{}}
	case '{':
		return expDesc{k: vOther, node: p.constructor()}
	case tkFunction:
		p.next()
		return expDesc{k: vOther, node: p.body(false, p.line())}
	default:
		return p.primaryExp()
	}
	v.node.SetLine(line)
	v.node.SetLastLine(line)
	p.next()
	return v
}

// Operators, in lparser.c's ORDER OPR.
const (
	oprAdd = iota
	oprSub
	oprMul
	oprDiv
	oprMod
	oprPow
	oprConcat
	oprNE
	oprEq
	oprLT
	oprLE
	oprGT
	oprGE
	oprAnd
	oprOr
	oprNone
)

var binOprNames = [...]string{"+", "-", "*", "/", "%", "^", "..", "~=", "==", "<", "<=", ">", ">=", "and", "or"}

var priority = [...]struct{ left, right int }{
	{6, 6}, {6, 6}, {7, 7}, {7, 7}, {7, 7}, // + - * / %
	{10, 9}, {5, 4}, // power and concat (right associative)
	{3, 3}, {3, 3}, // equality and inequality
	{3, 3}, {3, 3}, {3, 3}, {3, 3}, // order
	{2, 2}, {1, 1}, // logical (and/or)
}

const unaryPriority = 8

func getBinOpr(tok int) int {
	switch tok {
	case '+':
		return oprAdd
	case '-':
		return oprSub
	case '*':
		return oprMul
	case '/':
		return oprDiv
	case '%':
		return oprMod
	case '^':
		return oprPow
	case tkConcat:
		return oprConcat
	case tkNE:
		return oprNE
	case tkEq:
		return oprEq
	case '<':
		return oprLT
	case tkLE:
		return oprLE
	case '>':
		return oprGT
	case tkGE:
		return oprGE
	case tkAnd:
		return oprAnd
	case tkOr:
		return oprOr
	}
	return oprNone
}

// subExpr is (simpleexp | unop subexpr) { binop subexpr }, where binop
// is any binary operator with a priority above limit. It returns the
// first operator it did not take.
func (p *parser) subExpr(v *expDesc, limit int) int {
	p.enterLevel()
	switch uop := p.tok(); uop {
	case tkNot, '-', '#':
		p.next()
		var operand expDesc
		p.subExpr(&operand, unaryPriority)
		var e ast.Expr
		switch uop {
		case tkNot:
			e = &ast.UnaryNotOpExpr{Expr: operand.node}
		case '-':
			e = &ast.UnaryMinusOpExpr{Expr: operand.node}
		default:
			e = &ast.UnaryLenOpExpr{Expr: operand.node}
		}
		e.SetLine(p.lastline())
		e.SetLastLine(p.lastline())
		*v = expDesc{k: vOther, node: e}
	default:
		*v = p.simpleExp()
	}
	op := getBinOpr(p.tok())
	for op != oprNone && priority[op].left > limit {
		p.next()
		var v2 expDesc
		nextop := p.subExpr(&v2, priority[op].right)
		var e ast.Expr
		switch op {
		case oprAnd, oprOr:
			e = &ast.LogicalOpExpr{Operator: binOprNames[op], Lhs: v.node, Rhs: v2.node}
		case oprConcat:
			e = &ast.StringConcatOpExpr{Lhs: v.node, Rhs: v2.node}
		case oprNE, oprEq, oprLT, oprLE, oprGT, oprGE:
			e = &ast.RelationalOpExpr{Operator: binOprNames[op], Lhs: v.node, Rhs: v2.node}
		default:
			e = &ast.ArithmeticOpExpr{Operator: binOprNames[op], Lhs: v.node, Rhs: v2.node}
		}
		e.SetLine(p.lastline())
		e.SetLastLine(p.lastline())
		*v = expDesc{k: vOther, node: e}
		// lcode.c emits no test for a constant that decides `and` or
		// `or` to go on (K and e, nil or e): the value is e's own, and
		// errors name it as e.
		if op == oprAnd && isTrueConst(e.(*ast.LogicalOpExpr).Lhs) ||
			op == oprOr && isFalseConst(e.(*ast.LogicalOpExpr).Lhs) {
			switch x := v2.node.(type) { // one value, as an operand
			case *ast.FuncCallExpr:
				x.AdjustRet = true
			case *ast.Comma3Expr:
				x.AdjustRet = true
			}
			*v = expDesc{k: vOther, node: v2.node}
		}
		op = nextop
	}
	p.leaveLevel()
	return op
}

// isTrueConst reports a constant lcode.c treats as true (VK, VKNUM,
// VTRUE, and `not` of nil or false).
func isTrueConst(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.NumberExpr, *ast.StringExpr, *ast.TrueExpr:
		return true
	case *ast.UnaryNotOpExpr:
		return isFalseConst(x.Expr)
	}
	return false
}

// isFalseConst reports nil, false and `not` of a true constant.
func isFalseConst(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.NilExpr, *ast.FalseExpr:
		return true
	case *ast.UnaryNotOpExpr:
		return isTrueConst(x.Expr)
	}
	return false
}

func (p *parser) expr() expDesc {
	var v expDesc
	p.subExpr(&v, 0)
	return v
}

// Statements.

func blockFollow(tok int) bool {
	switch tok {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

func (p *parser) block() []ast.Stmt {
	var bl blockCnt
	p.enterBlock(&bl, false)
	stmts := p.chunk()
	p.leaveBlock()
	return stmts
}

// assignment is the rest of `var {',' var} '=' explist1`; the nvars
// variables in lhs have been read.
func (p *parser) assignment(lhs []expDesc, nvars int) ([]expDesc, []ast.Expr) {
	p.checkCondition(lhs[len(lhs)-1].k >= vLocal && lhs[len(lhs)-1].k <= vIndexed, "syntax error")
	if p.testNext(',') {
		nv := p.primaryExp()
		p.checkLimit(nvars, maxCCalls-p.ls.nCcalls, "variables in assignment")
		return p.assignment(append(lhs, nv), nvars+1)
	}
	p.checkNext('=')
	rhs, _ := p.expList1()
	return lhs, rhs
}

func (p *parser) cond() ast.Expr {
	return p.expr().node
}

func (p *parser) breakStat() {
	bl := p.fs.bl
	for bl != nil && !bl.isbreakable {
		bl = bl.previous
	}
	if bl == nil {
		p.syntaxError("no loop to break")
	}
}

func (p *parser) whileStat(line int) ast.Stmt {
	p.next() // skip WHILE
	c := p.cond()
	var bl blockCnt
	p.enterBlock(&bl, true)
	p.checkNext(tkDo)
	stmts := p.block()
	endline := p.line()
	p.checkMatch(tkEnd, tkWhile, line)
	p.leaveBlock()
	s := &ast.WhileStmt{Condition: c, Stmts: stmts}
	s.SetLine(line)
	s.SetLastLine(endline)
	return s
}

func (p *parser) repeatStat(line int) ast.Stmt {
	var bl1, bl2 blockCnt
	p.enterBlock(&bl1, true)  // loop block
	p.enterBlock(&bl2, false) // scope block
	p.next()                  // skip REPEAT
	stmts := p.chunk()
	p.checkMatch(tkUntil, tkRepeat, line)
	c := p.cond() // inside the scope block
	p.leaveBlock()
	p.leaveBlock()
	s := &ast.RepeatStmt{Condition: c, Stmts: stmts}
	s.SetLine(line)
	s.SetLastLine(c.LastLine())
	return s
}

// forBody is `DO block`; doline is where `do` was.
func (p *parser) forBody(nvars int, doline *int) []ast.Stmt {
	p.adjustLocalVars(3) // the control variables
	p.checkNext(tkDo)
	*doline = p.lastline()
	var bl blockCnt
	p.enterBlock(&bl, false) // the declared variables' scope
	p.adjustLocalVars(nvars)
	stmts := p.block()
	p.leaveBlock()
	return stmts
}

func (p *parser) forNum(varname string, line int) ast.Stmt {
	p.newLocalVar("(for index)", 0)
	p.newLocalVar("(for limit)", 1)
	p.newLocalVar("(for step)", 2)
	p.newLocalVar(varname, 3)
	p.checkNext('=')
	s := &ast.NumberForStmt{Name: varname}
	s.Init = p.expr().node
	p.checkNext(',')
	s.Limit = p.expr().node
	if p.testNext(',') {
		s.Step = p.expr().node
	}
	s.Stmts = p.forBody(1, &s.PrepLine)
	return s
}

func (p *parser) forList(indexname string) ast.Stmt {
	nvars := 0
	for _, n := range []string{"(for generator)", "(for state)", "(for control)"} {
		p.newLocalVar(n, nvars)
		nvars++
	}
	names := []string{indexname}
	p.newLocalVar(indexname, nvars)
	nvars++
	for p.testNext(',') {
		name := p.strCheckName()
		p.newLocalVar(name, nvars)
		nvars++
		names = append(names, name)
	}
	p.checkNext(tkIn)
	callline := p.line()
	exprs, _ := p.expList1()
	s := &ast.GenericForStmt{Names: names, Exprs: exprs, CallLine: callline}
	var doline int
	s.Stmts = p.forBody(nvars-3, &doline)
	return s
}

func (p *parser) forStat(line int) ast.Stmt {
	var bl blockCnt
	p.enterBlock(&bl, true) // the loop's and control variables' scope
	p.next()                // skip FOR
	varname := p.strCheckName()
	var s ast.Stmt
	switch p.tok() {
	case '=':
		s = p.forNum(varname, line)
	case ',', tkIn:
		s = p.forList(varname)
	default:
		p.syntaxError("'=' or 'in' expected")
	}
	endline := p.line()
	p.checkMatch(tkEnd, tkFor, line)
	p.leaveBlock()
	s.SetLine(line)
	s.SetLastLine(endline)
	return s
}

// testThenBlock is `[IF | ELSEIF] cond THEN block`.
func (p *parser) testThenBlock() *ast.IfStmt {
	line := p.line()
	p.next() // skip IF or ELSEIF
	s := &ast.IfStmt{Condition: p.cond()}
	p.checkNext(tkThen)
	s.Then = p.block()
	s.SetLine(line)
	return s
}

func (p *parser) ifStat(line int) ast.Stmt {
	first := p.testThenBlock()
	cur := first
	for p.tok() == tkElseif {
		next := p.testThenBlock()
		cur.Else = []ast.Stmt{next}
		cur = next
	}
	if p.tok() == tkElse {
		p.next()
		cur.Else = p.block()
	}
	endline := p.line()
	p.checkMatch(tkEnd, tkIf, line)
	first.SetLastLine(endline)
	return first
}

func (p *parser) localFunc(line int) ast.Stmt {
	name := p.strCheckName()
	p.newLocalVar(name, 0)
	p.adjustLocalVars(1)
	f := p.body(false, p.line())
	s := &ast.LocalAssignStmt{Names: []string{name}, Exprs: []ast.Expr{f}, Function: true}
	s.SetLine(line)
	s.SetLastLine(f.LastLine())
	return s
}

func (p *parser) localStat(line int) ast.Stmt {
	var names []string
	for {
		name := p.strCheckName()
		p.newLocalVar(name, len(names))
		names = append(names, name)
		if !p.testNext(',') {
			break
		}
	}
	exprs := []ast.Expr{}
	if p.testNext('=') {
		exprs, _ = p.expList1()
	}
	p.adjustLocalVars(len(names))
	s := &ast.LocalAssignStmt{Names: names, Exprs: exprs}
	s.SetLine(line)
	s.SetLastLine(p.lastline())
	return s
}

// funcName is `NAME {field} [':' NAME]`.
func (p *parser) funcName() (*ast.FuncName, bool) {
	v := p.singleVar()
	for p.tok() == '.' {
		v = p.field(v)
	}
	if p.tok() == ':' {
		p.next()
		return &ast.FuncName{Receiver: v.node, Method: p.strCheckName()}, true
	}
	return &ast.FuncName{Func: v.node}, false
}

func (p *parser) funcStat(line int) ast.Stmt {
	p.next() // skip FUNCTION
	name, needself := p.funcName()
	f := p.body(needself, line)
	s := &ast.FuncDefStmt{Name: name, Func: f}
	s.SetLine(line)
	s.SetLastLine(f.LastLine())
	return s
}

func (p *parser) exprStat() ast.Stmt {
	v := p.primaryExp()
	if v.k == vCall {
		s := &ast.FuncCallStmt{Expr: v.node}
		s.SetLine(v.node.Line())
		s.SetLastLine(v.node.LastLine())
		return s
	}
	lhs, rhs := p.assignment([]expDesc{v}, 1)
	s := &ast.AssignStmt{Rhs: rhs}
	for _, e := range lhs {
		s.Lhs = append(s.Lhs, e.node)
	}
	s.SetLine(v.node.Line())
	s.SetLastLine(p.lastline())
	return s
}

func (p *parser) retStat(line int) ast.Stmt {
	p.next() // skip RETURN
	s := &ast.ReturnStmt{}
	if !blockFollow(p.tok()) && p.tok() != ';' {
		s.Exprs, _ = p.expList1()
	}
	s.SetLine(line)
	s.SetLastLine(p.lastline())
	return s
}

// statement reads a statement; last reports a statement that must end
// its block (return, break).
func (p *parser) statement() (s ast.Stmt, last bool) {
	line := p.line()
	switch p.tok() {
	case tkIf:
		return p.ifStat(line), false
	case tkWhile:
		return p.whileStat(line), false
	case tkDo:
		p.next() // skip DO
		stmts := p.block()
		endline := p.line()
		p.checkMatch(tkEnd, tkDo, line)
		s := &ast.DoBlockStmt{Stmts: stmts}
		s.SetLine(line)
		s.SetLastLine(endline)
		return s, false
	case tkFor:
		return p.forStat(line), false
	case tkRepeat:
		return p.repeatStat(line), false
	case tkFunction:
		return p.funcStat(line), false
	case tkLocal:
		p.next() // skip LOCAL
		if p.testNext(tkFunction) {
			return p.localFunc(line), false
		}
		return p.localStat(line), false
	case tkReturn:
		return p.retStat(line), true
	case tkBreak:
		p.next() // skip BREAK
		p.breakStat()
		s := &ast.BreakStmt{}
		s.SetLine(line)
		s.SetLastLine(line)
		return s, true
	default:
		return p.exprStat(), false
	}
}

// chunk is { stat [';'] }.
func (p *parser) chunk() []ast.Stmt {
	stmts := []ast.Stmt{}
	last := false
	p.enterLevel()
	for !last && !blockFollow(p.tok()) {
		var s ast.Stmt
		s, last = p.statement()
		stmts = append(stmts, s)
		p.testNext(';')
	}
	p.leaveLevel()
	return stmts
}
