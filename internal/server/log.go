package server

import (
	"fmt"
	"io"
	"log/syslog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
)

// logger writes Valkey-format lines: "pid:M 30 Nov 2026 04:58:31.123 * msg".
// The level marks are Valkey's: '.' debug, '-' verbose, '*' notice, '#' warning.
type logger struct {
	mu    sync.Mutex
	out   io.Writer
	level int
	pid   int
	// sys, with syslog-enabled yes, gets every line's message as well,
	// at the syslog priority of its level, under syslog-ident and
	// syslog-facility (Valkey's openlog/syslog).
	sys *syslog.Writer
	// replica makes the role letter 'S' (Valkey's 'M' primary, 'S'
	// replica), set while the server replicates.
	replica atomic.Bool
}

// syslogFacilities maps syslog-facility's names.
var syslogFacilities = map[string]syslog.Priority{
	"user": syslog.LOG_USER, "local0": syslog.LOG_LOCAL0, "local1": syslog.LOG_LOCAL1,
	"local2": syslog.LOG_LOCAL2, "local3": syslog.LOG_LOCAL3, "local4": syslog.LOG_LOCAL4,
	"local5": syslog.LOG_LOCAL5, "local6": syslog.LOG_LOCAL6, "local7": syslog.LOG_LOCAL7,
}

// openSyslog connects to the system's syslog socket, or to the datagram
// socket CORVID_SYSLOG_SOCKET names (tests).
func openSyslog(cfg *config.Config) (*syslog.Writer, error) {
	pri := syslogFacilities[cfg.SyslogFacility()] | syslog.LOG_NOTICE
	if path := os.Getenv("CORVID_SYSLOG_SOCKET"); path != "" {
		return syslog.Dial("unixgram", path, pri, cfg.SyslogIdent())
	}
	return syslog.New(pri, cfg.SyslogIdent())
}

const (
	levelDebug = iota
	levelVerbose
	levelNotice
	levelWarning
	levelNothing
)

func newLogger(cfg *config.Config) *logger {
	l := &logger{out: os.Stdout, pid: os.Getpid(), level: levelNotice}
	switch cfg.Loglevel() {
	case "debug":
		l.level = levelDebug
	case "verbose":
		l.level = levelVerbose
	case "warning":
		l.level = levelWarning
	case "nothing":
		l.level = levelNothing
	}
	if cfg.SyslogEnabled() {
		if w, err := openSyslog(cfg); err == nil {
			l.sys = w
		} else {
			fmt.Fprintf(os.Stderr, "Can't open syslog: %v\n", err)
		}
	}
	if f := cfg.LogFile(); f != "" {
		if fh, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			l.out = fh
		} else {
			fmt.Fprintf(os.Stderr, "Can't open the log file: %v\n", err)
		}
	}
	return l
}

func (l *logger) logf(level int, mark byte, format string, args ...any) {
	if level < l.level {
		return
	}
	now := time.Now()
	role := 'M'
	if l.replica.Load() {
		role = 'S'
	}
	line := fmt.Sprintf("%d:%c %s.%03d %c %s\n", l.pid, role, now.Format("02 Jan 2006 15:04:05"), now.Nanosecond()/1e6, mark, fmt.Sprintf(format, args...))
	l.mu.Lock()
	io.WriteString(l.out, line)
	l.mu.Unlock()
	if l.sys != nil {
		msg := fmt.Sprintf(format, args...)
		switch level {
		case levelDebug:
			l.sys.Debug(msg)
		case levelVerbose:
			l.sys.Info(msg)
		case levelNotice:
			l.sys.Notice(msg)
		default:
			l.sys.Warning(msg)
		}
	}
}

func (l *logger) verbose(f string, a ...any) { l.logf(levelVerbose, '-', f, a...) }
func (l *logger) notice(f string, a ...any)  { l.logf(levelNotice, '*', f, a...) }
func (l *logger) warn(f string, a ...any)    { l.logf(levelWarning, '#', f, a...) }
