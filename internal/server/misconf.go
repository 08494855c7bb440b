package server

import (
	"errors"
	"strings"
	"syscall"

	"github.com/corvid-kv/corvid/internal/command"
)

// Writes refused after a persistence failure, as Valkey's
// writeCommandsDeniedByDiskError: while the last BGSAVE failed, save
// points are set and stop-writes-on-bgsave-error is yes, or while the AOF
// cannot be written or fsynced, write commands (and PING, and an EXEC
// with a write queued) get a MISCONF error; reads go on. Server.diskDeny
// caches the verdict so that the check costs one atomic load per command;
// updateDiskDeny recomputes it whenever an input changes (a BGSAVE ends,
// the AOF writer starts or stops failing, CONFIG SET of either directive
// or of save, the AOF turned on or off).

const (
	diskOK = iota
	diskRDB
	diskAOF
)

const misconfRDB = "MISCONF Valkey is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Valkey logs for details about the RDB error."

// updateDiskDeny recomputes Server.diskDeny.
func (s *Server) updateDiskDeny() {
	v := int32(diskOK)
	if s.cfg.StopWritesOnBgsaveError() && len(s.cfg.SavePoints()) > 0 && !s.rdb.lastOK.Load() {
		v = diskRDB
	} else if g := s.aof.gen.Load(); g != nil && g.w.Failing() {
		v = diskAOF
	}
	s.diskDeny.Store(v)
}

// diskRefused rejects cm with MISCONF if it may write (called while
// Server.diskDeny is set).
func (c *Client) diskRefused(cm *cmd) bool {
	write := cm.meta.Flags&command.FlagWrite != 0 || cm.meta == command.Ping
	if cm.meta == command.Exec && c.multi != nil {
		for _, q := range c.multi.cmds {
			write = write || q.cm.meta.Flags&command.FlagWrite != 0
		}
	}
	if !write {
		return false
	}
	s := c.srv
	switch s.diskDeny.Load() {
	case diskRDB:
		c.reject(cm, misconfRDB)
	case diskAOF:
		c.reject(cm, "MISCONF Errors writing to the AOF file: "+s.aofErrText())
	default:
		return false
	}
	return true
}

// aofErrText is strerror of the AOF's last error, as Valkey words it
// ("No space left on device").
func (s *Server) aofErrText() string {
	g := s.aof.gen.Load()
	if g == nil {
		return "Success"
	}
	err := g.w.Err()
	var errno syscall.Errno
	if err == nil {
		return "Success"
	}
	if !errors.As(err, &errno) {
		return err.Error()
	}
	msg := errno.Error()
	return strings.ToUpper(msg[:1]) + msg[1:]
}
