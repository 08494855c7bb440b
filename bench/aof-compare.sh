#!/usr/bin/env bash
# The AOF's cost, side by side with valkey-server 8.0.1: the seed's SET
# (memtier_benchmark 2.3.0, -t 2 -c 25 = 50 clients, 128-byte random
# values, keys 1..500, pipeline 1) against corvid-server without
# persistence, with appendonly yes under appendfsync everysec and always,
# and valkey-server under the same two, alternating server by server each
# round, each fresh in its own directory on the same disk. Prints medians
# of the rounds: throughput, p99 and server CPU per op, and each row's
# throughput over corvid without persistence and over Valkey with the
# same fsync policy.
#
#   bench/aof-compare.sh [seconds] [rounds]      # default 8 s, 3 rounds
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-8}; R=${2:-3}
MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
seed_command set
hz=$(getconf CLK_TCK)
raw="$tmp/raw"; : >"$raw"
echo "AOF cost: SET, memtier -t 2 -c 25, ${T}s x $R rounds; $(nproc) cores, $(uname -r), $(df -T "$tmp" | awk 'NR==2{print $2}') at $tmp, $(date -u '+%Y-%m-%d %H:%M UTC'), corvid at $(git rev-parse --short HEAD)"
for round in $(seq "$R"); do
	for who in corvid corvid-everysec corvid-always valkey-everysec valkey-always; do
		port=$(freeport); dir="$tmp/$who-$round"; mkdir -p "$dir"
		case $who in
		corvid) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" >/dev/null 2>&1 & ;;
		corvid-*) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" --appendonly yes --appendfsync "${who#corvid-}" >/dev/null 2>&1 & ;;
		valkey-*) "$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" --appendonly yes --appendfsync "${who#valkey-}" >/dev/null 2>&1 & ;;
		esac
		pid=$!
		for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
		t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
		line=$("$MEMTIER" -s 127.0.0.1 -p "$port" -t 2 -c 25 --test-time "$T" --distinct-client-seed \
			--command "$cmdline" --command-key-pattern R --key-prefix "$prefix" --key-minimum 1 --key-maximum 500 \
			--random-data --data-size 128 --hide-histogram --print-percentiles 50,99 2>/dev/null | awk '$1=="Totals"{print $2, $5}')
		t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
		kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
		set -- $line
		echo "$who $1 $2 $(awk -v t="$((t1 - t0))" -v hz="$hz" -v o="$1" -v s="$T" 'BEGIN{printf "%.3f", t/hz/(o*s)*1e6}')" >>"$raw"
	done
done
awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ if (!($1 in n)) order[++k] = $1; n[$1]++; o[$1, n[$1]] = $2; p[$1, n[$1]] = $3; c[$1, n[$1]] = $4 }
END {
	for (i = 1; i <= k; i++) { w = order[i]; for (r = 1; r <= n[w]; r++) { x[r] = o[w, r]; y[r] = p[w, r]; z[r] = c[w, r] }
		O[w] = med(x, n[w]); P[w] = med(y, n[w]); C[w] = med(z, n[w]) }
	printf "| server | ops/s | p99 ms | CPU us/op | vs corvid without AOF | vs valkey, same fsync |\n|---|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= k; i++) { w = order[i]; split(w, f, "-"); v = (f[2] != "" && ("valkey-" f[2]) in O) ? sprintf("%.2f", O[w] / O["valkey-" f[2]]) : "-"
		printf "| %s | %.0f | %.3f | %.2f | %.2f | %s |\n", w, O[w], P[w], C[w], O[w] / O["corvid"], v }
}' "$raw"
