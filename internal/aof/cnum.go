package aof

import "github.com/corvid-kv/corvid/internal/resp"

// The C number parsers Valkey's loaders use, with glibc's behaviour, so
// that this package accepts and refuses exactly the lines Valkey does.

// strtol is glibc's strtol(s, NULL, 10) (resp.Strtol): leading isspace
// skipped, an optional sign, decimal digits up to the first other byte,
// saturated at the int64 bounds; 0 with no digits.
func strtol(s []byte) int64 {
	v, _, _ := resp.Strtol(s)
	return v
}

// atoll is strtol (long long is long on amd64 Linux).
func atoll(s []byte) int64 { return strtol(s) }

// atoi is glibc's atoi: (int)strtol, the low 32 bits.
func atoi(s []byte) int32 { return int32(strtol(s)) }
