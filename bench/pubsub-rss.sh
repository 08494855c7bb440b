#!/usr/bin/env bash
# Pub/sub with publishers faster than their subscribers, side by side with
# valkey-server 8.0.1: does the server's memory stay bounded? Both servers
# keep client-output-buffer-limit pubsub at its default (32mb 8mb 60: a
# subscriber is closed when its pending output passes 32 MB, or stays
# above 8 MB for 60 s). corvid-bench pubsub runs FAST subscribers that
# read as fast as they can, SLOW ones that read RATE bytes/s each and
# STALLED ones that read nothing until the end, all on one channel,
# against PUBLISHERS publishers at pipeline 16 with SIZE-byte messages,
# for SECONDS. Prints, per server: RSS before, the peak (VmHWM, the
# kernel's high-water mark of the whole run) and after the run, the
# server's client_output_buffer_limit_disconnections, the subscribers
# corvid-bench saw dropped (fast/slow/stalled), PUBLISH ops/s and
# delivered msgs/s. Bounded means: the peak stays near
# (slow + stalled) x 32 MB above the start, the slow and stalled
# subscribers are disconnected, the fast ones are not.
#
#   bench/pubsub-rss.sh [seconds] [fast] [slow] [stalled] [size]   # default 20 10 10 10 1024
#   bench/pubsub-rss.sh 75                      # long enough for the 60 s soft limit too
#
# RATE (65536), PUBLISHERS (2); REV, VALKEY, CLI as in bench/pubsub.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-20}; FAST=${2:-10}; SLOW=${3:-10}; STALLED=${4:-10}; SIZE=${5:-1024}
RATE=${RATE:-65536}; PUBLISHERS=${PUBLISHERS:-2}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
CLI=${CLI:-$(find_bin valkey-cli)}
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	remove_corvid_src "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
build_corvid "$tmp"
SUBS=$((FAST + SLOW + STALLED))
echo "pubsub RSS: $FAST fast, $SLOW slow ($RATE B/s), $STALLED stalled subscribers on 1 channel, $PUBLISHERS publishers at pipeline 16, $SIZE-byte messages, ${T}s; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), $what, valkey $("$VALKEY" --version | awk '{print $3}')"
kb() { awk -v k="$1" '$1==k":"{print $2}' "/proc/$pid/status"; }
printf "| server | client-output-buffer-limit | RSS before MB | peak RSS MB | RSS after MB | obuf-limit disconnections | dropped fast/slow/stalled | PUBLISH ops/s | delivered msgs/s | check |\n"
printf "|---|---|---:|---:|---:|---:|---|---:|---:|---|\n"
for who in corvid valkey; do
	port=$(freeport); dir="$tmp/$who"; mkdir -p "$dir"
	if [ "$who" = valkey ]; then
		"$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/log" 2>&1 &
	else
		"$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" >"$dir/log" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 100); do "$CLI" -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
	limit=$("$CLI" -p "$port" config get client-output-buffer-limit | tail -1 | grep -o 'pubsub [0-9]* [0-9]* [0-9]*' || echo '?')
	before=$(kb VmRSS)
	"$tmp/corvid-bench" pubsub -s 127.0.0.1 -p "$port" --subscribers "$SUBS" --slow-subscribers "$SLOW" \
		--stalled-subscribers "$STALLED" --slow-read-rate "$RATE" --channels 1 --publishers "$PUBLISHERS" \
		--pipeline 16 -d "$SIZE" --test-time "$T" --json-out-file "$dir/pubsub.json" >"$dir/pubsub.out" 2>&1 || true
	sleep 1 # let the server free what the closed connections held
	peak=$(kb VmHWM); after=$(kb VmRSS)
	disc=$("$CLI" -p "$port" info stats | tr -d '\r' | awk -F: '$1=="client_output_buffer_limit_disconnections"{print $2}')
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
	if [ -s "$dir/pubsub.json" ]; then
		res=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); d=r["dropped_fast_slow_stalled"]; print("%d/%d/%d | %.0f | %.0f | %s" % (d[0], d[1], d[2], r["publish_ops_sec"], r["delivered_msgs_sec"], r["check"]))' "$dir/pubsub.json")
	else
		res="- | - | - | error: $(tail -1 "$dir/pubsub.out")"
	fi
	awk -v w="$who" -v l="$limit" -v b="$before" -v p="$peak" -v a="$after" -v d="${disc:-?}" -v r="$res" \
		'BEGIN{printf "| %s | %s | %.0f | %.0f | %.0f | %s | %s |\n", w, l, b/1024, p/1024, a/1024, d, r}'
done
