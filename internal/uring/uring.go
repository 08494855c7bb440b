// Package uring is a minimal io_uring for socket I/O: the submission and
// completion queues, the handful of operations an event loop needs
// (receive, send, read, accept) and one system call, Enter, that submits
// what was queued and waits for completions.
//
// Why hand-written: the loop needs five operations and the ring's memory
// layout; the Go io_uring libraries are ports of liburing's whole
// surface, and none is needed to use these (the ABI is
// include/uapi/linux/io_uring.h).
//
// The ring is set up with IORING_SETUP_SINGLE_ISSUER and
// IORING_SETUP_DEFER_TASKRUN (Linux 6.1): completions are produced only
// inside Enter, on the thread that created the ring, so a loop that is
// busy is never interrupted to post them.
//
// Invariants: one goroutine, locked to the OS thread that called New,
// makes every call (SINGLE_ISSUER: the kernel refuses others). A buffer
// passed to Recv, Send or Read belongs to the kernel until the operation's
// completion has been seen; the caller must keep it reachable until then
// (Go's collector does not move heap objects, but it frees unreachable
// ones). No locking.
package uring

import (
	"errors"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The kernel's structures.
type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqOffsets
	cqOff                                                                  cqOffsets
}

type sqOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// getEventsArg is struct io_uring_getevents_arg (IORING_ENTER_EXT_ARG).
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64
}

const (
	opRead   = 22
	opSend   = 26
	opRecv   = 27
	opAccept = 13

	opProvideBuffers = 31

	recvsendPollFirst = 1 << 0 // in sqe.ioprio
	sqeFixedFile      = 1 << 0 // IOSQE_FIXED_FILE, in sqe.flags
	sqeBufferSelect   = 1 << 5 // IOSQE_BUFFER_SELECT, in sqe.flags

	// CQEBuffer (IORING_CQE_F_BUFFER) in a completion's flags: the
	// operation used a provided buffer, whose id is flags>>CQEBufferShift.
	CQEBuffer      = 1 << 0
	CQEBufferShift = 16

	registerFiles2       = 13 // IORING_REGISTER_FILES2
	registerFilesUpdate2 = 14 // IORING_REGISTER_FILES_UPDATE2
	rsrcRegisterSparse   = 1 << 0

	setupCQSize       = 1 << 3
	setupSingleIssuer = 1 << 12
	setupDeferTaskrun = 1 << 13

	enterGetEvents = 1 << 0
	enterExtArg    = 1 << 3

	featSingleMmap = 1 << 0
	featExtArg     = 1 << 8

	offSQRing = 0
	offSQEs   = 0x10000000

	sysSetup    = 425 // the same numbers on amd64 and arm64
	sysEnter    = 426
	sysRegister = 427
)

// rsrcRegister is struct io_uring_rsrc_register; rsrcUpdate2 is struct
// io_uring_rsrc_update2.
type rsrcRegister struct {
	nr, flags  uint32
	resv2      uint64
	data, tags uint64
}

type rsrcUpdate2 struct {
	offset, resv uint32
	data, tags   uint64
	nr, resv2    uint32
}

// Ring is one io_uring instance.
type Ring struct {
	fd     int
	rings  []byte // the SQ and CQ rings (one mapping: IORING_FEAT_SINGLE_MMAP)
	sqeMem []byte

	sqHead, sqTail, sqMask *uint32
	sqes                   []sqe
	cqHead, cqTail, cqMask *uint32
	cqes                   []cqe

	tail uint32 // entries queued locally, published by Enter

	// keep holds the buffer of each entry's operation until the kernel
	// has consumed the entry. It makes every buffer passed in escape to
	// the heap: a buffer on a goroutine stack could be reused (or moved,
	// when the stack grows) before the kernel has read or filled it. It
	// does not keep buffers alive until their completions (an entry is
	// consumed sooner); callers do that. Enter clears the entries the
	// kernel has consumed (up to sqHead; dropped counts them), so a ring
	// idle after a burst of large receives does not hold their buffers.
	keep    [][]byte
	dropped uint32

	// Enter's timeout, in the heap so that the addresses handed to the
	// kernel are stable.
	arg getEventsArg
	ts  syscall.Timespec

	// Raw makes Enter's wait a raw system call that keeps the P (see
	// Enter).
	Raw bool
}

// ErrUnsupported reports a kernel (or sandbox) without the io_uring
// features this package needs.
var ErrUnsupported = errors.New("uring: io_uring with SINGLE_ISSUER, DEFER_TASKRUN and EXT_ARG not available")

// New sets up a ring with room for entries queued operations (a power of
// two) and four times as many completions.
func New(entries uint32) (*Ring, error) {
	p := params{flags: setupCQSize | setupSingleIssuer | setupDeferTaskrun, cqEntries: 4 * entries}
	fd, _, e := syscall.Syscall(sysSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		if e == syscall.ENOSYS || e == syscall.EPERM || e == syscall.EINVAL {
			return nil, ErrUnsupported
		}
		return nil, e
	}
	r := &Ring{fd: int(fd)}
	if p.features&featSingleMmap == 0 || p.features&featExtArg == 0 {
		r.Close()
		return nil, ErrUnsupported
	}
	size := max(int(p.sqOff.array)+4*int(p.sqEntries), int(p.cqOff.cqes)+int(unsafe.Sizeof(cqe{}))*int(p.cqEntries))
	var err error
	if r.rings, err = syscall.Mmap(r.fd, offSQRing, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		r.Close()
		return nil, err
	}
	if r.sqeMem, err = syscall.Mmap(r.fd, offSQEs, int(unsafe.Sizeof(sqe{}))*int(p.sqEntries), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		r.Close()
		return nil, err
	}
	at := func(off uint32) unsafe.Pointer { return unsafe.Pointer(&r.rings[off]) }
	r.sqHead, r.sqTail, r.sqMask = (*uint32)(at(p.sqOff.head)), (*uint32)(at(p.sqOff.tail)), (*uint32)(at(p.sqOff.ringMask))
	r.cqHead, r.cqTail, r.cqMask = (*uint32)(at(p.cqOff.head)), (*uint32)(at(p.cqOff.tail)), (*uint32)(at(p.cqOff.ringMask))
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*cqe)(at(p.cqOff.cqes)), p.cqEntries)
	// The SQ array maps ring slots to entries; the identity, once.
	array := unsafe.Slice((*uint32)(at(p.sqOff.array)), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.tail = atomic.LoadUint32(r.sqTail)
	r.dropped = atomic.LoadUint32(r.sqHead)
	r.keep = make([][]byte, len(r.sqes))
	return r, nil
}

// Close unmaps and closes the ring. The kernel cancels what is still in
// flight; callers that handed it buffers should first wait for those
// completions.
func (r *Ring) Close() {
	if r.rings != nil {
		syscall.Munmap(r.rings)
	}
	if r.sqeMem != nil {
		syscall.Munmap(r.sqeMem)
	}
	syscall.Close(r.fd)
	r.rings, r.sqeMem, r.sqes, r.cqes = nil, nil, nil, nil
}

// next returns the next submission entry, zeroed, with p (the
// operation's buffer, or nil) recorded in keep; when the queue is full it
// submits first.
func (r *Ring) next(p []byte) *sqe {
	for r.tail-atomic.LoadUint32(r.sqHead) >= uint32(len(r.sqes)) {
		r.Enter(0, 0)
	}
	i := r.tail & *r.sqMask
	r.keep[i] = p
	s := &r.sqes[i]
	*s = sqe{addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(p)))), len: uint32(len(p))}
	r.tail++
	return s
}

// File names the socket of a receive or send: a descriptor (Fd) or a slot
// of the ring's registered file table (Fixed), which spares the kernel
// looking the descriptor up in the process's file table and taking a
// reference to the file (fget, fput) on every operation.
type File struct {
	n     int32
	fixed bool
}

// Fd names descriptor fd.
func Fd(fd int) File { return File{n: int32(fd)} }

// Fixed names slot i of the registered file table (RegisterFiles,
// UpdateFile).
func Fixed(i int) File { return File{n: int32(i), fixed: true} }

func (s *sqe) setFile(f File) {
	s.fd = f.n
	if f.fixed {
		s.flags |= sqeFixedFile
	}
}

// Recv queues recv(f, p, 0). p must not be empty. With pollFirst the
// kernel waits for the socket to be readable before it tries to receive
// (IORING_RECVSEND_POLL_FIRST): for a receive queued right after the
// reply to the last request was sent, when the peer cannot have sent the
// next one yet, that skips an attempt bound to find nothing.
func (r *Ring) Recv(f File, p []byte, pollFirst bool, userData uint64) {
	s := r.next(p)
	s.opcode, s.userData = opRecv, userData
	s.setFile(f)
	if pollFirst {
		s.ioprio = recvsendPollFirst
	}
}

// RecvSelect queues a receive of at most size bytes into a buffer the
// kernel takes from group when data arrives (IOSQE_BUFFER_SELECT): no
// buffer is tied to the receive while it waits. Its completion names the
// buffer (CQEBuffer, CompletionsFlags); ENOBUFS means the group had none.
func (r *Ring) RecvSelect(f File, size int, group uint16, userData uint64) {
	s := r.next(nil)
	s.opcode, s.userData = opRecv, userData
	s.setFile(f)
	s.flags |= sqeBufferSelect
	s.bufIndex = group
	s.len = uint32(size)
}

// ProvideBuffers queues IORING_OP_PROVIDE_BUFFERS: p holds n buffers of
// size bytes each, given to group with ids id, id+1, ... The kernel uses
// each once (RecvSelect); the caller provides it again once it has read
// it. p must stay allocated meanwhile.
func (r *Ring) ProvideBuffers(p []byte, size, n int, group uint16, id int, userData uint64) {
	s := r.next(p)
	s.opcode, s.userData = opProvideBuffers, userData
	s.fd = int32(n)
	s.len = uint32(size)
	s.off = uint64(id)
	s.bufIndex = group
}

// Send queues send(f, p, MSG_NOSIGNAL). p must not be empty.
func (r *Ring) Send(f File, p []byte, userData uint64) {
	s := r.next(p)
	s.opcode, s.userData = opSend, userData
	s.setFile(f)
	s.opFlags = syscall.MSG_NOSIGNAL
}

// RegisterFiles gives the ring a registered file table of n empty slots
// (IORING_REGISTER_FILES2, sparse; Linux 5.19). The kernel refuses more
// slots than RLIMIT_NOFILE allows.
func (r *Ring) RegisterFiles(n int) error {
	arg := rsrcRegister{nr: uint32(n), flags: rsrcRegisterSparse}
	return r.register(registerFiles2, unsafe.Pointer(&arg), unsafe.Sizeof(arg))
}

// UpdateFile installs descriptor fd in slot i of the registered file
// table, or with fd -1 empties the slot. The table holds its own
// reference to the file: a socket whose descriptor is closed stays open
// until its slot is emptied (and operations in flight on it have
// completed).
func (r *Ring) UpdateFile(i, fd int) error {
	fds := [1]int32{int32(fd)}
	arg := rsrcUpdate2{offset: uint32(i), data: uint64(uintptr(unsafe.Pointer(&fds[0]))), nr: 1}
	err := r.register(registerFilesUpdate2, unsafe.Pointer(&arg), unsafe.Sizeof(arg))
	runtime.KeepAlive(&fds)
	return err
}

// register is io_uring_register(2); with SINGLE_ISSUER only the ring's
// thread may call it.
func (r *Ring) register(op uintptr, arg unsafe.Pointer, size uintptr) error {
	for {
		_, _, e := syscall.Syscall6(sysRegister, uintptr(r.fd), op, uintptr(arg), size, 0, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return e
	}
}

// Read queues read(fd, p) (an eventfd, say).
func (r *Ring) Read(fd int, p []byte, userData uint64) {
	s := r.next(p)
	s.opcode, s.fd, s.userData = opRead, int32(fd), userData
	s.off = ^uint64(0) // the file's position: none for an eventfd or socket
}

// Accept queues accept4(fd, nil, nil, SOCK_CLOEXEC).
func (r *Ring) Accept(fd int, userData uint64) {
	s := r.next(nil)
	s.opcode, s.fd, s.userData, s.opFlags = opAccept, int32(fd), userData, syscall.SOCK_CLOEXEC
}

// Enter submits the queued operations and, when want > 0, waits until at
// least want completions are ready or timeout passes (timeout <= 0: no
// limit). It always asks for events (IORING_ENTER_GETEVENTS), with want 0
// too: under DEFER_TASKRUN the kernel posts completions only then, so a
// loop that keeps polling with want 0 (it has buffered input to run)
// would otherwise see no new completion, and the connections behind them
// would wait until it ran out of work. It is one io_uring_enter system call; it may return early (a
// signal, a full completion queue), so callers loop. An error is returned
// only for a failure other than EINTR, EAGAIN, EBUSY and ETIME.
//
// With Raw set the call is a raw system call: the goroutine keeps its P
// while it sleeps, as the epoll loops' raw waits (no P hand-off, no thread
// wake-up per round). A signal (the runtime's preemption request before a
// stop-the-world) ends such a wait with EINTR, and Enter then waits once
// through the scheduler so that the request is honoured.
func (r *Ring) Enter(want uint32, timeout time.Duration) error {
	atomic.StoreUint32(r.sqTail, r.tail)
	flags := uintptr(enterGetEvents)
	argp, argsz := uintptr(0), uintptr(0)
	if want > 0 {
		if timeout > 0 {
			r.ts = syscall.NsecToTimespec(int64(timeout))
			r.arg.ts = uint64(uintptr(unsafe.Pointer(&r.ts)))
			flags |= enterExtArg
			argp, argsz = uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg)
		}
	}
	raw := r.Raw
	for {
		// What the kernel has not consumed yet: all that was queued,
		// unless an earlier call stopped short (EBUSY, EAGAIN).
		n := r.tail - atomic.LoadUint32(r.sqHead)
		var e syscall.Errno
		if raw {
			_, _, e = syscall.RawSyscall6(sysEnter, uintptr(r.fd), uintptr(n), uintptr(want), flags, argp, argsz)
		} else {
			_, _, e = syscall.Syscall6(sysEnter, uintptr(r.fd), uintptr(n), uintptr(want), flags, argp, argsz)
		}
		r.drop()
		switch e {
		case 0, syscall.ETIME, syscall.EAGAIN, syscall.EBUSY:
			// EAGAIN, EBUSY: the kernel is short of memory or the
			// completion queue is full; the caller reaps and comes
			// back, and the next call submits what was not consumed.
			return nil
		case syscall.EINTR:
			if raw {
				raw = false
				continue
			}
			return nil
		default:
			return e
		}
	}
}

// drop forgets the buffers of the entries the kernel has consumed.
func (r *Ring) drop() {
	for h := atomic.LoadUint32(r.sqHead); r.dropped != h; r.dropped++ {
		r.keep[r.dropped&*r.sqMask] = nil
	}
}

// UserData packs an operation's kind and index (a connection's slot, say)
// into the user data its completion carries; SplitUserData unpacks it.
func UserData(kind, index uint32) uint64 { return uint64(kind)<<32 | uint64(index) }

// SplitUserData is UserData's inverse.
func SplitUserData(userData uint64) (kind, index uint32) {
	return uint32(userData >> 32), uint32(userData)
}

// Completions calls fn for every completion that is ready, in order, and
// consumes them. res is the operation's result: a count, or -errno.
func (r *Ring) Completions(fn func(userData uint64, res int32)) {
	r.CompletionsFlags(func(userData uint64, res int32, _ uint32) { fn(userData, res) })
}

// CompletionsFlags is Completions with each completion's flags
// (CQEBuffer).
func (r *Ring) CompletionsFlags(fn func(userData uint64, res int32, flags uint32)) {
	head := atomic.LoadUint32(r.cqHead)
	for tail := atomic.LoadUint32(r.cqTail); head != tail; head++ {
		c := r.cqes[head&*r.cqMask]
		fn(c.userData, c.res, c.flags)
	}
	atomic.StoreUint32(r.cqHead, head)
}
