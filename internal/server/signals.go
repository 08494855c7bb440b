package server

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals, as valkey-server handles them (setupSignalHandlers and
// initServer):
//
//	SIGTERM, SIGINT  shut down cleanly (Valkey's "Received SIGTERM
//	                 scheduling shutdown..."); a second SIGINT while
//	                 shutting down exits at once with status 1 ("You
//	                 insist... exiting now.")
//	SIGHUP           ignored (Valkey sets SIG_IGN): a closed terminal or
//	                 a service manager's reload must not kill the server.
//	                 Corvid logs it.
//	SIGPIPE          ignored: a write to a dead socket, or to a log pipe
//	                 whose reader is gone, returns EPIPE instead of
//	                 killing the process (Go's default for fds 1 and 2).
//	SIGSTOP, SIGCONT the kernel's: the server resumes where it stopped.
//
// Notify (not Ignore) is used for SIGHUP and SIGPIPE so that each is seen
// and, for SIGHUP, logged; a Notified SIGPIPE no longer terminates.
var handledSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE}

// NotifySignals starts delivering the signals corvid-server handles to a
// channel for RunSignals. cmd/corvid-server calls it first thing, so that
// a signal that arrives during start-up is not fatal.
func NotifySignals() <-chan os.Signal {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, handledSignals...)
	return ch
}

// signalAction is what one received signal asks of the server.
type signalAction int

const (
	sigIgnore signalAction = iota
	sigShutdown
	sigExitNow
)

// onSignal logs sig as Valkey does and says what to do; shuttingDown is
// whether a shutdown is already under way.
func (s *Server) onSignal(sig os.Signal, shuttingDown bool) signalAction {
	switch sig {
	case syscall.SIGINT:
		if shuttingDown {
			s.log.warn("You insist... exiting now.")
			return sigExitNow
		}
		s.log.warn("Received SIGINT scheduling shutdown...")
		return sigShutdown
	case syscall.SIGTERM:
		if shuttingDown {
			return sigIgnore
		}
		s.log.warn("Received SIGTERM scheduling shutdown...")
		return sigShutdown
	case syscall.SIGHUP:
		s.log.notice("Received SIGHUP, ignored (as valkey-server ignores it)")
	case syscall.SIGPIPE:
		s.log.verbose("Received SIGPIPE, ignored")
	}
	return sigIgnore
}
