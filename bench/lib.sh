# Helpers shared by the bench/*.sh scripts; they source it from the
# repository root (`. bench/lib.sh`).

# freeport prints a free TCP port on 127.0.0.1.
freeport() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'; }

# find_bin NAME prints the absolute path of a peer binary: from
# ../shared/bin beside the repository (the project's machines keep
# valkey-server 8.0.1 and memtier_benchmark there), else from PATH; it
# exits with status 1 when there is none.
find_bin() {
	local name=$1 p
	for p in "../shared/bin/$name" "/work/shared/bin/$name"; do
		[ -x "$p" ] && { echo "$(cd "$(dirname "$p")" && pwd)/$name"; return; }
	done
	command -v "$name" || { echo "$name not found" >&2; exit 1; }
}

# seed_command NAME sets cmdline and prefix to the seed study's command
# line and key prefix for NAME (set get incr lpush sadd zadd hset), as
# corvid-bench matrix runs them; it exits with status 2 on another name.
seed_command() {
	case $1 in
	set) cmdline="set __key__ __data__" prefix=kv_ ;;
	get) cmdline="get __key__" prefix=kv_ ;;
	incr) cmdline="incr __key__" prefix=int_ ;;
	lpush) cmdline="lpush __key__ __data__" prefix=list_ ;;
	sadd) cmdline="sadd __key__ __data__" prefix=set_ ;;
	zadd) cmdline="zadd __key__ __key__ __data__" prefix= ;;
	hset) cmdline="hset __key__ __data__ __data__" prefix=hash_ ;;
	*) echo "CMD must be one of set get incr lpush sadd zadd hset"; exit 2 ;;
	esac
}

# build_revisions TMP A B builds corvid-server at git revisions A and B
# into TMP/corvid-a and TMP/corvid-b, from worktrees under TMP;
# remove_revisions TMP removes the worktrees (call it from the EXIT trap).
build_revisions() {
	local tmp=$1 pair name rev
	for pair in "a:$2" "b:$3"; do
		name=${pair%%:*}; rev=${pair#*:}
		git worktree add -q --detach "$tmp/src-$name" "$rev"
		(cd "$tmp/src-$name" && go build -o "$tmp/corvid-$name" ./cmd/corvid-server)
	done
}
remove_revisions() {
	local rev
	for rev in a b; do git worktree remove --force "$1/src-$rev" 2>/dev/null || true; done
}

# build_corvid TMP builds corvid-server and corvid-bench into TMP, from the
# working tree, or with REV set from a worktree of that revision at
# TMP/src (remove it with remove_corvid_src TMP from the EXIT trap); it
# sets `what` to say which.
build_corvid() {
	local tmp=$1 src=.
	what="corvid from the working tree at $(git rev-parse --short HEAD)"
	[ -z "$(git status --porcelain -- cmd internal go.mod go.sum)" ] || what="$what, with uncommitted changes"
	if [ -n "${REV:-}" ]; then
		git worktree add -q --detach "$tmp/src" "$REV"
		src=$tmp/src; what="corvid at $(git rev-parse --short "$REV")"
	fi
	(cd "$src" && go build -o "$tmp/corvid-server" ./cmd/corvid-server && go build -o "$tmp/corvid-bench" ./cmd/corvid-bench)
}
remove_corvid_src() {
	[ -n "${REV:-}" ] && git worktree remove --force "$1/src" 2>/dev/null || true
}

# wait_port PORT waits (up to 5 s) until 127.0.0.1:PORT accepts.
wait_port() {
	local _
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return
		sleep 0.05
	done
}

# memtier_cpu PID PORT SECONDS PIPELINE CMDLINE PREFIX [memtier flags...]
# runs the seed's load (memtier -t 2 -c 25, 128-byte random values, keys
# 1..500 at random) against the server PID listening on PORT and prints
# "ops/s p99-ms cpu-us-per-op": the server's utime+stime from
# /proc/PID/stat over the run, per operation. MEMTIER names the binary:
# memtier_benchmark, or corvid-bench, whose Totals row also ends in the
# p99 and KB/sec columns (it keeps Hits/sec and Misses/sec with --command).
memtier_cpu() {
	local pid=$1 port=$2 t=$3 p=$4 cmd=$5 prefix=$6 t0 t1 line
	shift 6
	t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
	line=$("$MEMTIER" -s 127.0.0.1 -p "$port" -t 2 -c 25 --test-time "$t" --pipeline "$p" \
		--distinct-client-seed --command "$cmd" --command-key-pattern R --key-prefix "$prefix" \
		--key-minimum 1 --key-maximum 500 --random-data --data-size 128 --hide-histogram \
		--print-percentiles 50,99 "$@" 2>/dev/null | awk '$1=="Totals"{print $2, $(NF-1)}')
	t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
	set -- $line
	awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v o="$1" -v l="$2" -v s="$t" \
		'BEGIN{printf "%s %s %.3f\n", o, l, t/hz/(o*s)*1e6}'
}

# medians RAW reads lines "pipeline command round who ops p99 cpu [more
# measures...]" (what the scripts collect per run) and prints "pipeline
# command who ops p99 cpu [more...]" with the median of each measure over
# the rounds, in the order first seen.
medians() {
	awk '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	{ k = $1 " " $2 " " $4; if (!(k in n)) { order[++nk] = k; nf[k] = NF }
	  n[k]++; for (f = 5; f <= nf[k]; f++) v[k, f, n[k]] = $f }
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; line = k
			for (f = 5; f <= nf[k]; f++) {
				for (r = 1; r <= n[k]; r++) x[r] = v[k, f, r]
				line = line " " med(x, n[k])
			}
			print line
		}
	}' "$1"
}

# cluster_node BIN DIR starts a cluster-enabled node (corvid-server or
# valkey-server: BIN) in DIR, emptied first, on a free port whose bus port
# (port+10000) is free too, with no persistence; appends its pid to pids
# and its port to ports.
cluster_node() {
	local bin=$1 dir=$2 port
	port=$(freeport)
	while ! python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',$port+10000))" 2>/dev/null; do port=$(freeport); done
	rm -rf "$dir"; mkdir -p "$dir"
	"$bin" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
		--cluster-enabled yes --cluster-config-file nodes.conf >"$dir/log" 2>&1 &
	pids+=($!); ports+=("$port")
}

# stop_pids stops the processes in pids, waits for them and empties it.
stop_pids() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
