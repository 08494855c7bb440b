package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// nodes.conf: Valkey 8.0.1's cluster configuration file
// (clusterLoadConfig, clusterSaveConfig). One line per node,
//
//	<id> <ip>:<port>@<cport>,<hostname>[,<aux>=<value>...] <flags> <primary|-> <ping-sent> <pong-received> <config-epoch> <link-state> <slot|start-end|[slot->-id]|[slot-<-id]>...
//
// then "vars currentEpoch N lastVoteEpoch M". Corvid writes the aux
// fields Valkey 8.0.1 writes, in its order: client-ipv6 and client-ipv4
// (when set), tls-port (tcp-port with tls-cluster, the port <port> is
// then the TLS one: tls.go), nodename (when set), shard-id.

// loadConfig reads path into cl (clusterLoadConfig). It returns false
// when the file does not exist or is empty (a new node).
func (cl *Cluster) loadConfig(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return false, nil
	}
	if err := cl.parseConfig(string(data)); err != nil {
		return false, fmt.Errorf("Unrecoverable error: corrupted cluster config file \"%s\": %v", path, err)
	}
	return true, nil
}

// parseConfig loads the text of a nodes.conf.
func (cl *Cluster) parseConfig(text string) error {
	get := func(name string) *Node {
		n := cl.nodes[name]
		if n == nil {
			n = cl.newNode(name, 0)
			cl.addNode(n)
		}
		return n
	}
	now := cl.now()
	for lineNo, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "vars" {
			for i := 1; i+1 < len(f); i += 2 {
				v, err := strconv.ParseUint(f[i+1], 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: bad %s", lineNo+1, f[i])
				}
				switch f[i] {
				case "currentEpoch":
					cl.currentEpoch = v
				case "lastVoteEpoch":
					cl.lastVoteEpoch = v
				}
			}
			continue
		}
		if len(f) < 8 {
			return fmt.Errorf("line %d: too few fields", lineNo+1)
		}
		if len(f[0]) != NameLen {
			return fmt.Errorf("line %d: bad node name", lineNo+1)
		}
		n := get(f[0])
		addr := strings.Split(f[1], ",")
		hostPort := addr[0]
		at := strings.LastIndexByte(hostPort, '@')
		colon := strings.LastIndexByte(hostPort[:max(at, 0)], ':')
		if at < 0 || colon < 0 {
			return fmt.Errorf("line %d: bad address %q", lineNo+1, f[1])
		}
		n.IP = hostPort[:colon]
		n.Port, _ = strconv.Atoi(hostPort[colon+1 : at])
		n.CPort, _ = strconv.Atoi(hostPort[at+1:])
		var ports auxPorts
		for i, aux := range addr[1:] {
			k, v, ok := strings.Cut(aux, "=")
			if !ok {
				if i == 0 {
					n.Hostname = aux
					continue
				}
				return fmt.Errorf("line %d: bad aux field %q", lineNo+1, aux)
			}
			switch k {
			case "shard-id":
				n.ShardID = v
			case "nodename":
				n.HumanName = v
			case "client-ipv4":
				n.ClientIPv4 = v
			case "client-ipv6":
				n.ClientIPv6 = v
			case "tcp-port", "tls-port":
				if !ports.set(k, v) {
					return fmt.Errorf("line %d: bad aux field %q", lineNo+1, aux)
				}
			}
		}
		cl.loadPorts(n, ports)
		for _, fl := range strings.Split(f[2], ",") {
			switch fl {
			case "myself":
				if cl.myself != nil {
					return fmt.Errorf("line %d: two myself lines", lineNo+1)
				}
				n.Flags |= FlagMyself
				cl.myself = n
			case "master":
				n.Flags |= FlagPrimary
			case "slave":
				n.Flags |= FlagReplica
			case "fail?":
				n.Flags |= FlagPFail
			case "fail":
				n.Flags |= FlagFail
				n.FailTime = now
			case "handshake":
				n.Flags |= FlagHandshake
			case "noaddr":
				n.Flags |= FlagNoAddr
			case "nofailover":
				n.Flags |= FlagNoFailover
			case "noflags":
			default:
				return fmt.Errorf("line %d: unknown flag %q", lineNo+1, fl)
			}
		}
		if f[3] != "-" {
			p := get(f[3])
			n.Primary = p
			addReplica(p, n)
		}
		if v, _ := strconv.ParseInt(f[4], 10, 64); v != 0 {
			n.PingSent = now
		}
		if v, _ := strconv.ParseInt(f[5], 10, 64); v != 0 {
			n.PongReceived = now
		}
		n.ConfigEpoch, _ = strconv.ParseUint(f[6], 10, 64)
		for _, s := range f[8:] {
			if s[0] == '[' {
				// [slot->-id] migrating, [slot-<-id] importing
				body := strings.Trim(s, "[]")
				if i := strings.Index(body, "->-"); i >= 0 {
					slot, err := strconv.Atoi(body[:i])
					if err != nil || slot < 0 || slot >= Slots {
						return fmt.Errorf("line %d: bad slot %q", lineNo+1, s)
					}
					cl.migrating[slot] = get(body[i+3:])
				} else if i := strings.Index(body, "-<-"); i >= 0 {
					slot, err := strconv.Atoi(body[:i])
					if err != nil || slot < 0 || slot >= Slots {
						return fmt.Errorf("line %d: bad slot %q", lineNo+1, s)
					}
					cl.importing[slot] = get(body[i+3:])
				} else {
					return fmt.Errorf("line %d: bad slot %q", lineNo+1, s)
				}
				continue
			}
			a, b, isRange := strings.Cut(s, "-")
			start, err1 := strconv.Atoi(a)
			end := start
			var err2 error
			if isRange {
				end, err2 = strconv.Atoi(b)
			}
			if err1 != nil || err2 != nil || start < 0 || end >= Slots || start > end {
				return fmt.Errorf("line %d: bad slot range %q", lineNo+1, s)
			}
			for sl := start; sl <= end; sl++ {
				if cl.slots[sl] != nil {
					cl.delSlot(sl)
				}
				cl.addSlot(n, sl)
			}
		}
	}
	if cl.myself == nil {
		return errors.New("no myself line")
	}
	for _, n := range cl.nodes {
		if n.ShardID == "" {
			if n.Primary != nil && n.Primary.ShardID != "" {
				n.ShardID = n.Primary.ShardID
			} else {
				n.ShardID = RandomName()
			}
		}
	}
	return nil
}

// configText is the file's text (clusterGenNodesDescription for the
// file, then the vars line), as the bytes writeTemp writes.
func (cl *Cluster) configText() []byte {
	var b []byte
	for _, n := range cl.sortedNodes() {
		if n.InHandshake() {
			continue
		}
		b = append(b, cl.describe(n, true, cl.tlsCluster, false)...)
		b = append(b, '\n')
	}
	return fmt.Appendf(b, "vars currentEpoch %d lastVoteEpoch %d\n", cl.currentEpoch, cl.lastVoteEpoch)
}

// Saving (clusterDoBeforeSleep's CLUSTER_TODO_SAVE_CONFIG and
// _FSYNC_CONFIG, clusterSaveConfig). A locked section that changed what
// the file holds sets dirtySave; one that changed an epoch, a vote or a
// slot's owner by the bus's rules also sets dirtyFsync. Then:
//
//   - dirtyFsync: the file is written and fsynced (with its directory)
//     under mu before any message leaves (send saves first) and at the
//     latest when the section ends: no vote, epoch or claim is
//     advertised before it is durable;
//   - a section run for a client's command (lockReply): its caller waits,
//     after the lock is released, until a save that includes its change
//     has been written (not fsynced, as Valkey without the FSYNC flag),
//     so the reply follows the save; concurrent callers share one save;
//   - otherwise (gossip): the saver goroutine writes it soon after.
//
// saveGen counts the changes marked, savedGen the last one written. The
// deferred saves are serialized by saveMu, taken before mu (never under
// it); the file is renamed over nodes.conf under mu, and only when no
// newer save did it first, so an older text never replaces a newer one.

// saveNow writes nodes.conf with fsync at once. mu held.
func (cl *Cluster) saveNow() error {
	cl.dirtySave, cl.dirtyFsync = false, false
	cl.saveGen++
	if cl.opt.ConfigFile == "" {
		cl.savedGen = cl.saveGen
		return nil
	}
	tmp, err := cl.writeTemp(cl.configText(), true)
	if err == nil {
		err = rename(tmp, cl.opt.ConfigFile)
	}
	if err != nil {
		syscall.Unlink(tmp)
		return err
	}
	cl.savedGen = cl.saveGen
	if fd, err := syscall.Open(filepath.Dir(cl.opt.ConfigFile), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err == nil {
		syscall.Fsync(fd)
		syscall.Close(fd)
	}
	return nil
}

// saveUpTo writes nodes.conf, without fsync, unless a save that includes
// change number want (0: every change marked so far) was already
// written. Called without mu.
func (cl *Cluster) saveUpTo(want uint64) {
	cl.saveMu.Lock()
	defer cl.saveMu.Unlock()
	cl.mu.Lock()
	if want == 0 {
		want = cl.saveGen
	}
	if cl.savedGen >= want || cl.opt.ConfigFile == "" {
		cl.mu.Unlock()
		return
	}
	gen, text := cl.saveGen, cl.configText()
	cl.mu.Unlock()
	tmp, err := cl.writeTemp(text, false)
	renamed := false
	cl.mu.Lock()
	if err == nil && cl.savedGen < gen {
		if err = rename(tmp, cl.opt.ConfigFile); err == nil {
			cl.savedGen, renamed = gen, true
		}
	}
	if err != nil {
		cl.opt.Logf('#', "Could not save the cluster configuration: %v", err)
	}
	cl.mu.Unlock()
	if !renamed {
		syscall.Unlink(tmp) // never to be used
	}
}

// rename replaces nodes.conf with the temporary file: rename(2) itself,
// without os.Rename's check that the target is no directory (one more
// system call per save; a directory there fails the rename anyway).
func rename(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// writeTemp writes b to a new temporary file beside nodes.conf
// (Valkey's <file>.tmp-<pid>-<n>), fsynced when sync is set. The file is
// opened with syscall.Open, not os.OpenFile: a rebalance saves on every
// CLUSTER SETSLOT, and os's attempt to register each file with the
// network poller costs four system calls more per save.
func (cl *Cluster) writeTemp(b []byte, sync bool) (string, error) {
	path := cl.opt.ConfigFile
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), cl.tmpSeq.Add(1))
	fd, err := syscall.Open(tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return tmp, &os.PathError{Op: "open", Path: tmp, Err: err}
	}
	for len(b) > 0 && err == nil {
		var n int
		switch n, err = syscall.Write(fd, b); {
		case err == syscall.EINTR:
			err = nil
		case err == nil && n == 0:
			err = io.ErrShortWrite
		}
		b = b[max(n, 0):]
	}
	if err == nil && sync {
		err = syscall.Fsync(fd)
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return tmp, &os.PathError{Op: "write", Path: tmp, Err: err}
	}
	return tmp, nil
}

// saverLoop writes nodes.conf after the bus's changes (the kicks of
// unlock), and once more when the cluster stops.
func (cl *Cluster) saverLoop() {
	defer cl.wg.Done()
	for {
		select {
		case <-cl.stop:
			cl.saveUpTo(0)
			return
		case <-cl.saveKick:
			cl.saveUpTo(0)
		}
	}
}
