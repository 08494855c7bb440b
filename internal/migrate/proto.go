package migrate

import (
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
)

// Item is one key to restore on the target.
type Item struct {
	Key []byte
	// TTL is the key's remaining time to live in milliseconds, 0 for none
	// (RESTORE's relative ttl argument).
	TTL int64
	// Payload is the key's value in DUMP format.
	Payload []byte
}

// Result is how an exchange ended.
type Result struct {
	// Restored[i] reports that the target acknowledged items[i] (its
	// RESTORE answered OK, and AUTH and SELECT did not fail): unless COPY,
	// the caller deletes those keys, whatever Err says.
	Restored []bool
	// Err is the error reply (without its '-'), "" for OK: the target's
	// first error ("ERR Target instance replied with error: ..."), or an
	// IOERR.
	Err string
}

// writeChunk is how much Valkey writes per timed write (connSyncWrite).
const writeChunk = 64 << 10

// lineMax is the longest reply line Valkey keeps (a 1024-byte buffer
// with its terminating NUL); longLine is how much of a longer line
// Corvid reads and drops before it gives up on the connection.
const (
	lineMax  = 1023
	longLine = 1 << 20
)

// errLongLine is a reply line longer than longLine.
var errLongLine = errors.New("migrate: reply line too long")

// errEmptyLine is a reply line with nothing before its "\n": Valkey's
// connSyncReadLine returns 0 for it, which migrateCommand takes for a
// failed read (not a timeout, so it may retry).
var errEmptyLine = errors.New("migrate: empty reply line")

// Migrate sends items to the target a names and reads its answers, as
// Valkey 8.0.1's migrateCommand: AUTH (when asked), SELECT (when the
// connection's selected database is not a.DB), then one RESTORE per item
// (with REPLACE when asked), all in one write, then one reply line per
// command. The first error a reply carries is the result's Err; an item
// is restored only if its own reply and those of AUTH and SELECT are not
// errors. A connection that fails (an I/O error, a timeout) is closed and
// dropped from the cache; if it failed before any RESTORE's reply was
// read, and not by timing out, the exchange is tried once more on a new
// connection. The caller must keep the items' keys from changing until
// Migrate returns (the server holds their stripes).
func (c *Cache) Migrate(a *Args, items []Item) Result {
	name := string(a.Host) + ":" + string(a.Port)
	host := a.dialHost()
	addr := dialAddress(host, a.Port)
	res := Result{Restored: make([]bool, len(items))}
	mayRetry := true
	var buf []byte
	for {
		var o outcome
		s, err := c.take(name, addr, host, a.Timeout)
		switch {
		case err == nil:
			buf, o = s.exchange(a, items, res.Restored, buf[:0])
			c.put(s, o.err == nil)
		case deferredDialError(err):
			// Valkey's connect does not wait to learn whether it
			// succeeded (connSocketBlockingConnect): a refused or timed
			// out connection fails at the first write.
			o = outcome{err: err, writing: true}
		default:
			res.Err = errConnecting
			return res
		}
		if o.err == nil || o.targetErr != "" {
			res.Err = o.targetErr
			return res
		}
		if !o.final && mayRetry && !isTimeout(o.err) {
			mayRetry = false
			continue
		}
		res.Err = errReading
		if o.writing {
			res.Err = errWriting
		}
		return res
	}
}

// outcome is how one attempt on one connection ended.
type outcome struct {
	err       error  // an I/O error: the connection is dropped
	writing   bool   // err happened writing
	final     bool   // err came after some RESTORE's reply: no retry
	targetErr string // the reply for the target's first error
}

// exchange runs one attempt on s, marking restored items in restored, and
// returns buf (the request's buffer, for reuse by a retry).
func (s *socket) exchange(a *Args, items []Item, restored []bool, buf []byte) ([]byte, outcome) {
	sel := s.lastDB != a.DB
	buf = appendRequest(buf, a, items, sel)
	if err := s.write(buf, a.Timeout); err != nil {
		return buf, outcome{err: err, writing: true}
	}
	s.dr.timeout = a.Timeout
	var authReply, selReply string
	var err error
	if a.Auth {
		if authReply, err = s.readLine(); err != nil {
			return buf, outcome{err: err}
		}
	}
	if sel {
		if selReply, err = s.readLine(); err != nil {
			return buf, outcome{err: err}
		}
	}
	var o outcome
	for j := range items {
		line, err := s.readLine()
		if err != nil {
			o.err, o.final = err, j > 0
			break
		}
		switch {
		case a.Auth && isError(authReply):
			line = authReply
		case sel && isError(selReply):
			line = selReply
		}
		if !isError(line) {
			restored[j] = true
			continue
		}
		if o.targetErr == "" {
			// The target refused something: its selected database is
			// no longer known.
			s.lastDB = -1
			o.targetErr = errTargetPrefix + line[1:]
		}
	}
	if o.err == nil && o.targetErr == "" {
		s.lastDB = a.DB
	}
	return buf, o
}

func isError(line string) bool { return len(line) > 0 && line[0] == '-' }

// appendRequest appends the pipelined commands of one attempt.
func appendRequest(dst []byte, a *Args, items []Item, sel bool) []byte {
	var num [20]byte
	if a.Auth {
		if a.Auth2 {
			dst = effects.AppendCommand(dst, []byte("AUTH"), a.Username, a.Password)
		} else {
			dst = effects.AppendCommand(dst, []byte("AUTH"), a.Password)
		}
	}
	if sel {
		dst = effects.AppendCommand(dst, []byte("SELECT"), strconv.AppendInt(num[:0], a.DB, 10))
	}
	restore, replace := []byte("RESTORE"), []byte("REPLACE")
	if a.Asking {
		restore = []byte("RESTORE-ASKING")
	}
	for _, it := range items {
		ttl := strconv.AppendInt(num[:0], it.TTL, 10)
		if a.Replace {
			dst = effects.AppendCommand(dst, restore, it.Key, ttl, it.Payload, replace)
		} else {
			dst = effects.AppendCommand(dst, restore, it.Key, ttl, it.Payload)
		}
	}
	return dst
}

// write sends buf in chunks of writeChunk, each within the timeout.
func (s *socket) write(buf []byte, timeout time.Duration) error {
	for len(buf) > 0 {
		n := min(len(buf), writeChunk)
		s.nc.SetWriteDeadline(time.Now().Add(timeout))
		if _, err := s.nc.Write(buf[:n]); err != nil {
			return err
		}
		buf = buf[n:]
	}
	return nil
}

// readLine reads one reply line as Valkey's syncReadLine does: up to
// the "\n" (a "\r" before it dropped), keeping at most lineMax bytes; a
// line with nothing before its "\n" is an error. Unlike Valkey, which
// leaves the rest of a longer line to be read as the next reply (and so
// would take the rest of an error for the next command's OK), Corvid
// reads the whole line and drops the rest; past longLine it gives up.
func (s *socket) readLine() (string, error) {
	var line []byte
	n := 0
	for {
		ch, err := s.rd.ReadByte()
		if err != nil {
			return "", err
		}
		if ch == '\n' {
			break
		}
		if n++; n > longLine {
			return "", errLongLine
		}
		if len(line) < lineMax+1 { // one more, for a "\r" to drop
			line = append(line, ch)
		}
	}
	if n == 0 {
		return "", errEmptyLine
	}
	if n <= lineMax+1 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return string(line[:min(len(line), lineMax)]), nil
}

// dial connects to addr within timeout. An empty host fails as Valkey's
// getaddrinfo does (Go would dial the local system).
func dial(host, addr string, timeout time.Duration) (net.Conn, error) {
	if host == "" {
		return nil, &net.AddrError{Err: "no host", Addr: addr}
	}
	d := net.Dialer{Timeout: timeout}
	return d.Dial("tcp", addr)
}

// deferredDialError reports whether Valkey would learn of err only when
// it writes: its non-blocking connect returns at once, and it does not
// check whether the connection was established, so a refused or timed
// out connection surfaces as a failed write ("IOERR error or timeout
// writing to target instance", retried once unless it timed out). Only
// what connect() itself refuses (a name that does not resolve, an
// unreachable network) is "IOERR error or timeout connecting to the
// client".
func deferredDialError(err error) bool {
	var we *wrapError
	return errors.As(err, &we) || isTimeout(err) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EHOSTUNREACH)
}

// isTimeout reports whether err is a timeout (Valkey's ETIMEDOUT, after
// which MIGRATE does not retry).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) ||
		errors.As(err, &ne) && ne.Timeout()
}
