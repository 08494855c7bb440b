package db

import (
	"strconv"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// Streams to and from package rdb's Stream (RDB files, DUMP/RESTORE,
// snapshots), COPY and DEBUG DIGEST.

func toRDBID(id streamID) rdb.StreamID   { return rdb.StreamID{Ms: id.ms, Seq: id.seq} }
func fromRDBID(id rdb.StreamID) streamID { return streamID{id.Ms, id.Seq} }

// exportStream describes s as an rdb.Stream. The node listpacks alias
// s: serialize the result before the key's stripe is released.
func exportStream(s *stream) *rdb.Stream {
	rs := &rdb.Stream{
		Nodes:        make([]rdb.StreamNode, 0, s.nodes.Len()),
		Length:       s.length,
		LastID:       toRDBID(s.lastID),
		FirstID:      toRDBID(s.firstID),
		MaxDeletedID: toRDBID(s.maxDeleted),
		EntriesAdded: s.entriesAdded,
		Groups:       make([]rdb.StreamGroup, 0, len(s.groups)),
	}
	for c := s.nodes.Start(); c.Valid(); c.Next() {
		rs.Nodes = append(rs.Nodes, rdb.StreamNode{Master: toRDBID(c.ID()), Listpack: s.nodeLP(&c)})
	}
	for _, g := range s.groups {
		rg := rdb.StreamGroup{
			Name:        g.name,
			LastID:      toRDBID(g.lastID),
			EntriesRead: g.entriesRead,
			Pending:     make([]rdb.StreamNACK, 0, g.pel.Len()),
			Consumers:   make([]rdb.StreamConsumer, 0, len(g.consumers)),
		}
		g.pel.Range(func(id streamID, n **streamNACK) bool {
			rg.Pending = append(rg.Pending, rdb.StreamNACK{ID: toRDBID(id), DeliveryTime: (*n).deliveryTime, DeliveryCount: (*n).deliveryCount})
			return true
		})
		for _, c := range g.consumers {
			rc := rdb.StreamConsumer{Name: c.name, SeenTime: c.seenTime, ActiveTime: c.activeTime,
				Pending: make([]rdb.StreamID, 0, c.pel.Len())}
			c.pel.Range(func(id streamID, _ **streamNACK) bool {
				rc.Pending = append(rc.Pending, toRDBID(id))
				return true
			})
			rg.Consumers = append(rg.Consumers, rc)
		}
		rs.Groups = append(rs.Groups, rg)
	}
	return rs
}

// loadStream builds a stream from rs, which package rdb's reader has
// validated (or exportStream made). It keeps rs's listpacks.
func loadStream(rs *rdb.Stream) *stream {
	s := newStream()
	for _, n := range rs.Nodes {
		// In order: each is the last node when it is stored, and the
		// one before it is sealed first.
		if s.nodes.Len() > 0 {
			c := s.nodes.End()
			s.sealTail(&c)
		}
		s.nodes.Insert(fromRDBID(n.Master), nodeRef{})
		c := s.nodes.End()
		s.setNode(&c, n.Listpack)
	}
	if s.nodes.Len() > 0 {
		c := s.nodes.End()
		s.sealTail(&c)
	}
	s.length = rs.Length
	s.lastID = fromRDBID(rs.LastID)
	s.firstID = fromRDBID(rs.FirstID)
	s.maxDeleted = fromRDBID(rs.MaxDeletedID)
	s.entriesAdded = rs.EntriesAdded
	for _, rg := range rs.Groups {
		g := s.createGroup(rg.Name, fromRDBID(rg.LastID), rg.EntriesRead)
		if g == nil {
			continue // the reader refuses duplicates
		}
		for _, p := range rg.Pending {
			n := s.newNACK(nil, p.DeliveryTime)
			n.deliveryCount = p.DeliveryCount
			if !g.pel.Insert(fromRDBID(p.ID), n) {
				s.mem -= nackBytes
			}
		}
		for _, rc := range rg.Consumers {
			c := s.createConsumer(g, rc.Name, rc.SeenTime)
			if c == nil {
				continue
			}
			c.activeTime = rc.ActiveTime
			for _, id := range rc.Pending {
				if np := g.pel.Get(fromRDBID(id)); np != nil && (*np).consumer == nil {
					(*np).consumer = c
					c.pel.Insert(fromRDBID(id), *np)
				}
			}
		}
		// A pending entry nobody owns (the reader refuses them) would
		// break XPENDING: drop it.
		var orphans []streamID
		g.pel.Range(func(id streamID, n **streamNACK) bool {
			if (*n).consumer == nil {
				orphans = append(orphans, id)
			}
			return true
		})
		for _, id := range orphans {
			g.pel.Delete(id)
			s.mem -= nackBytes
		}
	}
	return s
}

// streamCopy is streamDup (COPY): a deep copy.
func streamCopy(o *Object) any { return loadStream(exportStream(streamOf(o)).Clone()) }

// DigestElements feeds DEBUG DIGEST: per live entry, its ID as
// "<ms>.<seq>", then each field and value, as Valkey's xorObjectDigest.
func (s *stream) DigestElements(fn func(parts ...[]byte)) {
	var parts [][]byte
	s.iterate(streamID{}, maxStreamID, false, false, func(e *streamEntry) bool {
		id := strconv.AppendUint(nil, e.id.ms, 10)
		id = append(id, '.')
		id = strconv.AppendUint(id, e.id.seq, 10)
		parts = append(parts[:0], id)
		e.each(func(f, v []byte) {
			parts = append(parts, append([]byte(nil), f...), append([]byte(nil), v...))
		})
		fn(parts...)
		return true
	})
}
