package loadgen

import "time"

// The rate-limiting schedule of the event loops (evloop.go, uring.go):
// how long a loop may wait, and which connections are due.

// A loop's connections, for its rate-limiting schedule: due is when the
// connection's next request is due (0: not waiting).
type scheduled interface {
	comparable
	due() int64
}

func (ec *evConn) due() int64 { return ec.wake }
func (uc *urConn) due() int64 { return uc.wake }

// waitFor is how long a loop may wait for completions: until its earliest
// due request when rate limited, and at most 100 ms, to notice
// cancellation.
func waitFor[C scheduled](r *runner, conns []C) int64 {
	timeout := int64(100 * time.Millisecond)
	if r.interval > 0 {
		var none C
		now := r.now()
		for _, c := range conns {
			if c != none && c.due() > 0 {
				timeout = max(0, min(timeout, c.due()-now))
			}
		}
	}
	return timeout
}

// sendDue calls send for every connection whose next request is due.
func sendDue[C scheduled](r *runner, conns []C, send func(C, int64)) {
	if r.interval == 0 {
		return
	}
	var none C
	now := r.now()
	for _, c := range conns {
		if c != none && c.due() > 0 && c.due() <= now {
			send(c, now)
		}
	}
}
