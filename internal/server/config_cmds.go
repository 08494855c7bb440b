package server

import (
	"errors"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
)

// CONFIG GET pattern [pattern ...]: a map of every matching directive.
func configGetCommand(c *Client) {
	argv := c.ctx.Argv
	patterns := make([]string, 0, len(argv)-2)
	for _, a := range argv[2:] {
		patterns = append(patterns, string(a))
	}
	pairs := c.srv.cfg.Get(patterns...)
	c.w.MapLen(len(pairs))
	for _, p := range pairs {
		c.w.BulkString(p[0])
		c.w.BulkString(p[1])
	}
}

// CONFIG SET name value [name value ...]: all or nothing, then the new
// values are pushed to the parts of the server that cache them.
func configSetCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv)%2 != 0 {
		// The dispatcher checked arity -4; an odd count cannot be pairs.
		c.w.Error(db.ErrSyntax)
		return
	}
	pairs := make([][2]string, 0, (len(argv)-2)/2)
	for i := 2; i+1 < len(argv); i += 2 {
		pairs = append(pairs, [2]string{string(argv[i]), string(argv[i+1])})
	}
	s := c.srv
	if err := s.cfg.SetWith(pairs, config.SetOptions{ClientIsLocal: c.isLocal()}); err != nil {
		c.w.Error(replyErrorText(err))
		return
	}
	s.applyConfig()
	for _, p := range pairs {
		if why := config.Inert(p[0]); why != "" {
			s.log.verbose("CONFIG SET %s is stored and has no effect yet (%s)", p[0], why)
		}
	}
	c.w.OK()
}

// applyRuntimeConfig pushes the eviction-related settings into the
// keyspace (maxmemory-policy, which the LRU/LFU clock layout follows), and
// what this cluster node announces into the cluster.
// applyConfig calls it too, so a config file's allkeys-lfu takes effect at
// start-up.
func (s *Server) applyRuntimeConfig() {
	s.applyMemoryConfig()
	s.applyClusterConfig()
}

// replyErrorText turns an error from package config into reply text. Its
// ReplyErrors carry the complete Valkey text; anything else gets ERR.
func replyErrorText(err error) string {
	var re config.ReplyError
	if errors.As(err, &re) {
		return string(re)
	}
	return "ERR " + err.Error()
}

// CONFIG RESETSTAT: zero the statistics INFO reports, as Valkey's
// resetServerStats, resetCommandTableStats and resetErrorTableStats do.
func configResetstatCommand(c *Client) {
	c.srv.resetStats()
	c.w.OK()
}

func (s *Server) resetStats() {
	s.acl.Log.ResetStats()
	if s.slotStats != nil {
		s.slotStats.resetAll()
	}
	st := &s.stats
	for _, a := range []interface{ Store(int64) }{
		&st.connsReceived, &st.commands, &st.rejectedConns, &st.netInput,
		&st.netOutput, &st.reads, &st.writes, &st.totalErrors, &st.unexpectedErrs, &st.evictedClients,
		&st.panics, &st.qbufLimitDisc, &st.obufLimitDisc,
		&s.ks.Stats.ExpiredKeys, &s.ks.Stats.EvictedKeys, &s.ks.Stats.KeyspaceHits,
		&s.ks.Stats.KeyspaceMisses, &s.ks.Stats.ExpireCycleTime, &s.ks.Stats.EvictionExceeded,
	} {
		a.Store(0)
	}
	for _, cm := range s.sortedCommands() {
		cm.stats.reset()
	}
	s.errs.reset()
	e := s.ext()
	e.defragHits.Store(0)
	e.defragTime.Store(0)
	e.resetLatencyHistograms()
	e.ops.reset()
	e.netIn.reset()
	e.netOut.reset()
	e.peakMem.Store(s.usedMemory())
}

// CONFIG REWRITE
func configRewriteCommand(c *Client) {
	if err := c.srv.cfg.Rewrite(); err != nil {
		c.w.Error(replyErrorText(err))
		return
	}
	c.w.OK()
}

var configHelp = []string{
	"GET <pattern> [<pattern> ...]",
	"    Reply with the value of every directive matching a glob pattern.",
	"SET <directive> <value> [<directive> <value> ...]",
	"    Change directives at run time; either all changes apply or none.",
	"RESETSTAT",
	"    Zero the statistics reported by INFO.",
	"REWRITE",
	"    Write the running configuration back to the configuration file.",
}

// CONFIG HELP
func configHelpCommand(c *Client) { c.writeHelp("CONFIG", configHelp) }
