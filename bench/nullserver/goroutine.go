package main

import "net"

// serveGoroutines is the obvious Go design: a goroutine per connection
// using net.Conn. After each reply the next Read tries read(2) first, gets
// EAGAIN, and parks the goroutine on the netpoller.
func serveGoroutines(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.(*net.TCPConn).SetNoDelay(true)
		go func(c net.Conn) {
			defer c.Close()
			b := newConnBuf()
			for {
				n, err := c.Read(b.in[b.have:])
				if n > 0 {
					b.have += n
					b.consume()
					if len(b.out) > 0 {
						if _, err := c.Write(b.out); err != nil {
							return
						}
						b.out = b.out[:0]
					}
				}
				if err != nil {
					return
				}
			}
		}(c)
	}
}
