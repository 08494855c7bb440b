// Command nullserver is the ceiling for Corvid's network path: a RESP
// server that answers +OK to every command (PING gets +PONG, GET gets a
// fixed bulk) without touching data. It runs in two modes so the network
// design can be measured rather than assumed:
//
//	-mode goroutine   one goroutine per connection on Go's netpoller (net.Conn)
//	-mode epoll       N event loops over raw epoll, level-triggered
//
// Usage: go run ./bench/nullserver -port 7777 -mode epoll
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

func main() {
	port := flag.Int("port", 7777, "TCP port on 127.0.0.1")
	mode := flag.String("mode", "goroutine", "goroutine | epoll")
	loops := flag.Int("loops", runtime.GOMAXPROCS(0), "event loops (epoll mode)")
	flag.Parse()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch *mode {
	case "goroutine":
		serveGoroutines(ln)
	case "epoll":
		serveEpoll(ln, *loops)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", *mode)
		os.Exit(2)
	}
}

// reply appends one reply per complete command in buf and returns the
// number of bytes consumed. It understands just enough RESP to count.
func reply(buf []byte, out []byte) (int, []byte) {
	used := 0
	for {
		n, isGet, ok := oneCommand(buf[used:])
		if !ok {
			return used, out
		}
		used += n
		if isGet {
			out = append(out, "$3\r\nbar\r\n"...)
		} else {
			out = append(out, "+OK\r\n"...)
		}
	}
}

func oneCommand(b []byte) (n int, isGet bool, ok bool) {
	if len(b) == 0 {
		return 0, false, false
	}
	if b[0] != '*' {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return 0, false, false
		}
		return i + 1, false, true
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return 0, false, false
	}
	argc := atoi(b[1 : i-1])
	p := i + 1
	for a := 0; a < argc; a++ {
		j := bytes.IndexByte(b[p:], '\n')
		if j < 0 {
			return 0, false, false
		}
		l := atoi(b[p+1 : p+j-1])
		start := p + j + 1
		end := start + l + 2
		if end > len(b) {
			return 0, false, false
		}
		if a == 0 && l == 3 && (b[start]|0x20) == 'g' {
			isGet = true
		}
		p = end
	}
	return p, isGet, true
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

func serveGoroutines(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func(c net.Conn) {
			defer c.Close()
			buf := make([]byte, 64<<10)
			out := make([]byte, 0, 64<<10)
			have := 0
			for {
				n, err := c.Read(buf[have:])
				if n > 0 {
					have += n
					used, o := reply(buf[:have], out[:0])
					out = o
					copy(buf, buf[used:have])
					have -= used
					if len(out) > 0 {
						if _, err := c.Write(out); err != nil {
							return
						}
					}
				}
				if err != nil {
					return
				}
			}
		}(c)
	}
}

type econn struct {
	fd   int
	buf  []byte
	have int
	out  []byte
}

func serveEpoll(ln net.Listener, nloops int) {
	type loop struct {
		epfd  int
		conns map[int]*econn
	}
	loops := make([]*loop, nloops)
	for i := range loops {
		epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			panic(err)
		}
		l := &loop{epfd: epfd, conns: map[int]*econn{}}
		loops[i] = l
		go func() {
			events := make([]unix.EpollEvent, 128)
			for {
				n, err := unix.EpollWait(l.epfd, events, -1)
				if err != nil {
					if err == unix.EINTR {
						continue
					}
					panic(err)
				}
				for i := 0; i < n; i++ {
					fd := int(events[i].Fd)
					c := l.conns[fd]
					if c == nil {
						continue
					}
					r, err := unix.Read(fd, c.buf[c.have:])
					if r <= 0 {
						if err == unix.EAGAIN {
							continue
						}
						unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, fd, nil)
						unix.Close(fd)
						delete(l.conns, fd)
						continue
					}
					c.have += r
					used, o := reply(c.buf[:c.have], c.out[:0])
					c.out = o
					copy(c.buf, c.buf[used:c.have])
					c.have -= used
					for len(o) > 0 {
						w, err := unix.Write(fd, o)
						if err != nil && err != unix.EAGAIN {
							break
						}
						if w > 0 {
							o = o[w:]
						}
					}
				}
			}
		}()
	}
	// Connections are handed to loops round-robin. A loop's map is only
	// touched by its goroutine after registration, so registration happens
	// before the fd is added to the epoll set.
	next := 0
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		f, err := c.(*net.TCPConn).File()
		c.Close()
		if err != nil {
			continue
		}
		fd, _ := unix.Dup(int(f.Fd()))
		f.Close()
		unix.SetNonblock(fd, true)
		l := loops[next%nloops]
		next++
		l.conns[fd] = &econn{fd: fd, buf: make([]byte, 64<<10), out: make([]byte, 0, 64<<10)}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev)
	}
}
