#!/usr/bin/env bash
# RSS after the dataset shrinks, side by side: corvid-server and
# valkey-server 8.0.1 (and redis-server 7.0.15 with REDIS=1), each filled
# with DEBUG POPULATE (N keys of SIZE bytes), then the keys removed one
# way: DEL of 90% (valkey-cli --pipe), DEL of 88% then, 3 s later, of 2%
# more (del-late: the end of a long shrink, after a release has run),
# FLUSHALL ASYNC of all, expiry of
# 90% (PEXPIRE 1 on them through --pipe; active expiry deletes), or
# eviction of 90% (maxmemory set to a tenth of used_memory,
# allkeys-random). No MEMORY PURGE is sent. Every 0.5 s for WAIT seconds
# after the removal it samples used_memory (INFO) and VmRSS
# (/proc/PID/status), and prints the first time RSS is within 1.3x of
# used_memory plus the RSS the server had before it was filled (issue 32's
# goal, read strictly: RSS <= 1.3 x used + start within 10 s), the first
# time it is within 1.3 x (used + start) (the goal read loosely), the RSS
# at the end and RSS / (used + start) then. The last column splits the heap at the end:
# for Corvid the Go runtime's heap objects, the free room in partly used
# spans (heap/unused) and the runtime metadata (mspan + other, which Go
# never returns); for Valkey jemalloc's allocated, active - allocated
# (free room in partly used runs) and resident - active.
#
#   bench/mem-shrink.sh [keys] [size] [ways] [wait-seconds]
#   bench/mem-shrink.sh 1000000 1000 "del del-late flush expire evict" 10
#
# VALKEY and VALKEY_CLI name the binaries (default: ../shared/bin beside
# the repository, then PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
N=${1:-1000000}; SIZE=${2:-1000}; WAYS=${3:-"del del-late flush expire evict"}; WAIT=${4:-10}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
CLI=${VALKEY_CLI:-$(find_bin valkey-cli)}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
build_corvid "$tmp"
servers="corvid valkey"
[ -n "${REDIS:-}" ] && servers="$servers redis"

rss() { awk '/^VmRSS/{print $2 * 1024}' "/proc/$1/status"; }
used() { "$CLI" -p "$1" info memory | tr -d '\r' | awk -F: '$1=="used_memory"{print $2}'; }
# heapsplit PORT WHO: the heap's split at the end, in MB (see above).
heapsplit() {
	if [ "$2" = corvid ]; then
		"$CLI" -p "$1" memory malloc-stats | awk '
			/classes\/heap\/objects:/ { o = $2 } /classes\/heap\/unused:/ { u = $2 }
			/classes\/metadata\/(mspan|other)/ { m += $2 }
			END { printf "objects %.0f / unused %.0f / metadata %.0f", o / 1048576, u / 1048576, m / 1048576 }'
	else
		"$CLI" -p "$1" info memory | tr -d '\r' | awk -F: '
			$1 == "allocator_allocated" { a = $2 } $1 == "allocator_active" { c = $2 } $1 == "allocator_resident" { r = $2 }
			END { printf "allocated %.0f / active-allocated %.0f / resident-active %.0f", a / 1048576, (c - a) / 1048576, (r - c) / 1048576 }'
	fi
}

echo "$what; valkey $("$VALKEY" --version | awk '{print $3}')"
echo "$N keys of $SIZE bytes (DEBUG POPULATE), 90% removed (all by FLUSHALL ASYNC); $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "| removed by | server | RSS at start MB | RSS filled MB | used after MB | RSS 1 s after MB | RSS ${WAIT} s after MB | RSS <= 1.3 x used + start after | RSS <= 1.3 x (used + start) after | RSS / (used + start) at ${WAIT} s | heap at ${WAIT} s MB |"
echo "|---|---|---:|---:|---:|---:|---:|---|---|---:|---|"
# The keys to remove, DEBUG POPULATE's names key:0 .. key:N-1, 90% of them.
cut=$((N * 9 / 10))
# dels A B deletes key:A .. key:B-1, 100 a DEL, through --pipe.
dels() {
	awk -v a="$2" -v n="$3" 'BEGIN { for (i = a; i < n; i += 100) { printf "DEL"; for (j = i; j < i + 100 && j < n; j++) printf " key:%d", j; printf "\r\n" } }' |
		"$CLI" -p "$1" --pipe >/dev/null
}
for way in $WAYS; do
	for who in $servers; do
		port=$(freeport)
		case $who in
		corvid) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
			--enable-debug-command yes >/dev/null 2>&1 & ;;
		valkey) "$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
			--enable-debug-command yes >/dev/null 2>&1 & ;;
		redis) redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
			--enable-debug-command yes >/dev/null 2>&1 & ;;
		esac
		pid=$!
		wait_port "$port"
		base=$(rss "$pid")
		"$CLI" -p "$port" debug populate "$N" key "$SIZE" >/dev/null
		filled=$(rss "$pid")
		case $way in
		del) dels "$port" 0 "$cut" ;;
		del-late) dels "$port" 0 $((N * 88 / 100))
			sleep 3
			dels "$port" $((N * 88 / 100)) "$cut" ;;
		flush) u=$(used "$port")
			"$CLI" -p "$port" flushall async >/dev/null
			# Valkey's used_memory counts what its lazyfree thread has
			# not freed yet: wait until it is down.
			for _ in $(seq 600); do
				[ "$(used "$port")" -le $((u / 10)) ] && break
				sleep 0.1
			done ;;
		expire) awk -v n="$cut" 'BEGIN { for (i = 0; i < n; i++) printf "PEXPIRE key:%d 1\r\n", i }' |
			"$CLI" -p "$port" --pipe >/dev/null
			# Active expiry deletes them: wait until the keyspace is down.
			for _ in $(seq 600); do
				k=$("$CLI" -p "$port" dbsize)
				[ "$k" -le $((N - cut)) ] && break
				sleep 0.1
			done ;;
		evict) u=$(used "$port")
			"$CLI" -p "$port" config set maxmemory-policy allkeys-random >/dev/null
			"$CLI" -p "$port" config set maxmemory $((u / 10)) >/dev/null
			# Eviction runs when a write comes (one SET), and goes on in
			# the background where a time limit stops it: wait until
			# used_memory is under the limit.
			"$CLI" -p "$port" set trigger 1 >/dev/null
			for _ in $(seq 600); do
				[ "$(used "$port")" -le $((u / 10)) ] && break
				sleep 0.1
			done ;;
		esac
		t0=$(date +%s.%N)
		at1= hit= hit2=
		while :; do
			now=$(date +%s.%N)
			el=$(awk -v a="$now" -v b="$t0" 'BEGIN{printf "%.1f", a - b}')
			r=$(rss "$pid"); u=$(used "$port")
			[ -z "$at1" ] && awk -v e="$el" 'BEGIN{exit !(e >= 1)}' && at1=$r
			[ -z "$hit" ] && awk -v r="$r" -v u="$u" -v b="$base" 'BEGIN{exit !(r <= 1.3 * u + b)}' && hit=$el
			[ -z "$hit2" ] && awk -v r="$r" -v u="$u" -v b="$base" 'BEGIN{exit !(r <= 1.3 * (u + b))}' && hit2=$el
			awk -v e="$el" -v w="$WAIT" 'BEGIN{exit !(e >= w)}' && break
			sleep 0.5
		done
		if [ -n "$hit" ]; then hit="$hit s"; else hit="not within $WAIT s"; fi
		if [ -n "$hit2" ]; then hit2="$hit2 s"; else hit2="not within $WAIT s"; fi
		sp=$(heapsplit "$port" "$who")
		awk -v way="$way" -v who="$who" -v b="$base" -v f="$filled" -v u="$u" -v a="${at1:-$r}" -v r="$r" -v hit="$hit" -v hit2="$hit2" -v sp="$sp" \
			'BEGIN { m = 1048576; printf "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %.2f | %s |\n", way, who, b/m, f/m, u/m, a/m, r/m, hit, hit2, r/(u+b), sp }'
		kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
	done
done
