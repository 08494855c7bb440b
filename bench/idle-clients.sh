#!/usr/bin/env bash
# Memory per idle connection, Corvid (each net engine) side by side with
# valkey-server 8.0.1 in one run (issue 32: "an idle client costs no more
# memory than in Valkey; 10,000 idle clients stay within that"). For each
# server: start it (no persistence), read used_memory (INFO memory) and
# VmRSS (/proc/PID/status), open N connections that each send one PING
# and read its reply, then send nothing more; wait SETTLE seconds (the
# servers' crons shrink reply buffers: Valkey's peak reset is 5 s), read
# both again, and print the deltas per connection, with what CLIENT LIST
# shows for one of the idle clients (qbuf, qbuf-free, rbs, tot-mem).
#
#   bench/idle-clients.sh [N]            # default 10000
#
# SETTLE (12), ENGINES ("io_uring epoll goroutine"); REV builds Corvid at
# that revision (bench/lib.sh build_corvid); VALKEY names the peer.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
N=${1:-10000}; SETTLE=${SETTLE:-12}
ENGINES=${ENGINES:-io_uring epoll goroutine}
VALKEY=${VALKEY:-$(find_bin valkey-server)}
ulimit -n $((N + 4096))
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	remove_corvid_src "$tmp"
	rm -rf "$tmp"
}
trap cleanup EXIT
build_corvid "$tmp"
cat > "$tmp/idle.py" <<'PY'
import socket, sys, time
pid, port, n, settle = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
def rss():
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS:"): return int(l.split()[1]) * 1024
def call(s, *a):
    s.sendall(b"*%d\r\n" % len(a) + b"".join(b"$%d\r\n%s\r\n" % (len(x), x) for x in a))
    buf = b""
    while True:
        buf += s.recv(1 << 20)
        if buf.startswith(b"$"):
            size = int(buf[1:buf.index(b"\r\n")])
            head = buf.index(b"\r\n") + 2
            if len(buf) >= head + size + 2: return buf[head:head + size].decode()
        elif buf.endswith(b"\r\n"): return buf.decode()
def used(ctl):
    for l in call(ctl, b"INFO", b"memory").split("\r\n"):
        if l.startswith("used_memory:"): return int(l.split(":")[1])
ctl = socket.create_connection(("127.0.0.1", port))
time.sleep(1)
u0, r0 = used(ctl), rss()
conns = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"*1\r\n$4\r\nPING\r\n")
    conns.append(s)
for s in conns:
    got = b""
    while not got.endswith(b"\r\n"): got += s.recv(64)
    if got != b"+PONG\r\n": sys.exit("unexpected reply %r" % got)
u1, r1 = used(ctl), rss()
time.sleep(settle)
u2, r2 = used(ctl), rss()
line = ""
for l in call(ctl, b"CLIENT", b"LIST").split("\n"):
    f = dict(x.split("=", 1) for x in l.split() if "=" in x)
    if f.get("cmd") == "ping":
        line = " ".join(k + "=" + f[k] for k in ("qbuf", "qbuf-free", "rbs", "tot-mem")); break
print("%d %d %d %d %s" % ((u1 - u0) / n, (r1 - r0) / n, (u2 - u0) / n, (r2 - r0) / n, line))
PY
echo "idle clients: $N connections, one PING each, then ${SETTLE}s idle; $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), $what, valkey $("$VALKEY" --version | awk '{print $3}')"
echo
echo "| server | used_memory/conn at once | RSS/conn at once | used_memory/conn after ${SETTLE}s | RSS/conn after ${SETTLE}s | CLIENT LIST of an idle client |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
run() {
	local name=$1 port
	shift
	port=$(freeport)
	"$@" --port "$port" --save '' --appendonly no --maxclients $((N + 100)) >"$tmp/$name.log" 2>&1 &
	pid=$!
	wait_port "$port"
	set -- $(python3 "$tmp/idle.py" "$pid" "$port" "$N" "$SETTLE")
	echo "| $name | $1 B | $2 B | $3 B | $4 B | ${*:5} |"
	kill "$pid"; wait "$pid" 2>/dev/null || true
	pid=
}
for e in $ENGINES; do
	run "corvid $e" "$tmp/corvid-server" --net-engine "$e"
done
run "valkey 8.0.1" "$VALKEY"
