#!/usr/bin/env bash
# BGSAVE under load, side by side: corvid-server's fork-less snapshot and
# valkey-server 8.0.1's fork. For each server: fill it with KEYS keys of
# SIZE bytes (DEBUG POPULATE), run the seed's SET/GET load (memtier_benchmark
# 2.3.0, -t 2 -c 25, ratio 1:4, random keys over the dataset) for SECONDS
# without a save, then again for SECONDS with a BGSAVE started at its
# beginning, sampling the server's RSS every 50 ms. Prints, per server:
# the dataset's RSS, the peak RSS during the save over the RSS before it,
# the save's duration, throughput and p99/max latency without and with
# the save (and their ratio).
#
#   bench/bgsave.sh [keys] [size] [seconds]      # default 4000000 1000 20 (~4 GB)
#   bench/bgsave.sh 500000 1000 10               # ~0.5 GB, quicker
#
# Needs the libevent libraries memtier_benchmark links
# (apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
KEYS=${1:-4000000}; SIZE=${2:-1000}; T=${3:-20}
MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
CLI=${CLI:-$(find_bin valkey-cli)}
tmp=$(mktemp -d)
pid=; sampler=
cleanup() {
	[ -n "$sampler" ] && kill "$sampler" 2>/dev/null || true
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
echo "BGSAVE under load: $KEYS keys x $SIZE bytes, memtier -t 2 -c 25 --ratio 1:4, ${T}s per phase; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), corvid at $(git rev-parse --short HEAD)"
printf "| server | dataset RSS MB | peak RSS during save / before | save s | ops/s no save | ops/s during save | ratio | p99 ms no save | p99 ms during save | max ms no save | max ms during save |\n"
printf "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
# rss PID: the RSS in KiB of PID and its children (Valkey's saving child).
rss() {
	local t=0 p v
	for p in "$1" $(pgrep -P "$1" 2>/dev/null); do
		# A child that just exited (a zombie) has no VmRSS line.
		v=$(awk '/VmRSS/{print $2}' "/proc/$p/status" 2>/dev/null || true)
		t=$((t + ${v:-0}))
	done
	echo "$t"
}
load() { # port -> "ops p99 max"
	"$MEMTIER" -s 127.0.0.1 -p "$1" -t 2 -c 25 --test-time "$T" --ratio 1:4 --key-pattern R:R \
		--key-prefix "key:" --key-minimum 1 --key-maximum $((KEYS - 1)) -d "$SIZE" --random-data \
		--hide-histogram --print-percentiles 99,100 2>/dev/null | awk '$1=="Totals"{print $2, $6, $7}'
}
for who in corvid valkey; do
	port=$(freeport)
	dir="$tmp/$who"; mkdir -p "$dir"
	if [ "$who" = valkey ]; then
		"$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --enable-debug-command yes >"$dir/log" 2>&1 &
	else
		"$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" --enable-debug-command yes >"$dir/log" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 100); do "$CLI" -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
	"$CLI" -p "$port" debug populate "$KEYS" key "$SIZE" >/dev/null
	base=$(rss "$pid")
	read -r ops0 p990 max0 < <(load "$port")
	before=$(rss "$pid")
	# The save phase: sample RSS while the load runs and the save goes on.
	( peak=0; while kill -0 "$pid" 2>/dev/null; do
		r=$(rss "$pid"); if [ "$r" -gt "$peak" ]; then peak=$r; echo "$peak" >"$dir/peak.new"; mv "$dir/peak.new" "$dir/peak"; fi
		sleep 0.05
	  done ) &
	sampler=$!
	( sleep 0.5; "$CLI" -p "$port" bgsave >/dev/null; t0=$(date +%s.%N)
	  while "$CLI" -p "$port" info persistence | grep -q 'rdb_bgsave_in_progress:1'; do sleep 0.05; done
	  echo "$(date +%s.%N) $t0" | awk '{printf "%.1f", $1-$2}' >"$dir/savesecs" ) &
	saver=$!
	read -r ops1 p991 max1 < <(load "$port")
	wait "$saver"
	kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; sampler=
	peak=$(cat "$dir/peak" 2>/dev/null || echo "$before")
	status=$("$CLI" -p "$port" info persistence | awk -F: '/rdb_last_bgsave_status/{print $2}' | tr -d '\r')
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
	awk -v w="$who" -v b="$base" -v bf="$before" -v pk="$peak" -v s="$(cat "$dir/savesecs")" -v o0="$ops0" -v o1="$ops1" \
		-v a="$p990" -v c="$p991" -v m0="$max0" -v m1="$max1" -v st="$status" \
		'BEGIN{printf "| %s%s | %.0f | %.2f | %s | %.0f | %.0f | %.2f | %.3f | %.3f | %.1f | %.1f |\n", w, (st=="ok"?"":" (save "st")"), b/1024, pk/bf, s, o0, o1, o1/o0, a, c, m0, m1}'
done
