#!/usr/bin/env bash
# Memory per element, corvid-server vs redis-server 7.0.15 in one run
# (issue 4): 1M 128-byte values in one list, set, zset and hash, 100k
# 10-field hashes, 100k two-member sorted sets, and 1M string keys (SET);
# used_memory and RSS deltas per element. The method is
# in bench/mempere/doc.go; flags: bench/mem-per-element.sh -h.
#
#   bench/mem-per-element.sh                          # the full run
#   bench/mem-per-element.sh -n 50000 -small 5000     # a smoke run
#
# Writes the table to stdout and to /tmp/mem-per-element.{md,csv} (-out).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/mempere "$@"
