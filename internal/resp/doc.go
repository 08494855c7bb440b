// Package resp implements the Redis serialization protocol (RESP2 and RESP3)
// for the server side: a zero-copy request Reader and an append-style reply
// Writer.
//
// Buffer lifetime: the argv slices returned by Reader.Next point into the
// reader's buffer. They stay valid until the next call to Reader.Fill (which
// may compact or grow the buffer). The server executes every complete command
// in the buffer before it reads again, so commands never copy their arguments
// unless they store them.
//
// Neither type is safe for concurrent use; each connection owns one of each.
package resp
