package wire

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
)

// Slots is the number of Redis Cluster hash slots.
const Slots = 16384

var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc16 is CRC-16/XMODEM, the cluster key hash.
func crc16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crcTable[byte(c>>8)^x]
	}
	return c
}

// Slot maps a key to its hash slot, honouring {hash tags}.
func Slot(key []byte) int {
	if i := bytes.IndexByte(key, '{'); i >= 0 {
		if j := bytes.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key)) & (Slots - 1)
}

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
