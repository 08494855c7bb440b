package loadgen

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hangTimeout bounds this package's tests' waits for a run to end or for
// something to happen: only a hang reaches it. The machines that run the
// tests are small and noisy; no test may depend on how fast they are.
const hangTimeout = 30 * time.Second

// fakeServer is a tiny RESP server for tests. handle returns the raw reply
// for one command; it runs on the connection's goroutine.
type fakeServer struct {
	ln     net.Listener
	handle func(args []string) string
	cmds   atomic.Int64
	mu     sync.Mutex
	seen   map[string]int // command name -> count
}

func newFake(t testing.TB, handle func(args []string) string) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveFake(t, ln, handle)
}

// serveFake runs a fakeServer on ln (a TLS listener for newFakeTLS).
func serveFake(t testing.TB, ln net.Listener, handle func(args []string) string) *fakeServer {
	f := &fakeServer{ln: ln, handle: handle, seen: map[string]int{}}
	go f.serve()
	t.Cleanup(func() { _ = ln.Close() })
	return f
}

func (f *fakeServer) addr() string { return f.ln.Addr().String() }

func (f *fakeServer) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		go f.conn(c)
	}
}

func (f *fakeServer) conn(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		args, err := readCommand(r)
		if err != nil {
			return
		}
		f.cmds.Add(1)
		f.mu.Lock()
		f.seen[strings.ToUpper(args[0])]++
		f.mu.Unlock()
		_, _ = w.WriteString(f.handle(args))
		if r.Buffered() == 0 {
			if w.Flush() != nil {
				return
			}
		}
	}
}

func (f *fakeServer) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[name]
}

func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[0] != '*' {
		return nil, fmt.Errorf("bad request %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("bad count %q", line)
	}
	args := make([]string, n)
	for i := range args {
		h, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		l, err := strconv.Atoi(strings.TrimSpace(h[1:]))
		if err != nil {
			return nil, err
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:l])
	}
	return args, nil
}

// simpleHandler answers like a cache: SET stores, GET reads, others +OK.
func simpleHandler() func([]string) string {
	var mu sync.Mutex
	store := map[string]string{}
	return func(a []string) string {
		mu.Lock()
		defer mu.Unlock()
		switch strings.ToUpper(a[0]) {
		case "SET":
			store[a[1]] = a[2]
			return "+OK\r\n"
		case "GET":
			v, ok := store[a[1]]
			if !ok {
				return "$-1\r\n"
			}
			return "$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n"
		case "INCR":
			return ":1\r\n"
		}
		return "+OK\r\n"
	}
}
