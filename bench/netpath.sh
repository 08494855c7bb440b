#!/usr/bin/env bash
# Network-path study: the null server's designs (bench/nullserver), Corvid
# and redis-server 7.0.15 under the same loads, in one run, alternating.
#
#   bench/netpath.sh [rounds]            # default 3 rounds
#
# Environment:
#   VARIANTS  extended regex selecting variants by name (default: all)
#   LOADS     space-separated subset of "p1 p16 cb" (default: all three)
#   N, N16    redis-benchmark requests per test without / with -P 16
#             (default 300000 / 1000000: the larger N16 gives the CPU
#             counter, 10 ms ticks, enough resolution)
#   CBTIME    corvid-bench --test-time seconds (default 10)
#   OUT       directory for raw results (default: a temp dir, printed)
#
# Loads:
#   p1   redis-benchmark -t set,get -c 50 -n $N
#   p16  redis-benchmark -t set,get -c 50 -n $N16 -P 16
#   cb   corvid-bench -t 2 -c 25 --test-time $CBTIME --command "set __key__ __data__"
#
# For every run it records the server's ops/sec and CPU microseconds per op
# (utime+stime of the server process from /proc/PID/stat, before and after,
# divided by the requests of the run). Every server runs for the whole
# study on its own loopback port; each round visits the variants in turn,
# in reverse order every other round (A B C, C B A, ...). The summary is the
# median over rounds. CPU per op is the steadier figure on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-3}
N=${N:-300000}
N16=${N16:-1000000}
CBTIME=${CBTIME:-10}
LOADS=${LOADS:-"p1 p16 cb"}
VARIANTS=${VARIANTS:-.}
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not installed (apt-get install redis-tools)"; exit 1; }
command -v redis-server >/dev/null || { echo "redis-server not installed (apt-get install redis-server)"; exit 1; }

tmp=$(mktemp -d)
OUT=${OUT:-$tmp}
mkdir -p "$OUT"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

go build -o "$tmp/nullserver" ./bench/nullserver
go build -o "$tmp/corvid-server" ./cmd/corvid-server
go build -o "$tmp/corvid-bench" ./cmd/corvid-bench
gnet=yes
(cd bench/nullserver/gnet && go build -o "$tmp/nullserver-gnet" .) 2>/dev/null || { gnet=no; echo "gnet variant skipped (module not available)"; }

# name | environment | command (PORT is replaced)
all_variants=(
	"redis||redis-server --port PORT --bind 127.0.0.1 --save '' --appendonly no"
	"corvid||$tmp/corvid-server --port PORT --bind 127.0.0.1 --save ''"
	"corvid-epoll||$tmp/corvid-server --port PORT --bind 127.0.0.1 --save '' --net-engine epoll"
	"corvid-goroutine||$tmp/corvid-server --port PORT --bind 127.0.0.1 --save '' --net-engine goroutine"
	"corvid-netloop1||$tmp/corvid-server --port PORT --bind 127.0.0.1 --save '' --event-loops 1"
	"corvid-netloop2||$tmp/corvid-server --port PORT --bind 127.0.0.1 --save '' --event-loops 2"
	"null-goroutine||$tmp/nullserver -port PORT -mode goroutine"
	"null-goroutine-mp1|GOMAXPROCS=1|$tmp/nullserver -port PORT -mode goroutine"
	"null-epoll1||$tmp/nullserver -port PORT -mode epoll -loops 1"
	"null-epoll2||$tmp/nullserver -port PORT -mode epoll -loops 2"
	"null-epoll1-mp1|GOMAXPROCS=1|$tmp/nullserver -port PORT -mode epoll -loops 1"
	"null-epoll1-spin||$tmp/nullserver -port PORT -mode epoll -loops 1 -spin 50us"
	"null-epoll2-spin||$tmp/nullserver -port PORT -mode epoll -loops 2 -spin 50us"
	"null-epoll1-raw-spin||$tmp/nullserver -port PORT -mode epoll -loops 1 -spin 50us -raw"
	"null-epoll1-tryfirst||$tmp/nullserver -port PORT -mode epoll -loops 1 -raw -tryfirst"
	"null-epoll1-rawblock||$tmp/nullserver -port PORT -mode epoll -loops 1 -raw -rawblock"
	"null-epoll1-rawblock-defer||$tmp/nullserver -port PORT -mode epoll -loops 1 -raw -rawblock -lockthread -deferwrite"
	"null-uring||$tmp/nullserver -port PORT -mode uring"
	"null-uring-raw||$tmp/nullserver -port PORT -mode uring -raw"
	"null-uring-raw-pollfirst||$tmp/nullserver -port PORT -mode uring -raw -pollfirst"
)
if [ "$gnet" = yes ]; then
	all_variants+=(
		"null-gnet1||$tmp/nullserver-gnet -port PORT -loops 1"
		"null-gnet2||$tmp/nullserver-gnet -port PORT -loops 2"
	)
fi

cpu() { awk '{print $14+$15}' "/proc/$1/stat"; } # utime+stime, clock ticks
HZ=$(getconf CLK_TCK)

names=() ; declare -A port pid
for v in "${all_variants[@]}"; do
	IFS='|' read -r name envs cmdline <<<"$v"
	[[ $name =~ $VARIANTS ]] || continue
	p=$(freeport)
	cmdline=${cmdline//PORT/$p}
	# shellcheck disable=SC2086
	eval "exec env $envs $cmdline" >"$OUT/$name.log" 2>&1 &
	pid[$name]=$!
	pids+=("$!")
	port[$name]=$p
	names+=("$name")
done
for name in "${names[@]}"; do
	for _ in $(seq 100); do redis-cli -p "${port[$name]}" ping >/dev/null 2>&1 && break; sleep 0.05; done
	kill -0 "${pid[$name]}" 2>/dev/null || { echo "$name failed to start:"; cat "$OUT/$name.log"; exit 1; }
done

echo "machine: $(nproc) cores, $(uname -r), loadavg $(cut -d' ' -f1-3 /proc/loadavg), $(redis-server --version | cut -d' ' -f1-3)"
echo "raw results: $OUT/runs.csv"
echo "round,load,variant,ops_per_sec,cpu_us_per_op" >"$OUT/runs.csv"

measure() { # load name
	local load=$1 name=$2 p=${port[$2]} pd=${pid[$2]} before after ops total
	before=$(cpu "$pd")
	case $load in
	p1 | p16)
		local n=$N P=1
		[ "$load" = p16 ] && n=$N16 P=16
		redis-benchmark -h 127.0.0.1 -p "$p" -t set,get -c 50 -n "$n" -P "$P" --csv -q 2>/dev/null |
			tr -d '"' | awk -F, '$1=="SET"||$1=="GET"{print $2}' >"$tmp/rb"
		after=$(cpu "$pd")
		# ops/sec: requests of both tests over the sum of their durations
		ops=$(awk -v n="$n" '{t+=n/$1; c++} END{printf "%.0f", c*n/t}' "$tmp/rb")
		total=$(awk -v n="$n" 'END{print NR*n}' "$tmp/rb")
		;;
	cb)
		"$tmp/corvid-bench" -s 127.0.0.1 -p "$p" -t 2 -c 25 --test-time "$CBTIME" \
			--command "set __key__ __data__" --hide-histogram >"$tmp/cb" 2>&1
		after=$(cpu "$pd")
		ops=$(awk '$1=="Totals"{printf "%.0f", $2}' "$tmp/cb")
		total=$(awk -v o="$ops" -v t="$CBTIME" 'BEGIN{print o*t}')
		;;
	esac
	awk -v d=$((after - before)) -v hz="$HZ" -v t="$total" 'BEGIN{printf "%.2f", (t>0)? d/hz*1e6/t : 0}'
	echo ",$ops"
}

for r in $(seq "$ROUNDS"); do
	order=("${names[@]}")
	if ((r % 2 == 0)); then
		order=()
		for ((i = ${#names[@]} - 1; i >= 0; i--)); do order+=("${names[$i]}"); done
	fi
	for load in $LOADS; do
		for name in "${order[@]}"; do
			IFS=, read -r us ops <<<"$(measure "$load" "$name")"
			echo "$r,$load,$name,$ops,$us" | tee -a "$OUT/runs.csv"
		done
	done
done

echo
echo "median over $ROUNDS rounds; "vs redis" columns are variant/redis (CPU/op < 1: cheaper than redis)"
python3 - "$OUT/runs.csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
loads = list(dict.fromkeys(r["load"] for r in rows))
names = list(dict.fromkeys(r["variant"] for r in rows))
med = {}
for l in loads:
    for n in names:
        rs = [r for r in rows if r["load"] == l and r["variant"] == n]
        if rs:
            med[l, n] = (statistics.median(float(r["ops_per_sec"]) for r in rs),
                         statistics.median(float(r["cpu_us_per_op"]) for r in rs),
                         [float(r["cpu_us_per_op"]) for r in rs])
for l in loads:
    print(f"\nload {l}")
    print(f"| variant | ops/sec | CPU us/op | runs (us/op) | ops vs redis | CPU/op vs redis |")
    print(f"|---|---:|---:|---|---:|---:|")
    ro, rc = med.get((l, "redis"), (0, 0, []))[:2]
    for n in names:
        if (l, n) not in med:
            continue
        o, c, all_ = med[l, n]
        print(f"| {n} | {o:.0f} | {c:.2f} | {' '.join(f'{x:.2f}' for x in all_)} | "
              f"{o/ro if ro else 0:.2f} | {c/rc if rc else 0:.2f} |")
EOF
