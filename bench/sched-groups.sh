#!/usr/bin/env bash
# How the kernel's scheduling groups change pipeline-1 throughput on this
# machine (docs/benchmarks-archive.md, "Scheduling groups", where the loop
# thread settings this led to were chosen).
#
#   bench/sched-groups.sh [seconds] [rounds]      # default 5 s, 2 rounds
#   CMD=get bench/sched-groups.sh                 # another seed command
#
# For each placement of the servers, "shared" (started from this script,
# so in the load generator's session and scheduling group) and "own"
# (setsid: a session and, with kernel.sched_autogroup_enabled, a group of
# their own, as a service has), and each server, corvid-server as built
# (its loop locked to its thread) and redis-server 7.0.15, it runs
# corvid-bench -t 2
# -c 25 --pipeline 1 with the seed command (CMD, default set) and prints
# ops/s, the server's CPU us per op (utime+stime) and its involuntary
# context switches per op (summed over its threads: how often the kernel
# took the CPU from it while it could still run).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-5}; R=${2:-2}; CMD=${CMD:-set}
command -v redis-server >/dev/null || { echo "redis-server not installed"; exit 1; }
seed_command "$CMD"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
go build -o "$tmp/corvid-bench" ./cmd/corvid-bench
snap() { # cpu ticks, involuntary switches of process $1
	awk '{print $14+$15}' "/proc/$1/stat"
	cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^nonvoluntary_ctxt_switches/{n+=$2} END{print n}'
}
echo "kernel $(uname -r), sched_autogroup_enabled=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo n/a), $CMD, pipeline 1, ${T}s x $R rounds"
printf "%-6s %-15s %5s %10s %10s %10s\n" group server round ops/s cpu_us/op nvcsw/op
for round in $(seq "$R"); do
	for group in shared own; do
		for who in corvid redis; do
			port=$(freeport)
			pre=(); [ "$group" = own ] && pre=(setsid)
			case $who in
			redis) "${pre[@]}" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" >/dev/null 2>&1 & ;;
			corvid) "${pre[@]}" "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" >/dev/null 2>&1 & ;;
			esac
			pid=$!
			for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
			a=($(snap "$pid"))
			ops=$("$tmp/corvid-bench" -s 127.0.0.1 -p "$port" -t 2 -c 25 --test-time "$T" --pipeline 1 \
				--distinct-client-seed --command "$cmdline" --key-prefix "$prefix" --key-minimum 1 \
				--key-maximum 500 --random-data --data-size 128 --hide-histogram 2>/dev/null | awk '$1=="Totals"{print $2}')
			b=($(snap "$pid"))
			kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
			awk -v g="$group" -v w="$who" -v r="$round" -v o="$ops" -v t="$T" -v c=$((b[0] - a[0])) -v n=$((b[1] - a[1])) \
				-v hz="$(getconf CLK_TCK)" 'BEGIN{ops=o*t; printf "%-6s %-15s %5d %10.0f %10.2f %10.3f\n", g, w, r, o, c/hz/ops*1e6, n/ops}'
		done
	done
done
