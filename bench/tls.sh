#!/usr/bin/env bash
# What TLS costs on the seed workload: corvid-server in plaintext (its
# default network path, the event loops), in plaintext on the
# goroutine-per-connection path (net-engine goroutine, the path TLS
# connections take, to separate the path's cost from the encryption's),
# and over TLS (tls-port, tls-auth-clients yes: memtier presents a client
# certificate), in alternation (a fresh server for each run), with
# memtier_benchmark 2.3.0's --tls as the load generator. Prints
# throughput, p99 and the server's CPU microseconds per operation
# (utime+stime from /proc/PID/stat over the run), medians of the rounds,
# and the ratios tls/plain (the issue's goal: CPU per op <= 1.3x) and
# tls/goroutine. A fourth run per round holds plaintext to the throughput
# the TLS run reached (memtier --rate-limiting): where memtier's own
# encryption limits the TLS run, the server is less loaded, answers
# smaller batches per event-loop round and spends more per operation on
# the rounds themselves; "tls/plain at equal rate" compares the two at
# the same load, which is what the encryption costs.
#
#   bench/tls.sh [seconds] [rounds] [pipelines] [commands]
#   bench/tls.sh 10 3 "1 16" "set get"
#
# Load: the seed's (bench/lib.sh memtier_cpu): -t 2 -c 25, 128-byte
# values, keys 1..500 at random. Certificates (an EC P-256 CA, server and
# client certificates) are made with openssl in a temporary directory.
# TLS 1.3 with Go's choice of suite (AES-GCM where the CPU has AES-NI).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
T=${1:-10}; R=${2:-3}; PIPES=${3:-"1 16"}; CMDS=${4:-"set get"}
MEMTIER=${MEMTIER:-$(find_bin memtier_benchmark)}
help=$("$MEMTIER" --help 2>&1 || true)
[[ $help == *"--tls "* ]] || { echo "$MEMTIER was built without TLS"; exit 1; }
command -v openssl >/dev/null || { echo "openssl not installed"; exit 1; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/corvid-server" ./cmd/corvid-server

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

raw=${OUT:-$tmp/raw.txt}
: >"$raw"
echo "corvid at $(git rev-parse --short HEAD 2>/dev/null || echo '?')$([ -z "$(git status --porcelain -- cmd internal 2>/dev/null)" ] || echo ', with uncommitted changes')"
echo "memtier_benchmark -t 2 -c 25, ${T}s per run, $R rounds, pipelines $PIPES; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
for P in $PIPES; do
	for CMD in $CMDS; do
		seed_command "$CMD"
		for round in $(seq "$R"); do
			for who in tls plain rated goroutine; do
				port=$(freeport)
				flags=()
				case $who in
				plain) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" >/dev/null 2>&1 & ;;
				# Plaintext held to the TLS run's throughput: memtier's
				# --rate-limiting is requests per second per connection
				# (50 of them).
				rated) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" >/dev/null 2>&1 &
					flags=(--rate-limiting "$(awk -v o="$tls_ops" 'BEGIN{printf "%d", o / 50 + 1}')") ;;
				goroutine) "$tmp/corvid-server" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" \
					--net-engine goroutine >/dev/null 2>&1 & ;;
				tls) "$tmp/corvid-server" --port 0 --tls-port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" \
					--tls-cert-file "$tmp/server.crt" --tls-key-file "$tmp/server.key" \
					--tls-ca-cert-file "$tmp/ca.crt" >/dev/null 2>&1 &
					flags=("${tlsflags[@]}") ;;
				esac
				pid=$!
				wait_port "$port"
				line=$(memtier_cpu "$pid" "$port" "$T" "$P" "$cmdline" "$prefix" "${flags[@]}")
				kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
				echo "$P $CMD $round $who $line" >>"$raw"
				[ "$who" = tls ] && tls_ops=${line%% *}
			done
		done
	done
done
medians "$raw" | awk -v who='plain goroutine tls rated' '
{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
  O[k, $3] = $4; L[k, $3] = $5; C[k, $3] = $6 }
END {
	nw = split(who, W, " ")
	printf "| P | command | ops/s (plain, goroutine, tls, plain at tls rate) | p99 ms (plain, goroutine, tls) | cpu us/op (plain, goroutine, tls, plain at tls rate) | tls/plain ops, cpu | tls/goroutine ops, cpu | tls/plain at equal rate, cpu |\n"
	printf "|---:|---|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, f, " ")
		for (w = 1; w <= nw; w++) { o[w] = O[k, W[w]]; l[w] = L[k, W[w]]; c[w] = C[k, W[w]] }
		printf "| %s | %s | %.0f, %.0f, %.0f, %.0f | %.2f, %.2f, %.2f | %.2f, %.2f, %.2f, %.2f | %.3f, %.3f | %.3f, %.3f | %.3f |\n",
			f[1], toupper(f[2]), o[1], o[2], o[3], o[4], l[1], l[2], l[3], c[1], c[2], c[3], c[4],
			o[3]/o[1], c[3]/c[1], o[3]/o[2], c[3]/c[2], c[3]/c[4]
	}
}'
