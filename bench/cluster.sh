#!/usr/bin/env bash
# Seed article 003's cluster workload side by side: a 3-primary Corvid
# cluster and a 3-primary Valkey 8.0.1 cluster on this machine, each made
# with valkey-cli --cluster create, loaded in alternation (a fresh cluster
# for every run) by memtier_benchmark --cluster-mode with the article's
# flags: -R --data-size-range=1024-4096 --data-size-pattern=S --ratio=1:4,
# uniform keys and Gaussian keys (--key-pattern=G:G), scaled to a 2-core
# machine (-t 2 -c 25). Prints ops/s, p50/p99/p99.9, MOVED/s and ASK/s
# (memtier's cluster columns) and the servers' CPU microseconds per
# operation (utime+stime of the three node processes from /proc/PID/stat
# over the run, and the utime part alone: the rest is the kernel's,
# mostly loopback TCP), medians of the rounds, and the ratios
# corvid/valkey.
#
#   bench/cluster.sh [seconds] [rounds] [patterns]
#   bench/cluster.sh 10 3 "R G"
#
# MEMTIER, VALKEY and VALKEY_CLI name the binaries (default: ../shared/bin
# beside the repository, then PATH). OUT keeps the raw per-run lines.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-10}; R=${2:-3}; PATTERNS=${3:-"R G"}
MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
VALKEY_CLI=${VALKEY_CLI:-$(find_bin valkey-cli)}
tmp=$(mktemp -d)
pids=()
trap 'stop_pids; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
raw=${OUT:-$tmp/raw.txt}
: >"$raw"

# start_cluster WHO starts three nodes of WHO (corvid or valkey) and
# makes them one cluster; sets pids and ports.
start_cluster() {
	local who=$1 i port bin=$tmp/corvid-server
	[ "$who" = valkey ] && bin=$VALKEY
	ports=()
	for i in 1 2 3; do cluster_node "$bin" "$tmp/$who-$i"; done
	for port in "${ports[@]}"; do wait_port "$port"; done
	"$VALKEY_CLI" --cluster create "${ports[@]/#/127.0.0.1:}" --cluster-yes >"$tmp/create.log" 2>&1 || {
		cat "$tmp/create.log" >&2; exit 1
	}
	for _ in $(seq 200); do
		local ok=0
		for port in "${ports[@]}"; do
			"$VALKEY_CLI" -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && ok=$((ok + 1))
		done
		[ "$ok" = 3 ] && return
		sleep 0.05
	done
	echo "$who cluster never became ok" >&2; exit 1
}

# cpu_ticks prints the user and system ticks of the node processes.
cpu_ticks() { local p u=0 s=0; for p in "${pids[@]}"; do read -r a b < <(awk '{print $14, $15}' "/proc/$p/stat"); u=$((u + a)); s=$((s + b)); done; echo "$u $s"; }

echo "valkey $("$VALKEY" --version | awk '{print $3}'); corvid at $(git rev-parse --short HEAD)"
echo "memtier_benchmark --cluster-mode -t 2 -c 25 -R --data-size-range=1024-4096 --data-size-pattern=S --ratio=1:4, ${T}s per run, $R rounds; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
for pat in $PATTERNS; do
	kp=R:R; [ "$pat" = G ] && kp=G:G
	for round in $(seq "$R"); do
		for who in corvid valkey; do
			start_cluster "$who"
			read -r u0 s0 < <(cpu_ticks)
			out=$("$MEMTIER" -s 127.0.0.1 -p "${ports[0]}" --cluster-mode -t 2 -c 25 --test-time "$T" \
				-R --data-size-range=1024-4096 --data-size-pattern=S --ratio=1:4 --key-pattern="$kp" \
				--hide-histogram --print-percentiles 50,99,99.9 2>/dev/null)
			read -r u1 s1 < <(cpu_ticks)
			stop_pids
			# The Totals row, by the header's column names.
			echo "$out" | awk -v who="$who" -v pat="$pat" -v round="$round" -v t="$((u1 - u0 + s1 - s0))" \
				-v ut="$((u1 - u0))" -v hz="$(getconf CLK_TCK)" -v s="$T" '
				# "Avg. Latency", "p50 Latency", ...: two words a column.
				$1 == "Type" { j = 0; for (i = 1; i <= NF; i++) if ($i != "Latency") col[$i] = ++j }
				$1 == "Totals" {
					ops = $col["Ops/sec"]
					printf "%s x %s %s %s %s %s %s %s %s %.3f %.3f\n", pat, round, who, ops,
						$col["p50"], $col["p99"], $col["p99.9"], $col["MOVED/sec"], $col["ASK/sec"],
						t / hz / (ops * s) * 1e6, ut / hz / (ops * s) * 1e6
				}' >>"$raw"
		done
	done
done
# Medians per (pattern, server), then the ratios.
awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ k = $1 " " $4; if (!(k in n)) { order[++nk] = k }
  n[k]++; for (f = 5; f <= 12; f++) v[k, f, n[k]] = $f }
END {
	printf "| keys | server | ops/s | p50 ms | p99 ms | p99.9 ms | MOVED/s | ASK/s | CPU us/op | of which user |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, kk, " ")
		for (f = 5; f <= 12; f++) { for (r = 1; r <= n[k]; r++) x[r] = v[k, f, r]; m[k, f] = med(x, n[k]) }
		printf "| %s | %s | %.0f | %.3f | %.3f | %.3f | %.0f | %.0f | %.2f | %.2f |\n", kk[1] == "G" ? "Gaussian" : "uniform", kk[2],
			m[k,5], m[k,6], m[k,7], m[k,8], m[k,9], m[k,10], m[k,11], m[k,12]
	}
	printf "\n| keys | corvid/valkey ops | corvid/valkey CPU per op | p99 corvid/valkey |\n|---|---:|---:|---:|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, kk, " ")
		if (kk[2] != "corvid") continue
		o = kk[1] " valkey"
		printf "| %s | %.2f | %.2f | %.2f |\n", kk[1] == "G" ? "Gaussian" : "uniform",
			m[k,5] / m[o,5], m[k,11] / m[o,11], m[k,7] / m[o,7]
	}
}' "$raw"
