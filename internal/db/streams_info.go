package db

import "encoding/binary"

// XINFO STREAM, GROUPS, CONSUMERS and HELP.

// xinfoLookup is xinfoCommand's common start: the key must exist and be
// a stream.
func (c *Ctx) xinfoLookup() *stream {
	o := c.LookupRead(c.Argv[2])
	if o == nil {
		c.W.Error(ErrNoSuchKey)
		return nil
	}
	if o.Type != TypeStream {
		c.W.Error(ErrWrongType)
		return nil
	}
	return streamOf(o)
}

// XINFO STREAM key [FULL [COUNT count]]
func xinfoStreamCommand(c *Ctx) {
	s := c.xinfoLookup()
	if s == nil {
		return
	}
	opts := c.Argv[3:]
	full := len(opts) > 0
	count := int64(10)
	if full {
		if len(opts) != 1 && len(opts) != 3 || !EqualFold(CString(opts[0]), "FULL") {
			c.subcommandSyntaxError()
			return
		}
		if len(opts) == 3 {
			if !EqualFold(CString(opts[1]), "COUNT") {
				c.subcommandSyntaxError()
				return
			}
			n, ok := c.IntArg(5)
			if !ok {
				return
			}
			count = n
			if count < 0 {
				count = 10
			}
		}
	}
	w := c.W
	if full {
		w.MapLen(9)
	} else {
		w.MapLen(10)
	}
	w.BulkString("length")
	w.Int(int64(s.length))
	w.BulkString("radix-tree-keys")
	w.Int(int64(s.nodes.Len()))
	w.BulkString("radix-tree-nodes")
	w.Int(s.raxNodeCount())
	w.BulkString("last-generated-id")
	writeStreamID(w, s.lastID)
	w.BulkString("max-deleted-entry-id")
	writeStreamID(w, s.maxDeleted)
	w.BulkString("entries-added")
	w.Int(int64(s.entriesAdded))
	w.BulkString("recorded-first-entry-id")
	writeStreamID(w, s.firstID)
	if !full {
		w.BulkString("groups")
		w.Int(int64(len(s.groups)))
		for _, name := range []string{"first-entry", "last-entry"} {
			w.BulkString(name)
			found := false
			s.iterate(streamID{}, maxStreamID, name == "last-entry", false, func(e *streamEntry) bool {
				writeEntry(w, e)
				found = true
				return false
			})
			if !found {
				w.Null()
			}
		}
		return
	}
	w.BulkString("entries")
	c.replyRange(w, s, streamID{}, maxStreamID, count, false)
	w.BulkString("groups")
	w.ArrayLen(len(s.groups))
	for _, g := range s.groups {
		w.MapLen(7)
		w.BulkString("name")
		w.Bulk(g.name)
		w.BulkString("last-delivered-id")
		writeStreamID(w, g.lastID)
		w.BulkString("entries-read")
		if g.entriesRead != invalidEntriesRead {
			w.Int(g.entriesRead)
		} else {
			w.Null()
		}
		w.BulkString("lag")
		writeLag(c, s, g)
		w.BulkString("pel-count")
		w.Int(int64(g.pel.Len()))
		w.BulkString("pending")
		n := g.pel.Len()
		if count != 0 {
			n = min(n, int(count))
		}
		w.ArrayLen(n)
		i := 0
		g.pel.Range(func(id streamID, np **streamNACK) bool {
			if i == n {
				return false
			}
			i++
			nack := *np
			w.ArrayLen(4)
			writeStreamID(w, id)
			w.Bulk(nack.consumer.name)
			w.Int(nack.deliveryTime)
			w.Int(int64(nack.deliveryCount))
			return true
		})
		w.BulkString("consumers")
		w.ArrayLen(len(g.consumers))
		for _, cn := range g.consumers {
			w.MapLen(5)
			w.BulkString("name")
			w.Bulk(cn.name)
			w.BulkString("seen-time")
			w.Int(cn.seenTime)
			w.BulkString("active-time")
			w.Int(cn.activeTime)
			w.BulkString("pel-count")
			w.Int(int64(cn.pel.Len()))
			w.BulkString("pending")
			n := cn.pel.Len()
			if count != 0 {
				n = min(n, int(count))
			}
			w.ArrayLen(n)
			i := 0
			cn.pel.Range(func(id streamID, np **streamNACK) bool {
				if i == n {
					return false
				}
				i++
				w.ArrayLen(3)
				writeStreamID(w, id)
				w.Int((*np).deliveryTime)
				w.Int(int64((*np).deliveryCount))
				return true
			})
		}
	}
}

// writeLag writes a group's lag, or a null when it cannot be known.
func writeLag(c *Ctx, s *stream, g *streamCG) {
	if lag, ok := s.lag(g); ok {
		c.W.Int(lag)
	} else {
		c.W.Null()
	}
}

// XINFO GROUPS key
func xinfoGroupsCommand(c *Ctx) {
	s := c.xinfoLookup()
	if s == nil {
		return
	}
	w := c.W
	w.ArrayLen(len(s.groups))
	for _, g := range s.groups {
		w.MapLen(6)
		w.BulkString("name")
		w.Bulk(g.name)
		w.BulkString("consumers")
		w.Int(int64(len(g.consumers)))
		w.BulkString("pending")
		w.Int(int64(g.pel.Len()))
		w.BulkString("last-delivered-id")
		writeStreamID(w, g.lastID)
		w.BulkString("entries-read")
		if g.entriesRead != invalidEntriesRead {
			w.Int(g.entriesRead)
		} else {
			w.Null()
		}
		w.BulkString("lag")
		writeLag(c, s, g)
	}
}

// XINFO CONSUMERS key group
func xinfoConsumersCommand(c *Ctx) {
	s := c.xinfoLookup()
	if s == nil {
		return
	}
	g := s.group(c.Argv[3])
	if g == nil {
		c.W.Error(noConsumerGroupErr(c.Argv[2], c.Argv[3]))
		return
	}
	w := c.W
	w.ArrayLen(len(g.consumers))
	for _, cn := range g.consumers {
		inactive := int64(-1)
		if cn.activeTime != -1 {
			inactive = c.Now - cn.activeTime
		}
		w.MapLen(4)
		w.BulkString("name")
		w.Bulk(cn.name)
		w.BulkString("pending")
		w.Int(int64(cn.pel.Len()))
		w.BulkString("idle")
		w.Int(max(c.Now-cn.seenTime, 0))
		w.BulkString("inactive")
		w.Int(inactive)
	}
}

var xinfoHelp = []string{
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
}

// XINFO HELP
func xinfoHelpCommand(c *Ctx) { writeHelp(c, "XINFO", xinfoHelp) }

// raxNodeCount is what Valkey's rax of the stream's nodes would count as its
// nodes (XINFO STREAM radix-tree-nodes): for keys of one length, a radix
// tree with path compression is determined by its keys. Its nodes are
// the root, each branching point below it, each key's leaf, and one
// compressed node for each edge out of a branching point that spans more
// than one byte (the edge's first byte sits in the branching node).
// The root holds the path to the first branching point itself. The count
// is kept until a node comes or goes.
func (s *stream) raxNodeCount() int64 {
	if s.raxNodes == 0 {
		s.raxNodes = s.countRaxNodes()
	}
	return s.raxNodes
}

func (s *stream) countRaxNodes() int64 {
	n := s.nodes.Len()
	if n == 0 {
		return 1
	}
	keys := make([][16]byte, 0, n)
	s.nodes.Range(func(id streamID, _ *nodeRef) bool {
		var k [16]byte
		binary.BigEndian.PutUint64(k[:8], id.ms)
		binary.BigEndian.PutUint64(k[8:], id.seq)
		keys = append(keys, k)
		return true
	})
	lcp := make([]int, n-1)
	for i := range lcp {
		l := 0
		for l < 16 && keys[i][l] == keys[i+1][l] {
			l++
		}
		lcp[i] = l
	}
	rootBranching := false
	for _, l := range lcp {
		if l == 0 {
			rootBranching = true
		}
	}
	// Edges to leaves: from the deepest branching point above each.
	var extra, internal int64
	for i := 0; i < n; i++ {
		p := -1
		if i > 0 {
			p = lcp[i-1]
		}
		if i < n-1 {
			p = max(p, lcp[i])
		}
		if p >= 0 && 16-p >= 2 {
			extra++
		}
	}
	// Branching points below the root, and the edges into them, from the
	// LCP intervals.
	stack := []int{0}
	for _, l := range lcp {
		for stack[len(stack)-1] > l {
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			parent := max(stack[len(stack)-1], l)
			if d-parent >= 2 && (parent > 0 || rootBranching) {
				extra++
			}
		}
		if stack[len(stack)-1] < l {
			stack = append(stack, l)
			internal++
		}
	}
	for len(stack) > 1 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		parent := stack[len(stack)-1]
		if d-parent >= 2 && (parent > 0 || rootBranching) {
			extra++
		}
	}
	return 1 + internal + int64(n) + extra
}
