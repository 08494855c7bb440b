package pubsub

import "fmt"

// orderCheck is one subscriber's view of the publishers: the last
// sequence number seen from each. A publisher's messages reach a
// subscriber in the order they were published (one connection, executed
// in order), so each must carry a larger number than the one before; gaps
// are normal (messages on channels the subscriber is not on). Loss is
// caught by the totals, not here.
type orderCheck struct {
	last       []uint64 // per publisher; 0 = nothing seen yet
	violations uint64   // repeated or earlier sequence numbers
	foreign    uint64   // messages of a publisher index out of range, or not ours
	first      string   // the first violation, for the report
}

func newOrderCheck(publishers int) orderCheck {
	return orderCheck{last: make([]uint64, publishers)}
}

// see records message h and reports whether it was in order.
func (o *orderCheck) see(h Header) bool {
	if int(h.Publisher) >= len(o.last) || h.Seq == 0 {
		o.foreign++
		return false
	}
	if prev := o.last[h.Publisher]; h.Seq <= prev {
		o.violations++
		if o.first == "" {
			o.first = fmt.Sprintf("publisher %d: sequence %d after %d", h.Publisher, h.Seq, prev)
		}
		return false
	}
	o.last[h.Publisher] = h.Seq
	return true
}

// silent counts the publishers this subscriber heard nothing from.
func (o *orderCheck) silent() int {
	n := 0
	for _, s := range o.last {
		if s == 0 {
			n++
		}
	}
	return n
}
