package server

import "github.com/corvid-kv/corvid/internal/db"

// serverHandlers lists the commands implemented in this package.
func serverHandlers() []srvHandler {
	return []srvHandler{
		{name: "ping", proc: pingCommand},
		{name: "echo", proc: echoCommand},
		{name: "select", proc: selectCommand},
		{name: "quit", proc: quitCommand},
		{name: "reset", proc: resetCommand},
		{name: "auth", proc: authCommand},
		{name: "hello", proc: helloCommand},
		{name: "multi", proc: multiCommand},
		{name: "exec", proc: execCommand},
		{name: "discard", proc: discardCommand},
		{name: "watch", proc: watchCommand, lock: db.LockNone},
		{name: "unwatch", proc: unwatchCommand},
	}
}
