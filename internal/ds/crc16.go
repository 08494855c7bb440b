package ds

// SlotCount is the number of cluster hash slots.
const SlotCount = 16384

// crc16Table is CRC-16/XMODEM (polynomial 0x1021, initial value 0, no
// reflection), the checksum Valkey cluster hashes keys with.
var crc16Table = makeCRC16Table()

func makeCRC16Table() *[256]uint16 {
	var t [256]uint16
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
	return &t
}

// CRC16 returns the CRC-16/XMODEM of b; CRC16("123456789") == 0x31c3.
func CRC16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^c]
	}
	return crc
}

// KeySlot returns the cluster slot of key. If the key contains a '{' with a
// '}' somewhere after it and at least one byte between them, only the bytes
// between the first '{' and the first '}' after it are hashed (the hash tag),
// so that related keys can be kept in one slot.
func KeySlot(key []byte) int {
	return int(CRC16(HashTag(key)) & (SlotCount - 1))
}

// HashTag returns the part of key that KeySlot hashes: the non-empty hash
// tag if there is one, otherwise the whole key.
func HashTag(key []byte) []byte {
	for s, c := range key {
		if c != '{' {
			continue
		}
		for e := s + 1; e < len(key); e++ {
			if key[e] == '}' {
				if e == s+1 {
					return key // "{}" is not a hash tag
				}
				return key[s+1 : e]
			}
		}
		return key
	}
	return key
}
