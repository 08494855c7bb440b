package db

// Why a blocked client was woken other than by data.
const (
	UnblockTimeout = 1 // CLIENT UNBLOCK id [TIMEOUT]: reply as if timed out
	UnblockError   = 2 // CLIENT UNBLOCK id ERROR, or the client was killed
)

// BlockingClient is what blocking commands need from the connection
// (implemented by server.Client; Ctx.Client holds it).
type BlockingClient interface {
	// Flush writes the replies pending before the blocking command, as
	// Valkey does before it parks a client.
	Flush()
	// UnblockChan delivers UnblockTimeout/UnblockError from CLIENT UNBLOCK
	// or a kill.
	UnblockChan() <-chan int
	// SetBlocked marks the client blocked (CLIENT LIST flags=b, INFO
	// blocked_clients, CLIENT UNBLOCK eligibility).
	SetBlocked(on bool)
}
