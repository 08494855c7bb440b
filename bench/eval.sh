#!/usr/bin/env bash
# EVALSHA of small Lua scripts, side by side with valkey-server 8.0.1 (and
# redis-server 7.0.15 as a third column when it is on PATH), each server
# fresh for each run, the order of the servers rotating round by round,
# medians of the rounds. Load: memtier_benchmark 2.3.0 -t 2 -c 25 (50
# clients), pipeline 1, one EVALSHA command line; each script is put into
# each server with SCRIPT LOAD first (its SHA1, the same on every server,
# is checked against sha1sum of the body) and called once with valkey-cli
# before the run. The cases (the third argument picks them):
#
#   ratelimit   local c = redis.call('INCR', KEYS[1]) if c == 1 then
#               redis.call('EXPIRE', KEYS[1], ARGV[1]) end return c
#               as EVALSHA <sha> 1 rl:<n> 60 over KEYSPACE keys at random:
#               many clients on different keys, the case the scripting
#               issue is about (goal: >= 1.3x Valkey's ops/s, no more
#               server CPU per call; the verdict is printed under the table).
#   hot         the same script on one key (--key-minimum 1 --key-maximum
#               1): every client on the same key.
#   get         return redis.call('GET', KEYS[1]) over KEYSPACE keys, each
#               set to a 16-byte value (valkey-cli --pipe) before the run:
#               the cost of a call and little else.
#   undeclared  return redis.call('INCR', ARGV[1]) as EVALSHA <sha> 0
#               ctr:<n> over KEYSPACE keys: a script touching a key it did
#               not declare, which Corvid has to run serialized; the column
#               shows what that costs.
#
# Per case: each server's ops/s, Corvid/Valkey (and Corvid/Redis), server
# CPU microseconds per call (utime+stime of the whole process from
# /proc/PID/stat around the memtier run) and its ratio, and memtier's p99.
# memtier counts an error reply as an operation, so a run during which the
# server's total_error_replies (INFO stats) grew is kept out of the medians
# and listed under the table; so is a run that did not produce figures. A
# server that refuses SCRIPT LOAD or the first EVALSHA (Corvid before it
# has scripting) is not loaded at all and shows n/a.
#
#   bench/eval.sh [seconds] [rounds] [cases]   # default 10 3 "ratelimit hot get undeclared" (~2.5 min with redis)
#   bench/eval.sh 2 1                          # a quick look
#
# Environment: KEYSPACE (100000) is the key range of ratelimit, get and
# undeclared; VALKEY_ARGS, CORVID_ARGS and REDIS_ARGS add server flags
# (Valkey runs with its defaults, io-threads 1; e.g. VALKEY_ARGS="--io-threads
# 2"); MEMTIER, VALKEY and CLI name the binaries (default: ../shared/bin
# beside the repository, then PATH); REDIS names redis-server (default: from
# PATH; REDIS= leaves it out); OUT keeps the raw per-run lines; REV=HEAD
# builds corvid-server from a worktree of that revision instead of the
# working tree. memtier needs
# apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-10}; R=${2:-3}; CASES=${3:-"ratelimit hot get undeclared"}
KEYSPACE=${KEYSPACE:-100000}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
CLI=${CLI:-$(find_bin valkey-cli)}
MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
REDIS=${REDIS-$(command -v redis-server || true)}
"$MEMTIER" --version >/dev/null 2>&1 || {
	echo "$MEMTIER does not run; it needs: apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7" >&2
	exit 1
}
for c in $CASES; do
	case $c in ratelimit | hot | get | undeclared) ;; *) echo "cases are ratelimit hot get undeclared, not $c" >&2; exit 2 ;; esac
done
servers=(corvid valkey)
[ -n "$REDIS" ] && servers+=(redis)
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	remove_corvid_src "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
build_corvid "$tmp"
hz=$(getconf CLK_TCK)
raw=${OUT:-$tmp/raw.txt}
notes=$tmp/notes
: >"$raw"; : >"$notes"

RATELIMIT="local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return c"
GET="return redis.call('GET', KEYS[1])"
UNDECLARED="return redis.call('INCR', ARGV[1])"
# setcase NAME: body (the script), args (after the sha: numkeys and
# arguments, __key__ for memtier's key), prefix and keys (memtier's key
# prefix and --key-minimum/--key-maximum).
setcase() {
	case $1 in
	ratelimit) body=$RATELIMIT args="1 __key__ 60" prefix=rl: keys="1 $KEYSPACE" ;;
	hot) body=$RATELIMIT args="1 __key__ 60" prefix=rl: keys="1 1" ;;
	get) body=$GET args="1 __key__" prefix=kv: keys="1 $KEYSPACE" ;;
	undeclared) body=$UNDECLARED args="0 __key__" prefix=ctr: keys="1 $KEYSPACE" ;;
	esac
	sha=$(printf %s "$body" | sha1sum | cut -d' ' -f1)
}
# The get case's keys, kv:1..kv:KEYSPACE, as RESP for valkey-cli --pipe.
awk -v n="$KEYSPACE" 'BEGIN { for (i = 1; i <= n; i++) { k = "kv:" i; printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\n0123456789abcdef\r\n", length(k), k } }' >"$tmp/get-keys.resp"

# start WHO: a fresh corvid, valkey or redis on a free port in its own
# directory; sets pid, port and dir.
n=0
start() {
	n=$((n + 1)); port=$(freeport); dir="$tmp/$1-$n"; mkdir -p "$dir"
	# shellcheck disable=SC2086
	case $1 in
	valkey) "$VALKEY" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" ${VALKEY_ARGS:-} >"$dir/log" 2>&1 & ;;
	redis) "$REDIS" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" ${REDIS_ARGS:-} >"$dir/log" 2>&1 & ;;
	corvid) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" ${CORVID_ARGS:-} >"$dir/log" 2>&1 & ;;
	esac
	pid=$!
	for _ in $(seq 100); do "$CLI" -p "$port" ping >/dev/null 2>&1 && return; sleep 0.05; done
	echo "$1 did not start; its log:" >&2; cat "$dir/log" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
ticks() { awk '{print $14+$15}' "/proc/$pid/stat"; } # utime+stime of the server, clock ticks
# errors: the server's total_error_replies, or "" if it does not report it.
errors() { "$CLI" -p "$port" info stats | tr -d '\r' | awk -F: '$1=="total_error_replies"{print $2}'; }
# us_per COUNT TICKS: server CPU microseconds per operation.
us_per() { awk -v n="$1" -v t="$2" -v hz="$hz" 'BEGIN{ if (n > 0) printf "%.3f", t/hz/n*1e6; else print "nan" }'; }
# memtier_json FILE: "ops/s p99-ms count" from the ALL STATS Totals of a
# memtier JSON file.
memtier_json() {
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["ALL STATS"]["Totals"]; print(t["Ops/sec"], t["Percentile Latencies"]["p99.00"], t["Count"])' "$1"
}
# note TEXT: a line for the list under the table (repeats are dropped).
note() { echo "- $1" >>"$notes"; }
# prepare WHO: SCRIPT LOAD the case's script (and the get case's keys) into
# the server on $port and call it once; prints why not and fails if the
# server refuses.
prepare() {
	local got
	got=$("$CLI" -p "$port" script load "$body" 2>&1 | head -1) || true
	[ "$got" = "$sha" ] || { echo "SCRIPT LOAD: $got"; return 1; }
	# shellcheck disable=SC2086
	got=$("$CLI" --no-raw -p "$port" evalsha "$sha" ${args/__key__/eval-probe} 2>&1 | head -1) || true
	"$CLI" -p "$port" del eval-probe >/dev/null 2>&1 || true
	case $got in "(error)"* | "" | "Could not connect"*) echo "EVALSHA: $got"; return 1 ;; esac
	if [ "$c" = get ]; then
		got=$("$CLI" -p "$port" --pipe <"$tmp/get-keys.resp" 2>&1 | tail -1)
		case $got in *"errors: 0, replies: $KEYSPACE"*) ;; *) echo "loading the keys: $got"; return 1 ;; esac
	fi
}

versions="valkey $("$VALKEY" --version | awk '{print $3}')${VALKEY_ARGS:+ ($VALKEY_ARGS)}"
[ -n "$REDIS" ] && versions="$versions, redis $("$REDIS" --version | awk '{print $3}')${REDIS_ARGS:+ ($REDIS_ARGS)}"
echo "bench/eval.sh: ${T}s per run, $R rounds, cases: $CASES; memtier -t 2 -c 25 pipeline 1, keyspace $KEYSPACE; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), $what${CORVID_ARGS:+ ($CORVID_ARGS)}, $versions"
ns=${#servers[@]}
for round in $(seq "$R"); do
	order=()
	for i in $(seq 0 $((ns - 1))); do order+=("${servers[$(((i + round - 1) % ns))]}"); done
	for c in $CASES; do
		setcase "$c"
		lo=${keys% *}; hi=${keys#* }
		for who in "${order[@]}"; do
			start "$who"
			if ! why=$(prepare); then
				stop
				echo "$c $who x x x refused" >>"$raw"
				note "$who, $c: refused: ${why%%, with args beginning with*}"
				continue
			fi
			e0=$(errors)
			t0=$(ticks)
			"$MEMTIER" -s 127.0.0.1 -p "$port" -t 2 -c 25 --pipeline 1 --test-time "$T" --distinct-client-seed \
				--command "EVALSHA $sha $args" --command-key-pattern R --key-prefix "$prefix" \
				--key-minimum "$lo" --key-maximum "$hi" --hide-histogram --print-percentiles 50,99 \
				--json-out-file "$dir/load.json" >"$dir/load.out" 2>&1 || true
			t1=$(ticks)
			e1=$(errors)
			errstats=
			if [ -n "$e0" ] && [ -n "$e1" ] && [ "$e1" -gt "$e0" ]; then
				errstats=$("$CLI" -p "$port" info errorstats | tr -d '\r' | grep '^errorstat_' | paste -sd' ')
			fi
			stop
			if [ ! -s "$dir/load.json" ]; then
				echo "$c $who x x x failed" >>"$raw"
				note "$who, $c, round $round: memtier produced no figures: $(tail -1 "$dir/load.out")"
			elif [ -n "$errstats" ]; then
				echo "$c $who x x x errors" >>"$raw"
				note "$who, $c, round $round: $((e1 - e0)) error replies during the run: $errstats"
			else
				# shellcheck disable=SC2046
				set -- $(memtier_json "$dir/load.json")
				echo "$c $who $1 $2 $(us_per "$3" "$((t1 - t0))") ok" >>"$raw"
			fi
		done
	done
done

# The table: medians over the rounds that produced figures ("n/a" if none
# did). Raw lines: case server ops/s p99-ms cpu-us/op status.
awk -v servers="${servers[*]}" '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
# M(key, field): the median of field over the good rounds of key, or "".
function M(k, f,   r, x) { if (!ok[k]) return ""; for (r = 1; r <= ok[k]; r++) x[r] = v[k, r, f]; return med(x, ok[k]) }
function F(x, fmt) { return x == "" ? "n/a" : sprintf(fmt, x) }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.2f", a / b) }
{
	if (!($1 in seen)) { seen[$1] = 1; cs[++nc] = $1 }
	k = $1 " " $2
	if ($6 != "ok") { bad[$1] = bad[$1] (bad[$1] == "" ? "" : ", ") $2 " " $6; next }
	c = ++ok[k]; for (f = 3; f <= 5; f++) v[k, c, f] = $f
}
END {
	ns = split(servers, s, " ")
	h = "| case"; al = "|---"
	for (i = 1; i <= ns; i++) { h = h " | " s[i] " ops/s"; al = al "|---:" }
	for (i = 2; i <= ns; i++) { h = h " | corvid/" s[i]; al = al "|---:" }
	for (i = 1; i <= ns; i++) { h = h " | " s[i] " CPU us/op"; al = al "|---:" }
	for (i = 2; i <= ns; i++) { h = h " | CPU corvid/" s[i]; al = al "|---:" }
	for (i = 1; i <= ns; i++) { h = h " | " s[i] " p99 ms"; al = al "|---:" }
	print "\n### EVALSHA, memtier_benchmark -t 2 -c 25, pipeline 1 (medians)\n"
	print h " | runs without figures |"; print al "|---|"
	for (j = 1; j <= nc; j++) {
		line = "| " cs[j]
		for (i = 1; i <= ns; i++) line = line " | " F(M(cs[j] " " s[i], 3), "%.0f")
		for (i = 2; i <= ns; i++) line = line " | " ratio(M(cs[j] " corvid", 3), M(cs[j] " " s[i], 3))
		for (i = 1; i <= ns; i++) line = line " | " F(M(cs[j] " " s[i], 5), "%.2f")
		for (i = 2; i <= ns; i++) line = line " | " ratio(M(cs[j] " corvid", 5), M(cs[j] " " s[i], 5))
		for (i = 1; i <= ns; i++) line = line " | " F(M(cs[j] " " s[i], 4), "%.3f")
		print line " | " (bad[cs[j]] == "" ? "-" : bad[cs[j]]) " |"
	}
	if ("ratelimit" in seen) {
		o = ratio(M("ratelimit corvid", 3), M("ratelimit valkey", 3)); u = ratio(M("ratelimit corvid", 5), M("ratelimit valkey", 5))
		verdict = (o == "n/a" || u == "n/a") ? "n/a" : (o + 0 >= 1.3 && u + 0 <= 1 ? "met" : "not met")
		printf "\nratelimit goal (>= 1.30x Valkey ops/s, CPU/op <= 1.00x Valkey): ops %s, CPU/op %s: %s\n", o, u, verdict
	}
}' "$raw"
if [ -s "$notes" ]; then echo; echo "Runs without figures:"; awk '!seen[$0]++' "$notes"; fi
