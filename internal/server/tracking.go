package server

// Client-side caching (CLIENT TRACKING): not built yet.

func (s *Server) trackKeyChanged(db int, key []byte, by any) {}

func (s *Server) trackFlushed(db int) {}
