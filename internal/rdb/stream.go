package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Streams travel as a Stream: the nodes as Valkey keeps them (listpacks
// in its stream layout, each under its master ID) and the metadata and
// consumer groups Valkey saves. The writer writes RDB_TYPE_STREAM_LISTPACKS_3
// (Valkey 7+); the reader reads the three stream types, filling what the
// older ones lack as Valkey's loader does (first ID, entries added, group
// read counters estimated; a consumer's active time is its seen time).
//
// The reader validates a stream completely: every listpack and the
// stream layout inside it (Valkey's deep streamValidateListpackIntegrity),
// and beyond what Valkey checks, what the keyspace relies on: node keys
// distinct and each node's first entry its key, entry IDs increasing
// across the nodes and none greater than the last ID, each node holding
// a live entry and live and deleted counts matching its entries, the
// length matching the live entries, every pending entry owned by exactly
// one consumer. A Valkey-written stream always passes.

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

func (a StreamID) cmp(b StreamID) int {
	switch {
	case a.Ms != b.Ms:
		if a.Ms < b.Ms {
			return -1
		}
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// StreamNode is one node: its master ID and its listpack, in Valkey's
// stream layout.
type StreamNode struct {
	Master   StreamID
	Listpack []byte
}

// StreamNACK is a pending entry of a group.
type StreamNACK struct {
	ID            StreamID
	DeliveryTime  int64 // unix ms
	DeliveryCount uint64
}

// StreamConsumer is a consumer of a group and the IDs of its pending
// entries (each in the group's Pending).
type StreamConsumer struct {
	Name       []byte
	SeenTime   int64
	ActiveTime int64 // -1: never active
	Pending    []StreamID
}

// StreamGroup is a consumer group. EntriesRead is -1 when unknown.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64
	Pending     []StreamNACK // in ID order
	Consumers   []StreamConsumer
}

// Stream is a stream value. Nodes are in master ID order; groups,
// consumers and pending entries in the order Valkey saves them (names in
// byte order, IDs ascending); the writer writes them as given.
type Stream struct {
	Nodes        []StreamNode
	Length       uint64
	LastID       StreamID
	FirstID      StreamID
	MaxDeletedID StreamID
	EntriesAdded uint64
	Groups       []StreamGroup
}

// Clone is a deep copy of s.
func (s *Stream) Clone() *Stream {
	if s == nil {
		return nil
	}
	c := *s
	c.Nodes = make([]StreamNode, len(s.Nodes))
	for i, n := range s.Nodes {
		c.Nodes[i] = StreamNode{Master: n.Master, Listpack: bytes.Clone(n.Listpack)}
	}
	c.Groups = make([]StreamGroup, len(s.Groups))
	for i, g := range s.Groups {
		cg := g
		cg.Name = bytes.Clone(g.Name)
		cg.Pending = slices.Clone(g.Pending)
		cg.Consumers = make([]StreamConsumer, len(g.Consumers))
		for j, cn := range g.Consumers {
			cc := cn
			cc.Name = bytes.Clone(cn.Name)
			cc.Pending = slices.Clone(cn.Pending)
			cg.Consumers[j] = cc
		}
		c.Groups[i] = cg
	}
	return &c
}

// Size approximates the heap s holds.
func (s *Stream) Size() int64 {
	if s == nil {
		return 0
	}
	n := int64(128)
	for _, nd := range s.Nodes {
		n += int64(len(nd.Listpack)) + 48
	}
	for _, g := range s.Groups {
		n += int64(len(g.Name)) + 96 + int64(len(g.Pending))*32
		for _, c := range g.Consumers {
			n += int64(len(c.Name)) + 64 + int64(len(c.Pending))*16
		}
	}
	return n
}

// Entries calls fn with the live entries of s in order, each with its
// fields and values alternating, until fn returns false. The slices are
// valid during the call only. s must be valid (from the reader, or the
// keyspace).
func (s *Stream) Entries(fn func(id StreamID, fields [][]byte) bool) {
	for _, n := range s.Nodes {
		stop := false
		walkStreamNode(n, func(e *streamEntryView) string {
			if e.deleted {
				return ""
			}
			if !fn(e.id, e.fv) {
				stop = true
				return "stop"
			}
			return ""
		})
		if stop {
			return
		}
	}
}

const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// streamEntryView is an entry decoded from a node.
type streamEntryView struct {
	id      StreamID
	deleted bool
	fv      [][]byte
}

// walkStreamNode validates node n's listpack as a stream node
// (streamValidateListpackIntegrity, deep) and calls fn with each entry,
// tombstones included. It returns the first problem, or what fn
// returned.
func walkStreamNode(n StreamNode, fn func(e *streamEntryView) string) string {
	var elems [][]byte
	if msg := lpDecode(n.Listpack, func(v []byte) string {
		elems = append(elems, v)
		return ""
	}); msg != "" {
		return msg
	}
	p := 0
	next := func() ([]byte, bool) {
		if p >= len(elems) {
			return nil, false
		}
		p++
		return elems[p-1], true
	}
	nextInt := func() (int64, bool) {
		v, ok := next()
		if !ok {
			return 0, false
		}
		return parseInt(v)
	}
	count, ok1 := nextInt()
	deleted, ok2 := nextInt()
	masterFields, ok3 := nextInt()
	if !ok1 || !ok2 || !ok3 {
		return "stream node without a master entry"
	}
	if count < 0 || deleted < 0 || masterFields < 0 || masterFields > int64(len(elems)) {
		return "stream node with a bad master entry"
	}
	fields := make([][]byte, masterFields)
	for i := range fields {
		fields[i], _ = next()
	}
	if z, ok := nextInt(); !ok || z != 0 {
		return "stream node master entry without its terminator"
	}
	if count > int64(len(elems)) || deleted > int64(len(elems)) {
		return "stream node with bad entry counts"
	}
	var live, dead int64
	for i := int64(0); i < count+deleted; i++ {
		flags, ok := nextInt()
		if !ok {
			return "stream node with fewer entries than it counts"
		}
		msd, ok1 := nextInt()
		seqd, ok2 := nextInt()
		if !ok1 || !ok2 {
			return "stream entry with a bad ID"
		}
		e := streamEntryView{
			id:      StreamID{n.Master.Ms + uint64(msd), n.Master.Seq + uint64(seqd)},
			deleted: flags&streamFlagDeleted != 0,
		}
		nf := masterFields
		extra := int64(3)
		same := flags&streamFlagSameFields != 0
		if !same {
			if nf, ok = nextInt(); !ok || nf < 0 || nf > int64(len(elems)) {
				return "stream entry with a bad field count"
			}
			extra += nf + 1
		}
		e.fv = make([][]byte, 0, 2*nf)
		if same {
			for j := int64(0); j < nf; j++ {
				v, ok := next()
				if !ok {
					return "stream entry cut short"
				}
				e.fv = append(e.fv, fields[j], v)
			}
		} else {
			for j := int64(0); j < 2*nf; j++ {
				v, ok := next()
				if !ok {
					return "stream entry cut short"
				}
				e.fv = append(e.fv, v)
			}
		}
		if lc, ok := nextInt(); !ok || lc != nf+extra {
			return "stream entry with a bad lp-count"
		}
		if e.deleted {
			dead++
		} else {
			live++
		}
		if msg := fn(&e); msg != "" {
			return msg
		}
	}
	if p != len(elems) {
		return "stream node with elements after its entries"
	}
	if live != count || dead != deleted {
		return "stream node counts do not match its entries"
	}
	return ""
}

// appendStream writes s as RDB_TYPE_STREAM_LISTPACKS_3 (rdbSaveObject).
func (e *encoder) appendStream(b []byte, s *Stream) []byte {
	b = appendLen(b, uint64(len(s.Nodes)))
	var key [16]byte
	for _, n := range s.Nodes {
		putStreamID(key[:], n.Master)
		b = e.appendString(b, key[:])
		b = e.appendString(b, n.Listpack)
	}
	b = appendLen(b, s.Length)
	for _, id := range []StreamID{s.LastID, s.FirstID, s.MaxDeletedID} {
		b = appendLen(b, id.Ms)
		b = appendLen(b, id.Seq)
	}
	b = appendLen(b, s.EntriesAdded)
	b = appendLen(b, uint64(len(s.Groups)))
	for _, g := range s.Groups {
		b = e.appendString(b, g.Name)
		b = appendLen(b, g.LastID.Ms)
		b = appendLen(b, g.LastID.Seq)
		b = appendLen(b, uint64(g.EntriesRead))
		b = appendLen(b, uint64(len(g.Pending)))
		for _, p := range g.Pending {
			putStreamID(key[:], p.ID)
			b = append(b, key[:]...)
			b = binary.LittleEndian.AppendUint64(b, uint64(p.DeliveryTime))
			b = appendLen(b, p.DeliveryCount)
		}
		b = appendLen(b, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			b = e.appendString(b, c.Name)
			b = binary.LittleEndian.AppendUint64(b, uint64(c.SeenTime))
			b = binary.LittleEndian.AppendUint64(b, uint64(c.ActiveTime))
			b = appendLen(b, uint64(len(c.Pending)))
			for _, id := range c.Pending {
				putStreamID(key[:], id)
				b = append(b, key[:]...)
			}
		}
	}
	return b
}

func putStreamID(b []byte, id StreamID) {
	binary.BigEndian.PutUint64(b, id.Ms)
	binary.BigEndian.PutUint64(b[8:], id.Seq)
}

func getStreamID(b []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

// stream decodes a stream value of RDB type t (15, 19 or 21).
func (d *dec) stream(t byte) (*Stream, error) {
	in := d.in
	s := &Stream{}
	voff := in.offset()
	bad := func(off int64, msg string) error { return corrupt(off, "stream value: "+msg) }
	nodes, err := d.length("stream node count")
	if err != nil {
		return nil, err
	}
	s.Nodes = make([]StreamNode, 0, min(nodes, maxPrealloc))
	for range nodes {
		off := in.offset()
		key, err := d.str("stream node key")
		if err != nil {
			return nil, err
		}
		if len(key) != 16 {
			return nil, bad(off, "node key entry is not the size of a stream ID")
		}
		lp, err := d.str("stream node listpack")
		if err != nil {
			return nil, err
		}
		s.Nodes = append(s.Nodes, StreamNode{Master: getStreamID(key), Listpack: lp})
	}
	if s.Length, err = d.length("stream length"); err != nil {
		return nil, err
	}
	if s.LastID, err = d.streamID("stream last ID"); err != nil {
		return nil, err
	}
	if t != typeStreamListpacks {
		if s.FirstID, err = d.streamID("stream first ID"); err != nil {
			return nil, err
		}
		if s.MaxDeletedID, err = d.streamID("stream max deleted ID"); err != nil {
			return nil, err
		}
		if s.EntriesAdded, err = d.length("stream entries added"); err != nil {
			return nil, err
		}
	}
	// The nodes: valid listpacks in the stream layout, keys distinct,
	// entries in order.
	slices.SortFunc(s.Nodes, func(a, b StreamNode) int { return a.Master.cmp(b.Master) })
	var length uint64
	var prev StreamID
	any := false
	firstLive := StreamID{math.MaxUint64, math.MaxUint64}
	for i, n := range s.Nodes {
		if i > 0 && n.Master == s.Nodes[i-1].Master {
			return nil, bad(voff, "listpack re-added with an existing key")
		}
		nodeFirst := true
		var live uint64
		msg := walkStreamNode(n, func(e *streamEntryView) string {
			if nodeFirst && e.id != n.Master {
				return "stream node whose first entry is not its key"
			}
			nodeFirst = false
			if any && e.id.cmp(prev) <= 0 {
				return "stream entries out of order"
			}
			any, prev = true, e.id
			if !e.deleted {
				live++
				if firstLive.cmp(e.id) > 0 {
					firstLive = e.id
				}
			}
			return ""
		})
		if msg == "" && nodeFirst {
			msg = "empty listpack inside stream"
		}
		if msg == "" && live == 0 {
			msg = "stream node without a live entry"
		}
		if msg != "" {
			return nil, bad(voff, msg)
		}
		length += live
	}
	if length != s.Length {
		return nil, bad(voff, "stream length inconsistent with its entries")
	}
	if any && prev.cmp(s.LastID) > 0 {
		return nil, bad(voff, "stream entry after the stream's last ID")
	}
	if t == typeStreamListpacks {
		s.EntriesAdded = s.Length
		if s.Length > 0 {
			s.FirstID = firstLive
		}
	}
	groups, err := d.length("stream group count")
	if err != nil {
		return nil, err
	}
	names := newUniq()
	for range groups {
		off := in.offset()
		var g StreamGroup
		if g.Name, err = d.str("stream group name"); err != nil {
			return nil, err
		}
		if !names.add(g.Name) {
			return nil, bad(off, fmt.Sprintf("duplicated consumer group name %q", g.Name))
		}
		if g.LastID, err = d.streamID("stream group last ID"); err != nil {
			return nil, err
		}
		if t != typeStreamListpacks {
			er, err := d.length("stream group entries read")
			if err != nil {
				return nil, err
			}
			g.EntriesRead = int64(er)
		} else {
			g.EntriesRead = s.estimateDistance(g.LastID)
		}
		pel, err := d.length("stream PEL size")
		if err != nil {
			return nil, err
		}
		g.Pending = make([]StreamNACK, 0, min(pel, maxPrealloc))
		owner := map[StreamID]bool{}
		for range pel {
			off := in.offset()
			raw, err := in.next(16, "stream PEL ID")
			if err != nil {
				return nil, err
			}
			nack := StreamNACK{ID: getStreamID(raw)}
			tb, err := in.next(8, "stream PEL delivery time")
			if err != nil {
				return nil, err
			}
			nack.DeliveryTime = int64(binary.LittleEndian.Uint64(tb))
			if nack.DeliveryCount, err = d.length("stream PEL delivery count"); err != nil {
				return nil, err
			}
			if _, dup := owner[nack.ID]; dup {
				return nil, bad(off, "duplicated global PEL entry")
			}
			owner[nack.ID] = false
			g.Pending = append(g.Pending, nack)
		}
		slices.SortFunc(g.Pending, func(a, b StreamNACK) int { return a.ID.cmp(b.ID) })
		consumers, err := d.length("stream consumer count")
		if err != nil {
			return nil, err
		}
		cnames := newUniq()
		for range consumers {
			off := in.offset()
			var c StreamConsumer
			if c.Name, err = d.str("stream consumer name"); err != nil {
				return nil, err
			}
			if !cnames.add(c.Name) {
				return nil, bad(off, "duplicate stream consumer")
			}
			tb, err := in.next(8, "stream consumer seen time")
			if err != nil {
				return nil, err
			}
			c.SeenTime = int64(binary.LittleEndian.Uint64(tb))
			c.ActiveTime = c.SeenTime
			if t == typeStreamListpacks3 {
				tb, err := in.next(8, "stream consumer active time")
				if err != nil {
					return nil, err
				}
				c.ActiveTime = int64(binary.LittleEndian.Uint64(tb))
			}
			n, err := d.length("stream consumer PEL size")
			if err != nil {
				return nil, err
			}
			c.Pending = make([]StreamID, 0, min(n, maxPrealloc))
			for range n {
				off := in.offset()
				raw, err := in.next(16, "stream consumer PEL ID")
				if err != nil {
					return nil, err
				}
				id := getStreamID(raw)
				owned, ok := owner[id]
				if !ok {
					return nil, bad(off, "consumer entry not found in group global PEL")
				}
				if owned {
					return nil, bad(off, "duplicated consumer PEL entry")
				}
				owner[id] = true
				c.Pending = append(c.Pending, id)
			}
			slices.SortFunc(c.Pending, StreamID.cmp)
			g.Consumers = append(g.Consumers, c)
		}
		for _, owned := range owner {
			if !owned {
				return nil, bad(off, "stream group PEL entry without consumer")
			}
		}
		slices.SortFunc(g.Consumers, func(a, b StreamConsumer) int { return bytes.Compare(a.Name, b.Name) })
		s.Groups = append(s.Groups, g)
	}
	slices.SortFunc(s.Groups, func(a, b StreamGroup) int { return bytes.Compare(a.Name, b.Name) })
	return s, nil
}

// streamID reads an ID saved as two lengths.
func (d *dec) streamID(what string) (StreamID, error) {
	ms, err := d.length(what)
	if err != nil {
		return StreamID{}, err
	}
	seq, err := d.length(what)
	return StreamID{ms, seq}, err
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry for the
// metadata of an RDB_TYPE_STREAM_LISTPACKS stream (no tombstones known).
func (s *Stream) estimateDistance(id StreamID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	if s.Length == 0 && id.cmp(s.LastID) < 1 {
		return int64(s.EntriesAdded)
	}
	switch id.cmp(s.LastID) {
	case 0:
		return int64(s.EntriesAdded)
	case 1:
		return -1
	}
	switch id.cmp(s.FirstID) {
	case -1:
		return int64(s.EntriesAdded - s.Length)
	case 0:
		return int64(s.EntriesAdded - s.Length + 1)
	}
	return -1
}
