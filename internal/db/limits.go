package db

import "sync/atomic"

// MaxStringLen is proto-max-bulk-len: the largest string a command may
// build (APPEND, SETRANGE, SETBIT). The server sets it from config.
var MaxStringLen atomic.Int64

func init() { MaxStringLen.Store(512 << 20) }
