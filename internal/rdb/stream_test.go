package rdb

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// DUMP payloads from valkey-server 8.0.1 of streams built by these
// commands (stream-node-max-entries 3 while they ran):
//
//	XADD s 1-1 a 1 b 2; XADD s 1-2 a 3 b 4; XADD s 1-3 c 5
//	XADD s 2-0 a 70000 b -5000000000; XADD s 2-1 a <136 a's> b x
//	XADD s 3-0 f1 v1 f2 v2 f3 v3; XADD s 3-5 f1 v1 f2 v2 f3 v3
//	XADD s 4-0 empty ""; XDEL s 1-2 2-0
//	XGROUP CREATE s g 0; XGROUP CREATE s 123 $
//	XGROUP CREATE s g3 1-3 ENTRIESREAD 2
//	XREADGROUP GROUP g alice COUNT 2 STREAMS s >
//	XREADGROUP GROUP g bob COUNT 1 STREAMS s >
//	XCLAIM s g 42 0 3-0 TIME 1700000000000 RETRYCOUNT 7 JUSTID
//	XGROUP CREATECONSUMER s 123 carol
//	XGROUP CREATE e g 0 MKSTREAM
//	XADD t MAXLEN 0 5-5 x y
var valkeyStreamDumps = map[string]string{
	"s": "15031000000000000000010000000000000001c3353c123c000000190002010101020181610281620200200900002001401102050103600902030104200b401540290781630205010601ff1000000000000000020000000000000000c3405e40e316e30000001d00020101010201816102816202000103010020010ff270110104f4000efad5feffffff090520200000202602e08661e07c0005018881780205609240b10582663103827620030166322007200301663320070433030a01ff100000000000000003000000000000000540434300000015000201000103018266310382663203826633030001020100010001827631038276320382763303060100010101dffb02010185656d7074790680010601ff060400010102000803c07b040081ffffffffffffffff0001056361726f6cf2145937a2010000ffffffffffffffff000167020181ffffffffffffffff0300000000000000010000000000000001f2145937a20100000100000000000000010000000000000003f2145937a20100000100000000000000020000000000000001f2145937a20100000103c02af2145937a2010000ffffffffffffffff0005616c696365f2145937a2010000f2145937a201000002000000000000000100000000000000010000000000000001000000000000000303626f62f2145937a2010000f2145937a2010000010000000000000002000000000000000102673301030200000b004dad982c377e1ad8",
	"e": "15000000000000000000010167000081ffffffffffffffff00000b0096f26e9fcacfc572",
	"t": "15000005050000000001000b008b280abf44dbdc57",
}

func valkeyDump(t *testing.T, key string) []byte {
	p, err := hex.DecodeString(valkeyStreamDumps[key])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStreamValkeyDumps reads Valkey's payloads and writes them back
// byte for byte.
func TestStreamValkeyDumps(t *testing.T) {
	for _, key := range []string{"s", "e", "t"} {
		p := valkeyDump(t, key)
		e, err := ParseDumpPayload(p)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if e.Kind != KindStream {
			t.Fatalf("%s: kind %v", key, e.Kind)
		}
		back, err := DumpPayload(e, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, p) {
			t.Errorf("%s: DumpPayload\n%x\nwant\n%x", key, back, p)
		}
	}
	e, _ := ParseDumpPayload(valkeyDump(t, "s"))
	s := e.Stream
	if s.Length != 6 || s.LastID != (StreamID{4, 0}) || s.FirstID != (StreamID{1, 1}) ||
		s.MaxDeletedID != (StreamID{2, 0}) || s.EntriesAdded != 8 || len(s.Nodes) != 3 {
		t.Errorf("metadata: %+v", s)
	}
	var ids []string
	s.Entries(func(id StreamID, fv [][]byte) bool {
		ids = append(ids, fmt.Sprintf("%d-%d:%d", id.Ms, id.Seq, len(fv)/2))
		return true
	})
	if got := fmt.Sprint(ids); got != "[1-1:2 1-3:1 2-1:2 3-0:3 3-5:3 4-0:1]" {
		t.Errorf("entries %s", got)
	}
	if len(s.Groups) != 3 || string(s.Groups[0].Name) != "123" || string(s.Groups[1].Name) != "g" {
		t.Fatalf("groups %+v", s.Groups)
	}
	g := s.Groups[1]
	// 3-0 was never delivered: the XCLAIM made consumer 42 only; after
	// the XDEL, the read counter is unknown.
	if len(g.Pending) != 3 || len(g.Consumers) != 3 || string(g.Consumers[0].Name) != "42" ||
		len(g.Consumers[1].Pending) != 2 || g.Pending[2].ID != (StreamID{2, 1}) || g.EntriesRead != -1 {
		t.Errorf("group g %+v", g)
	}
	if g3 := s.Groups[2]; g3.EntriesRead != 2 || g3.LastID != (StreamID{1, 3}) {
		t.Errorf("group g3 %+v", g3)
	}
	if e, _ := ParseDumpPayload(valkeyDump(t, "e")); e.Stream.Length != 0 || len(e.Stream.Nodes) != 0 || len(e.Stream.Groups) != 1 {
		t.Errorf("empty stream with a group: %+v", e.Stream)
	}
}

// oldStreamBody rewrites a type-21 body as type 19 (no consumer active
// times) or 15 (no first ID, greatest deleted ID or entries added, no
// groups' read counters either).
func oldStreamBody(s *Stream, typ byte) []byte {
	var enc encoder
	b := []byte{typ}
	b = appendLen(b, uint64(len(s.Nodes)))
	var key [16]byte
	for _, n := range s.Nodes {
		putStreamID(key[:], n.Master)
		b = enc.appendString(b, key[:])
		b = enc.appendString(b, n.Listpack)
	}
	b = appendLen(b, s.Length)
	b = appendLen(b, s.LastID.Ms)
	b = appendLen(b, s.LastID.Seq)
	if typ == typeStreamListpacks2 {
		b = appendLen(b, s.FirstID.Ms)
		b = appendLen(b, s.FirstID.Seq)
		b = appendLen(b, s.MaxDeletedID.Ms)
		b = appendLen(b, s.MaxDeletedID.Seq)
		b = appendLen(b, s.EntriesAdded)
	}
	b = appendLen(b, uint64(len(s.Groups)))
	for _, g := range s.Groups {
		b = enc.appendString(b, g.Name)
		b = appendLen(b, g.LastID.Ms)
		b = appendLen(b, g.LastID.Seq)
		if typ == typeStreamListpacks2 {
			b = appendLen(b, uint64(g.EntriesRead))
		}
		b = appendLen(b, uint64(len(g.Pending)))
		for _, p := range g.Pending {
			putStreamID(key[:], p.ID)
			b = append(b, key[:]...)
			b = binary.LittleEndian.AppendUint64(b, uint64(p.DeliveryTime))
			b = appendLen(b, p.DeliveryCount)
		}
		b = appendLen(b, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			b = enc.appendString(b, c.Name)
			b = binary.LittleEndian.AppendUint64(b, uint64(c.SeenTime))
			b = appendLen(b, uint64(len(c.Pending)))
			for _, id := range c.Pending {
				putStreamID(key[:], id)
				b = append(b, key[:]...)
			}
		}
	}
	return b
}

func payloadOf(body []byte) []byte {
	p := binary.LittleEndian.AppendUint16(bytes.Clone(body), Version)
	return binary.LittleEndian.AppendUint64(p, ds.CRC64(0, p))
}

// TestStreamOldTypes reads RDB_TYPE_STREAM_LISTPACKS and _2 as Valkey's
// loader does.
func TestStreamOldTypes(t *testing.T) {
	e, _ := ParseDumpPayload(valkeyDump(t, "s"))
	s := e.Stream
	e2, err := ParseDumpPayload(payloadOf(oldStreamBody(s, typeStreamListpacks2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range e2.Stream.Groups {
		for _, c := range g.Consumers {
			if c.ActiveTime != c.SeenTime {
				t.Errorf("type 19: consumer %s active %d, seen %d", c.Name, c.ActiveTime, c.SeenTime)
			}
		}
	}
	e1, err := ParseDumpPayload(payloadOf(oldStreamBody(s, typeStreamListpacks)))
	if err != nil {
		t.Fatal(err)
	}
	s1 := e1.Stream
	if s1.EntriesAdded != s.Length || s1.FirstID != (StreamID{1, 1}) || s1.MaxDeletedID != (StreamID{}) {
		t.Errorf("type 15 metadata: %+v", s1)
	}
	// Group read counters are estimated: g's last ID (3-0) is inside the
	// stream (unknown), 123's is the last ID, g3's before nothing known.
	want := map[string]int64{"123": 6, "g": -1, "g3": -1}
	for _, g := range s1.Groups {
		if g.EntriesRead != want[string(g.Name)] {
			t.Errorf("type 15 group %s entries read %d, want %d", g.Name, g.EntriesRead, want[string(g.Name)])
		}
	}
}

// TestStreamCorrupt: broken streams are refused with ErrCorrupt.
func TestStreamCorrupt(t *testing.T) {
	e, _ := ParseDumpPayload(valkeyDump(t, "s"))
	cases := map[string]func(s *Stream){
		"length":        func(s *Stream) { s.Length++ },
		"last ID":       func(s *Stream) { s.LastID = StreamID{3, 0} },
		"out of order":  func(s *Stream) { s.Nodes[1].Master = StreamID{1, 2} },
		"duplicate key": func(s *Stream) { s.Nodes[1].Master = s.Nodes[0].Master },
		"listpack": func(s *Stream) {
			s.Nodes[0].Listpack = bytes.Clone(s.Nodes[0].Listpack)
			s.Nodes[0].Listpack[7]++
		},
		"counts": func(s *Stream) {
			lp := bytes.Clone(s.Nodes[0].Listpack)
			lp[6] = 3 // count 2 -> 3
			s.Nodes[0].Listpack = lp
		},
		"orphan PEL entry": func(s *Stream) { s.Groups[1].Consumers[1].Pending = nil },
		"foreign PEL entry": func(s *Stream) {
			c := &s.Groups[1].Consumers[1]
			c.Pending = append(c.Pending, StreamID{9, 9})
		},
		"shared PEL entry": func(s *Stream) {
			c := &s.Groups[1].Consumers[2]
			c.Pending = append(c.Pending, s.Groups[1].Consumers[1].Pending...)
		},
		"duplicate group":    func(s *Stream) { s.Groups[2].Name = s.Groups[1].Name },
		"duplicate consumer": func(s *Stream) { s.Groups[1].Consumers[1].Name = s.Groups[1].Consumers[0].Name },
	}
	for name, mod := range cases {
		s := e.Stream.Clone()
		mod(s)
		var enc encoder
		body := enc.appendStream([]byte{typeStreamListpacks3}, s)
		_, err := ParseDumpPayload(payloadOf(body))
		var fe *FormatError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
