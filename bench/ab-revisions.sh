#!/usr/bin/env bash
# A/B two git revisions of corvid-server against each other and against
# redis-server 7.0.15 with redis-benchmark, in alternation (A B redis, A B
# redis, ...), printing requests/s per test and the server's CPU seconds per
# million requests (utime+stime from /proc/PID/stat), the figure that is
# steady on a noisy 2-core machine.
#
#   bench/ab-revisions.sh REV_A REV_B [pipeline] [requests] [rounds]
#   bench/ab-revisions.sh c42bacb HEAD 16 1000000 3
#   LOAD=cb bench/ab-revisions.sh c42bacb HEAD 1 10 3
#
# LOAD=cb replaces redis-benchmark (one client thread, which caps the load
# on a 2-core machine) with corvid-bench -t 2 -c 25 running a seed command
# (CMD=set, the default, or get, incr, lpush, sadd, zadd, hset: the
# seed's command line, 128-byte random values, keys 1..500) for
# [requests] seconds at [pipeline]; CPU per request then uses
# corvid-bench's operation count.
#
# Each revision is built from a temporary git worktree. Servers listen on
# free loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
A=${1:?revision A}; B=${2:?revision B}; P=${3:-16}; N=${4:-1000000}; R=${5:-3}
command -v redis-server >/dev/null || { echo "redis-server not installed"; exit 1; }
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not installed (redis-tools)"; exit 1; }
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	remove_revisions "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
build_revisions "$tmp" "$A" "$B"
LOAD=${LOAD:-redis-benchmark}
CMD=${CMD:-set}
seed_command "$CMD"
[ "$LOAD" = cb ] && go build -o "$tmp/corvid-bench" ./cmd/corvid-bench
echo "A=$A ($(git rev-parse --short "$A"))  B=$B ($(git rev-parse --short "$B"))  load $LOAD ${CMD}, pipeline $P, $N (requests or seconds), $R rounds"
for round in $(seq "$R"); do
	for who in a b redis; do
		port=$(freeport)
		if [ "$who" = redis ]; then
			setsid redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" >/dev/null 2>&1 &
		else
			setsid "$tmp/corvid-$who" --port "$port" --bind 127.0.0.1 --save '' >/dev/null 2>&1 &
		fi
		pid=$!
		for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
		t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
		if [ "$LOAD" = cb ]; then
			ops=$("$tmp/corvid-bench" -s 127.0.0.1 -p "$port" -t 2 -c 25 --test-time "$N" --pipeline "$P" \
				--distinct-client-seed --command "$cmdline" --key-prefix "$prefix" --key-minimum 1 \
				--key-maximum 500 --random-data --data-size 128 --hide-histogram 2>/dev/null | awk '$1=="Totals"{print $2}')
			out="$CMD $(printf '%.0f' "$ops")  "
			total=$(awk -v o="$ops" -v t="$N" 'BEGIN{printf "%.0f", o*t}')
		else
			out=$(redis-benchmark -p "$port" -t set,get,incr -c 50 -n "$N" -P "$P" -q 2>/dev/null | tr '\r' '\n' |
				awk -F'[: ]+' '/^(SET|GET|INCR): [0-9]/{printf "%s %.0f  ", $1, $2}')
			total=$((3 * N))
		fi
		t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
		kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
		label=$who; [ "$who" = a ] && label="A"; [ "$who" = b ] && label="B"
		printf "round %d  %-5s  %s cpu_s_per_1M=%s\n" "$round" "$label" "$out" \
			"$(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v n="$total" 'BEGIN{printf "%.3f", t/hz/n*1e6}')"
	done
done
