package server

import (
	"net"
	"os"
	"syscall"
)

// Supervision (the supervised directive), as Valkey's: under systemd the
// server tells the service manager it is ready (READY=1, once the dataset
// is loaded and it accepts connections) and that it is stopping
// (STOPPING=1), through the datagram socket NOTIFY_SOCKET names; under
// upstart it stops itself with SIGSTOP once ready (upstart's "expect
// stop"). "auto" picks whichever the environment shows.

// supervisor resolves the supervised directive against the environment:
// "systemd", "upstart" or "no" (logging Valkey's warnings when the mode
// asked for cannot be used).
func (s *Server) supervisor() string {
	mode := s.cfg.Supervised()
	if mode == "auto" {
		switch {
		case os.Getenv("UPSTART_JOB") != "":
			mode = "upstart"
		case os.Getenv("NOTIFY_SOCKET") != "":
			mode = "systemd"
		default:
			return "no"
		}
	}
	switch mode {
	case "systemd":
		if os.Getenv("NOTIFY_SOCKET") == "" {
			s.log.warn("systemd supervision requested or auto-detected, but NOTIFY_SOCKET not found!")
			return "no"
		}
		s.log.notice("Supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec and TimeoutStopSec in your service unit.")
	case "upstart":
		if os.Getenv("UPSTART_JOB") == "" {
			s.log.warn("upstart supervision requested, but UPSTART_JOB not found!")
			return "no"
		}
		s.log.notice("supervised by upstart, will stop to signal readiness.")
	}
	return mode
}

// notifyReady tells the supervisor the server is ready.
func (s *Server) notifyReady() {
	switch s.supervised {
	case "systemd":
		s.sdNotify("STATUS=Ready to accept connections\n")
		s.sdNotify("READY=1\n")
	case "upstart":
		syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		os.Unsetenv("UPSTART_JOB")
	}
}

// notifyStopping tells systemd the server is shutting down.
func (s *Server) notifyStopping() {
	if s.supervised == "systemd" {
		s.sdNotify("STOPPING=1\n")
	}
}

// sdNotify sends one sd_notify message; a name starting with '@' is in
// the abstract namespace.
func (s *Server) sdNotify(msg string) {
	name := os.Getenv("NOTIFY_SOCKET")
	if name == "" {
		return
	}
	if name[0] == '@' {
		name = "\x00" + name[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		s.log.warn("Can't connect to systemd socket %s: %v", os.Getenv("NOTIFY_SOCKET"), err)
		return
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(msg)); err != nil {
		s.log.warn("Can't send notification to systemd: %v", err)
	}
}
