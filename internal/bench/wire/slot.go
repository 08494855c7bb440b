package wire

import (
	"fmt"
	"net"
	"strconv"

	"github.com/corvid-kv/corvid/internal/cluster"
)

// Slots is the number of cluster hash slots.
const Slots = cluster.Slots

// Slot maps a key to its hash slot, honouring {hash tags}.
func Slot(key []byte) int { return cluster.KeySlot(key) }

// SlotRange is one CLUSTER SLOTS entry: slots [Start, End] served by Addr.
type SlotRange struct {
	Start, End int
	Addr       string
}

// ParseClusterSlots reads a CLUSTER SLOTS reply. An empty host means "the
// node you asked", so seed (the address the reply came from) replaces it.
func ParseClusterSlots(v Value, seed string) ([]SlotRange, error) {
	if err := v.Err(); err != nil {
		return nil, err
	}
	seedHost, _, _ := net.SplitHostPort(seed)
	var out []SlotRange
	for _, e := range v.Elems {
		if len(e.Elems) < 3 || len(e.Elems[2].Elems) < 2 {
			return nil, fmt.Errorf("CLUSTER SLOTS: malformed entry %s", e.Text())
		}
		host := e.Elems[2].Elems[0].Str
		if host == "" || host == "?" {
			host = seedHost
		}
		port := e.Elems[2].Elems[1].Int
		r := SlotRange{Start: int(e.Elems[0].Int), End: int(e.Elems[1].Int),
			Addr: net.JoinHostPort(host, strconv.FormatInt(port, 10))}
		if r.Start < 0 || r.End >= Slots || r.End < r.Start {
			return nil, fmt.Errorf("CLUSTER SLOTS: bad range %d-%d", r.Start, r.End)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("CLUSTER SLOTS: no slots assigned")
	}
	return out, nil
}
