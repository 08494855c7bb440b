#!/usr/bin/env bash
# Client efficiency: corvid-bench vs redis-benchmark driving the same
# redis-server in one run. Prints ops per client CPU-second (user+sys from
# /usr/bin/time) for SET and GET at pipeline 1 and 16, 50 connections.
# Usage: compare-redis-benchmark.sh [path/to/corvid-bench]   (run from the repo root)
set -euo pipefail
BENCH=${1:-./corvid-bench}
N1=${N1:-200000}         # requests per test at pipeline 1
N16=${N16:-2000000}      # requests per test at pipeline 16 (enough CPU time to measure)
CONNS=${CONNS:-50}
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null &
SRV=$!
trap 'kill $SRV' EXIT
sleep 0.5
cpu() { # cpu LABEL OPS CMD... -> "LABEL ops cpu_s ops_per_cpu_s wall_s"
  local label=$1 ops=$2; shift 2
  local tf; tf=$(mktemp)
  /usr/bin/time -o "$tf" -f "%U %S %e" "$@" >/dev/null 2>&1
  set -- $(tail -1 "$tf"); rm -f "$tf"
  awk -v l="$label" -v o="$ops" -v u="$1" -v s="$2" -v e="$3" \
    'BEGIN { c = u + s; printf "%-44s %8d ops %6.2f cpu-s %10.0f ops/cpu-s %6.2f wall-s\n", l, o, c, (c > 0 ? o / c : 0), e }'
}
for P in 1 16; do
  N=$N1; [ "$P" = 16 ] && N=$N16
  for T in set get; do
    cpu "redis-benchmark -t $T -P $P" "$N" \
      redis-benchmark -h 127.0.0.1 -p "$PORT" -c "$CONNS" -n "$N" -P "$P" -t "$T" -d 3 -r 100000 -q
    RATIO=1:0; [ "$T" = get ] && RATIO=0:1
    cpu "corvid-bench --ratio $RATIO --pipeline $P" "$N" \
      "$BENCH" -s 127.0.0.1 -p "$PORT" -t 1 -c "$CONNS" -n $((N / CONNS)) --pipeline "$P" --ratio "$RATIO" \
      -d 3 --key-prefix key: --key-maximum 100000 --hide-histogram
  done
done
