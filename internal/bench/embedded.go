package bench

import (
	"errors"
	"fmt"
)

// StartEmbedded starts an in-process corvid-server on a free loopback port
// and returns its address and a stop function. cmd/corvid-bench sets it;
// this package does not import the server so it builds and tests alone.
var StartEmbedded func() (addr string, stop func(), err error)

// errNoEmbedded explains what to do when no server is available.
var errNoEmbedded = errors.New("embedded server not available")

// embedded starts the in-process server or explains why it cannot.
func embedded() (string, func(), error) {
	if StartEmbedded == nil {
		return "", nil, fmt.Errorf("no server given (use -s/--server, -p/--port or --target) and %w", errNoEmbedded)
	}
	addr, stop, err := StartEmbedded()
	if err != nil {
		return "", nil, fmt.Errorf("no server given (use -s/--server, -p/--port or --target) and the embedded server did not start: %w", err)
	}
	if stop == nil {
		stop = func() {}
	}
	return addr, stop, nil
}
