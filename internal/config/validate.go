package config

import (
	"net"
	"strings"
)

// Validators with Valkey's error texts (the is_valid_fn callbacks of config.c).

func notEmptyBaseName(what, kindWord string) func(string) string {
	return func(v string) string {
		if v == "" {
			return what + " can't be empty"
		}
		if strings.ContainsAny(v, `/\`) {
			return what + " can't be a path, just a " + kindWord
		}
		return ""
	}
}

var (
	validDBFilename  = notEmptyBaseName("dbfilename", "filename")
	validAOFFilename = notEmptyBaseName("appendfilename", "filename")
	validAOFDirname  = notEmptyBaseName("appenddirname", "dirname")
)

func validClusterConfigFile(v string) string {
	if v == "" {
		return "cluster-config-file can't be empty"
	}
	return ""
}

// validActiveDefrag: Corvid has no allocator-level defragmentation, which is
// the situation Valkey reports for builds without its patched jemalloc.
func validActiveDefrag(v int64) string {
	if v != 0 {
		return "Active defragmentation cannot be enabled: it requires a server compiled with a " +
			"modified Jemalloc like the one shipped by default with the source distribution"
	}
	return ""
}

const (
	shutdownSave   = 1
	shutdownNoSave = 2
	shutdownNow    = 4
	shutdownForce  = 8
)

func validShutdownFlags(v int64) string {
	if v&shutdownNoSave != 0 && v&shutdownSave != 0 {
		return "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	return ""
}

func validHostname(v string) string {
	if len(v) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

// validNodename is isValidAuxString from the cluster code.
func validNodename(v string) string {
	const invalid = "!#$%&()*+;<>?@[]^{|}~"
	for i := 0; i < len(v); i++ {
		c := v[i]
		isAlnum := (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		if !isAlnum && (c == 0 || strings.IndexByte(invalid, c) >= 0) {
			return "Announced human node name contained invalid character"
		}
	}
	return ""
}

func validIPv4(v string) string {
	if v == "" {
		return ""
	}
	if ip := net.ParseIP(v); ip == nil || ip.To4() == nil || strings.Contains(v, ":") {
		return "Invalid IPv4 address"
	}
	return ""
}

func validIPv6(v string) string {
	if v == "" {
		return ""
	}
	if ip := net.ParseIP(v); ip == nil || !strings.Contains(v, ":") {
		return "Invalid IPv6 address"
	}
	return ""
}

// validProcTitle expands the template like sdstemplate does with an empty
// title and refuses unknown variables, bad braces or an empty result.
func validProcTitle(t string) string {
	const bad = "template format is invalid or contains unknown variables"
	vars := map[string]string{
		"title": "", "listen-addr": "*:6379", "server-mode": "", "port": "6379",
		"tls-port": "0", "unixsocket": "", "config-file": "",
	}
	var out strings.Builder
	for p := 0; p < len(t); {
		i := strings.IndexByte(t[p:], '{')
		if i < 0 {
			out.WriteString(t[p:])
			break
		}
		out.WriteString(t[p : p+i])
		sv := p + i + 1
		if sv >= len(t) {
			return bad
		}
		if t[sv] == '{' {
			out.WriteByte('{')
			p = sv + 1
			continue
		}
		ev := strings.IndexByte(t[sv:], '}')
		if ev < 0 {
			return bad
		}
		v, ok := vars[t[sv:sv+ev]]
		if !ok {
			return bad
		}
		out.WriteString(v)
		p = sv + ev + 1
	}
	if strings.Trim(out.String(), " ") == "" {
		return bad
	}
	return ""
}

// clampHz mirrors updateHZ: out-of-range values are accepted and capped.
func clampHz(v int64) int64 {
	const minHz, maxHz = 1, 500
	if v < minHz {
		return minHz
	}
	if v > maxHz {
		return maxHz
	}
	return v
}

// validMetricsBind checks metrics-bind (CORVID): one or more addresses,
// each "*" (every IPv4 address), "::*" (every IPv6 address), an IP
// address or a host name.
func validMetricsBind(v string) string {
	addrs := strings.Fields(v)
	if len(addrs) == 0 {
		return "metrics-bind needs at least one address"
	}
	if len(addrs) > 16 {
		return "Too many bind addresses specified."
	}
	for _, a := range addrs {
		if a == "*" || a == "::*" || net.ParseIP(a) != nil {
			continue
		}
		if len(a) == 0 || validHostname(a) != "" {
			return "Invalid metrics-bind address " + a
		}
	}
	return ""
}
