package main

import (
	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// usedMemory reads used_memory from INFO memory.
func usedMemory(c *wire.Conn) (int64, error) {
	rep, err := do(c, "INFO", "memory")
	if err != nil {
		return 0, err
	}
	return benchproc.InfoInt(benchproc.ParseInfo(rep.Str), "used_memory")
}
