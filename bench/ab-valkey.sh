#!/usr/bin/env bash
# A/B two git revisions of corvid-server against each other and against
# valkey-server 8.0.1 on the seed study's commands, with memtier_benchmark
# 2.3.0 as the neutral load generator, in alternation (A B valkey, A B
# valkey, ...; each server fresh for each run), and prints one table:
# throughput, p99 and the server's CPU microseconds per operation
# (utime+stime of the whole process from /proc/PID/stat over the run,
# the figure that stays steady on a noisy 2-core machine), each the median
# of the rounds, and the ratios B/A, A/valkey and B/valkey from that one
# run.
#
#   bench/ab-valkey.sh REV_A REV_B [seconds] [rounds] [pipelines] [commands]
#   bench/ab-valkey.sh eb953b8 HEAD 10 3 "1 16" "set get incr lpush sadd zadd hset"
#
# Load (the seed's, scaled to a 2-core machine that also runs the load):
# memtier_benchmark -t 2 -c 25, 128-byte random values, keys 1..500 at
# random, the seed's command lines and key prefixes (bench/lib.sh).
# MEMTIER and VALKEY name the binaries (default: ../shared/bin beside the
# repository, then PATH). OUT keeps the raw per-run lines.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
A=${1:?revision A}; B=${2:?revision B}; T=${3:-10}; R=${4:-3}
PIPES=${5:-"1 16"}; CMDS=${6:-"set get incr lpush sadd zadd hset"}
MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
"$MEMTIER" --version >/dev/null 2>&1 || {
	echo "$MEMTIER does not run; it needs: apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7" >&2
	exit 1
}
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	remove_revisions "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
build_revisions "$tmp" "$A" "$B"
raw=${OUT:-$tmp/raw.txt}
: >"$raw"
echo "A=$A ($(git rev-parse --short "$A"))  B=$B ($(git rev-parse --short "$B"))  valkey $("$VALKEY" --version | awk '{print $3}')"
echo "memtier_benchmark -t 2 -c 25, ${T}s per run, $R rounds, pipelines $PIPES; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
for P in $PIPES; do
	for CMD in $CMDS; do
		seed_command "$CMD"
		for round in $(seq "$R"); do
			for who in a b valkey; do
				port=$(freeport)
				if [ "$who" = valkey ]; then
					"$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" >/dev/null 2>&1 &
				else
					"$tmp/corvid-$who" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" >/dev/null 2>&1 &
				fi
				pid=$!
				wait_port "$port"
				line=$(memtier_cpu "$pid" "$port" "$T" "$P" "$cmdline" "$prefix")
				kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
				set -- $line
				cpu=$3
				echo "$P $CMD $round $who $1 $2 $cpu" >>"$raw"
			done
		done
	done
done
# One row per (pipeline, command): medians over the rounds, then ratios.
medians "$raw" | awk -v who='a b valkey' '
{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
  O[k, $3] = $4; L[k, $3] = $5; C[k, $3] = $6 }
END {
	nw = split(who, W, " ")
	printf "| P | command | A ops/s | B ops/s | valkey ops/s | B/A | A/valkey | B/valkey | A p99 ms | B p99 ms | valkey p99 ms | A cpu us/op | B cpu us/op | valkey cpu us/op | B/A cpu | B/valkey cpu |\n"
	printf "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, f, " ")
		for (w = 1; w <= nw; w++) { o[w] = O[k, W[w]]; l[w] = L[k, W[w]]; c[w] = C[k, W[w]] }
		printf "| %s | %s | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
			f[1], toupper(f[2]), o[1], o[2], o[3], o[2]/o[1], o[1]/o[3], o[2]/o[3],
			l[1], l[2], l[3], c[1], c[2], c[3], c[2]/c[1], c[2]/c[3]
	}
}'
