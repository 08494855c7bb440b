#!/usr/bin/env bash
# Memory per element of one long list of compressible values with
# list-compress-depth 0 and 1, corvid-server vs valkey-server 8.0.1 in one
# run: used_memory and RSS deltas, MEMORY USAGE, ql_nodes/ql_compressed.
# The method is in bench/listcompress/main.go; flags: -h.
#
#   bench/list-compress.sh                 # 1M 100-byte values
#   bench/list-compress.sh -n 20000        # a smoke run
#
# Writes the table to stdout and to /tmp/list-compress.md (-out).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/listcompress "$@"
