package integration

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Keyspace notifications (notify-keyspace-events) against valkey-server
// 8.0.1: the same command scripts run on both servers, a separate
// connection subscribed to __key*__:* records every event, and each
// command's (channel, payload) sequence and reply must be the same.
//
// A command's events are told apart from the next command's by a marker:
// once its reply is read, a third connection publishes on __keymark__:<n>
// (which the subscriber's pattern matches too), and everything the
// subscriber receives before the marker belongs to that command. Both
// servers publish a command's events while they execute it, so they come
// before the marker.

// notifySide is one server's connections: commands, a second client for
// blocking commands, markers, and the subscriber.
type notifySide struct {
	t      *testing.T
	name   string
	cmd    *testutil.Raw
	block  *testutil.Raw
	mark   *testutil.Raw
	sub    net.Conn
	subR   *bufio.Reader
	n      int
	last   string // the previous reply (canonical form), for $last
	target int    // MIGRATE's target port
}

func newNotifySide(t *testing.T, name, addr string, target int) *notifySide {
	t.Helper()
	s := &notifySide{t: t, name: name, target: target,
		cmd: testutil.Dial(t, addr), block: testutil.Dial(t, addr), mark: testutil.Dial(t, addr)}
	s.sub, s.subR = testutil.DialConn(t, addr)
	s.sub.SetDeadline(time.Time{})
	s.sub.Write([]byte(testutil.Command("PSUBSCRIBE", "__key*__:*")))
	if m := s.readMessage(); len(m) != 3 || m[0] != "psubscribe" {
		t.Fatalf("%s: PSUBSCRIBE replied %q", name, m)
	}
	return s
}

// readMessage reads one pub/sub message (an array of bulk strings and
// integers) from the subscriber.
func (s *notifySide) readMessage() []string {
	s.t.Helper()
	s.sub.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := s.subR.ReadString('\n')
	if err != nil || len(line) < 3 || (line[0] != '*' && line[0] != '>') {
		s.t.Fatalf("%s: subscriber read %q: %v", s.name, line, err)
	}
	n, _ := strconv.Atoi(strings.TrimRight(line[1:], "\r\n"))
	out := make([]string, n)
	for i := range out {
		l, err := s.subR.ReadString('\n')
		if err != nil {
			s.t.Fatalf("%s: subscriber: %v", s.name, err)
		}
		l = strings.TrimRight(l, "\r\n")
		switch l[0] {
		case ':':
			out[i] = l[1:]
		case '$':
			size, _ := strconv.Atoi(l[1:])
			buf := make([]byte, size+2)
			if _, err := io.ReadFull(s.subR, buf); err != nil {
				s.t.Fatalf("%s: subscriber: %v", s.name, err)
			}
			out[i] = string(buf[:size])
		default:
			s.t.Fatalf("%s: subscriber: unexpected %q", s.name, l)
		}
	}
	return out
}

// events publishes the next marker and returns the events received
// before it, as "channel payload".
func (s *notifySide) events() []string {
	s.t.Helper()
	s.n++
	marker := "__keymark__:" + strconv.Itoa(s.n)
	if r := s.mark.Do("PUBLISH", marker, "x"); r != ":1" {
		s.t.Fatalf("%s: PUBLISH %s: %s", s.name, marker, r)
	}
	var evs []string
	for {
		m := s.readMessage()
		if len(m) != 4 || m[0] != "pmessage" {
			s.t.Fatalf("%s: subscriber got %q", s.name, m)
		}
		if m[2] == marker {
			return evs
		}
		evs = append(evs, m[2]+" "+m[3])
	}
}

// info reads an INFO field.
func (s *notifySide) info(section, field string) string {
	s.t.Helper()
	return infoFields(s.t, s.mark, section)[field]
}

// stepResult is what one script line produced on one server.
type stepResult struct {
	reply  string
	events []string
}

// run runs one script line: a command on the command connection, or one
// of the directives:
//
//	SLEEP ms       wait
//	&cmd ...       send cmd on the blocking connection and wait until the
//	               server counts it blocked
//	<              read the blocking connection's reply
//	WAITEMPTY      wait until DBSIZE is 0 (active expiry); the events are
//	               sorted, as the order of a cycle's keys is the dict's
//	~cmd ...       a command whose reply is not compared (random picks)
//
// $last in an argument is replaced by the previous bulk reply (DUMP for
// RESTORE), $target by MIGRATE's target port.
func (s *notifySide) run(line string) stepResult {
	s.t.Helper()
	switch {
	case strings.HasPrefix(line, "SLEEP "):
		ms, _ := strconv.Atoi(line[6:])
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return stepResult{reply: "", events: s.events()}
	case strings.HasPrefix(line, "&"):
		args := s.args(line[1:])
		s.block.Send(args...)
		if !waitFor(hangTimeout, func() bool { return s.info("clients", "blocked_clients") == "1" }) {
			s.t.Fatalf("%s: %s did not block", s.name, line)
		}
		return stepResult{events: s.events()}
	case line == "<":
		return stepResult{reply: s.block.Read(), events: s.events()}
	case line == "WAITEMPTY":
		if !waitFor(hangTimeout, func() bool { return s.mark.Do("DBSIZE") == ":0" }) {
			s.t.Fatalf("%s: keys left after active expiry", s.name)
		}
		evs := s.events()
		slices.Sort(evs)
		return stepResult{events: evs}
	}
	ignore := strings.HasPrefix(line, "~")
	r := s.cmd.Do(s.args(strings.TrimPrefix(line, "~"))...)
	s.last = r
	if ignore {
		r = "(not compared)"
	}
	return stepResult{reply: r, events: s.events()}
}

// args splits a line into arguments (splitNotifyLine) with $last and
// $target replaced.
func (s *notifySide) args(line string) []string {
	args := splitNotifyLine(s.t, line)
	for i, a := range args {
		switch a {
		case "$last":
			v, err := strconv.Unquote(s.last)
			if err != nil {
				s.t.Fatalf("%s: $last is not a bulk reply: %s", s.name, s.last)
			}
			args[i] = v
		case "$target":
			args[i] = strconv.Itoa(s.target)
		}
	}
	return args
}

// splitNotifyLine splits at spaces; a "quoted" argument is a Go string.
func splitNotifyLine(t *testing.T, line string) []string {
	var out []string
	for line = strings.TrimLeft(line, " "); line != ""; line = strings.TrimLeft(line, " ") {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("bad quoting in %q", line)
			}
			u, _ := strconv.Unquote(q)
			out = append(out, u)
			line = line[len(q):]
			continue
		}
		i := strings.IndexByte(line, ' ')
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out
}

// notifyScripts are the command scripts, by name. Each runs on an empty
// keyspace in database 0 with active expiry on, under every flag set of
// notifyFlagSets.
var notifyScripts = []struct {
	name  string
	lines []string
}{
	{"strings", []string{
		"SET s 1", "SET s 2 GET", "SET s 3 NX", "SET s 3 XX", "SET s2 3 XX", "SET s2 3 NX GET",
		"SET s 5 EX 100", "SET s 5 KEEPTTL", "SET s 6 PX 100000 GET", "SET s 7 NX PXAT 1", "SET s 7 XX PXAT 1",
		"SETNX s 1", "SETNX s3 1", "SETEX s4 100 v", "PSETEX s5 100000 v",
		"GETSET s6 v", "GETSET s6 w", "GETDEL s6", "GETDEL s6",
		"GETEX s5 PERSIST", "GETEX s5 PERSIST", "GETEX s5 EX 100", "GETEX s5 PXAT 1", "GETEX s4", "GETEX nokey EX 10",
		"SET k v EXAT 1", "EXISTS k", "SET k2 v", "SET k2 w PXAT 1 GET", "SET k2 w PXAT 1 GET",
		"MSET m1 a m2 b m1 c", "MSETNX m1 a m3 b", "MSETNX m3 a m4 b",
		"APPEND m1 xyz", "APPEND m5 xyz",
		"INCR i", "DECR i", "INCRBY i 5", "DECRBY i 5", "INCRBYFLOAT i 1.5", "INCRBYFLOAT f 1.5", "INCR m1",
		"SETRANGE r 0 abc", "SETRANGE r 10 x", `SETRANGE r 0 ""`, `SETRANGE r2 5 ""`,
		"GETRANGE nokey x 1", "BITCOUNT nokey 0 x", "BITCOUNT nokey 0", "BITPOS nokey 2", "BITPOS nokey 1 x", "GETBIT nokey x",
		"BITFIELD nokey GET x 0", "BITFIELD_RO nokey GET u8 x", "BITFIELD_RO nokey SET u8 0 1", "LCS nokey nokey2 BAD",
		"LCS nokey nokey2 LEN IDX", "GETEX nokey BAD", "GETEX nokey EX x", "SETRANGE nokey x a", "INCRBY nokey x",
		"STRLEN nokey", "GETRANGE nokey 0 1", "SUBSTR nokey 0 1", "MGET nokey s nokey2", "LCS s nokey", "GET s",
		"SETBIT b 7 1", "SETBIT b 7 1", "SETBIT b 1000 0", "SETBIT b2 0 0",
		"GETBIT nokey 0", "BITCOUNT nokey", "BITPOS nokey 1",
		"BITOP AND d b nokey", "BITOP OR d b b2", "BITOP AND d nokey nokey2", "BITOP AND d nokey", "BITOP NOT d b",
		"BITFIELD bf SET u8 0 255", "BITFIELD bf SET u8 0 255", "BITFIELD bf SET u8 100 0", "BITFIELD bf GET u8 0",
		"BITFIELD bf INCRBY u8 0 1", "BITFIELD bf OVERFLOW FAIL INCRBY u8 0 256",
		"BITFIELD bf2 OVERFLOW FAIL INCRBY u8 0 256 GET u8 0", "BITFIELD bf3 GET u8 0", "BITFIELD_RO bf3 GET u8 0",
		"LPUSH l x", "SET l x GET", "APPEND l x", "INCR l", "GET l", "SETBIT l 0 1", "GETDEL l",
	}},
	{"keys", []string{
		"SET a 1", "SET b 2", "RENAME a b", "RENAME b b", "RENAME nokey x", "RENAMENX b c", "SET d 1", "RENAMENX c d",
		"MOVE c 1", "MOVE c 1", "SET c 1", "MOVE c 1", "MOVE c 0",
		"COPY d e", "COPY d e", "COPY d e REPLACE", "COPY d e DB 1", "COPY d e DB 1 REPLACE", "COPY nokey e",
		"LPUSH lst a b", "COPY lst lst2", "RENAME lst lst3", "MOVE lst3 2",
		"DEL d e nope", "UNLINK c", "EXPIRE nokey 10",
		"SET k v", "EXPIRE k 100", "PEXPIRE k 100000", "EXPIREAT k 99999999999", "PEXPIREAT k 99999999999999",
		"EXPIRE k 100 NX", "EXPIRE k 100 XX", "EXPIRE k 10 GT", "EXPIRE k 10 LT", "PERSIST k", "PERSIST k",
		"EXPIRE k 0", "SET k v", "PEXPIREAT k 1", "SET k v", "EXPIRE k -5",
		"EXPIRE nokey x", "EXPIRE nokey 10 BAD", "COPY nokey x BAD", "COPY nokey x DB x", "MOVE nokey x", "RESTORE nokey x y",
		"RESTORE nokey 0 badpayload", "OBJECT ENCODING nokey", "OBJECT BAD nokey", "DUMP nokey",
		"EXISTS k", "TYPE k", "TTL k", "PTTL k", "EXPIRETIME k", "PEXPIRETIME k", "OBJECT ENCODING k", "OBJECT FREQ k",
		"OBJECT IDLETIME k", "TOUCH k", "DUMP k", "SET k v", "EXISTS k k nokey", "TOUCH k nokey",
		"DEBUG POPULATE 3", "DEBUG POPULATE 4", "DEBUG POPULATE 2 pfx 10",
		"SET sw 1", "SWAPDB 0 1", "SWAPDB 0 1", "FLUSHDB", "SET k v", "FLUSHALL", "RANDOMKEY", "DBSIZE", "KEYS *",
		"SET a 1", "DUMP a", "RESTORE r 0 $last", "DUMP a", "RESTORE r 0 $last", "DUMP a", "RESTORE r 0 $last REPLACE",
		"DUMP a", "RESTORE r 100000 $last REPLACE IDLETIME 10", "DUMP a", "RESTORE r 1 $last REPLACE ABSTTL",
		"DUMP a", "RESTORE r 1 $last REPLACE ABSTTL", "DUMP a", "RESTORE r 1 $last ABSTTL",
		"SET mg 1", "SET mg2 2", "MIGRATE 127.0.0.1 $target mg 0 5000", "MIGRATE 127.0.0.1 $target mg2 0 5000 COPY",
		"MIGRATE 127.0.0.1 $target \"\" 0 5000 REPLACE KEYS mg2 nokey mg2", "MIGRATE 127.0.0.1 $target nokey 0 5000",
	}},
	{"lists", []string{
		"LPUSH l a b c", "RPUSH l d", "LPUSHX l e", "RPUSHX l f", "LPUSHX nl e", "RPUSHX nl e",
		"LPOP l", "RPOP l", "LPOP l 2", "RPOP l 0", "LPOP nl", "LPOP nl 2",
		"LSET l 0 z", "LSET l 99 z", "LSET nl 0 z", "LINSERT l BEFORE z y", "LINSERT l AFTER nope y", "LINSERT nl AFTER nope y",
		"LREM l 0 nope", "LREM l 1 y", "LTRIM l 0 -1", "LTRIM l 0 0", "LTRIM l 1 0", "LTRIM nl 0 1",
		"RPUSH l a b", "LREM l 0 a", "LREM l 0 b",
		"RPUSH src a b", "LMOVE src dst LEFT RIGHT", "LMOVE src dst RIGHT LEFT",
		"RPUSH r1 x", "LMOVE r1 r1 LEFT RIGHT", "RPOPLPUSH r1 r1", "RPOPLPUSH r1 r2", "RPOPLPUSH nope r2", "LMOVE nope r2 LEFT LEFT",
		"RPUSH m a b c", "LMPOP 2 nope m LEFT COUNT 2", "LMPOP 2 nope m RIGHT COUNT 2", "LMPOP 1 nope LEFT",
		"RPUSH bl a", "BLPOP nope bl 0", "BRPOP bl 0.01", "RPUSH bl a b", "BLMOVE bl bld LEFT LEFT 0",
		"BLMOVE bl bld RIGHT RIGHT 0", "BRPOPLPUSH nope x 0.01", "RPUSH bm a b c", "BLMPOP 0 1 bm LEFT COUNT 5",
		"LPUSH ws x", "SET str x", "LMOVE ws str LEFT LEFT", "LPUSH str x",
		"LLEN nl", "LRANGE nl 0 1", "LINDEX nl 0", "LPOS nl a",
		"LRANGE nl x 1", "LINDEX nl x", "LPOS nl a RANK 0", "LPOS nl a BAD", "LPOP nl x", "LMPOP 1 nl LEFT COUNT x",
		"LSET nl x y", "LTRIM nl x 1", "LREM nl x a", "LINSERT nl MIDDLE a b", "BLPOP nl x",
		// Blocked clients served by a push: the pop is announced after
		// the push, by the push's command.
		"&BLPOP bk 0", "RPUSH bk x", "<",
		"&BRPOP bk1 bk 0", "LPUSH bk a b", "<", "DEL bk",
		"&BLMOVE bk dk LEFT RIGHT 0", "LPUSH bk x y", "<",
		"DEL bk", "&BRPOPLPUSH bk dk 0", "RPUSH bk z", "<",
		"&BLMPOP 0 2 bk2 bk RIGHT COUNT 5", "RPUSH bk2 a b", "<",
		"&BLPOP bk3 0", "MULTI", "RPUSH bk3 a", "RPUSH bk3 b", "EXEC", "<",
		"&BLPOP bk4 0", "SET bk4 x", "DEL bk4", "LPUSH bk4 y", "<",
	}},
	{"hashes", []string{
		"HSET h a 1 b 2", "HSET h a 1", "HMSET h c 3", "HSETNX h a 9", "HSETNX h z 9", "HSETNX nh z 9",
		"HDEL h nope", "HDEL h a b", "HDEL h c z", "HDEL h x",
		"HINCRBY h2 f 1", "HINCRBY h2 f 1", "HINCRBYFLOAT h2 g 1.5", "HSET h2 s x", "HINCRBY h2 s 1",
		"HINCRBYFLOAT h2 s 1", "HINCRBYFLOAT h3 s abc", "HINCRBY h3 s abc", "HINCRBY h2 f 9223372036854775807",
		"HGET h2 nope", "HGET nh2 f", "HMGET nh2 f g", "HGETALL nh2", "HKEYS nh2", "HVALS nh2", "HLEN nh2",
		"HEXISTS nh2 f", "HSTRLEN nh2 f", "HRANDFIELD nh2", "HRANDFIELD nh2 2", "HSCAN nh2 0",
		"HRANDFIELD nh2 x", "HRANDFIELD nh2 1 BAD", "HSCAN nh2 x", "HSCAN nh2 0 COUNT x", "HINCRBYFLOAT nh2 f x", "HINCRBY nh2 f x",
	}},
	{"sets", []string{
		"SADD s a b", "SADD s a", "SREM s nope", "SREM s a", "SREM s b c",
		"SADD s a b c d", "~SPOP s", "SPOP s 0", "~SPOP s 2", "~SPOP s 5", "SPOP ns", "SPOP ns 3",
		"SADD s a", "SPOP s", "SADD s a b c", "~SPOP s 3",
		"SADD s a b c", "SMOVE s t a", "SMOVE s t a", "SMOVE s t nope", "SADD t b", "SMOVE s t b",
		"SMOVE s s c", "SMOVE s t c", "SMOVE ns t c", "SET str x", "SMOVE t str b",
		"SADD x1 a b", "SADD x2 b c", "SINTERSTORE d x1 x2", "SINTERSTORE d x1 nope", "SINTERSTORE d x1 nope",
		"SUNIONSTORE d x1 x2", "SUNIONSTORE d nope nope2", "SDIFFSTORE d x1 x2", "SDIFFSTORE d x1 x1",
		"SDIFFSTORE d2 x1 x1", "SINTERSTORE d x1 x1", "SUNIONSTORE x1 x1 x2",
		"SINTER nk nk2", "SINTERCARD 2 nk nk2", "SUNION nk nk2", "SDIFF nk nk2", "SMEMBERS nk", "SISMEMBER nk a",
		"SMISMEMBER nk a", "SCARD nk", "SRANDMEMBER nk", "SRANDMEMBER nk 3", "SSCAN nk 0",
		"SRANDMEMBER nk x", "SPOP nk x", "SINTERCARD 2 nk nk2 LIMIT x", "SSCAN nk x", "SSCAN nk 0 MATCH",
	}},
	{"zsets", []string{
		"ZADD z 1 a 2 b", "ZADD z 1 a", "ZADD z 5 a", "ZADD z NX 9 a", "ZADD z XX 9 nope", "ZADD nz XX 9 nope",
		"ZADD z INCR 1 a", "ZADD z GT 1 a", "ZADD z GT INCR 1 a", "ZADD z CH 7 a", "ZADD z XX INCR 1 nope",
		"ZINCRBY z 1 a", "ZINCRBY z2 1 a", "ZINCRBY z2 nan a", "ZADD z3 NX 1 a",
		"ZADD zi 1 a", "ZADD zi inf a", "ZADD zi INCR -inf a",
		"ZREM z nope", "ZREM z a", "ZREM z b c",
		"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZREMRANGEBYSCORE z 10 20", "ZREMRANGEBYSCORE z 1 1", "ZREMRANGEBYRANK z 0 0",
		"ZREMRANGEBYLEX z - +", "ZREMRANGEBYRANK nz 0 1",
		"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 0", "ZPOPMIN z 2", "ZPOPMAX z 5", "ZPOPMIN nz",
		"BZPOPMIN nz z 0.01", "ZADD z 1 a 2 b", "BZPOPMIN nz z 0", "BZPOPMAX z 0",
		"ZADD z 1 a 2 b 3 c", "ZMPOP 2 nz z MIN COUNT 2", "ZMPOP 1 z MAX COUNT 2", "ZMPOP 1 z MAX", "BZMPOP 0.01 1 z MIN",
		"ZADD z 1 a 2 b 3 c", "BZMPOP 0 1 z MAX COUNT 5",
		"ZADD z1 1 a 2 b", "ZADD z2 2 b 3 c", "ZINTERSTORE d 2 z1 z2", "ZINTERSTORE d 2 z1 nope", "ZINTERSTORE d 2 z1 nope",
		"ZUNIONSTORE d 2 z1 z2", "ZUNIONSTORE d 2 nope nope2", "ZDIFFSTORE d 2 z1 z2", "ZDIFFSTORE d 2 z1 z1",
		"ZRANGESTORE d z1 0 -1", "ZRANGESTORE d z1 5 10", "ZRANGESTORE d z1 5 10", "ZRANGESTORE d nope 0 1",
		"ZRANGESTORE d z1 (1 +inf BYSCORE", "ZUNIONSTORE z1 2 z1 z2",
		"ZINTER 2 z1 nope", "ZUNION 2 nope nope2", "ZDIFF 2 nope z1", "ZINTERCARD 2 nope z1", "ZRANGE z1 0 -1",
		"ZSCORE nope a", "ZMSCORE nope a", "ZCARD nope", "ZCOUNT nope 0 1", "ZLEXCOUNT nope - +", "ZRANK nope a",
		"ZREVRANK nope a", "ZRANGEBYSCORE nope 0 1", "ZREVRANGEBYSCORE nope 1 0", "ZRANGEBYLEX nope - +",
		"ZREVRANGE nope 0 1", "ZRANDMEMBER nope", "ZSCAN nope 0",
		"ZUNIONSTORE d 2 nope nope2 WEIGHTS x 1", "ZUNION 2 nope nope2 BADOPT", "ZINTER 2 nope nope2 AGGREGATE foo",
		"ZRANGE nope 0 1 BYSCORE LIMIT x 1", "ZRANGE nope x 1", "ZRANGEBYSCORE nope x 1", "ZRANGESTORE d nope 0 1 BADOPT",
		"ZRANDMEMBER nope x", "ZRANDMEMBER nope 2 WITHSCORES", "ZMSCORE nope a b", "ZCOUNT nope x 1", "ZLEXCOUNT nope x y",
		"ZREMRANGEBYSCORE nope x 1", "ZADD nope x a", "ZINCRBY nope x a", "ZSCAN nope x", "ZSCAN nope 0 COUNT x",
		"&BZPOPMIN bz 0", "ZADD bz 1 a 2 b", "<", "&BZMPOP 0 1 bz2 MAX COUNT 9", "ZADD bz2 3 c", "<",
	}},
	{"sort", []string{
		"RPUSH l 3 1 2", "SORT l STORE d", "SORT l STORE d", "SORT nope STORE d", "SORT nope STORE d",
		"SET w_1 1", "SORT l BY w_* GET o_* STORE d", "SORT l BY w_*", "SORT l GET # GET o_*", "SORT l BY nosort STORE d2",
		"HSET hh f 1", "SORT l BY hh->f GET hh->g", "SORT l BY w_*->f", "SORT_RO l BY w_*", "SORT l LIMIT 5 10 STORE d2",
		"SORT nope LIMIT x 1", "SORT nope BADOPT", "SORT nope BY w_* GET", "SORT_RO nope STORE x",
		"SORT l GET h_*->f", "HSET h_1 f x", "SORT l BY h_*->f GET h_*->f", "SET h_2 x", "SORT l GET h_*->f",
		"SADD st a", "SORT st ALPHA STORE d3", "ZADD zz 1 a", "SORT zz ALPHA STORE d4", "SORT l BY nosort STORE l",
	}},
	{"multi", []string{
		"MULTI", "SET x 1", "INCR x", "LPUSH x y", "GET nokey", "DEL x", "EXEC",
		"MULTI", "SET y 1 PX 1", "SET y 2", "EXEC",
		"WATCH w", "SET w 1", "MULTI", "SET w 2", "EXEC",
		"MULTI", "BLPOP nolist 0", "RPUSH q a", "BLMOVE q q2 LEFT LEFT 0", "BRPOPLPUSH nolist q2 0", "BZPOPMIN nz 0",
		"EXPIRE q2 -1", "DEL q q2", "EXEC",
		"MULTI", "LPUSH q x", "BLPOP q 0", "EXEC",
		"DEL a a", "SET a 1", "DEL a a b",
		"SET a 1", "LPUSH b x", "RENAME a b", "TYPE b", "LPUSH a y", "RENAMENX b a", "COPY a b REPLACE",
		"SET a 1 EX 100", "COPY a c", "RENAME a d", "MOVE d 1", "SET k v EX 100", "SET k w KEEPTTL",
		"RPUSH q y", "SELECT 1", "RPUSH q z", "SELECT 0", "&BLPOP q9 0", "SELECT 1", "RPUSH q9 a", "SELECT 0",
		"SWAPDB 0 1", "<", "SWAPDB 0 1",
	}},
	{"lazy-expiry", []string{
		"DEBUG SET-ACTIVE-EXPIRE 0",
		"SET e 1 PX 5", "SLEEP 15", "GET e",
		"SET e 1 PX 5", "SLEEP 15", "SET e 2",
		"SET e 1 PX 5", "SLEEP 15", "SET e 2 XX",
		"SET e 1 PX 5", "SLEEP 15", "SET e 2 GET",
		"SET e 1 PX 5", "SLEEP 15", "MSET e 2 f 3",
		"SET e 1 PX 5", "SLEEP 15", "INCR e",
		"SET e 1 PX 5", "SLEEP 15", "APPEND e x",
		"SET e 1 PX 5", "SLEEP 15", "EXISTS e",
		"SET e 1 PX 5", "SLEEP 15", "TTL e",
		"SET e 1 PX 5", "SLEEP 15", "OBJECT ENCODING e",
		"SET e 1 PX 5", "SLEEP 15", "DEL e",
		"SET e 1 PX 5", "SLEEP 15", "EXPIRE e 100",
		"SET e 1 PX 5", "SLEEP 15", "RENAME e x",
		"SET e 1 PX 5", "SLEEP 15", "MOVE e 1",
		"SET e 1 PX 5", "SLEEP 15", "COPY e x",
		"SET e 1 PX 5", "SLEEP 15", "LPUSH e x",
		"SET e 1 PX 5", "SLEEP 15", "HGET e f",
		"DEL e", "SET e 1 PX 5", "SLEEP 15", "SINTERSTORE e nope",
		"SET e 1 PX 5", "SLEEP 15", "SORT nope STORE e",
		"SET e 1 PX 5", "SLEEP 15", "SUNIONSTORE e x1",
		"SET s 1", "SET e 1 PX 5", "SLEEP 15", "BITOP NOT e s",
		"SET x 1 PX 5", "SLEEP 15", "COPY s x", "SET x 1 PX 5", "SLEEP 15", "RENAME s x",
		"SET a 1", "SET e 1 PX 5", "SLEEP 15", "DUMP a", "RESTORE e 0 $last REPLACE",
		"SET e 1 PX 5", "SLEEP 15", "DUMP a", "RESTORE e 0 $last",
		"SET e 1 PX 5", "SLEEP 15", "MULTI", "GET e", "SET e 1", "EXEC",
		// Alone in database 4, for replies that do not depend on order.
		"SELECT 4", "SET e 1 PX 5", "SLEEP 15", "RANDOMKEY",
		"SET e 1 PX 5", "SET f 1", "SLEEP 15", "KEYS *",
		"SCAN 0 MATCH nomatch", "SCAN 0 TYPE list", "SCAN 0 MATCH e", "SET e 1 PX 5", "SLEEP 15", "SCAN 0 COUNT 1000",
		"FLUSHDB", "SELECT 0",
		"DEL s a x", "SADD e a", "PEXPIRE e 5", "SLEEP 15", "SRANDMEMBER e",
		"HSET e a 1", "PEXPIRE e 5", "SLEEP 15", "HRANDFIELD e 2",
		"ZADD e 1 a", "PEXPIRE e 5", "SLEEP 15", "ZRANDMEMBER e",
		"RPUSH e a", "PEXPIRE e 5", "SLEEP 15", "LPOP e",
		"RPUSH e a", "PEXPIRE e 5", "SLEEP 15", "BLPOP e 0.01",
		"RPUSH e a", "PEXPIRE e 5", "SLEEP 15", "SORT e",
		"~MEMORY USAGE nokey", "SET e 1 PX 5", "SLEEP 15", "~MEMORY USAGE e",
		"SET e 1 PX 5", "SLEEP 15", "~OBJECT FREQ e", "SET e 1 PX 5", "SLEEP 15", "~OBJECT HELP", "WATCH e", "UNWATCH",
		"SET e 1 PX 5", "SLEEP 15", "EXPIRETIME e", "SET e 1 PX 5", "SLEEP 15", "LLEN e", "SET e 1 PX 5", "SLEEP 15", "SMOVE e x a",
		"SET e 1 PX 5", "SLEEP 15", "LMOVE e x LEFT LEFT", "SET e 1 PX 5", "SLEEP 15", "~LMPOP 1 e LEFT",
		"SET e 1 PX 5", "SLEEP 15", "ZMPOP 1 e MIN", "SET e 1 PX 5", "SLEEP 15", "BITFIELD e GET u8 0",
		"SET e 1 PX 5", "SLEEP 15", "BITFIELD e SET u8 0 1", "SET e 1 PX 5", "SLEEP 15", "HINCRBY e f 1",
		"SET e 1 PX 5", "SLEEP 15", "GETRANGE e 0 1", "SET e 1 PX 5", "SLEEP 15", "SPOP e", "SET e 1 PX 5", "SLEEP 15", "LINSERT e BEFORE a b",
		"SET e 1 PX 5", "SLEEP 15", "SINTERCARD 1 e", "SET e 1 PX 5", "SLEEP 15", "ZINTERCARD 1 e", "SET e 1 PX 5", "SLEEP 15", "LCS e e",
		"SET e 1 PX 5", "SLEEP 15", "MSETNX e 1", "SET e 1 PX 5", "SLEEP 15", "RENAMENX x e", "SET e 1 PX 5", "SLEEP 15", "LSET e 0 x",
		"SET e 1 PX 5", "SLEEP 15", "LTRIM e 0 1", "SET e 1 PX 5", "SLEEP 15", "ZREMRANGEBYRANK e 0 1", "SET e 1 PX 5", "SLEEP 15", "ZINCRBY e 1 a",
		"SET e 1 PX 5", "SLEEP 15", "GETSET e 2", "SET e 1 PX 5", "SLEEP 15", "INCRBYFLOAT e 1",
		"DEBUG SET-ACTIVE-EXPIRE 1",
	}},
	{"active-expiry", []string{
		"SET a 1 PX 10", "SET b 1 PX 10", "HSET h f v", "PEXPIRE h 10", "SET c 1", "DEL c", "WAITEMPTY",
	}},
}

// asyncExpiry names the scripts whose keys the active expiry cycle
// deletes on its own time: a slow machine may expire one a step earlier
// on one server than on the other, so their events are compared as one
// set for the whole script, not step by step.
var asyncExpiry = map[string]bool{"active-expiry": true}

// notifyFlagSets are the notify-keyspace-events values the scripts run
// under.
var notifyFlagSets = []string{"KEA", "KEAnm", "Kg$lshzxen", "Em", "Kn", "El", "Exg"}

// TestNotifyDifferential runs notifyScripts on Corvid and Valkey 8.0.1.
func TestNotifyDifferential(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	cvTarget := testutil.StartCorvid(t)
	vkTarget := testutil.StartValkey(t)
	cv := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	vk := testutil.StartValkey(t, "--enable-debug-command", "yes")
	sides := []*notifySide{
		newNotifySide(t, "corvid", cv.Addr, cvTarget.Port),
		newNotifySide(t, "valkey", vk.Addr, vkTarget.Port),
	}
	targets := []*testutil.Raw{testutil.Dial(t, cvTarget.Addr), testutil.Dial(t, vkTarget.Addr)}
	for _, flags := range notifyFlagSets {
		for _, sc := range notifyScripts {
			t.Run(flags+"/"+sc.name, func(t *testing.T) {
				var results [2][]stepResult
				for i, s := range sides {
					s.t = t
					s.mark.Do("FLUSHALL")
					s.mark.Do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
					targets[i].Do("FLUSHALL")
					if r := s.mark.Do("CONFIG", "SET", "notify-keyspace-events", flags); r != "+OK" {
						t.Fatalf("%s: CONFIG SET notify-keyspace-events %s: %s", s.name, flags, r)
					}
					for _, line := range sc.lines {
						results[i] = append(results[i], s.run(line))
					}
					s.mark.Do("CONFIG", "SET", "notify-keyspace-events", "")
				}
				var pooled [2][]string
				for j, line := range sc.lines {
					c, v := results[0][j], results[1][j]
					if c.reply != v.reply {
						t.Errorf("%s: reply\ncorvid: %s\nvalkey: %s", line, c.reply, v.reply)
					}
					if asyncExpiry[sc.name] {
						pooled[0] = append(pooled[0], c.events...)
						pooled[1] = append(pooled[1], v.events...)
						continue
					}
					if !slices.Equal(c.events, v.events) {
						t.Errorf("%s: events\ncorvid: %q\nvalkey: %q", line, c.events, v.events)
					}
				}
				if asyncExpiry[sc.name] {
					slices.Sort(pooled[0])
					slices.Sort(pooled[1])
					if !slices.Equal(pooled[0], pooled[1]) {
						t.Errorf("events of the whole script\ncorvid: %q\nvalkey: %q", pooled[0], pooled[1])
					}
				}
			})
		}
	}
}

// TestNotifyEviction: keys evicted under maxmemory allkeys-lru are
// announced as "evicted", each once, on both servers (which keys go
// depends on each server's memory accounting, so only the form is
// compared).
func TestNotifyEviction(t *testing.T) {
	kinds := []string{"corvid"}
	if testutil.HaveValkey(t) {
		kinds = append(kinds, "valkey")
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			p := startKind(t, kind)
			s := newNotifySide(t, kind, p.Addr, 0)
			expect(t, s.mark, "+OK", "CONFIG", "SET", "notify-keyspace-events", "KEe")
			expect(t, s.mark, "+OK", "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
			const n = 2000
			v := strings.Repeat("v", 1000)
			for i := range n {
				s.cmd.Send("SET", "k"+strconv.Itoa(i), v)
			}
			for range n {
				if r := s.cmd.Read(); r != "+OK" {
					t.Fatalf("SET: %s", r)
				}
			}
			used, _ := strconv.ParseInt(s.info("memory", "used_memory"), 10, 64)
			expect(t, s.mark, "+OK", "CONFIG", "SET", "maxmemory", strconv.FormatInt(used-int64(n/2*1000), 10))
			expect(t, s.cmd, "+OK", "SET", "trigger", "1")
			evs := s.events()
			// Evictions that go on in the background (memory still over
			// the limit) publish a key's two events one after the other:
			// the marker can fall between them; the next read has the
			// other half.
			for i := 0; len(evs)%2 != 0 && i < 10; i++ {
				evs = append(evs, s.events()...)
			}
			if len(evs) == 0 || len(evs)%2 != 0 {
				t.Fatalf("%d events after eviction: %q", len(evs), evs)
			}
			seen := map[string]bool{}
			for i := 0; i < len(evs); i += 2 {
				key, ok := strings.CutPrefix(evs[i], "__keyspace@0__:")
				if !ok || !strings.HasSuffix(key, " evicted") {
					t.Fatalf("event %q is not a keyspace eviction", evs[i])
				}
				key = strings.TrimSuffix(key, " evicted")
				if evs[i+1] != "__keyevent@0__:evicted "+key {
					t.Fatalf("event %q after %q", evs[i+1], evs[i])
				}
				// The write that made room may go too, if a later
				// eviction cycle finds memory still over the limit.
				if seen[key] || !(strings.HasPrefix(key, "k") || key == "trigger") {
					t.Fatalf("key %q evicted twice or not one of ours", key)
				}
				seen[key] = true
				if r := s.mark.Do("EXISTS", key); r != ":0" {
					t.Fatalf("evicted key %q still exists", key)
				}
			}
			t.Logf("%s evicted %d keys", kind, len(seen))
			expect(t, s.mark, "+OK", "CONFIG", "SET", "maxmemory", "0")
		})
	}
}

// TestNotifyOtherDatabases: events name the database of the key, for
// SELECT, MOVE, COPY DB and blocked clients served in another database.
func TestNotifyOtherDatabases(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	lines := []string{"SELECT 3", "SET a 1", "LPUSH l x", "MOVE a 5", "COPY l l DB 0", "GET nokey", "SELECT 0",
		"DEL l", "&BLPOP q 0", "SELECT 2", "RPUSH q x", "SELECT 0", "RPUSH q y", "<"}
	var got [2][]stepResult
	for i, kind := range []string{"corvid", "valkey"} {
		p := startKind(t, kind)
		s := newNotifySide(t, kind, p.Addr, 0)
		expect(t, s.mark, "+OK", "CONFIG", "SET", "notify-keyspace-events", "KEAnm")
		for _, l := range lines {
			got[i] = append(got[i], s.run(l))
		}
	}
	for j, l := range lines {
		if fmt.Sprint(got[0][j]) != fmt.Sprint(got[1][j]) {
			t.Errorf("%s:\ncorvid: %v\nvalkey: %v", l, got[0][j], got[1][j])
		}
	}
}
