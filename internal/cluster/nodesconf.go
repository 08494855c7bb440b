package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// nodes.conf: Valkey 8.0.1's cluster configuration file
// (clusterLoadConfig, clusterSaveConfig). One line per node,
//
//	<id> <ip>:<port>@<cport>,<hostname>[,<aux>=<value>...] <flags> <primary|-> <ping-sent> <pong-received> <config-epoch> <link-state> <slot|start-end|[slot->-id]|[slot-<-id]>...
//
// then "vars currentEpoch N lastVoteEpoch M". Corvid writes the aux
// fields Valkey 8.0.1 writes: tls-port (tcp-port with tls-cluster, the
// port <port> is then the TLS one: tls.go), nodename (when set),
// shard-id.

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
			p.Replicas = append(p.Replicas, n)
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
// file, then the vars line).
func (cl *Cluster) configText() string {
	var b strings.Builder
	for _, n := range cl.sortedNodes() {
		if n.InHandshake() {
			continue
		}
		b.WriteString(cl.describe(n, true, cl.tlsCluster))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "vars currentEpoch %d lastVoteEpoch %d\n", cl.currentEpoch, cl.lastVoteEpoch)
	return b.String()
}

// saveConfig writes nodes.conf atomically: a temporary file in the same
// directory, fsynced, renamed over the old one, and the directory
// fsynced. Called with mu held.
func (cl *Cluster) saveConfig() error {
	path := cl.opt.ConfigFile
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, fmt.Sprintf("temp-%d.%s", os.Getpid(), filepath.Base(path)))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(cl.configText())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
