package server

import (
	"errors"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
)

// Commands refused for the state of the dataset's files. As Valkey's
// writeCommandsDeniedByDiskError: while the last BGSAVE failed, save
// points are set and stop-writes-on-bgsave-error is yes, or while the AOF
// cannot be written or fsynced, write commands (and PING, and an EXEC
// with a write queued) get a MISCONF error; reads go on. And while the
// dataset loads at start-up (Run serves meanwhile), every command without
// the loading flag gets LOADING, as processCommand's server.loading check
// (after the MISCONF one). Server.diskDeny caches the verdict so that the
// check costs one atomic load per command; updateDiskDeny recomputes it
// whenever an input changes (a BGSAVE ends, the AOF writer starts or
// stops failing, CONFIG SET of either directive or of save, the AOF
// turned on or off, loading starts or ends).

const (
	diskOK         = 0
	diskRDB        = 1 << iota // MISCONF: the last BGSAVE failed
	diskAOF                    // MISCONF: the AOF cannot be written
	diskLoading                // LOADING
	diskNoReplicas             // NOREPLICAS: min-replicas-to-write not met
	diskReadOnly               // READONLY: a read-only replica
	diskStale                  // MASTERDOWN: replica-serve-stale-data no, link down
)

const (
	misconfRDB = "MISCONF Valkey is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Valkey logs for details about the RDB error."
	loadingErr = "LOADING Valkey is loading the dataset in memory"
)

// updateDiskDeny recomputes Server.diskDeny.
func (s *Server) updateDiskDeny() {
	var v int32
	if s.cfg.StopWritesOnBgsaveError() && len(s.cfg.SavePoints()) > 0 && !s.rdb.lastOK.Load() {
		v = diskRDB
	} else if g := s.aof.gen.Load(); g != nil && g.w.Failing() {
		v = diskAOF
	}
	if s.rdb.loading.Load() {
		v |= diskLoading
	}
	if s.repl.isReplica.Load() {
		if s.cfg.ReplicaReadOnly() {
			v |= diskReadOnly
		}
		if !s.cfg.ReplicaServeStaleData() && !s.linkUp() {
			v |= diskStale
		}
	} else if m := s.cfg.MinReplicasToWrite(); m > 0 && s.repl.goodReplicas.Load() < m {
		v |= diskNoReplicas
	}
	s.diskDeny.Store(v)
}

// setLoading marks the start-up load as running or over (INFO loading,
// LOADING replies).
func (s *Server) setLoading(on bool) {
	if on {
		s.rdb.loadStart.Store(time.Now().Unix())
		s.rdb.loadTotal.Store(0)
		s.rdb.loadRead.Store(0)
	}
	s.rdb.loading.Store(on)
	s.updateDiskDeny()
}

// diskRefused rejects cm with MISCONF if it may write, or with LOADING if
// it may not run while the dataset loads (called while Server.diskDeny is
// set).
func (c *Client) diskRefused(cm *cmd) bool {
	s := c.srv
	deny := s.diskDeny.Load()
	queued, lacking := c.execFlags(cm)
	if deny&(diskRDB|diskAOF) != 0 {
		if (cm.meta.Flags|queued)&command.FlagWrite != 0 || cm.meta == command.Ping {
			if deny&diskRDB != 0 {
				c.reject(cm, misconfRDB)
			} else {
				c.reject(cm, "MISCONF Errors writing to the AOF file: "+s.aofErrText())
			}
			return true
		}
	}
	write := (cm.meta.Flags|queued)&command.FlagWrite != 0
	if deny&diskNoReplicas != 0 && write {
		c.reject(cm, "NOREPLICAS Not enough good replicas to write.")
		return true
	}
	if deny&diskReadOnly != 0 && write {
		c.reject(cm, "READONLY You can't write against a read only replica.")
		return true
	}
	if deny&diskStale != 0 && (cm.meta.Flags&command.FlagStale == 0 || lacking&command.FlagStale != 0) {
		c.reject(cm, "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.")
		return true
	}
	if deny&diskLoading != 0 {
		if cm.meta.Flags&command.FlagLoading == 0 || lacking&command.FlagLoading != 0 {
			c.reject(cm, loadingErr)
			return true
		}
	}
	return false
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
