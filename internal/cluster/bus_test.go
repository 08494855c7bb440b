package cluster

import (
	"bytes"
	"encoding/binary"
	"net"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

func name(s string) (n [NameLen]byte) { copy(n[:], s); return }

func ip(s string) (b [ipLen]byte) { copy(b[:], s); return }

// TestEncodeDecode round-trips every message type and checks the fixed
// offsets of Valkey's clusterMsg (cluster_legacy.h's static asserts).
func TestEncodeDecode(t *testing.T) {
	hdr := Header{Port: 6379, CurrentEpoch: 7, ConfigEpoch: 3, Offset: 12345,
		Sender: name("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca"), MyIP: ip("127.0.0.1"),
		PPort: 0, CPort: 16379, Flags: FlagPrimary, State: 0}
	hdr.Slots[0], hdr.Slots[slotBytes-1] = 0xff, 0x80
	g := Gossip{Name: name("67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1"), PingSent: 1, PongReceived: 2,
		IP: ip("127.0.0.2"), Port: 6380, CPort: 16380, Flags: FlagReplica, PPort: 0}
	tests := []Message{
		{Header: withType(hdr, TypePing), Gossip: []Gossip{g, g}},
		{Header: withType(hdr, TypePong)},
		{Header: withType(hdr, TypeMeet), Gossip: []Gossip{g}, Exts: []Ext{
			{Type: ExtHostname, Data: []byte("node-1.example")},
			{Type: ExtHumanNodename, Data: []byte("")},
			ForgottenNode(name("c0"), 60),
			ShardID(name("aa")),
		}},
		{Header: withType(hdr, TypeFail), FailName: name("dead")},
		{Header: withType(hdr, TypePublish), Channel: []byte("news"), Payload: []byte("hello")},
		{Header: Header{Type: TypePublishShard, Light: true}, Channel: []byte("c"), Payload: nil},
		{Header: withType(hdr, TypeFailoverAuthRequest)},
		{Header: withType(hdr, TypeFailoverAuthAck)},
		{Header: withType(hdr, TypeMFStart)},
		{Header: withType(hdr, TypeUpdate), UpdateEpoch: 9, UpdateName: name("x"), UpdateSlots: hdr.Slots},
		{Header: withType(hdr, TypeModule), ModuleID: 42, ModuleType: 3, ModuleData: []byte("abc")},
	}
	for _, m := range tests {
		b := m.Encode([]byte("prefix"))[len("prefix"):]
		if string(b[0:4]) != "RCmb" || binary.BigEndian.Uint32(b[4:8]) != uint32(len(b)) {
			t.Fatalf("type %d: bad signature or length: % x", m.Type, b[:8])
		}
		if !m.Light {
			if len(b) < headerLen || binary.BigEndian.Uint16(b[2248:2250]) != 16379 || b[80] != 0xff {
				t.Errorf("type %d: header fields not at Valkey's offsets", m.Type)
			}
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("type %d: %v", m.Type, err)
		}
		want := m
		if len(want.Exts) > 0 {
			want.MFlags[0] |= MFlagExtData
		}
		if want.Channel != nil && want.Payload == nil {
			want.Payload = []byte{}
		}
		if want.Type <= TypeMeet && want.Gossip == nil {
			want.Gossip = []Gossip{}
		}
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("type %d: round trip\n got %+v\nwant %+v", m.Type, got, &want)
		}
	}
}

func withType(h Header, t uint16) Header { h.Type = t; return h }

// TestDecodeRejects: clusterIsValidPacket's refusals.
func TestDecodeRejects(t *testing.T) {
	ping := (&Message{Header: Header{Type: TypePing}, Gossip: make([]Gossip, 2)}).Encode(nil)
	mut := func(f func(b []byte)) []byte { b := bytes.Clone(ping); f(b); return b }
	failShort := (&Message{Header: Header{Type: TypeFail}}).Encode(nil)
	failShort = failShort[:len(failShort)-1]
	binary.BigEndian.PutUint32(failShort[4:8], uint32(len(failShort)))
	tests := map[string][]byte{
		"short":          ping[:7],
		"signature":      mut(func(b []byte) { b[0] = 'X' }),
		"version":        mut(func(b []byte) { b[9] = 2 }),
		"count too big":  mut(func(b []byte) { b[15] = 3 }),
		"count too low":  mut(func(b []byte) { b[15] = 1 }),
		"totlen too low": mut(func(b []byte) { binary.BigEndian.PutUint32(b[4:], 100) }),
		"ext flag, no room": mut(func(b []byte) {
			b[2253] |= MFlagExtData
			b[2215] = 1
		}),
		"fail length":  failShort,
		"light ping":   mut(func(b []byte) { b[12] |= 0x80 }),
		"mfstart data": withExtra((&Message{Header: Header{Type: TypeMFStart}}).Encode(nil), 1),
	}
	for what, b := range tests {
		if _, err := Decode(b); err == nil {
			t.Errorf("%s: decoded", what)
		}
	}
	// An unknown type is accepted with its header, as Valkey does.
	u := withExtra((&Message{Header: Header{Type: 99}}).Encode(nil), 5)
	if m, err := Decode(u); err != nil || m.Type != 99 {
		t.Errorf("unknown type: %v, %v", m, err)
	}
}

// withExtra appends n zero bytes and updates totlen.
func withExtra(b []byte, n int) []byte {
	b = append(b, make([]byte, n)...)
	binary.BigEndian.PutUint32(b[4:8], uint32(len(b)))
	return b
}

// TestValkeyAnswersOurPing sends a PING encoded here to valkey-server
// 8.0.1's cluster bus and decodes the PONG it answers: Valkey took the
// message as valid (it closes the link otherwise) and its reply decodes
// to its own node ID, ports and empty slots. (The MEET that joins a
// cluster, and the gossip after it, come with the cluster itself.)
func TestValkeyAnswersOurPing(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("valkey-server not found")
	}
	busPort := testutil.FreePort(t)
	dir := t.TempDir()
	v := testutil.StartValkeyIn(t, dir, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(busPort),
		"--cluster-config-file", dir+"/nodes.conf")
	myid := testutil.Dial(t, v.Addr).Do("CLUSTER", "MYID")
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(busPort)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	ping := Message{Header: Header{Type: TypePing, Port: 7000, CPort: 17000, Flags: FlagPrimary,
		Sender: name("0123456789012345678901234567890123456789")},
		Exts: []Ext{{Type: ExtHostname, Data: []byte("corvid-test")}, ShardID(name("9876543210987654321098765432109876543210"))}}
	if _, err := conn.Write(ping.Encode(nil)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, FullLen)
	for {
		tmp := make([]byte, 4096)
		k, err := conn.Read(tmp)
		if err != nil {
			t.Fatalf("reading the PONG: %v (Valkey closed the link: it refused our PING)", err)
		}
		buf = append(buf, tmp[:k]...)
		if n, err := MessageLen(buf); err == nil && len(buf) >= n {
			break
		}
	}
	m, err := Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != TypePong {
		t.Fatalf("answer of type %d, want PONG", m.Type)
	}
	if got := `"` + string(m.Sender[:]) + `"`; got != myid {
		t.Errorf("PONG sender %s, CLUSTER MYID %s", got, myid)
	}
	port, _ := strconv.Atoi(v.Addr[len("127.0.0.1:"):])
	if int(m.Port) != port || int(m.CPort) != busPort || m.Flags&FlagPrimary == 0 || m.Slots != [slotBytes]byte{} {
		t.Errorf("PONG port %d cport %d flags %#x (valkey at %d, bus %d)", m.Port, m.CPort, m.Flags, port, busPort)
	}
	// Valkey always sets the extension flag (it announces that it reads
	// extensions) but sends its extensions only to nodes it knows: to an
	// unknown sender, none.
	if len(m.Exts) != 0 || m.MFlags[0]&MFlagExtData == 0 {
		t.Errorf("PONG to an unknown node: mflags %#x, extensions %+v", m.MFlags[0], m.Exts)
	}
}
