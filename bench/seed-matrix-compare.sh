#!/usr/bin/env bash
# Runs the seed study's 7-command matrix against corvid-server and
# redis-server 7.0.15 in one run, on this machine, and prints the seed's
# table with redis as the 100% baseline (so the "total (normalized)" row is
# Corvid/Redis).
#
#   bench/seed-matrix-compare.sh [test-time-seconds] [extra corvid-bench flags]
#
# Defaults fit a 2-core machine that also runs the load generator:
# -t 2 -c 25 (50 connections), 500 keys, 128-byte random values.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-15}; shift || true
command -v redis-server >/dev/null || { echo "redis-server not installed (apt-get install redis-server)"; exit 1; }
tmp=$(mktemp -d)
trap 'kill $cpid $rpid 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
go build -o "$tmp/corvid-bench" ./cmd/corvid-bench
cport=$(freeport); rport=$(freeport)
"$tmp/corvid-server" --port "$cport" --bind 127.0.0.1 --save '' --maxmemory 4gb --maxmemory-policy allkeys-lru >"$tmp/corvid.log" 2>&1 & cpid=$!
redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --maxmemory 4gb --maxmemory-policy allkeys-lru >"$tmp/redis.log" 2>&1 & rpid=$!
sleep 0.5
"$tmp/corvid-bench" matrix --target "redis=127.0.0.1:$rport" --target "corvid=127.0.0.1:$cport" \
  --baseline redis -t 2 -c 25 --test-time "$T" --out "${OUT:-/tmp/seed-matrix}" "$@"
echo "server RSS after run (KiB): corvid $(awk '/VmRSS/{print $2}' /proc/$cpid/status)  redis $(awk '/VmRSS/{print $2}' /proc/$rpid/status)"
