package server

import (
	"github.com/corvid-kv/corvid/internal/db"

	"github.com/corvid-kv/corvid/internal/command"
)

// serverHandlers lists the commands implemented in this package.
func serverHandlers() []srvHandler {
	return []srvHandler{
		{spec: command.Ping, proc: pingCommand},
		{spec: command.Echo, proc: echoCommand},
		{spec: command.Select, proc: selectCommand},
		{spec: command.Quit, proc: quitCommand},
		{spec: command.Reset, proc: resetCommand},
		{spec: command.Auth, proc: authCommand},
		{spec: command.Hello, proc: helloCommand},
		{spec: command.Multi, proc: multiCommand},
		{spec: command.Exec, proc: execCommand},
		{spec: command.Discard, proc: discardCommand},
		{spec: command.Watch, proc: watchCommand, lock: db.LockNone},
		{spec: command.Unwatch, proc: unwatchCommand},

		// Pub/sub (pubsub.go) and MONITOR (monitor.go).
		{spec: command.Subscribe, proc: subscribeCommand},
		{spec: command.Unsubscribe, proc: unsubscribeCommand},
		{spec: command.Psubscribe, proc: psubscribeCommand},
		{spec: command.Punsubscribe, proc: punsubscribeCommand},
		{spec: command.Ssubscribe, proc: ssubscribeCommand},
		{spec: command.Sunsubscribe, proc: sunsubscribeCommand},
		{spec: command.Publish, proc: publishCommand},
		{spec: command.Spublish, proc: spublishCommand},
		{spec: command.PubsubChannels, proc: pubsubChannelsCommand},
		{spec: command.PubsubShardchannels, proc: pubsubShardchannelsCommand},
		{spec: command.PubsubNumsub, proc: pubsubNumsubCommand},
		{spec: command.PubsubShardnumsub, proc: pubsubShardnumsubCommand},
		{spec: command.PubsubNumpat, proc: pubsubNumpatCommand},
		{spec: command.PubsubHelp, proc: pubsubHelpCommand},
		{spec: command.Monitor, proc: monitorCommand},

		// Scripts (script.go).
		{spec: command.Eval, proc: evalCommand},
		{spec: command.EvalRo, proc: evalCommand},
		{spec: command.Evalsha, proc: evalCommand},
		{spec: command.EvalshaRo, proc: evalCommand},
		{spec: command.ScriptLoad, proc: scriptLoadCommand},
		{spec: command.ScriptExists, proc: scriptExistsCommand},
		{spec: command.ScriptFlush, proc: scriptFlushCommand},
		{spec: command.ScriptKill, proc: scriptKillCommand},
		{spec: command.ScriptShow, proc: scriptShowCommand},
		{spec: command.ScriptDebug, proc: scriptDebugCommand},
		{spec: command.ScriptHelp, proc: scriptHelpCommand},

		// CLIENT (client_cmds.go; TRACKING, CACHING, GETREDIR and
		// TRACKINGINFO in tracking.go)
		{spec: command.ClientId, proc: clientIDCommand},
		{spec: command.ClientInfo, proc: clientInfoCommand},
		{spec: command.ClientList, proc: clientListCommand},
		{spec: command.ClientSetname, proc: clientSetnameCommand},
		{spec: command.ClientGetname, proc: clientGetnameCommand},
		{spec: command.ClientSetinfo, proc: clientSetinfoCommand},
		{spec: command.ClientKill, proc: clientKillCommand},
		{spec: command.ClientPause, proc: clientPauseCommand},
		{spec: command.ClientUnpause, proc: clientUnpauseCommand},
		{spec: command.ClientUnblock, proc: clientUnblockCommand},
		{spec: command.ClientReply, proc: clientReplyCommand},
		{spec: command.ClientNoEvict, proc: clientNoEvictCommand},
		{spec: command.ClientNoTouch, proc: clientNoTouchCommand},
		{spec: command.ClientTracking, proc: clientTrackingCommand},
		{spec: command.ClientTrackinginfo, proc: clientTrackinginfoCommand},
		{spec: command.ClientGetredir, proc: clientGetredirCommand},
		{spec: command.ClientCaching, proc: clientCachingCommand},
		{spec: command.ClientCapa, proc: clientCapaCommand},
		{spec: command.ClientHelp, proc: clientHelpCommand},

		// Server introspection and administration.
		{spec: command.Info, proc: infoCommand},
		{spec: command.Time, proc: timeCommand},
		{spec: command.Lastsave, proc: lastsaveCommand},
		{spec: command.Save, proc: saveCommand},
		{spec: command.Bgsave, proc: bgsaveCommand},
		{spec: command.Wait, proc: waitCommand},
		{spec: command.Waitaof, proc: waitaofCommand},
		{spec: command.Bgrewriteaof, proc: bgrewriteaofCommand},
		{spec: command.Shutdown, proc: shutdownCommand},
		{spec: command.ConfigGet, proc: configGetCommand},
		{spec: command.ConfigSet, proc: configSetCommand},
		{spec: command.ConfigResetstat, proc: configResetstatCommand},
		{spec: command.ConfigRewrite, proc: configRewriteCommand},
		{spec: command.ConfigHelp, proc: configHelpCommand},
		{spec: command.SlowlogGet, proc: slowlogGetCommand},
		{spec: command.SlowlogLen, proc: slowlogLenCommand},
		{spec: command.SlowlogReset, proc: slowlogResetCommand},
		{spec: command.SlowlogHelp, proc: slowlogHelpCommand},
		{spec: command.LatencyLatest, proc: latencyLatestCommand},
		{spec: command.LatencyHistory, proc: latencyHistoryCommand},
		{spec: command.LatencyReset, proc: latencyResetCommand},
		{spec: command.LatencyGraph, proc: latencyGraphCommand},
		{spec: command.LatencyDoctor, proc: latencyDoctorCommand},
		{spec: command.LatencyHistogram, proc: latencyHistogramCommand},
		{spec: command.LatencyHelp, proc: latencyHelpCommand},
		{spec: command.Command, proc: commandCommand},
		{spec: command.CommandCount, proc: commandCountCommand},
		{spec: command.CommandInfo, proc: commandInfoCommand},
		{spec: command.CommandList, proc: commandListCommand},
		{spec: command.CommandDocs, proc: commandDocsCommand},
		{spec: command.CommandGetkeys, proc: commandGetkeysCommand},
		{spec: command.CommandGetkeysandflags, proc: commandGetkeysandflagsCommand},
		{spec: command.CommandHelp, proc: commandHelpCommand},
		{spec: command.Debug, proc: debugCommand},
		{spec: command.Migrate, proc: migrateCommand},

		// MEMORY (memory_cmds.go)
		{spec: command.MemoryUsage, proc: memoryUsageCommand},
		{spec: command.MemoryStats, proc: memoryStatsCommand},
		{spec: command.MemoryDoctor, proc: memoryDoctorCommand},
		{spec: command.MemoryMallocStats, proc: memoryMallocStatsCommand},
		{spec: command.MemoryPurge, proc: memoryPurgeCommand},
		{spec: command.MemoryHelp, proc: memoryHelpCommand},
	}
}
