#!/usr/bin/env bash
# What TLS costs on the seed workload: corvid-server in plaintext (its
# default network path, the event loops), in plaintext on the
# goroutine-per-connection path (net-engine goroutine, the path TLS
# connections take, to separate the path's cost from the encryption's),
# and over TLS (tls-port, tls-auth-clients yes: the load generator
# presents a client certificate), in alternation (a fresh server for each
# run). Prints throughput, p99, the server's CPU microseconds per
# operation (utime+stime from /proc/PID/stat over the run) and TCP
# segments per operation, medians of the rounds, and the ratios tls/plain
# (the issue's goal: CPU per op <= 1.3x) and tls/goroutine. A fourth run
# per round holds plaintext to the throughput the TLS run reached
# (--rate-limiting): where the load generator's own encryption limits the
# TLS run, the server is less loaded, answers smaller batches per
# event-loop round and spends more per operation on the rounds
# themselves; "tls/plain at equal rate" compares the two at the same
# load, which is what the encryption costs.
#
# Load generators (LOAD, a list; each round runs all four configurations
# with each): memtier (memtier_benchmark 2.3.0's --tls; the default) and
# cb (corvid-bench's --tls, built from this tree into the temporary
# directory). They differ in how a pipeline reaches the wire over TLS:
# memtier seals each pipelined request into its own TLS record and write,
# corvid-bench writes a whole batch with one Write on the tls.Conn (one
# record, one TCP write, as both do in plaintext). The "TCP segs/op"
# column shows it: Tcp InSegs from /proc/net/snmp over the run (connection
# set-up included) divided by the run's operations, both directions, since
# on loopback every segment is also received here. The counter is the
# whole network namespace's, so other loopback traffic during a run adds
# to it. corvid-bench's TLS runs use its goroutine-per-connection client
# (TLS cannot go through its raw-socket event loops); its plaintext runs
# use its default event loops unless CB_IO names a --client-io (e.g.
# CB_IO=goroutines, the same client engine as its TLS runs).
#
#   bench/tls.sh [seconds] [rounds] [pipelines] [commands]
#   bench/tls.sh 10 3 "1 16" "set get"
#   LOAD="memtier cb" bench/tls.sh 10 3 16 "set get"
#
# Load: the seed's (bench/lib.sh memtier_cpu): -t 2 -c 25, 128-byte
# values, keys 1..500 at random, --distinct-client-seed. Certificates (an
# EC P-256 CA, server and client certificates) are made with openssl in a
# temporary directory. TLS 1.3 with Go's choice of suite (AES-GCM where
# the CPU has AES-NI).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-10}; R=${2:-3}; PIPES=${3:-"1 16"}; CMDS=${4:-"set get"}
LOAD=${LOAD:-memtier}
command -v openssl >/dev/null || { echo "openssl not installed"; exit 1; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server
for L in $LOAD; do
	case $L in
	memtier)
		memtier=${MEMTIER:-$(find_bin memtier_benchmark)}
		help=$("$memtier" --help 2>&1 || true)
		[[ $help == *"--tls "* ]] || { echo "$memtier was built without TLS"; exit 1; } ;;
	cb) go build -o "$tmp/corvid-bench" ./cmd/corvid-bench ;;
	*) echo "LOAD must list memtier and/or cb"; exit 2 ;;
	esac
done

# A test PKI: CA, server certificate for 127.0.0.1, client certificate.
(
	cd "$tmp"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
		-days 2 -subj /CN=bench-ca
	for who in server client; do
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$who.key" -out "$who.csr" -subj "/CN=$who"
		openssl x509 -req -in "$who.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$who.crt" -days 2 \
			-extfile <(printf 'subjectAltName=IP:127.0.0.1')
	done
) >/dev/null 2>&1
tlsflags=(--tls --cacert "$tmp/ca.crt" --cert "$tmp/client.crt" --key "$tmp/client.key")

# insegs prints the namespace's Tcp InSegs counter (/proc/net/snmp).
insegs() { awk '$1 == "Tcp:" { if (!c) { for (i = 2; i <= NF; i++) if ($i == "InSegs") c = i } else print $c }' /proc/net/snmp; }

# load_run PID PORT PIPELINE [flags...] runs the seed load with $L and
# prints "ops/s p99-ms cpu-us-per-op tcp-segments-per-op".
load_run() {
	local pid=$1 port=$2 p=$3 s0 s1 line
	shift 3
	s0=$(insegs)
	line=$(MEMTIER=$bin memtier_cpu "$pid" "$port" "$T" "$p" "$cmdline" "$prefix" "$@")
	s1=$(insegs)
	set -- $line
	awk -v o="$1" -v l="$2" -v c="$3" -v d="$((s1 - s0))" -v t="$T" 'BEGIN{printf "%s %s %s %.3f\n", o, l, c, d/(o*t)}'
}

raw=${OUT:-$tmp/raw.txt}
: >"$raw"
echo "corvid at $(git rev-parse --short HEAD 2>/dev/null || echo '?')$([ -z "$(git status --porcelain -- cmd internal 2>/dev/null)" ] || echo ', with uncommitted changes')"
echo "load: $LOAD, -t 2 -c 25, ${T}s per run, $R rounds, pipelines $PIPES; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
for P in $PIPES; do
	for CMD in $CMDS; do
		seed_command "$CMD"
		for round in $(seq "$R"); do
			for L in $LOAD; do
				case $L in
				memtier) bin=$memtier; plainflags=() ;;
				cb) bin=$tmp/corvid-bench; plainflags=(${CB_IO:+--client-io "$CB_IO"}) ;;
				esac
				for who in tls plain rated goroutine; do
					port=$(freeport)
					flags=("${plainflags[@]}")
					case $who in
					plain) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" >/dev/null 2>&1 & ;;
					# Plaintext held to the TLS run's throughput:
					# --rate-limiting is requests per second per
					# connection (50 of them), in memtier and corvid-bench.
					rated) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" >/dev/null 2>&1 &
						flags+=(--rate-limiting "$(awk -v o="$tls_ops" 'BEGIN{printf "%d", o / 50 + 1}')") ;;
					goroutine) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" \
						--net-engine goroutine >/dev/null 2>&1 & ;;
					tls) "$tmp/corvid-server" --port 0 --tls-port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" \
						--tls-cert-file "$tmp/server.crt" --tls-key-file "$tmp/server.key" \
						--tls-ca-cert-file "$tmp/ca.crt" >/dev/null 2>&1 &
						flags=("${tlsflags[@]}") ;;
					esac
					pid=$!
					wait_port "$port"
					line=$(load_run "$pid" "$port" "$P" "${flags[@]}")
					kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
					echo "$P $CMD $round $L:$who $line" >>"$raw"
					[ "$who" = tls ] && tls_ops=${line%% *}
				done
			done
		done
	done
done
medians "$raw" | awk -v who='plain goroutine tls rated' '
{ split($3, lw, ":"); k = $1 " " $2 " " lw[1]; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
  O[k, lw[2]] = $4; L[k, lw[2]] = $5; C[k, lw[2]] = $6; S[k, lw[2]] = $7 }
END {
	nw = split(who, W, " ")
	printf "| P | command | load | ops/s (plain, goroutine, tls, plain at tls rate) | p99 ms (plain, goroutine, tls) | cpu us/op (plain, goroutine, tls, plain at tls rate) | TCP segs/op (plain, goroutine, tls, plain at tls rate) | tls/plain ops, cpu, segs | tls/goroutine ops, cpu | tls/plain at equal rate, cpu |\n"
	printf "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, f, " ")
		for (w = 1; w <= nw; w++) { o[w] = O[k, W[w]]; l[w] = L[k, W[w]]; c[w] = C[k, W[w]]; s[w] = S[k, W[w]] }
		printf "| %s | %s | %s | %.0f, %.0f, %.0f, %.0f | %.2f, %.2f, %.2f | %.2f, %.2f, %.2f, %.2f | %.2f, %.2f, %.2f, %.2f | %.3f, %.3f, %.3f | %.3f, %.3f | %.3f |\n",
			f[1], toupper(f[2]), f[3], o[1], o[2], o[3], o[4], l[1], l[2], l[3], c[1], c[2], c[3], c[4], s[1], s[2], s[3], s[4],
			o[3]/o[1], c[3]/c[1], s[3]/s[1], o[3]/o[2], c[3]/c[2], c[3]/c[4]
	}
}'
