#!/usr/bin/env bash
# Pub/sub, MONITOR and client tracking, side by side with valkey-server
# 8.0.1, each server fresh for each run, alternating server by server,
# medians of the rounds. Three parts (the third argument picks them):
#
#   fanout    corvid-bench pubsub (memtier cannot measure fan-out):
#             subscribers x channels = {1,100,1000} x {1,100}, PUBLISHERS
#             publishers at PIPELINE in flight, DATA-byte messages. Per
#             cell: each server's delivered msgs/s (received within the
#             test time, summed over subscribers), Corvid/Valkey, delivery
#             latency p50/p99, and server CPU per delivered message
#             (utime+stime from /proc/PID/stat, which corvid-bench reads
#             when the publishers start and when the last message has
#             been read: connecting and subscribing are left out). A run
#             whose check is not "ok" (delivered != sum of PUBLISH
#             replies, out of order, subscribers dropped) is flagged in
#             the last column.
#   monitor   the cost of one MONITOR client: the seed's SET and GET
#             (memtier_benchmark 2.3.0 -t 2 -c 25, 128-byte random values,
#             keys 1..500, pipeline 1) without and with a MONITOR reader
#             attached (a bash /dev/tcp socket read by wc -c: the reader
#             costs next to nothing); throughput and CPU/op ratios.
#   tracking  the cost of CLIENT TRACKING on the seed's GET: the same load
#             from corvid-bench (memtier cannot turn tracking on), over
#             RESP3 both times, without and with --tracking (CLIENT
#             TRACKING ON per connection: every GET's key is remembered).
#             A server that refuses CLIENT TRACKING shows n/a.
#
#   bench/pubsub.sh [seconds] [rounds] [parts]   # default 5 3 "fanout monitor tracking" (~8 min on 2 cores)
#   bench/pubsub.sh 2 1 fanout                   # a quick look
#
# Environment: SUBS ("1 100 1000"), CHANS ("1 100"), PUBLISHERS (2),
# PIPELINE (8), DATA (128) shape the fan-out matrix; VALKEY_ARGS and
# CORVID_ARGS add server flags (the other bench scripts run Valkey with its
# defaults, io-threads 1; e.g. VALKEY_ARGS="--io-threads 2"); MEMTIER,
# VALKEY and CLI name the binaries (default: ../shared/bin beside the
# repository, then PATH); OUT keeps the raw per-run lines; REV=HEAD builds
# corvid-server and corvid-bench from a worktree of that revision instead
# of the working tree. memtier needs
# apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-5}; R=${2:-3}; PARTS=${3:-"fanout monitor tracking"}
SUBS=${SUBS:-"1 100 1000"}; CHANS=${CHANS:-"1 100"}
PUBLISHERS=${PUBLISHERS:-2}; PIPELINE=${PIPELINE:-8}; DATA=${DATA:-128}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
CLI=${CLI:-$(find_bin valkey-cli)}
case " $PARTS " in *" monitor "*)
	MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
	"$MEMTIER" --version >/dev/null 2>&1 || {
		echo "$MEMTIER does not run; it needs: apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7" >&2
		exit 1
	} ;;
esac
tmp=$(mktemp -d)
pid=; mon=
cleanup() {
	[ -n "$mon" ] && kill "$mon" 2>/dev/null || true
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	remove_corvid_src "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
build_corvid "$tmp"
hz=$(getconf CLK_TCK)
raw=${OUT:-$tmp/raw.txt}
notes=$tmp/notes
: >"$raw"; : >"$notes"
# note WHAT FILE: keep a failed run's last lines for after the tables.
note() { { echo "- $1:"; tail -3 "$2" | sed 's/^/    /'; } >>"$notes"; }

# start WHO: a fresh corvid or valkey on a free port in its own directory;
# sets pid, port and dir.
n=0
start() {
	n=$((n + 1)); port=$(freeport); dir="$tmp/$1-$n"; mkdir -p "$dir"
	if [ "$1" = valkey ]; then
		# shellcheck disable=SC2086
		"$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" ${VALKEY_ARGS:-} >"$dir/log" 2>&1 &
	else
		# shellcheck disable=SC2086
		"$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" ${CORVID_ARGS:-} >"$dir/log" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 100); do "$CLI" -p "$port" ping >/dev/null 2>&1 && return; sleep 0.05; done
	echo "$1 did not start; its log:" >&2; cat "$dir/log" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
ticks() { awk '{print $14+$15}' "/proc/$pid/stat"; } # utime+stime of the server, clock ticks
# us_per COUNT TICKS: server CPU microseconds per operation.
us_per() { awk -v n="$1" -v t="$2" -v hz="$hz" 'BEGIN{ if (n > 0) printf "%.3f", t/hz/n*1e6; else print "nan" }'; }
# memtier_json FILE: "ops/s p99-ms count" from the ALL STATS Totals of a
# memtier (or corvid-bench) JSON file.
memtier_json() {
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["ALL STATS"]["Totals"]; print(t["Ops/sec"], t["Percentile Latencies"]["p99.00"], t["Count"])' "$1"
}
seed_load() { # corvid-bench or memtier, the seed's -t 2 -c 25 load on $port
	"$@" -s 127.0.0.1 -p "$port" -t 2 -c 25 --test-time "$T" --distinct-client-seed \
		--command "$cmdline" --command-key-pattern R --key-prefix "$prefix" --key-minimum 1 --key-maximum 500 \
		--random-data --data-size 128 --hide-histogram --print-percentiles 50,99 --json-out-file "$dir/load.json" >"$dir/load.out" 2>&1
}

echo "bench/pubsub.sh: ${T}s per run, $R rounds, parts: $PARTS; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), $what, valkey $("$VALKEY" --version | awk '{print $3}')${VALKEY_ARGS:+ ($VALKEY_ARGS)}"
for round in $(seq "$R"); do
	case " $PARTS " in *" fanout "*)
		for S in $SUBS; do for C in $CHANS; do for who in corvid valkey; do
			start "$who"
			"$tmp/corvid-bench" pubsub -s 127.0.0.1 -p "$port" --subscribers "$S" --channels "$C" \
				--publishers "$PUBLISHERS" --pipeline "$PIPELINE" -d "$DATA" --test-time "$T" \
				--server-pid "$pid" --json-out-file "$dir/pubsub.json" >"$dir/pubsub.out" 2>&1 || true
			stop
			if [ -s "$dir/pubsub.json" ]; then
				set -- $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["delivered_msgs_sec"], r["latency_p50_ms"], r["latency_p99_ms"], "%.3f" % r.get("server_cpu_us_per_msg", float("nan")), r["check"])' "$dir/pubsub.json")
				echo "fanout $S $C $who $1 $2 $3 $4 $5" >>"$raw"
			else
				echo "fanout $S $C $who x x x x error" >>"$raw"
				note "fanout $S x $C, $who, round $round" "$dir/pubsub.out"
			fi
		done; done; done ;;
	esac
	case " $PARTS " in *" monitor "*)
		for CMD in set get; do
			seed_command "$CMD"
			for who in corvid valkey; do for m in off on; do
				start "$who"
				if [ "$m" = on ]; then
					# shellcheck disable=SC2016
					(exec 3<>"/dev/tcp/127.0.0.1/$port"; printf '*1\r\n$7\r\nMONITOR\r\n' >&3; exec wc -c <&3 >"$dir/monitor-bytes") &
					mon=$!
					for _ in $(seq 100); do "$CLI" -p "$port" client list 2>/dev/null | grep -q 'flags=O' && break; sleep 0.02; done
				fi
				t0=$(ticks)
				seed_load "$MEMTIER" || true
				t1=$(ticks)
				alive=yes
				[ -n "$mon" ] && { kill -0 "$mon" 2>/dev/null || alive=no; }
				stop
				if [ -n "$mon" ]; then wait "$mon" 2>/dev/null || true; mon=; fi
				if [ -s "$dir/load.json" ]; then
					set -- $(memtier_json "$dir/load.json")
					mb=-; [ "$m" = on ] && mb=$(awk -v b="$(cat "$dir/monitor-bytes" 2>/dev/null || echo 0)" -v n="$3" 'BEGIN{printf "%.1f", b/n}')
					[ "$alive" = no ] && mb="$mb(lost)"
					echo "monitor $CMD - $who-$m $1 $2 $(us_per "$3" "$((t1 - t0))") $mb" >>"$raw"
				else
					echo "monitor $CMD - $who-$m x x x -" >>"$raw"
					note "monitor $CMD, $who, MONITOR $m, round $round" "$dir/load.out"
				fi
			done; done
		done ;;
	esac
	case " $PARTS " in *" tracking "*)
		cmdline="get __key__" prefix=kv_
		for who in corvid valkey; do for trk in off on; do
			start "$who"
			t0=$(ticks)
			flag=; [ "$trk" = on ] && flag=--tracking
			seed_load "$tmp/corvid-bench" --protocol resp3 $flag || true
			t1=$(ticks)
			keys=$("$CLI" -p "$port" info stats | tr -d '\r' | awk -F: '$1=="tracking_total_keys"{print $2}')
			stop
			if [ -s "$dir/load.json" ]; then
				set -- $(memtier_json "$dir/load.json")
				echo "tracking get - $who-$trk $1 $2 $(us_per "$3" "$((t1 - t0))") ${keys:--}" >>"$raw"
			else
				echo "tracking get - $who-$trk x x x -" >>"$raw"
				note "tracking GET, $who, tracking $trk, round $round" "$dir/load.out"
			fi
		done; done ;;
	esac
done

# Tables: medians over the rounds that produced figures ("n/a" if none did).
awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
# M(key, field): the median of field over the good rounds of key, or "".
function M(k, f,   r, x) { if (!ok[k]) return ""; for (r = 1; r <= ok[k]; r++) x[r] = v[k, r, f]; return med(x, ok[k]) }
function F(x, fmt) { return x == "" ? "n/a" : sprintf(fmt, x) }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.2f", a / b) }
{
	k = $1 " " $2 " " $3 " " $4
	if ($1 == "fanout") { cell = $2 " " $3; if (!(cell in seenF)) { seenF[cell] = 1; fan[++nf] = cell } }
	if ($1 != "fanout" && !(($1 " " $2) in seenO)) { seenO[$1 " " $2] = 1; oth[++no] = $1 " " $2 }
	if ($1 == "fanout" && $9 != "ok") bad[k] = bad[k] (bad[k] == "" ? "" : ",") $9
	if ($5 == "x") next
	c = ++ok[k]; for (f = 5; f <= NF; f++) v[k, c, f] = $f
	if ($1 != "fanout") note[k] = $8
}
END {
	if (nf) {
		print "\n### Pub/sub fan-out (corvid-bench pubsub)\n"
		print "| subscribers | channels | corvid msgs/s | valkey msgs/s | corvid/valkey | corvid p50 ms | valkey p50 ms | corvid p99 ms | valkey p99 ms | corvid CPU us/msg | valkey CPU us/msg | checks not ok |"
		print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
		for (i = 1; i <= nf; i++) {
			a = "fanout " fan[i] " corvid"; b = "fanout " fan[i] " valkey"; split(fan[i], sc, " ")
			chk = (bad[a] != "" ? "corvid: " bad[a] " " : "") (bad[b] != "" ? "valkey: " bad[b] : ""); if (chk == "") chk = "-"
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", sc[1], sc[2],
				F(M(a, 5), "%.0f"), F(M(b, 5), "%.0f"), ratio(M(a, 5), M(b, 5)), F(M(a, 6), "%.3f"), F(M(b, 6), "%.3f"),
				F(M(a, 7), "%.3f"), F(M(b, 7), "%.3f"), F(M(a, 8), "%.3f"), F(M(b, 8), "%.3f"), chk
		}
	}
	for (i = 1; i <= no; i++) {
		split(oth[i], p, " ")
		if (p[1] == "monitor") {
			if (!mh++) {
				print "\n### MONITOR: the seed load without and with one MONITOR client (memtier_benchmark)\n"
				print "| command | server | ops/s | with MONITOR | ratio | p99 ms | with MONITOR | CPU us/op | with MONITOR | CPU ratio | MONITOR bytes/op |"
				print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
			}
		} else if (!th++) {
			print "\n### CLIENT TRACKING: the seed GET over RESP3 without and with tracking (corvid-bench)\n"
			print "| command | server | ops/s | with tracking | ratio | p99 ms | with tracking | CPU us/op | with tracking | CPU ratio | tracked keys |"
			print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		}
		for (w = 1; w <= 2; w++) {
			who = w == 1 ? "corvid" : "valkey"; a = oth[i] " - " who "-off"; b = oth[i] " - " who "-on"
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", toupper(p[2]), who,
				F(M(a, 5), "%.0f"), F(M(b, 5), "%.0f"), ratio(M(b, 5), M(a, 5)), F(M(a, 6), "%.3f"), F(M(b, 6), "%.3f"),
				F(M(a, 7), "%.2f"), F(M(b, 7), "%.2f"), ratio(M(b, 7), M(a, 7)), ok[b] ? note[b] : "n/a"
		}
	}
}' "$raw"
if [ -s "$notes" ]; then echo; echo "Runs without figures:"; cat "$notes"; fi
