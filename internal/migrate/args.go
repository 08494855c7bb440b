package migrate

import (
	"errors"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Reply texts of MIGRATE's own errors, as Valkey 8.0.1 words them.
const (
	errKeysWithKey  = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	errConnecting   = "IOERR error or timeout connecting to the client"
	errWriting      = "IOERR error or timeout writing to target instance"
	errReading      = "IOERR error or timeout reading to target instance"
	errTargetPrefix = "ERR Target instance replied with error: "
)

// Parse errors: their texts are the replies.
var (
	ErrSyntax      = errors.New(db.ErrSyntax)
	ErrKeysWithKey = errors.New(errKeysWithKey)
	ErrNotInt      = errors.New(db.ErrNotInt)
)

// DefaultTimeout replaces a timeout argument of 0 or less, as in Valkey.
const DefaultTimeout = 1000 * time.Millisecond

// Args is a parsed MIGRATE command. Its byte slices alias the argv it was
// parsed from (valid while the command runs).
type Args struct {
	// Host and Port are the arguments as given: together they name the
	// cached connection ("host:port", so "localhost" and "127.0.0.1" are
	// two entries, as in Valkey).
	Host, Port []byte
	DB         int64
	// Timeout bounds every step of the exchange (connect, each write,
	// each read), not the whole of it.
	Timeout       time.Duration
	Copy, Replace bool
	// Auth is set by AUTH password and by AUTH2 username password
	// (Auth2 set too).
	Auth, Auth2        bool
	Username, Password []byte
	// Keys are the keys to move: argv[3], or those after KEYS (possibly
	// none, possibly repeated).
	Keys [][]byte
	// Asking sends RESTORE-ASKING instead of RESTORE, as Valkey's
	// MIGRATE does in cluster mode (the target is importing the slot).
	Asking bool
}

// Parse reads MIGRATE host port key|"" destination-db timeout [COPY]
// [REPLACE] [AUTH password | AUTH2 username password] [KEYS key ...] as
// Valkey's migrateCommand does: the options first, left to right (a
// syntax error or KEYS with a non-empty key argument stops it), then the
// timeout and the database as integers (the database is not
// range-checked: the target's SELECT answers that). argv must have at
// least 6 elements (the command's arity).
func Parse(argv [][]byte) (Args, error) {
	a := Args{Host: argv[1], Port: argv[2], Keys: argv[3:4]}
	for j := 6; j < len(argv); j++ {
		opt := db.CString(argv[j]) // strcasecmp sees a C string
		more := len(argv) - 1 - j
		switch {
		case db.EqualFold(opt, "copy"):
			a.Copy = true
		case db.EqualFold(opt, "replace"):
			a.Replace = true
		case db.EqualFold(opt, "auth"):
			if more < 1 {
				return Args{}, ErrSyntax
			}
			j++
			a.Auth, a.Auth2, a.Username, a.Password = true, false, nil, argv[j]
		case db.EqualFold(opt, "auth2"):
			if more < 2 {
				return Args{}, ErrSyntax
			}
			a.Auth, a.Auth2, a.Username, a.Password = true, true, argv[j+1], argv[j+2]
			j += 2
		case db.EqualFold(opt, "keys"):
			if len(argv[3]) != 0 {
				return Args{}, ErrKeysWithKey
			}
			a.Keys = argv[j+1:]
			j = len(argv) // the rest are keys
		default:
			return Args{}, ErrSyntax
		}
	}
	timeout, ok := db.ParseInt(argv[5])
	if !ok {
		return Args{}, ErrNotInt
	}
	a.DB, ok = db.ParseInt(argv[4])
	if !ok {
		return Args{}, ErrNotInt
	}
	a.Timeout = DefaultTimeout
	if timeout > 0 {
		a.Timeout = time.Duration(min(timeout, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
	}
	return a, nil
}

// dialAddress is where Valkey connects for host (see Args.dialHost) and
// port: the port as C's atoi reads
// it (leading spaces, a sign, digits up to the first non-digit; strtol
// saturates, the int keeps the low 32 bits) and as getaddrinfo then
// stores it, in 16 bits: "6379x" is 6379, "70000" is 4464, "abc" is 0.
func dialAddress(host string, port []byte) string {
	return net.JoinHostPort(host, strconv.Itoa(int(uint16(int32(strtol(port))))))
}

// dialHost is the host Valkey resolves: the argument up to its first NUL
// byte (a C string there).
func (a *Args) dialHost() string { return string(db.CString(a.Host)) }

// strtol is C's strtol(s, NULL, 10), saturating at the int64 bounds.
func strtol(b []byte) int64 {
	v, _, _ := resp.Strtol(b)
	return v
}
