#!/usr/bin/env bash
# What ACL permission checks cost on the seed workload: corvid-server and
# valkey-server 8.0.1, each run as the default user (no password, +@all ~*
# &*: Corvid's one-branch fast path) and as a user with five key patterns
# that memtier authenticates as (AUTH app <password>; the checks then
# match every key against the patterns), in alternation (each server fresh
# for each run), with memtier_benchmark 2.3.0 as the load generator.
# Prints throughput, p99 and the server's CPU microseconds per operation
# (utime+stime from /proc/PID/stat over the run), medians of the rounds,
# and the ratios from that one run: user/default for each server (the
# checks' cost) and corvid/valkey for each user.
#
#   bench/acl.sh [seconds] [rounds] [pipelines] [commands]
#   bench/acl.sh 10 3 "1 16" "set get"
#
# Load: the seed's (bench/lib.sh memtier_cpu): -t 2 -c 25, 128-byte
# values, keys 1..500 at random, the seed's command lines and prefixes
# (the user's five patterns are a:*, b:*, c:*, d:*, which never match, then
# the command's prefix, kv_* for SET/GET: every key is tried against all
# five).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-10}; R=${2:-3}; PIPES=${3:-"1 16"}; CMDS=${4:-"set get"}
MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
raw=${OUT:-$tmp/raw.txt}
: >"$raw"
echo "corvid at $(git rev-parse --short HEAD), valkey $("$VALKEY" --version | awk '{print $3}')"
echo "memtier_benchmark -t 2 -c 25, ${T}s per run, $R rounds, pipelines $PIPES; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
for P in $PIPES; do
	for CMD in $CMDS; do
		seed_command "$CMD"
		# Five key patterns, the command's own last (a config file: on the
		# command line a user's rules would be one quoted argument).
		echo "user app on >app-password ~a:* ~b:* ~c:* ~d:* ~${prefix}* +@all" >"$tmp/user.conf"
		for round in $(seq "$R"); do
			for who in corvid-default corvid-user valkey-default valkey-user; do
				port=$(freeport)
				bin=$tmp/corvid-server
				[ "${who%%-*}" = valkey ] && bin=$VALKEY
				auth=()
				if [ "${who#*-}" = user ]; then
					"$bin" "$tmp/user.conf" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" >/dev/null 2>&1 &
					auth=(--authenticate app:app-password)
				else
					"$bin" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" >/dev/null 2>&1 &
				fi
				pid=$!
				wait_port "$port"
				line=$(memtier_cpu "$pid" "$port" "$T" "$P" "$cmdline" "$prefix" "${auth[@]}")
				kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
				echo "$P $CMD $round $who $line" >>"$raw"
			done
		done
	done
done
medians "$raw" | awk -v who='corvid-default corvid-user valkey-default valkey-user' '
{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
  O[k, $3] = $4; L[k, $3] = $5; C[k, $3] = $6 }
END {
	nw = split(who, W, " ")
	printf "| P | command | corvid ops/s (default, user) | valkey ops/s (default, user) | corvid cpu us/op (default, user) | valkey cpu us/op (default, user) | corvid user/default ops, cpu | valkey user/default ops, cpu | user: corvid/valkey ops, cpu |\n"
	printf "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, f, " ")
		for (w = 1; w <= nw; w++) { o[w] = O[k, W[w]]; c[w] = C[k, W[w]] }
		printf "| %s | %s | %.0f, %.0f | %.0f, %.0f | %.2f, %.2f | %.2f, %.2f | %.3f, %.3f | %.3f, %.3f | %.2f, %.2f |\n",
			f[1], toupper(f[2]), o[1], o[2], o[3], o[4], c[1], c[2], c[3], c[4],
			o[2]/o[1], c[2]/c[1], o[4]/o[3], c[4]/c[3], o[2]/o[4], c[2]/c[4]
	}
}'
