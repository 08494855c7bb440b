package server

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Replay applies a stream of commands as Valkey applies its AOF when it
// loads it, and a replica its primary's stream: every command is run on a
// client of its own that has no connection and no reply (a fake client),
// MULTI/EXEC delimit transactions, SELECT switches databases, and keys do
// not expire when a command meets them (db.Ctx.Replica): the stream holds
// the deletions of expired keys, so a replay at a later time rebuilds the
// dataset the stream describes, not one that has aged meanwhile. The
// checks a connected client's command goes through (authentication,
// maxmemory, pauses) do not apply.
//
// It returns the number of commands applied; an unknown command, a wrong
// number of arguments or an unparseable stream stops it with an error
// naming the command's position.
func (s *Server) Replay(r io.Reader) (int, error) {
	c := s.fakeClient()
	rd := resp.NewReader()
	rd.MaxBulk = math.MaxInt64
	rd.MaxQuery = math.MaxInt64
	n := 0
	for {
		got, err := rd.Fill(r)
		for {
			argv, perr := rd.Next()
			if perr != nil {
				return n, fmt.Errorf("replay: command %d: %w", n+1, perr)
			}
			if argv == nil {
				break
			}
			if err := c.replayOne(argv); err != nil {
				return n, fmt.Errorf("replay: command %d: %w", n+1, err)
			}
			n++
		}
		if errors.Is(err, io.EOF) || err == nil && got == 0 {
			if rd.Buffered() > 0 {
				return n, fmt.Errorf("replay: the stream ends inside command %d", n+1)
			}
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("replay: %w", err)
		}
	}
}

// fakeClient is a client with no connection, for Replay.
func (s *Server) fakeClient() *Client {
	c := &Client{srv: s, id: -1, rd: resp.NewReader(), w: resp.NewWriter(1024), authed: true}
	c.ctx = db.Ctx{KS: s.ks, W: c.w, Client: c, Replica: true}
	c.mu.user = "default"
	return c
}

// replayOne runs one command of a replayed stream: looked up and checked
// for arity, queued inside MULTI, run otherwise; its reply is dropped.
func (c *Client) replayOne(argv [][]byte) error {
	defer c.w.Reset()
	c.batchNow = time.Now().UnixMilli() // LRU stamps; nothing expires here
	c.lastEnd = 0
	cm := c.lookupCmd(argv[0])
	if cm == nil {
		cm = c.srv.table.original(argv[0]) // rename-command: as Valkey's lookupCommandOrOriginal
	}
	if cm == nil {
		return fmt.Errorf("unknown command '%s'", argv[0])
	}
	if cm.subs != nil && len(argv) >= 2 {
		sub, buf := lookupSub(cm, argv[1], c.nameBuf)
		c.nameBuf = buf
		if sub == nil {
			return fmt.Errorf("unknown subcommand '%s %s'", argv[0], argv[1])
		}
		cm = sub
	}
	if !cm.meta.CheckArity(len(argv)) {
		return fmt.Errorf("wrong number of arguments for '%s'", cm.name)
	}
	if c.multi != nil && !multiControl(cm.meta) {
		c.queue(cm, argv)
		return nil
	}
	c.call(cm, argv)
	if b := c.w.Bytes(); len(b) > 0 && b[0] == '-' && cm.meta != command.Exec {
		// A command of the stream failing is a stream that does not
		// describe this dataset (Valkey stops loading such an AOF).
		return fmt.Errorf("%s: %s", strings.ToUpper(cm.name), strings.TrimSpace(string(b[1:])))
	}
	return nil
}
