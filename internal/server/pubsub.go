package server

import (
	"slices"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/pubsub"
)

// Pub/sub commands (package pubsub holds the registry and the fan-out).
// A subscriber's confirmations are replies, written by its own goroutine;
// messages reach it through Client.Push (push.go) like every other push,
// so a publisher on one event loop never writes to a subscriber's socket
// on another.

// Proto and Deliver make a Client a pubsub.Subscriber.
func (c *Client) Proto() int { return int(c.proto.Load()) }
func (c *Client) Deliver(b []byte, from any) {
	f, _ := from.(*Client)
	c.pushFrom(b, f)
}

// subscribed reports whether the client has any subscription (Valkey's
// CLIENT_PUBSUB flag). Any goroutine.
func (c *Client) subscribed() bool {
	return c.subs.Count(pubsub.Channel)+c.subs.Count(pubsub.Pattern)+c.subs.Count(pubsub.Shard) > 0
}

// pubsubRefusal is processCommand's pub/sub context check: a RESP2 client
// with subscriptions may run only the subscription commands, PING, QUIT
// and RESET; a client without any may not unsubscribe.
func (c *Client) pubsubRefusal(cm *cmd) string {
	if !c.subs.Active() {
		switch cm.meta {
		case command.Unsubscribe, command.Punsubscribe, command.Sunsubscribe:
			return "NOSUB '" + cm.name + "' command executed not in subscribed mode"
		}
		return ""
	}
	if c.w.Proto >= 3 {
		return ""
	}
	switch cm.meta {
	case command.Subscribe, command.Psubscribe, command.Ssubscribe,
		command.Unsubscribe, command.Punsubscribe, command.Sunsubscribe,
		command.Ping, command.Quit, command.Reset:
		return ""
	}
	return "ERR Can't execute '" + cm.name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
}

var subWords = [3][2]string{
	pubsub.Channel: {"subscribe", "unsubscribe"},
	pubsub.Pattern: {"psubscribe", "punsubscribe"},
	pubsub.Shard:   {"ssubscribe", "sunsubscribe"},
}

// subCount is the count a confirmation reports: channels and patterns
// together, shard channels alone.
func (c *Client) subCount(k pubsub.Kind) int {
	if k == pubsub.Shard {
		return c.subs.Count(pubsub.Shard)
	}
	return c.subs.Count(pubsub.Channel) + c.subs.Count(pubsub.Pattern)
}

func (c *Client) subscribe(k pubsub.Kind) {
	reg := c.srv.pubsub
	for _, name := range c.ctx.Argv[1:] {
		reg.Subscribe(c, &c.subs, k, string(name))
		c.w.Raw(pubsub.Reply(c.nameBuf[:0], c.w.Proto, subWords[k][0], name, false, c.subCount(k)))
	}
}

func (c *Client) unsubscribe(k pubsub.Kind) {
	reg := c.srv.pubsub
	argv := c.ctx.Argv
	if len(argv) > 1 {
		for _, name := range argv[1:] {
			reg.Unsubscribe(c, &c.subs, k, string(name))
			c.w.Raw(pubsub.Reply(c.nameBuf[:0], c.w.Proto, subWords[k][1], name, false, c.subCount(k)))
		}
		return
	}
	names := c.subs.Names(k)
	if len(names) == 0 {
		c.w.Raw(pubsub.Reply(c.nameBuf[:0], c.w.Proto, subWords[k][1], nil, true, c.subCount(k)))
		return
	}
	slices.Sort(names)
	for _, name := range names {
		reg.Unsubscribe(c, &c.subs, k, name)
		c.w.Raw(pubsub.Reply(c.nameBuf[:0], c.w.Proto, subWords[k][1], []byte(name), false, c.subCount(k)))
	}
}

// SUBSCRIBE channel [channel ...]
func subscribeCommand(c *Client) { c.subscribe(pubsub.Channel) }

// PSUBSCRIBE pattern [pattern ...]
func psubscribeCommand(c *Client) { c.subscribe(pubsub.Pattern) }

// SSUBSCRIBE shardchannel [shardchannel ...]
func ssubscribeCommand(c *Client) {
	if c.ctx.Locked {
		// Inside EXEC (Valkey's CLIENT_DENY_BLOCKING; SUBSCRIBE and
		// PSUBSCRIBE are let through there for compatibility).
		c.w.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	c.subscribe(pubsub.Shard)
}

// UNSUBSCRIBE [channel ...]
func unsubscribeCommand(c *Client) { c.unsubscribe(pubsub.Channel) }

// PUNSUBSCRIBE [pattern ...]
func punsubscribeCommand(c *Client) { c.unsubscribe(pubsub.Pattern) }

// SUNSUBSCRIBE [shardchannel ...]
func sunsubscribeCommand(c *Client) { c.unsubscribe(pubsub.Shard) }

// PUBLISH channel message
func publishCommand(c *Client) {
	argv := c.ctx.Argv
	c.w.Int(int64(c.srv.pubsub.Publish(pubsub.Channel, argv[1], argv[2], c)))
	if cl := c.srv.cluster; cl != nil {
		// Cluster mode: every node gets it over the bus (replicas too),
		// instead of the replication stream.
		cl.Publish(false, argv[1], argv[2])
		return
	}
	// Valkey propagates PUBLISH to replicas (not to the AOF), so that
	// their subscribers get the message too.
	c.srv.appendStream(argv[0], argv[1], argv[2])
}

// SPUBLISH shardchannel message
func spublishCommand(c *Client) {
	argv := c.ctx.Argv
	c.w.Int(int64(c.srv.pubsub.Publish(pubsub.Shard, argv[1], argv[2], c)))
	if cl := c.srv.cluster; cl != nil {
		cl.Publish(true, argv[1], argv[2]) // the shard's other nodes
		return
	}
	c.srv.appendStream(argv[0], argv[1], argv[2])
}

// PUBSUB CHANNELS [pattern], PUBSUB SHARDCHANNELS [pattern]
func pubsubChannelsCommand(c *Client) { c.channelList(pubsub.Channel) }

func pubsubShardchannelsCommand(c *Client) { c.channelList(pubsub.Shard) }

func (c *Client) channelList(k pubsub.Kind) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.subcommandSyntaxError()
		return
	}
	var pat []byte
	if len(argv) == 3 {
		pat = argv[2]
	}
	names := c.srv.pubsub.Channels(k, pat)
	c.w.ArrayLen(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// PUBSUB NUMSUB [channel ...], PUBSUB SHARDNUMSUB [shardchannel ...]
func pubsubNumsubCommand(c *Client) { c.numSub(pubsub.Channel) }

func pubsubShardnumsubCommand(c *Client) { c.numSub(pubsub.Shard) }

func (c *Client) numSub(k pubsub.Kind) {
	argv := c.ctx.Argv[2:]
	c.w.ArrayLen(2 * len(argv))
	for _, ch := range argv {
		c.w.Bulk(ch)
		c.w.Int(int64(c.srv.pubsub.NumSub(k, ch)))
	}
}

// PUBSUB NUMPAT
func pubsubNumpatCommand(c *Client) { c.w.Int(int64(c.srv.pubsub.NumPat())) }

var pubsubHelp = []string{
	"CHANNELS [<pattern>]",
	"    List the channels with subscribers, those matching <pattern> if given.",
	"NUMPAT",
	"    Count the distinct patterns clients subscribe to.",
	"NUMSUB [<channel> ...]",
	"    Count each channel's subscribers (pattern subscriptions not included).",
	"SHARDCHANNELS [<pattern>]",
	"    List the shard channels with subscribers, those matching <pattern> if given.",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Count each shard channel's subscribers.",
}

func pubsubHelpCommand(c *Client) { c.writeHelp("PUBSUB", pubsubHelp) }
