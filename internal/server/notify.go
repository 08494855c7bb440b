package server

import (
	"strconv"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/pubsub"
)

// keyObserver is the keyspace's db.Observer: keyspace notifications go
// out as pub/sub messages (Valkey's notifyKeyspaceEvent), key changes and
// flushes to client-side caching (tracking.go). It runs with stripes held
// and takes only the pub/sub registry's lock and outbox mutexes.
type keyObserver struct{ s *Server }

// KeyEvent publishes an event on __keyspace@<db>__:<key> (payload: the
// event) and __keyevent@<db>__:<event> (payload: the key), as the K and E
// flags of notify-keyspace-events ask. Nothing is built when no one is
// subscribed to anything.
func (o keyObserver) KeyEvent(class int, event string, key []byte, dbi int, by any) {
	reg := o.s.pubsub
	if !reg.Wanted() {
		return
	}
	flags := int(o.s.ks.NotifyFlags())
	var buf [128]byte
	if flags&db.NotifyKeyspace != 0 {
		ch := append(buf[:0], "__keyspace@"...)
		ch = strconv.AppendInt(ch, int64(dbi), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, key...)
		reg.Publish(pubsub.Channel, ch, []byte(event), by)
	}
	if flags&db.NotifyKeyevent != 0 {
		ch := append(buf[:0], "__keyevent@"...)
		ch = strconv.AppendInt(ch, int64(dbi), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, event...)
		reg.Publish(pubsub.Channel, ch, key, by)
	}
}

func (o keyObserver) KeyChanged(dbi int, key []byte, by any) { o.s.trackKeyChanged(dbi, key, by) }

func (o keyObserver) Flushed(dbi int) { o.s.trackFlushed(dbi) }
