package db

// Reply texts shared by many commands, exactly as Valkey 8 words them.
const (
	ErrWrongType     = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrSyntax        = "ERR syntax error"
	ErrNotInt        = "ERR value is not an integer or out of range"
	ErrNotFloat      = "ERR value is not a valid float"
	ErrOverflow      = "ERR increment or decrement would overflow"
	ErrNoSuchKey     = "ERR no such key"
	ErrOutOfRange    = "ERR index out of range"
	ErrInvalidExpire = "ERR invalid expire time in '%s' command"
	ErrDBIndex       = "ERR DB index is out of range"
	ErrSameObject    = "ERR source and destination objects are the same"
	ErrNaN           = "ERR increment would produce NaN or Infinity"
	ErrBitOffset     = "ERR bit offset is not an integer or out of range"
	ErrStringTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrNotPositive   = "ERR value is out of range, must be positive"
)

// CString returns b up to its first NUL byte: what Valkey sees of an
// argument it handles as a C string (an error's "%s", strcasecmp,
// strtoull). Corvid keeps whole arguments everywhere else.
func CString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}
