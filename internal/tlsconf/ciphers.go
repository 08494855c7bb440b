package tlsconf

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
)

// errProtocols is Valkey's text for a bad tls-protocols.
var errProtocols = errors.New("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")

// ParseProtocols turns tls-protocols (space-separated, case-insensitive
// TLSv1, TLSv1.1, TLSv1.2, TLSv1.3; "" is TLSv1.2 TLSv1.3) into the lowest
// and highest version enabled. crypto/tls has a range, not a set: the
// versions between the two are enabled too.
func ParseProtocols(s string) (minV, maxV uint16, err error) {
	if strings.TrimSpace(s) == "" {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, p := range strings.Fields(s) {
		var v uint16
		switch strings.ToLower(p) {
		case "tlsv1":
			v = tls.VersionTLS10
		case "tlsv1.1":
			v = tls.VersionTLS11
		case "tlsv1.2":
			v = tls.VersionTLS12
		case "tlsv1.3":
			v = tls.VersionTLS13
		default:
			return 0, 0, errProtocols
		}
		if minV == 0 || v < minV {
			minV = v
		}
		maxV = max(maxV, v)
	}
	return minV, maxV, nil
}

// opensslNames maps OpenSSL's TLS 1.2 cipher names to Go's suites (every
// suite crypto/tls implements for TLS 1.0-1.2).
var opensslNames = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-DES-CBC3-SHA":        tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
	"ECDHE-ECDSA-RC4-SHA":           tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA,
	"ECDHE-RSA-RC4-SHA":             tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	"DES-CBC3-SHA":                  tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
	"RC4-SHA":                       tls.TLS_RSA_WITH_RC4_128_SHA,
}

// absentClasses are OpenSSL cipher classes of which crypto/tls offers no
// suite: excluding them (!aNULL, !MD5, ...) is a no-op, so common
// hardening strings are accepted.
var absentClasses = map[string]bool{
	"aNULL": true, "eNULL": true, "NULL": true, "EXPORT": true, "EXP": true, "LOW": true, "MD5": true,
	"DES": true, "PSK": true, "SRP": true, "DSS": true, "aDSS": true, "CAMELLIA": true, "SEED": true,
	"IDEA": true, "ADH": true, "AECDH": true, "kDHE": true, "DHE": true, "EDH": true, "aPSK": true,
	"kPSK": true, "ARIA": true, "CCM": true, "CCM8": true, "AESCCM": true, "AESCCM8": true,
	"aGOST": true, "kGOST": true, "GOST89MAC": true,
}

// ParseCiphers turns tls-ciphers (OpenSSL's syntax: names separated by
// ':', ',' or spaces) into Go's suite IDs. "" keeps Go's defaults (nil).
// Names are OpenSSL's or IANA's; DEFAULT and HIGH stand for Go's default
// (secure) list; !name and -name remove a suite; @STRENGTH and
// @SECLEVEL=n are accepted and ignored. An unknown name is refused with
// Valkey's "Failed to configure ciphers: <list>".
func ParseCiphers(list string) ([]uint16, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	byName := map[string]uint16{}
	for _, cs := range tls.CipherSuites() {
		byName[cs.Name] = cs.ID
	}
	for _, cs := range tls.InsecureCipherSuites() {
		byName[cs.Name] = cs.ID
	}
	var out []uint16
	removed := map[uint16]bool{}
	add := func(id uint16) {
		for _, o := range out {
			if o == id {
				return
			}
		}
		out = append(out, id)
	}
	bad := func(item string) error {
		return fmt.Errorf("Failed to configure ciphers: %s (crypto/tls has no cipher named %q)", list, item)
	}
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		neg := item[0] == '!' || item[0] == '-'
		name := strings.TrimLeft(item, "!-+")
		switch {
		case strings.HasPrefix(name, "@STRENGTH") || strings.HasPrefix(name, "@SECLEVEL="):
			continue
		case name == "DEFAULT" || name == "HIGH" || name == "ALL":
			if neg {
				return nil, bad(item)
			}
			for _, cs := range tls.CipherSuites() {
				if cs.SupportedVersions[0] <= tls.VersionTLS12 {
					add(cs.ID)
				}
			}
			continue
		case neg && (name == "RC4" || name == "3DES"):
			// Classes Go has, but only when named: drop them.
			for _, cs := range tls.InsecureCipherSuites() {
				if strings.Contains(cs.Name, "_"+name+"_") {
					removed[cs.ID] = true
				}
			}
			continue
		case absentClasses[name]:
			if !neg {
				return nil, bad(item)
			}
			continue
		}
		id, ok := opensslNames[name]
		if !ok {
			id, ok = byName[name]
		}
		if !ok {
			return nil, bad(item)
		}
		if neg {
			removed[id] = true
			continue
		}
		add(id)
	}
	kept := out[:0]
	for _, id := range out {
		if !removed[id] {
			kept = append(kept, id)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("Failed to configure ciphers: %s (no cipher left)", list)
	}
	return kept, nil
}

// ParseCiphersuites checks tls-ciphersuites (TLS 1.3, ':'-separated):
// the three suites Go implements are accepted (Go always enables all
// three); the CCM suites and unknown names are refused with Valkey's
// "Failed to configure ciphersuites: <list>".
func ParseCiphersuites(list string) error {
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		switch name {
		case "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256":
		case "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256":
			return fmt.Errorf("Failed to configure ciphersuites: %s (crypto/tls does not implement %s)", list, name)
		default:
			return fmt.Errorf("Failed to configure ciphersuites: %s (no TLS 1.3 suite named %q)", list, name)
		}
	}
	return nil
}
