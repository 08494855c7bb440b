package metrics

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// ContentType is the text exposition format's media type.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves GET /metrics: the server's metrics (Render) plus the
// families redis_exporter adds about its scrape of the server, which here
// describe the rendering: redis_up (0 when the collection failed),
// redis_exporter_last_scrape_error{err}, redis_exporter_scrapes_total,
// redis_exporter_scrape_duration_seconds (a summary without quantiles)
// and redis_exporter_last_scrape_duration_seconds, and
// redis_target_scrape_request_errors_total (always 0: there is no
// /scrape?target= endpoint).
type Handler struct {
	collect func() (*Source, error)

	mu       sync.Mutex // serializes scrapes and guards the counters
	scrapes  int64
	durSum   float64
	durCount uint64
}

// NewHandler returns a handler whose scrapes call collect.
func NewHandler(collect func() (*Source, error)) *Handler {
	return &Handler{collect: collect}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/metrics":
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Corvid metrics</title></head><body><h1>Corvid metrics</h1><p><a href="/metrics">Metrics</a></p></body></html>`+"\n")
		return
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var b bytes.Buffer
	h.Scrape(&b)
	w.Header().Set("Content-Type", ContentType)
	w.Write(b.Bytes())
}

// Scrape renders one scrape into b.
func (h *Handler) Scrape(b *bytes.Buffer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.scrapes++
	start := time.Now()
	r := newRegistry()
	src, err := h.collect()
	if err == nil {
		r.addSource(src)
		r.add("exporter_last_scrape_error", gauge, 0, "err", "")
		r.add("up", gauge, 1)
	} else {
		r.add("exporter_last_scrape_error", gauge, 1, "err", err.Error())
		r.add("up", gauge, 0)
	}
	took := time.Since(start).Seconds()
	h.durSum += took
	h.durCount++
	r.add("exporter_last_scrape_duration_seconds", gauge, took)
	r.add("exporter_scrapes_total", counter, float64(h.scrapes))
	m := r.add("exporter_scrape_duration_seconds", summary, h.durSum)
	m.count = h.durCount
	r.add("target_scrape_request_errors_total", counter, 0)
	r.write(b)
}
