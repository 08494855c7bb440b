// Command gnet is the nullserver on panjf2000/gnet/v2, a maintained epoll
// event-loop library, for comparison with bench/nullserver's own modes.
// It is a separate module so that Corvid's go.mod does not depend on gnet.
//
//	cd bench/nullserver/gnet && go run . -port 7777 -loops 1
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/panjf2000/gnet/v2"
)

type nullServer struct {
	gnet.BuiltinEventEngine
}

// OnOpen gives each connection its own output buffer (OnTraffic runs on the
// connection's loop, so the buffer is never shared).
func (s *nullServer) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	c.SetContext(&connBuf{out: make([]byte, 0, 64<<10)})
	return nil, gnet.None
}

func (s *nullServer) OnTraffic(c gnet.Conn) gnet.Action {
	b := c.Context().(*connBuf)
	in, _ := c.Peek(-1)
	used, out := reply(in, b.out[:0])
	b.out = out
	c.Discard(used)
	if len(out) > 0 {
		c.Write(out)
	}
	return gnet.None
}

func main() {
	port := flag.Int("port", 7777, "TCP port on 127.0.0.1")
	loops := flag.Int("loops", runtime.GOMAXPROCS(0), "event loops")
	flag.Parse()
	fmt.Fprintf(os.Stderr, "nullserver mode=gnet loops=%d GOMAXPROCS=%d pid=%d\n", *loops, runtime.GOMAXPROCS(0), os.Getpid())
	err := gnet.Run(&nullServer{}, fmt.Sprintf("tcp://127.0.0.1:%d", *port),
		gnet.WithMulticore(*loops > 1), gnet.WithNumEventLoop(*loops),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay), gnet.WithLockOSThread(false))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
