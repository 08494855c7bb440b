package cluster

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Message types (CLUSTERMSG_TYPE_*).
const (
	TypePing = iota
	TypePong
	TypeMeet
	TypeFail
	TypePublish
	TypeFailoverAuthRequest
	TypeFailoverAuthAck
	TypeUpdate
	TypeMFStart
	TypeModule
	TypePublishShard
	TypeCount // the number of message types
)

// typeLight is the modifier bit of a message sent with the light header
// (CLUSTERMSG_LIGHT): PUBLISH and PUBLISHSHARD between nodes that both
// announced support for it.
const typeLight = 0x8000

// Node flags as the bus carries them (CLUSTER_NODE_*).
const (
	FlagPrimary      = 1 << 0
	FlagReplica      = 1 << 1
	FlagPFail        = 1 << 2
	FlagFail         = 1 << 3
	FlagMyself       = 1 << 4
	FlagHandshake    = 1 << 5
	FlagNoAddr       = 1 << 6
	FlagMeet         = 1 << 7
	FlagMigrateTo    = 1 << 8
	FlagNoFailover   = 1 << 9
	FlagLightPublish = 1 << 11
	FlagLightModule  = 1 << 12
)

// Message flags, byte 0 of mflags (CLUSTERMSG_FLAG0_*).
const (
	MFlagPaused   = 1 << 0
	MFlagForceAck = 1 << 1
	MFlagExtData  = 1 << 2
)

// Ping extension types (CLUSTERMSG_EXT_TYPE_*).
const (
	ExtHostname = iota
	ExtHumanNodename
	ExtForgottenNode
	ExtShardID
	ExtClientIPv4
	ExtClientIPv6
)

// Wire sizes.
const (
	NameLen    = 40 // CLUSTER_NAMELEN
	ipLen      = 46 // NET_IP_STR_LEN
	slotBytes  = Slots / 8
	headerLen  = 2256 // CLUSTERMSG_MIN_LEN: offsetof(clusterMsg, data)
	lightLen   = 16   // CLUSTERMSG_LIGHT_MIN_LEN
	gossipLen  = 104  // sizeof(clusterMsgDataGossip)
	failLen    = NameLen
	publishHdr = 8 // channel_len, message_len
	updateLen  = 8 + NameLen + slotBytes
	moduleHdr  = 8 + 4 + 1
	// FullLen is sizeof(clusterMsg): the header plus the largest data
	// member (UPDATE's). Valkey sizes PING-like buffers from it.
	FullLen = headerLen + updateLen
	// protoVer is CLUSTER_PROTO_VER.
	protoVer = 1
)

// Header is clusterMsg's fixed part (every field but sig, totlen, ver and
// the data union). For a light message only Type is meaningful.
type Header struct {
	Type         uint16 // without the light bit
	Light        bool
	Port         uint16 // the client port (TCP, or TLS with tls-cluster)
	CurrentEpoch uint64
	ConfigEpoch  uint64
	Offset       uint64 // replication offset
	Sender       [NameLen]byte
	Slots        [slotBytes]byte
	ReplicaOf    [NameLen]byte // all zero for a primary
	MyIP         [ipLen]byte   // NUL-terminated; all zero: use the link's address
	PPort        uint16        // the other client port (TLS if Port is TCP)
	CPort        uint16        // the bus port
	Flags        uint16
	State        byte // 0 ok, 1 fail (CLUSTER_OK, CLUSTER_FAIL)
	MFlags       [3]byte
}

// Gossip is one clusterMsgDataGossip section: what the sender knows of
// another node.
type Gossip struct {
	Name         [NameLen]byte
	PingSent     uint32 // seconds
	PongReceived uint32 // seconds
	IP           [ipLen]byte
	Port         uint16
	CPort        uint16
	Flags        uint16
	PPort        uint16
}

// Ext is one ping extension. Data is the extension's payload as Valkey
// lays it out, without the 8-byte extension header and without padding
// for the string types (hostname, human nodename, client IPs: the string
// without its NUL); ForgottenNode and ShardID are fixed-size (use the
// helpers).
type Ext struct {
	Type uint16
	Data []byte
}

// Message is one decoded bus message. Which of the data fields is set
// depends on Header.Type.
type Message struct {
	Header
	Gossip []Gossip // PING, PONG, MEET
	Exts   []Ext    // PING, PONG, MEET with MFlagExtData
	// FailName: FAIL (the node now failing).
	FailName [NameLen]byte
	// Channel and Payload: PUBLISH, PUBLISHSHARD.
	Channel, Payload []byte
	// UPDATE: a node's config epoch and slots.
	UpdateEpoch uint64
	UpdateName  [NameLen]byte
	UpdateSlots [slotBytes]byte
	// MODULE.
	ModuleID   uint64
	ModuleType byte
	ModuleData []byte
}

// ErrShort means the buffer does not yet hold the whole message: read
// more (MessageLen says how much once 8 bytes are in).
var ErrShort = errors.New("cluster: incomplete message")

// MessageLen reads a message's total length from its first 8 bytes (the
// signature and totlen), as Valkey's clusterReadHandler does before it
// reads the rest. It fails on a bad signature or a length below the
// smallest valid message.
func MessageLen(b []byte) (int, error) {
	if len(b) < 8 {
		return 0, ErrShort
	}
	if string(b[:4]) != "RCmb" {
		return 0, fmt.Errorf("cluster: bad message signature %q", b[:4])
	}
	n := binary.BigEndian.Uint32(b[4:8])
	typ := uint16(0)
	if len(b) >= 14 {
		typ = binary.BigEndian.Uint16(b[12:14])
	}
	min := uint32(headerLen)
	if typ&typeLight != 0 {
		min = lightLen
	}
	if n < min && len(b) >= 14 || n < lightLen {
		return 0, fmt.Errorf("cluster: message length %d below the minimum", n)
	}
	return int(n), nil
}

// Decode decodes one whole message (b holds exactly totlen bytes, or
// more: the rest is ignored). It applies clusterIsValidPacket's checks:
// the signature, the protocol version, and a total length that matches
// what the type and its counts declare. A message of an unknown type is
// returned with its header only, as Valkey accepts and ignores it.
func Decode(b []byte) (*Message, error) {
	n, err := MessageLen(b)
	if err != nil {
		return nil, err
	}
	if len(b) < n {
		return nil, ErrShort
	}
	b = b[:n]
	be := binary.BigEndian
	if v := be.Uint16(b[8:10]); v != protoVer {
		return nil, fmt.Errorf("cluster: protocol version %d", v)
	}
	m := &Message{}
	rawType := be.Uint16(b[12:14])
	m.Type = rawType &^ typeLight
	m.Light = rawType&typeLight != 0
	var data []byte
	if m.Light {
		if m.Type != TypePublish && m.Type != TypePublishShard && m.Type != TypeModule {
			return nil, fmt.Errorf("cluster: light header on message type %d", m.Type)
		}
		data = b[lightLen:]
	} else {
		if n < headerLen {
			return nil, fmt.Errorf("cluster: message length %d below the minimum", n)
		}
		data = b[headerLen:]
		m.Port = be.Uint16(b[10:12])
		m.CurrentEpoch = be.Uint64(b[16:24])
		m.ConfigEpoch = be.Uint64(b[24:32])
		m.Offset = be.Uint64(b[32:40])
		copy(m.Sender[:], b[40:80])
		copy(m.Slots[:], b[80:2128])
		copy(m.ReplicaOf[:], b[2128:2168])
		copy(m.MyIP[:], b[2168:2214])
		m.PPort = be.Uint16(b[2246:2248])
		m.CPort = be.Uint16(b[2248:2250])
		m.Flags = be.Uint16(b[2250:2252])
		m.State = b[2252]
		copy(m.MFlags[:], b[2253:2256])
	}
	bad := func(what string) error {
		return fmt.Errorf("cluster: type %d message of %d bytes: %s", m.Type, n, what)
	}
	switch m.Type {
	case TypePing, TypePong, TypeMeet:
		if m.Light {
			return nil, bad("light header")
		}
		count := int(be.Uint16(b[14:16]))
		if len(data) < count*gossipLen {
			return nil, bad("shorter than its gossip sections")
		}
		m.Gossip = make([]Gossip, count)
		for i := range m.Gossip {
			g := &m.Gossip[i]
			s := data[i*gossipLen : (i+1)*gossipLen]
			copy(g.Name[:], s[0:40])
			g.PingSent = be.Uint32(s[40:44])
			g.PongReceived = be.Uint32(s[44:48])
			copy(g.IP[:], s[48:94])
			g.Port = be.Uint16(s[94:96])
			g.CPort = be.Uint16(s[96:98])
			g.Flags = be.Uint16(s[98:100])
			g.PPort = be.Uint16(s[100:102])
		}
		data = data[count*gossipLen:]
		if m.MFlags[0]&MFlagExtData != 0 {
			for range int(be.Uint16(b[2214:2216])) {
				if len(data) < 8 {
					return nil, bad("an extension past its end")
				}
				l := be.Uint32(data[0:4])
				if l%8 != 0 || l < 8 || uint64(l) > uint64(len(data)) {
					return nil, bad(fmt.Sprintf("extension length %d", l))
				}
				e := Ext{Type: be.Uint16(data[4:6]), Data: data[8:l]}
				switch e.Type {
				case ExtHostname, ExtHumanNodename, ExtClientIPv4, ExtClientIPv6:
					if i := bytes.IndexByte(e.Data, 0); i >= 0 {
						e.Data = e.Data[:i]
					}
				}
				e.Data = bytes.Clone(e.Data)
				m.Exts = append(m.Exts, e)
				data = data[l:]
			}
		}
		if len(data) != 0 {
			return nil, bad("length does not match its sections")
		}
	case TypeFail:
		if len(data) != failLen {
			return nil, bad("not a FAIL's length")
		}
		copy(m.FailName[:], data)
	case TypePublish, TypePublishShard:
		if len(data) < publishHdr {
			return nil, bad("shorter than a PUBLISH")
		}
		cl, ml := uint64(be.Uint32(data[0:4])), uint64(be.Uint32(data[4:8]))
		if cl+ml != uint64(len(data)-publishHdr) {
			return nil, bad("channel and message lengths do not add up")
		}
		m.Channel = bytes.Clone(data[8 : 8+cl])
		m.Payload = bytes.Clone(data[8+cl:])
	case TypeFailoverAuthRequest, TypeFailoverAuthAck, TypeMFStart:
		if len(data) != 0 {
			return nil, bad("data on a message that has none")
		}
	case TypeUpdate:
		if len(data) != updateLen {
			return nil, bad("not an UPDATE's length")
		}
		m.UpdateEpoch = be.Uint64(data[0:8])
		copy(m.UpdateName[:], data[8:48])
		copy(m.UpdateSlots[:], data[48:])
	case TypeModule:
		if len(data) < moduleHdr || uint64(be.Uint32(data[8:12])) != uint64(len(data)-moduleHdr) {
			return nil, bad("module payload length")
		}
		m.ModuleID = be.Uint64(data[0:8])
		m.ModuleType = data[12]
		m.ModuleData = bytes.Clone(data[13:])
	}
	return m, nil
}

// Encode appends m in Valkey's wire format. PING-like messages carry
// their gossip sections and, when there are any, the extensions (the
// extension flag and count are set from m.Exts). FAILOVER_AUTH_*, MFSTART
// and unknown types are the header alone. A light message has the
// 16-byte header.
func (m *Message) Encode(dst []byte) []byte {
	start := len(dst)
	be := binary.BigEndian
	typ := m.Type
	hdr := headerLen
	if m.Light {
		typ |= typeLight
		hdr = lightLen
	}
	dst = append(dst, make([]byte, hdr)...)
	h := dst[start:]
	copy(h[0:4], "RCmb")
	be.PutUint16(h[8:10], protoVer)
	be.PutUint16(h[12:14], typ)
	if !m.Light {
		be.PutUint16(h[10:12], m.Port)
		be.PutUint64(h[16:24], m.CurrentEpoch)
		be.PutUint64(h[24:32], m.ConfigEpoch)
		be.PutUint64(h[32:40], m.Offset)
		copy(h[40:80], m.Sender[:])
		copy(h[80:2128], m.Slots[:])
		copy(h[2128:2168], m.ReplicaOf[:])
		copy(h[2168:2214], m.MyIP[:])
		be.PutUint16(h[2246:2248], m.PPort)
		be.PutUint16(h[2248:2250], m.CPort)
		be.PutUint16(h[2250:2252], m.Flags)
		h[2252] = m.State
		copy(h[2253:2256], m.MFlags[:])
	}
	switch m.Type {
	case TypePing, TypePong, TypeMeet:
		be.PutUint16(dst[start+14:start+16], uint16(len(m.Gossip)))
		for _, g := range m.Gossip {
			var s [gossipLen]byte
			copy(s[0:40], g.Name[:])
			be.PutUint32(s[40:44], g.PingSent)
			be.PutUint32(s[44:48], g.PongReceived)
			copy(s[48:94], g.IP[:])
			be.PutUint16(s[94:96], g.Port)
			be.PutUint16(s[96:98], g.CPort)
			be.PutUint16(s[98:100], g.Flags)
			be.PutUint16(s[100:102], g.PPort)
			dst = append(dst, s[:]...)
		}
		if len(m.Exts) > 0 {
			dst[start+2253] |= MFlagExtData
			be.PutUint16(dst[start+2214:start+2216], uint16(len(m.Exts)))
			for _, e := range m.Exts {
				body := len(e.Data)
				switch e.Type {
				case ExtHostname, ExtHumanNodename, ExtClientIPv4, ExtClientIPv6:
					body++ // the NUL
				}
				l := 8 + (body+7)/8*8
				var eh [8]byte
				be.PutUint32(eh[0:4], uint32(l))
				be.PutUint16(eh[4:6], e.Type)
				dst = append(dst, eh[:]...)
				dst = append(dst, e.Data...)
				dst = append(dst, make([]byte, l-8-len(e.Data))...)
			}
		}
	case TypeFail:
		dst = append(dst, m.FailName[:]...)
	case TypePublish, TypePublishShard:
		var ph [publishHdr]byte
		be.PutUint32(ph[0:4], uint32(len(m.Channel)))
		be.PutUint32(ph[4:8], uint32(len(m.Payload)))
		dst = append(dst, ph[:]...)
		dst = append(dst, m.Channel...)
		dst = append(dst, m.Payload...)
	case TypeUpdate:
		dst = be.AppendUint64(dst, m.UpdateEpoch)
		dst = append(dst, m.UpdateName[:]...)
		dst = append(dst, m.UpdateSlots[:]...)
	case TypeModule:
		dst = be.AppendUint64(dst, m.ModuleID)
		dst = be.AppendUint32(dst, uint32(len(m.ModuleData)))
		dst = append(dst, m.ModuleType)
		dst = append(dst, m.ModuleData...)
	}
	be.PutUint32(dst[start+4:start+8], uint32(len(dst)-start))
	return dst
}

// ForgottenNode builds a FORGOTTEN_NODE extension: the node's name and
// the seconds it stays forgotten.
func ForgottenNode(name [NameLen]byte, ttl uint64) Ext {
	d := make([]byte, NameLen+8)
	copy(d, name[:])
	binary.BigEndian.PutUint64(d[NameLen:], ttl)
	return Ext{Type: ExtForgottenNode, Data: d}
}

// ShardID builds a SHARDID extension.
func ShardID(id [NameLen]byte) Ext {
	return Ext{Type: ExtShardID, Data: bytes.Clone(id[:])}
}
