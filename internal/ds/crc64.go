package ds

import "encoding/binary"

// crc64Poly is the Jones polynomial (0xad93d23594c935a9) bit-reversed, for
// the reflected CRC-64 that Redis and Valkey use for RDB and DUMP payloads:
// reflected input and output, no initial or final inversion.
const crc64Poly = 0x95ac9329ac4bc9b5

// crc64Tables are slicing-by-8 tables: crc64Tables[0] is the ordinary
// byte-at-a-time table and crc64Tables[k][b] advances b through k more zero
// bytes, so eight input bytes cost eight lookups and no shifts between them.
var crc64Tables = makeCRC64Tables()

func makeCRC64Tables() *[8][256]uint64 {
	var t [8][256]uint64
	for i := range 256 {
		c := uint64(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ crc64Poly
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range 256 {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][byte(c)] ^ c>>8
			t[k][i] = c
		}
	}
	return &t
}

// CRC64 continues crc over b; start with 0. CRC64(0, "123456789") ==
// 0xe9c6d914c4b8d9ca, and CRC64(CRC64(0, a), b) == CRC64(0, a+b).
func CRC64(crc uint64, b []byte) uint64 {
	t := crc64Tables
	for len(b) >= 8 {
		crc ^= binary.LittleEndian.Uint64(b)
		crc = t[7][byte(crc)] ^ t[6][byte(crc>>8)] ^ t[5][byte(crc>>16)] ^ t[4][byte(crc>>24)] ^
			t[3][byte(crc>>32)] ^ t[2][byte(crc>>40)] ^ t[1][byte(crc>>48)] ^ t[0][byte(crc>>56)]
		b = b[8:]
	}
	for _, c := range b {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return crc
}
