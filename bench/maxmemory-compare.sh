#!/usr/bin/env bash
# Memory under the seed's growing workloads, corvid-server vs redis-server
# 7.0.15, in one run (issue 5).
#
#   bench/maxmemory-compare.sh [test-time-seconds] [maxmemory]
#
# For each of the seed's LPUSH and ZADD commands (2 threads x 25
# connections, 500 keys, 128-byte random values) it starts a fresh
# corvid-server and a fresh redis-server with --maxmemory (default 512mb)
# and --maxmemory-policy allkeys-lru, runs corvid-bench against each for the
# test time (default 60 s), samples every second the server's RSS
# (/proc/PID/status VmRSS) and INFO used_memory, and prints ops/sec, the
# server's CPU time per operation (utime+stime from /proc/PID/stat: steadier
# than ops/sec on a shared machine), peak RSS, peak RSS / maxmemory, peak
# used_memory and evicted keys. (RSS-base)/max discounts the fixed base the
# issue allows: the server's RSS in the first sample, right after start-up,
# before any load (the binary, runtime and empty structures).
# The samples are kept in $OUT (default /tmp/maxmemory-compare). Both
# servers run under setsid, in their own session and scheduling group, as
# services do (see bench/internal/benchproc).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-60}
MAXMEM=${2:-512mb}
OUT=${OUT:-/tmp/maxmemory-compare}
command -v redis-server >/dev/null || { echo "redis-server not installed"; exit 1; }
command -v redis-cli >/dev/null || { echo "redis-cli not installed"; exit 1; }
mkdir -p "$OUT"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
go build -o "$tmp/corvid-bench" ./cmd/corvid-bench
maxbytes=$(python3 -c "
import re,sys
m=re.fullmatch(r'(\d+)([kmg]?b?)', '$MAXMEM'.lower())
n,u=int(m.group(1)),m.group(2).rstrip('b')
print(n*{'':1,'k':1024,'m':1024**2,'g':1024**3}[u])")

info() { redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v k="$3" '$1==k{print $2}'; }

# run NAME SERVER-KIND COMMAND KEY-PREFIX
run() {
	local name=$1 kind=$2 cmd=$3 prefix=$4 port
	port=$(freeport)
	if [ "$kind" = corvid ]; then
		setsid "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --maxmemory "$MAXMEM" \
			--maxmemory-policy allkeys-lru >"$tmp/$kind.log" 2>&1 &
	else
		setsid redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
			--maxmemory "$MAXMEM" --maxmemory-policy allkeys-lru >"$tmp/$kind.log" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
	local samples="$OUT/$name-$kind.tsv"
	echo -e "t\trss_bytes\tused_memory" >"$samples"
	(
		i=0
		while kill -0 "$pid" 2>/dev/null; do
			rss=$(awk '/VmRSS/{print $2*1024}' "/proc/$pid/status" 2>/dev/null || echo 0)
			used=$(info "$port" memory used_memory 2>/dev/null || echo 0)
			echo -e "$i\t$rss\t$used" >>"$samples"
			i=$((i + 1))
			sleep 1
		done
	) &
	local spid=$!
	"$tmp/corvid-bench" -s 127.0.0.1 -p "$port" -t 2 -c 25 --distinct-client-seed \
		--command="$cmd" --key-prefix="$prefix" --key-minimum=1 --key-maximum=500 \
		--random-data --data-size=128 --test-time="$T" --hide-histogram >"$OUT/$name-$kind.bench" 2>&1
	local ops evicted ticks
	ops=$(awk '/^Totals/{print $2}' "$OUT/$name-$kind.bench")
	evicted=$(info "$port" stats evicted_keys)
	ticks=$(awk '{print $14+$15}' "/proc/$pid/stat")
	# One more sample after the load stops, then stop the server.
	sleep 1.5
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
	kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true
	awk -v name="$name" -v kind="$kind" -v max="$maxbytes" -v ops="$ops" -v ev="$evicted" \
		-v ticks="$ticks" -v hz="$(getconf CLK_TCK)" -v t="$T" '
		NR == 2 { base = $2 }
		NR > 1 { if ($2 > rss) rss = $2; if ($3 > used) used = $3 }
		END { printf "%-6s %-7s %10.0f %8.2f %9.1f %8.3f %9.3f %9.1f %9.3f %10s\n", name, kind, ops,
			ticks/hz*1e6/(ops*t), rss/1048576, rss/max, (rss-base)/max, used/1048576, used/max, ev }' "$samples"
}

echo "maxmemory $MAXMEM ($maxbytes bytes), allkeys-lru, $T s per run, 2x25 connections, 500 keys, 128-byte values"
printf "%-6s %-7s %10s %8s %9s %8s %9s %9s %9s %10s\n" cmd server ops/sec cpu-us/op peakRSS/MiB RSS/max "(RSS-base)/max" peakUsed/MiB used/max evicted
for spec in "lpush|lpush __key__ __data__|list_" "zadd|zadd __key__ __key__ __data__|"; do
	IFS='|' read -r name cmd prefix <<<"$spec"
	for kind in corvid redis; do
		run "$name" "$kind" "$cmd" "$prefix"
	done
done
echo "samples: $OUT/*.tsv, corvid-bench output: $OUT/*.bench"
