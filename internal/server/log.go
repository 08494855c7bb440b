package server

import (
	"fmt"
	"io"
	"os"
	"sync"
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
	line := fmt.Sprintf("%d:M %s.%03d %c %s\n", l.pid, now.Format("02 Jan 2006 15:04:05"), now.Nanosecond()/1e6, mark, fmt.Sprintf(format, args...))
	l.mu.Lock()
	io.WriteString(l.out, line)
	l.mu.Unlock()
}

func (l *logger) verbose(f string, a ...any) { l.logf(levelVerbose, '-', f, a...) }
func (l *logger) notice(f string, a ...any)  { l.logf(levelNotice, '*', f, a...) }
func (l *logger) warn(f string, a ...any)    { l.logf(levelWarning, '#', f, a...) }
