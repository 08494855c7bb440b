package server

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/metrics"
)

// The Prometheus endpoint (CORVID: Valkey has none; operators run
// redis_exporter beside it). With metrics-port set, GET /metrics on each
// metrics-bind address answers with the server's INFO ALL in the text
// exposition format, under redis_exporter's metric names (package
// metrics). Nothing is counted twice: every scrape renders INFO, CONFIG
// GET's values, the slow log and LATENCY LATEST as the commands would.
// CONFIG SET metrics-port or metrics-bind reopens the listeners (0 turns
// the endpoint off); when they cannot be opened CONFIG SET fails and the
// old ones are reopened.

type metricsState struct {
	mu      sync.Mutex
	handler *metrics.Handler
	http    *http.Server   // nil while the endpoint is off
	lns     []net.Listener // its listeners
}

// listenMetrics opens the endpoint if metrics-port is set (Listen).
func (s *Server) listenMetrics() error {
	s.metrics.handler = metrics.NewHandler(s.metricsSource)
	if err := s.relistenMetrics(); err != nil {
		return err
	}
	hook := func(*config.Config) error {
		if err := s.relistenMetrics(); err != nil {
			s.log.warn("%v", err)
			return errors.New("Unable to listen on metrics-port. Check server logs.")
		}
		return nil
	}
	s.cfg.OnChange("metrics-port", hook)
	s.cfg.OnChange("metrics-bind", hook)
	return nil
}

// relistenMetrics closes the endpoint's listeners and opens those the
// configuration asks for. At start-up its error stops the server, as a
// port's does; CONFIG SET logs it and answers Valkey's kind of error.
func (s *Server) relistenMetrics() error {
	m := &s.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closeLocked()
	port := s.cfg.MetricsPort()
	if port == 0 {
		return nil
	}
	var binds []string
	for _, b := range s.cfg.MetricsBind() {
		if b == "::*" {
			b = "::"
		}
		binds = append(binds, b)
	}
	lns, _, err := openListeners(binds, port)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: m.handler, ReadHeaderTimeout: 10 * time.Second}
	for _, ln := range lns {
		go srv.Serve(ln)
		s.log.notice("Metrics endpoint on http://%s/metrics", ln.Addr())
	}
	m.http, m.lns = srv, lns
	return nil
}

// closeMetrics stops the endpoint (Close).
func (s *Server) closeMetrics() {
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	s.metrics.closeLocked()
}

func (m *metricsState) closeLocked() {
	if m.http != nil {
		m.http.Close() // closes the listeners and the open connections
	}
	m.http, m.lns = nil, nil
}

// MetricsAddrs lists the endpoint's listening addresses (none while it
// is off).
func (s *Server) MetricsAddrs() []string {
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	var out []string
	for _, ln := range s.metrics.lns {
		out = append(out, ln.Addr().String())
	}
	return out
}

// metricsDirectives are what redis_exporter reads from CONFIG GET *.
var metricsDirectives = []string{"databases", "maxclients", "maxmemory", "io-threads", "client-output-buffer-limit"}

// metricsSource gathers one scrape: INFO ALL as the command renders it
// (no client: nothing of the caller's own shows), the directives, the
// slow log's length and newest entry, LATENCY LATEST, and CLUSTER INFO
// in cluster mode.
func (s *Server) metricsSource() (*metrics.Source, error) {
	src := &metrics.Source{
		Info:   s.genInfo(parseInfoSections([][]byte{[]byte("all")}), nil),
		Config: map[string]string{},
	}
	for _, kv := range s.cfg.Get(metricsDirectives...) {
		src.Config[kv[0]] = kv[1]
	}
	l := &s.slow
	l.mu.Lock()
	src.SlowlogLen = int64(len(l.entries))
	if n := len(l.entries); n > 0 {
		src.SlowlogLastID, src.SlowlogLastMicros = l.entries[n-1].id, l.entries[n-1].usec
	}
	l.mu.Unlock()
	if s.cluster != nil { // set by New, before the endpoint opens
		src.ClusterInfo = s.cluster.Info()
	}
	lat := &s.ext().lat
	for _, name := range lat.names() {
		ts := lat.snapshot(name)
		if ts == nil {
			continue
		}
		last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
		src.Latency = append(src.Latency, metrics.LatencyEvent{Name: name, Time: last.time, LatestMillis: last.latency})
	}
	return src, nil
}
