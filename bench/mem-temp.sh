#!/usr/bin/env bash
# Temporary memory of one large reply, side by side: for each command, a
# fresh corvid-server and a fresh valkey-server 8.0.1 get the same small
# collection (or the same big list), then one client sends the command
# and reads the whole reply; the script prints VmHWM (peak RSS) before
# the command and after it, and VmRSS after it, from /proc/PID/status
# (docs/benchmarks.md, "RSS after the dataset shrinks, and temporary
# memory").
#
#   bench/mem-temp.sh [count] [list-length]
#   bench/mem-temp.sh 10000000 5000000
#   CASES="setrange bitfield" STR_MB=256 bench/mem-temp.sh
#
# The commands: SRANDMEMBER, HRANDFIELD and ZRANDMEMBER with count
# -COUNT on 10-member collections, LRANGE 0 -1 of a LIST-LENGTH list,
# and SETRANGE and BITFIELD SET growing a STR_MB-MB string (SET whole,
# so its pages are resident in both servers) by one byte. CASES picks some of them
# (default: the four reply cases). CORVID names a corvid-server binary to measure instead of
# building the working tree (another revision's, for a before/after);
# CORVID_ARGS adds to its command line (--net-engine goroutine); VALKEY
# and VALKEY_CLI name Valkey's binaries (default: ../shared/bin
# beside the repository, then PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
COUNT=${1:-10000000}; LLEN=${2:-5000000}
CASES=${CASES:-"srandmember hrandfield zrandmember lrange"}; STR_MB=${STR_MB:-256}
strlen=$((STR_MB << 20))
VALKEY=${VALKEY:-$(find_bin valkey-server)}
CLI=${VALKEY_CLI:-$(find_bin valkey-cli)}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
if [ -n "${CORVID:-}" ]; then
	corvid=$CORVID what="corvid $CORVID"
else
	build_corvid "$tmp"
	corvid=$tmp/corvid-server
fi

kb() { awk -v k="$1" '$1==k":"{print $2}' "/proc/$pid/status"; }

# fill PORT CASE loads the case's data.
fill() {
	local port=$1
	case $2 in
	srandmember) "$CLI" -p "$port" sadd s 0 1 2 3 4 5 6 7 8 9 >/dev/null ;;
	hrandfield) "$CLI" -p "$port" hset h f0 0 f1 1 f2 2 f3 3 f4 4 f5 5 f6 6 f7 7 f8 8 f9 9 >/dev/null ;;
	zrandmember) "$CLI" -p "$port" zadd z 0 m0 1 m1 2 m2 3 m3 4 m4 5 m5 6 m6 7 m7 8 m8 9 m9 >/dev/null ;;
	lrange) awk -v n="$LLEN" 'BEGIN { for (i = 0; i < n; i += 1000) { printf "RPUSH l"; for (j = i; j < i + 1000 && j < n; j++) printf " %d", j; printf "\r\n" } }' |
		"$CLI" -p "$port" --pipe >/dev/null ;;
	setrange | bitfield) head -c "$strlen" /dev/zero | tr '\0' a | "$CLI" -p "$port" -x set g >/dev/null ;;
	esac
}

# cmd_of CASE prints the case's command.
cmd_of() {
	case $1 in
	srandmember) echo "srandmember s -$COUNT" ;;
	hrandfield) echo "hrandfield h -$COUNT" ;;
	zrandmember) echo "zrandmember z -$COUNT" ;;
	lrange) echo "lrange l 0 -1" ;;
	setrange) echo "setrange g $strlen y" ;;
	bitfield) echo "bitfield g set u8 #$strlen 1" ;;
	esac
}

echo "$what${CORVID_ARGS:+ ($CORVID_ARGS)}; valkey $("$VALKEY" --version | awk '{print $3}')"
echo "$(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "| command | server | RSS before MB | peak before MB | peak after MB | RSS after MB |"
echo "|---|---|---:|---:|---:|---:|"
for c in $CASES; do
	for who in corvid valkey; do
		port=$(freeport)
		case $who in
		# shellcheck disable=SC2086
		corvid) "$corvid" ${CORVID_ARGS:-} --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" >/dev/null 2>&1 & ;;
		valkey) "$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" >/dev/null 2>&1 & ;;
		esac
		pid=$!
		wait_port "$port"
		fill "$port" "$c"
		before=$(kb VmHWM); rssb=$(kb VmRSS)
		# The reply, read whole.
		# shellcheck disable=SC2046
		"$CLI" -p "$port" $(cmd_of "$c") >/dev/null
		after=$(kb VmHWM); rss=$(kb VmRSS)
		awk -v c="$(cmd_of "$c")" -v who="$who" -v rb="$rssb" -v b="$before" -v a="$after" -v r="$rss" \
			'BEGIN { printf "| %s | %s | %.0f | %.0f | %.0f | %.0f |\n", c, who, rb/1024, b/1024, a/1024, r/1024 }'
		kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
	done
done
