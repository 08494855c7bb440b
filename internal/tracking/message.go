package tracking

import "strconv"

// Conn is a connection as the table sees it: the owner of a Tracker, or a
// redirect target.
type Conn interface {
	// Proto is the connection's protocol, 2 or 3. Any goroutine.
	Proto() int
	// Subscribed reports whether the connection has any pub/sub
	// subscription (Valkey's CLIENT_PUBSUB). Any goroutine.
	Subscribed() bool
	// Push queues b, complete RESP, for the connection; it must not block
	// and must not keep b. Any goroutine.
	Push(b []byte)
}

// Resolver returns the connected client with the given id, or nil: how
// REDIRECT targets are found at delivery time (Valkey's lookupClientByID).
type Resolver func(id int64) Conn

// ChannelName is the pub/sub channel RESP2 redirect targets receive
// invalidations on.
const ChannelName = "__redis__:invalidate"

const (
	pushHead   = ">2\r\n$10\r\ninvalidate\r\n"
	pubsubHead = "*3\r\n$7\r\nmessage\r\n$20\r\n" + ChannelName + "\r\n"
	null2      = "$-1\r\n"
	null3      = "_\r\n"
)

// message is one invalidation: the array of keys (RESP, the same in both
// protocols), or a null ("all keys") for a flush. Its encodings are built
// on first use and shared by every receiver.
type message struct {
	keys []byte // nil: a flush
	// enc[pubsub][nullProto3]: a push or a pub/sub message; for a flush,
	// with the tracking client's null (Valkey sends shared.null of the
	// tracking client, even to a redirect target of the other protocol).
	enc [2][2][]byte
}

// keyMessage is the invalidation of one key.
func keyMessage(key []byte) *message {
	b := make([]byte, 0, len(key)+16)
	b = append(b, "*1\r\n"...)
	b = appendBulk(b, key)
	return &message{keys: b}
}

func (m *message) bytes(pubsub bool, trackerProto int) []byte {
	i, j := 0, 0
	if pubsub {
		i = 1
	}
	if m.keys == nil && trackerProto >= 3 {
		j = 1
	}
	if m.enc[i][j] == nil {
		var b []byte
		if pubsub {
			b = append(b, pubsubHead...)
		} else {
			b = append(b, pushHead...)
		}
		switch {
		case m.keys != nil:
			b = append(b, m.keys...)
		case j == 1:
			b = append(b, null3...)
		default:
			b = append(b, null2...)
		}
		m.enc[i][j] = b
	}
	return m.enc[i][j]
}

// send delivers m on behalf of tr (Valkey's sendTrackingMessage).
func (t *Table) send(tr *Tracker, m *message) {
	ref := tr.conn.Load()
	if ref == nil {
		return // closed
	}
	self := ref.c
	target, redirected := self, false
	if id := tr.redir.Load(); id != 0 {
		rc := t.resolve(id)
		if rc == nil {
			tr.setFlag(FlagBrokenRedir)
			if self.Proto() >= 3 {
				self.Push(brokenRedirMessage(id))
			}
			return
		}
		target, redirected = rc, true
	}
	switch {
	case target.Proto() >= 3:
		target.Push(m.bytes(false, self.Proto()))
	case redirected && target.Subscribed():
		target.Push(m.bytes(true, self.Proto()))
	}
	// A RESP2 client without a redirect gets nothing: RESP2 has no
	// out-of-band replies on the same connection.
}

func brokenRedirMessage(id int64) []byte {
	b := make([]byte, 0, 48)
	b = append(b, ">2\r\n$21\r\ntracking-redir-broken\r\n:"...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, '\r', '\n')
}

func appendBulk(b, s []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}
