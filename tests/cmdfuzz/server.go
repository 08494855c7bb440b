package cmdfuzz

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// ReplyTimeout bounds the wait for any one reply. Every command the
// fuzzer sends returns within milliseconds on a healthy server (blocking
// commands carry timeouts of at most a few milliseconds, see guard), so a
// reply that takes longer is a stall.
var ReplyTimeout = 10 * time.Second

// serverArgs are the options both kinds of server start with: DEBUG is
// refused (so DEBUG SLEEP, SEGFAULT, RELOAD... can be sent: both servers
// answer the same refusal).
var serverArgs = []string{"--enable-debug-command", "no"}

// server is one server under test and the fuzzer's connection to it.
type server struct {
	name  string
	ref   bool // the reference (valkey-server), not a server under test
	start func() *testutil.Proc

	proc  *testutil.Proc
	conn  net.Conn
	br    *bufio.Reader
	proto int // 2 or 3, as the last successful HELLO set it

	// broken is set when the connection failed (or must not be trusted);
	// the next reset restarts the process if it has to and reconnects.
	broken     bool
	needsStart bool
	logSeen    int // bytes of proc.Output() already scanned
}

// corvidStarter returns a function that starts corvid-server with the
// given net-engine ("" leaves the choice to the harness: the server's
// default unless CORVID_TEST_NET_ENGINE names one).
func corvidStarter(t testing.TB, engine string) func() *testutil.Proc {
	return func() *testutil.Proc {
		args := serverArgs
		if engine != "" {
			args = append(slices.Clip(args), "--net-engine", engine)
		}
		return testutil.StartCorvid(t, args...)
	}
}

func valkeyStarter(t testing.TB) func() *testutil.Proc {
	return func() *testutil.Proc { return testutil.StartValkey(t, serverArgs...) }
}

// connect (re)starts the process if needed and opens a fresh connection:
// RESP2, db 0, no transaction, no name, as a new client.
func (s *server) connect() error {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
	if s.proc == nil || s.needsStart || s.proc.Exited() {
		if s.proc != nil {
			s.proc.Stop()
		}
		s.proc = s.start()
		s.logSeen = 0
		s.needsStart = false
	}
	conn, err := net.DialTimeout("tcp", s.proc.Addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("%s: dial: %v", s.name, err)
	}
	s.conn, s.br, s.proto, s.broken = conn, bufio.NewReaderSize(conn, 64<<10), 2, false
	return nil
}

// result is one server's answer to one command.
type result struct {
	sent  bool
	rep   Reply
	err   error         // transport or protocol failure (see kind)
	extra bool          // bytes were waiting after the reply
	took  time.Duration // from the end of the write to the end of the reply
}

// failure classifies a result of a server under test: "" when it is a
// proper reply.
func (s *server) failure(r result) string {
	switch {
	case !r.sent:
		return ""
	case r.err != nil:
		var ne net.Error
		switch {
		case errors.Is(r.err, errMalformed):
			return "malformed"
		case errors.As(r.err, &ne) && ne.Timeout():
			return "stall"
		}
		// The connection closed or was reset: did the process die?
		if _, exited := s.proc.WaitExit(2 * time.Second); exited {
			return "crash"
		}
		return "closed"
	case r.extra:
		return "extra-data"
	case r.rep.IsErr() && strings.HasPrefix(r.rep.Str, "ERR internal error"):
		return "panic"
	}
	return ""
}

// encode writes argv as a RESP multibulk request.
func encode(argv []string) []byte {
	n := 16
	for _, a := range argv {
		n += len(a) + 16
	}
	return wire.AppendCommand(make([]byte, 0, n), argv...)
}

// exchange sends one command to every server in srvs that should get it
// (all but a broken one, and not the reference for a Corvid-only
// command), then reads each reply: the servers work on it in parallel,
// and the lockstep holds (one request, one reply, in order).
func exchange(srvs []*server, c Cmd) []result {
	return exchangeMany(srvs, []Cmd{c})[0]
}

// maxPipeline bounds the bytes of a pipelined group: written whole before
// any reply is read, it must fit in the socket buffers even when the
// server has stopped reading because its replies are not being read.
const maxPipeline = 64 << 10

// exchangeMany is exchange for a pipeline: each server gets all of cmds
// (those meant for it) in one write, then its replies are read in order.
// res[k][i] is server i's reply to cmds[k]. After a failure the server's
// later replies are left unread (not sent).
func exchangeMany(srvs []*server, cmds []Cmd) [][]result {
	res := make([][]result, len(cmds))
	for k := range res {
		res[k] = make([]result, len(srvs))
	}
	sentAt := make([]time.Time, len(srvs))
	for i, s := range srvs {
		if s.broken {
			continue
		}
		var req []byte
		for k, c := range cmds {
			if s.ref && c.CorvidOnly {
				continue
			}
			res[k][i].sent = true
			req = append(req, encode(c.Argv)...)
		}
		if req == nil {
			continue
		}
		s.conn.SetWriteDeadline(time.Now().Add(ReplyTimeout))
		if _, err := s.conn.Write(req); err != nil {
			for k := range cmds {
				if res[k][i].sent {
					res[k][i].err = fmt.Errorf("write: %w", err)
					break
				}
			}
			s.broken = true
		}
		sentAt[i] = time.Now()
	}
	for i, s := range srvs {
		last := -1
		for k, c := range cmds {
			r := &res[k][i]
			if !r.sent || r.err != nil || s.broken {
				if s.broken && r.sent && r.err == nil {
					r.sent = false // never read: an earlier reply failed
				}
				continue
			}
			hello := 0 // the protocol a HELLO asks for
			if len(c.Argv) >= 2 && strings.EqualFold(c.Argv[0], "hello") {
				if v, err := strconv.Atoi(c.Argv[1]); err == nil && (v == 2 || v == 3) {
					hello = v
				}
			}
			s.conn.SetReadDeadline(time.Now().Add(ReplyTimeout))
			proto := s.proto
			if hello != 0 {
				// HELLO answers in the protocol it asks for.
				proto = max(proto, hello)
			}
			r.rep, r.err = ReadReply(s.br, proto)
			r.took = time.Since(sentAt[i])
			if r.err != nil {
				// Closed, or after a timeout or garbage the stream
				// position is unknown: nothing more goes to it until
				// the next reset.
				s.broken = true
				continue
			}
			if hello != 0 && !r.rep.IsErr() {
				s.proto = hello
			}
			last = k
		}
		if last >= 0 && !s.broken {
			// Every reply was read: anything more was not asked for.
			res[last][i].extra = s.br.Buffered() > 0
		}
	}
	return res
}
