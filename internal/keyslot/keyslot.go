// Package keyslot is the hash slot of a key, Valkey's keyHashSlot: CRC16
// (XMODEM) of the key, or of its hash tag, modulo 16384.
//
// It is a leaf (it imports nothing of Corvid's) so that both the keyspace
// (package db, which groups keys by slot in cluster mode) and package
// cluster (routing, CLUSTER KEYSLOT) can use it. Pure functions: no state
// beyond a table built at start-up and never written again.
package keyslot

import "bytes"

// Slots is the number of hash slots (CLUSTER_SLOTS).
const Slots = 16384

// Of is Valkey's keyHashSlot: CRC16 (XMODEM) of the key, or of the part
// between the first '{' and the first '}' after it when that part is not
// empty, modulo 16384.
func Of(key []byte) int {
	if i := bytes.IndexByte(key, '{'); i >= 0 {
		if j := bytes.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) & (Slots - 1))
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), Valkey's
// crc16.c, a byte at a time from a table.
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^c]
	}
	return crc
}

var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
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
