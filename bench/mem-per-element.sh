#!/usr/bin/env bash
# Memory per element, corvid-server vs redis-server 7.0.15 (the default),
# valkey-server 8.0.1 (-peer valkey) or both (-peer valkey,redis) in one
# run (issues 4 and 32): 1M 128-byte values in one list, set, zset and
# hash, 100k 10-field hashes, 100k two-member sorted sets, 1M string keys
# (SET), and 100k listpack-encoded collections of 10 and of 1 element of
# 16 bytes each type; used_memory and RSS deltas per element, with the
# ratio corvid / each peer. The method is in bench/mempere/doc.go; flags:
# bench/mem-per-element.sh -h (binaries: -redis, -valkey, -corvid).
#
#   bench/mem-per-element.sh -peer valkey,redis       # the full run, both peers
#   bench/mem-per-element.sh -peer valkey             # against Valkey only
#   bench/mem-per-element.sh -peer valkey -cases string -size 16
#   bench/mem-per-element.sh -n 50000 -small 5000     # a smoke run (vs redis)
#
# Writes the table to stdout and to /tmp/mem-per-element.{md,csv} (-out).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/mempere "$@"
