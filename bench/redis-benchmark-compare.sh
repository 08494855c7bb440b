#!/usr/bin/env bash
# Side-by-side: redis-benchmark against corvid-server and redis-server 7.0.15
# on this machine, one after the other in one run, and the ratios.
#
#   bench/redis-benchmark-compare.sh [requests] [rounds]
#
# Both servers run with no persistence on free loopback ports. Each round
# runs the same redis-benchmark invocation against Corvid and then Redis
# (A B A B ...), without and with pipelining (-P 16), and the script prints
# the best ops/sec of each server per test and the ratio Corvid/Redis, plus
# each server's CPU seconds per million requests (from /proc/PID/stat).
#
# THREADS=N passes --threads N to redis-benchmark. Its default single
# client thread saturates before either server does on a 2-core machine
# (both read ~90k requests/s unpipelined), so the ratios then measure the
# client; with two threads the servers are the bottleneck, as in the
# corvid-bench side-by-side runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
N=${1:-1000000}
ROUNDS=${2:-2}
TESTS=${TESTS:-set,get,incr}
CLIENTS=${CLIENTS:-50}
THREADS=${THREADS:-}
threadflag=()
[ -n "$THREADS" ] && threadflag=(--threads "$THREADS")
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not installed (apt-get install redis-tools)"; exit 1; }
command -v redis-server >/dev/null || { echo "redis-server not installed (apt-get install redis-server)"; exit 1; }

tmp=$(mktemp -d)
trap 'kill $cpid $rpid 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server

cport=$(freeport); rport=$(freeport)
"$tmp/corvid-server" --port "$cport" --bind 127.0.0.1 --save '' >"$tmp/corvid.log" 2>&1 & cpid=$!
redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no >"$tmp/redis.log" 2>&1 & rpid=$!
for p in $cport $rport; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done

cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }   # utime+stime in clock ticks
HZ=$(getconf CLK_TCK)

declare -A best cpuper
run() { # name port pid pipeline
  local name=$1 port=$2 pid=$3 P=$4 before after
  before=$(cpu "$pid")
  redis-benchmark -h 127.0.0.1 -p "$port" -t "$TESTS" -c "$CLIENTS" -n "$N" -P "$P" "${threadflag[@]}" --csv -q 2>/dev/null \
    | tr -d '"' | awk -F, 'NR>1 || $1!="test" {print $1","$2}' > "$tmp/out"
  after=$(cpu "$pid")
  local ntests; ntests=$(wc -l < "$tmp/out")
  while IFS=, read -r test rps; do
    [ "$test" = "test" ] && continue
    local k="$name|$P|$test"
    if [ -z "${best[$k]:-}" ] || awk "BEGIN{exit !($rps > ${best[$k]})}"; then best[$k]=$rps; fi
  done < "$tmp/out"
  cpuper["$name|$P"]=$(awk -v d=$((after-before)) -v hz="$HZ" -v n="$N" -v t="$ntests" 'BEGIN{printf "%.2f", d/hz/(n*t/1e6)}')
}

for r in $(seq "$ROUNDS"); do
  for P in 1 16; do
    run corvid "$cport" "$cpid" "$P"
    run redis "$rport" "$rpid" "$P"
  done
done

echo "redis-benchmark -c $CLIENTS -n $N ${threadflag[*]}, best of $ROUNDS rounds (A B alternation), $(nproc) cores"
printf "%-6s %-8s %12s %12s %8s\n" pipe test corvid redis ratio
for P in 1 16; do
  for test in $(echo "$TESTS" | tr , ' '); do
    T=$(echo "$test" | tr a-z A-Z)
    c=${best["corvid|$P|$T"]:-0}; r=${best["redis|$P|$T"]:-0}
    printf "%-6s %-8s %12.0f %12.0f %8.2f\n" "$P" "$test" "$c" "$r" "$(awk -v c="$c" -v r="$r" 'BEGIN{print (r>0)?c/r:0}')"
  done
  echo "P=$P server CPU s per 1M requests (last round): corvid ${cpuper["corvid|$P"]}  redis ${cpuper["redis|$P"]}"
done
