package main

import (
	"net"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

type epollOpts struct {
	loops      int
	spin       time.Duration
	raw        bool // read/write/zero-timeout polls as RawSyscall
	rawBlock   bool // the blocking epoll_wait as RawSyscall too (keeps the P)
	tryFirst   bool // one zero-timeout poll before the blocking wait
	lockThread bool
	slice      time.Duration // lock the loop's thread and ask for this scheduling slice
	deferWrite bool          // read every ready socket, then write every reply (corvid's netloop default)
}

// eloop is one event loop: an epoll fd and the connections it owns.
type eloop struct {
	epfd int
	efd  int // eventfd: "pending has new connections"
	opts epollOpts

	mu      sync.Mutex
	pending []int // accepted fds not yet adopted; under mu

	conns map[int]*econn // owned by the loop goroutine
	ready []*econn       // deferWrite: connections with replies to write
}

type econn struct {
	fd      int
	b       *connBuf
	wantOut bool // registered for EPOLLOUT: output pending, input paused
}

// serveEpoll accepts on Go's netpoller (accepts are rare) and hands each
// connection's fd to a loop round-robin.
func serveEpoll(ln net.Listener, o epollOpts) {
	loops := make([]*eloop, o.loops)
	for i := range loops {
		l, err := newLoop(o)
		if err != nil {
			panic(err)
		}
		loops[i] = l
		go l.run()
	}
	next := 0
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		fd, err := detachFD(c.(*net.TCPConn))
		if err != nil {
			continue
		}
		loops[next%len(loops)].adopt(fd)
		next++
	}
}

// detachFD takes the socket out of Go's netpoller: it duplicates the fd,
// closes the net.Conn (which deregisters the original), and makes the
// duplicate non-blocking with TCP_NODELAY.
func detachFD(c *net.TCPConn) (int, error) {
	c.SetNoDelay(true)
	f, err := c.File()
	c.Close()
	if err != nil {
		return -1, err
	}
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func newLoop(o epollOpts) (*eloop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &ev); err != nil {
		return nil, err
	}
	return &eloop{epfd: epfd, efd: efd, opts: o, conns: map[int]*econn{}}, nil
}

// adopt is called by the accept goroutine.
func (l *eloop) adopt(fd int) {
	l.mu.Lock()
	l.pending = append(l.pending, fd)
	l.mu.Unlock()
	one := uint64(1)
	unix.Write(l.efd, (*[8]byte)(unsafe.Pointer(&one))[:])
}

func (l *eloop) takePending() {
	var buf [8]byte
	unix.Read(l.efd, buf[:])
	l.mu.Lock()
	fds := l.pending
	l.pending = nil
	l.mu.Unlock()
	for _, fd := range fds {
		l.conns[fd] = &econn{fd: fd, b: newConnBuf()}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			l.close(l.conns[fd])
		}
	}
}

func (l *eloop) run() {
	if l.opts.lockThread || l.opts.slice > 0 {
		runtime.LockOSThread()
	}
	if l.opts.slice > 0 {
		setThreadSlice(l.opts.slice)
	}
	events := make([]unix.EpollEvent, 256)
	for {
		n := l.wait(events)
		for i := 0; i < n; i++ {
			ev := &events[i]
			fd := int(ev.Fd)
			if fd == l.efd {
				l.takePending()
				continue
			}
			c := l.conns[fd]
			if c == nil {
				continue
			}
			if c.wantOut {
				l.writeOut(c)
				continue
			}
			l.readIn(c)
		}
		for i, c := range l.ready {
			if l.conns[c.fd] == c {
				l.writeOut(c)
			}
			l.ready[i] = nil
		}
		l.ready = l.ready[:0]
	}
}

// wait returns ready events: zero-timeout polls for up to opts.spin, then a
// blocking wait.
func (l *eloop) wait(events []unix.EpollEvent) int {
	if l.opts.spin > 0 {
		deadline := spinDeadline(l.opts.spin)
		for {
			n := l.poll(events, 0)
			if n > 0 {
				return n
			}
			if time.Now().After(deadline) {
				break
			}
		}
	}
	if l.opts.tryFirst {
		if n := l.poll(events, 0); n > 0 {
			return n
		}
	}
	for {
		if l.opts.rawBlock {
			// Blocks in the kernel without telling the scheduler: the P
			// stays with this goroutine, so no hand-off and no sysmon
			// retake; preemption signals (SIGURG) return EINTR.
			r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), ^uintptr(0), 0, 0)
			if e == 0 {
				return int(r)
			}
			if e != unix.EINTR {
				panic(e)
			}
			// Most likely the runtime's preemption signal (a GC
			// stop-the-world waits for this goroutine): wait once
			// through the scheduler so it can stop us, as corvid's
			// netloop does. Retrying the raw wait would hang the GC,
			// and with it every goroutine that allocates.
		}
		n, err := unix.EpollWait(l.epfd, events, -1)
		if err == nil {
			return n
		}
		if err != unix.EINTR {
			panic(err)
		}
	}
}

func (l *eloop) poll(events []unix.EpollEvent, timeout int) int {
	if !l.opts.raw {
		n, err := unix.EpollWait(l.epfd, events, timeout)
		if err != nil {
			return 0
		}
		return n
	}
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(timeout), 0, 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

func (l *eloop) sysRead(fd int, p []byte) (int, unix.Errno) {
	if !l.opts.raw {
		n, err := unix.Read(fd, p)
		if err != nil {
			return n, err.(unix.Errno)
		}
		return n, 0
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

func (l *eloop) sysWrite(fd int, p []byte) (int, unix.Errno) {
	if !l.opts.raw {
		n, err := unix.Write(fd, p)
		if err != nil {
			return n, err.(unix.Errno)
		}
		return n, 0
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

// readIn reads once (level-triggered: anything left is reported again),
// answers every complete request and writes the replies.
func (l *eloop) readIn(c *econn) {
	n, e := l.sysRead(c.fd, c.b.in[c.b.have:])
	if n <= 0 {
		if e == unix.EAGAIN || e == unix.EINTR {
			return
		}
		l.close(c)
		return
	}
	c.b.have += n
	c.b.consume()
	if l.opts.deferWrite {
		if len(c.b.out) > 0 {
			l.ready = append(l.ready, c)
		}
		return
	}
	l.writeOut(c)
}

// writeOut writes pending output; on EAGAIN it keeps the rest, switches the
// connection to EPOLLOUT (input paused) until it drains.
func (l *eloop) writeOut(c *econn) {
	for len(c.b.out) > 0 {
		n, e := l.sysWrite(c.fd, c.b.out)
		if n > 0 {
			rest := copy(c.b.out, c.b.out[n:])
			c.b.out = c.b.out[:rest]
			continue
		}
		if e == unix.EINTR {
			continue
		}
		if e == unix.EAGAIN {
			if !c.wantOut {
				c.wantOut = true
				ev := unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(c.fd)}
				unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev)
			}
			return
		}
		l.close(c)
		return
	}
	if c.wantOut {
		c.wantOut = false
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(c.fd)}
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev)
	}
}

func (l *eloop) close(c *econn) {
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
	unix.Close(c.fd)
	delete(l.conns, c.fd)
}
