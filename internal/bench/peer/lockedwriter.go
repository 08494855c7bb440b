package peer

import (
	"bytes"
	"sync"
)

// lockedWriter lets a server's stdout and stderr share one buffer.
type lockedWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() > 64<<10 { // keep the last part only
		keep := append([]byte(nil), w.b.Bytes()[w.b.Len()-16<<10:]...)
		w.b.Reset()
		w.b.Write(keep)
	}
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
