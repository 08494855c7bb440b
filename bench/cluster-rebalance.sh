#!/usr/bin/env bash
# Slot migration side by side: valkey-cli --cluster rebalance moving 4096
# slots (a quarter of them) from a 3-primary cluster onto a fourth, empty
# primary, then back off it (--cluster-weight <id>=0), on Corvid nodes and
# on Valkey 8.0.1 nodes in alternation, a fresh cluster each run. Each
# slot is CLUSTER SETSLOT IMPORTING/MIGRATING, GETKEYSINSLOT and MIGRATE
# for its keys, then SETSLOT NODE on every primary: the cost is the
# nodes.conf saves and the bus messages the slot's new owner sends, which
# is what this measures. Prints per run and as medians: the two
# rebalances' wall time and the four nodes' CPU seconds (utime+stime from
# /proc/PID/stat), and the ratios corvid/valkey.
#
#   bench/cluster-rebalance.sh [rounds] [keys]
#   bench/cluster-rebalance.sh 3 10000
#
# VALKEY and VALKEY_CLI name the binaries (default: ../shared/bin beside
# the repository, then PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
R=${1:-3}; KEYS=${2:-10000}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
VALKEY_CLI=${VALKEY_CLI:-$(find_bin valkey-cli)}
tmp=$(mktemp -d)
pids=()
trap 'stop_pids; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server

# start_nodes WHO starts four nodes of WHO (corvid or valkey); sets pids
# and ports.
start_nodes() {
	local who=$1 i port bin=$tmp/corvid-server
	[ "$who" = valkey ] && bin=$VALKEY
	ports=()
	for i in 1 2 3 4; do cluster_node "$bin" "$tmp/$who-$i"; done
	for port in "${ports[@]}"; do wait_port "$port"; done
}

# wait_ok PORT... waits until every node says cluster_state:ok and knows
# all four nodes.
wait_ok() {
	local port ok
	for _ in $(seq 400); do
		ok=0
		for port in "$@"; do
			"$VALKEY_CLI" -p "$port" cluster info 2>/dev/null | tr -d '\r' |
				awk -F: '$1=="cluster_state"&&$2=="ok"{s=1} $1=="cluster_known_nodes"&&$2==4{k=1} END{exit !(s&&k)}' && ok=$((ok + 1))
		done
		[ "$ok" = $# ] && return
		sleep 0.05
	done
	echo "the cluster never became ok" >&2; exit 1
}

cpu_seconds() { local p t=0; for p in "${pids[@]}"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t $(getconf CLK_TCK)" | awk '{printf "%.2f", $1 / $2}'; }

# rebalance ARGS... runs valkey-cli --cluster rebalance and prints its
# wall seconds.
rebalance() {
	local t0 t1
	t0=$(date +%s.%N)
	"$VALKEY_CLI" --cluster rebalance "127.0.0.1:${ports[0]}" "$@" --cluster-yes >"$tmp/rebalance.log" 2>&1 || {
		tail -5 "$tmp/rebalance.log" >&2; exit 1
	}
	grep -q ERR "$tmp/rebalance.log" && { grep ERR "$tmp/rebalance.log" | head -3 >&2; exit 1; }
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}'
}

raw=$tmp/raw.txt
: >"$raw"
echo "valkey $("$VALKEY" --version | awk '{print $3}'); corvid at $(git rev-parse --short HEAD)"
echo "3 primaries + 1 empty, $KEYS keys, rebalance on and off the fourth, $R rounds; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "round server on-s off-s cpu-s"
for round in $(seq "$R"); do
	for who in corvid valkey; do
		start_nodes "$who"
		"$VALKEY_CLI" --cluster create "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" "127.0.0.1:${ports[2]}" --cluster-yes >"$tmp/create.log" 2>&1 || {
			cat "$tmp/create.log" >&2; exit 1
		}
		for i in $(seq "$KEYS"); do echo "SET key:$i $i"; done | "$VALKEY_CLI" -c -p "${ports[0]}" >/dev/null
		"$VALKEY_CLI" --cluster add-node "127.0.0.1:${ports[3]}" "127.0.0.1:${ports[0]}" >"$tmp/add.log" 2>&1 || {
			cat "$tmp/add.log" >&2; exit 1
		}
		wait_ok "${ports[@]}"
		id=$("$VALKEY_CLI" -p "${ports[3]}" cluster myid | tr -d '\r')
		c0=$(cpu_seconds)
		on=$(rebalance --cluster-use-empty-masters)
		off=$(rebalance --cluster-weight "$id=0")
		c1=$(cpu_seconds)
		stop_pids
		line="$round $who $on $off $(echo "$c0 $c1" | awk '{printf "%.2f", $2 - $1}')"
		echo "$line"; echo "- rebalance $line" >>"$raw"
	done
done
# medians prints "- rebalance who on off cpu" per server.
medians "$raw" | awk '
{ on[$3] = $4; off[$3] = $5; cpu[$3] = $6 }
END {
	printf "\n| server | rebalance on, s | rebalance off, s | nodes CPU, s |\n|---|---:|---:|---:|\n"
	printf "| corvid | %.2f | %.2f | %.2f |\n| valkey | %.2f | %.2f | %.2f |\n", on["corvid"], off["corvid"], cpu["corvid"], on["valkey"], off["valkey"], cpu["valkey"]
	printf "| corvid/valkey | %.2f | %.2f | %.2f |\n", on["corvid"] / on["valkey"], off["corvid"] / off["valkey"], cpu["corvid"] / cpu["valkey"]
}'
