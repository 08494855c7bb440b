package cluster

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzDecode: no input makes Decode panic, and a message it accepts
// encodes back to the same bytes (the round trip of what Valkey's nodes
// send), so Encode and Decode agree on every field's place. Seeds:
// testdata/fuzz/FuzzDecode and one message of each kind.
func FuzzDecode(f *testing.F) {
	for _, m := range []Message{
		{Header: Header{Type: TypePing, Port: 6379, CPort: 16379}, Gossip: make([]Gossip, 1)},
		{Header: Header{Type: TypeMeet}, Exts: []Ext{{Type: ExtHostname, Data: []byte("h")}, ShardID(name("s"))}},
		{Header: Header{Type: TypeFail}},
		{Header: Header{Type: TypePublish, Light: true}, Channel: []byte("c"), Payload: []byte("m")},
		{Header: Header{Type: TypeUpdate}},
		{Header: Header{Type: TypeModule}, ModuleData: []byte("x")},
	} {
		f.Add(m.Encode(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		n, _ := MessageLen(b)
		if m.Type >= TypeCount {
			return // unknown types keep only their header
		}
		if m.Type <= TypeMeet && len(m.Exts) == 0 {
			return // the extension flag alone, or zero-count extensions, do not round-trip
		}
		if m.Type <= TypeMeet {
			for _, e := range m.Exts {
				switch e.Type {
				case ExtHostname, ExtHumanNodename, ExtClientIPv4, ExtClientIPv6:
					return // the string's padding is not kept
				}
			}
		}
		if m.Light {
			return
		}
		got := m.Encode(nil)
		want := b[headerLen:n]
		if m.Type <= TypeMeet {
			want = clearUnused(want, len(m.Gossip), len(m.Exts))
		}
		if !bytes.Equal(got[headerLen:], want) {
			t.Fatalf("data re-encoded differently:\n in % x\nout % x", want, got[headerLen:])
		}
	})
}

// clearUnused returns a copy of a PING-like message's data with the
// padding fields zeroed: each gossip section's notused1 and each
// extension header's unused 16 bits. Valkey neither reads nor keeps
// them, and Encode writes them as zero.
func clearUnused(data []byte, gossip, exts int) []byte {
	data = bytes.Clone(data)
	for i := range gossip {
		data[i*gossipLen+102], data[i*gossipLen+103] = 0, 0
	}
	at := gossip * gossipLen
	for range exts {
		data[at+6], data[at+7] = 0, 0
		at += int(binary.BigEndian.Uint32(data[at : at+4]))
	}
	return data
}
