#!/usr/bin/env bash
# Replication side by side: corvid-server vs valkey-server 8.0.1, the same
# settings for both (--save '' --appendonly no --repl-diskless-sync-delay 0,
# otherwise defaults: diskless sync, disk load), each on free loopback ports
# in its own process group. For each server, in one run:
#
#   (a) full sync: a primary filled with DATASET_MB of random VALUE_SIZE-byte
#       values; the time from REPLICAOF until master_link_status:up and the
#       replica's offset equal to the primary's, with the CPU each side spent;
#   (b) the primary's throughput under the seed SET (memtier_benchmark 2.3.0
#       -t 2 -c 25, 128-byte random values, keys 1..500, pipeline 1) with 0,
#       1 and 2 replicas attached, and its ratio to 0 replicas (ops/s and
#       primary CPU per op);
#   (c) replication lag during that load: master_repl_offset minus each
#       replica's slave_repl_offset every 10 ms (p50/p99/max bytes, the
#       first and last quarter, the slope, whether it grows), and the time
#       for a write to become visible on the replicas (a probe SETs a fresh
#       value on the primary every 20 ms and polls GET on each replica:
#       p50/p99/max ms from sending the SET, which includes its round trip
#       on the loaded primary; the 0-replica row polls the primary itself).
#
# Output: a line per full sync and per load phase as they finish, then three
# markdown tables on stdout (full sync; throughput by replicas with "vs 0"
# ratios; lag and visibility), each closed by corvid/valkey ratio rows
# (throughput above 1: Corvid ahead; times, CPU, lag below 1: Corvid ahead).
#
# Corvid/Valkey ratios close each table. The method in detail, and every
# flag: bench/repl/main.go, `bench/repl.sh -h`.
#
#   bench/repl.sh                                    # 1 GB dataset, 20 s per phase (~4 min; ~6 GB of RAM and ~2 GB of /tmp at peak)
#   bench/repl.sh -dataset-mb 32 -time 3             # smoke: ~30 s
#   DATASET_MB=256 TIME=10 ROUNDS=3 OUT=/tmp/repl bench/repl.sh
#
# Environment (each also a flag): DATASET_MB (1024), VALUE_SIZE (1024),
# TIME (20 s per load phase), ROUNDS (1), THREADS (2) and CLIENTS (25) for
# memtier, REPLICAS ("0,1,2"), LAG_INTERVAL (10ms), PROBE_INTERVAL (20ms),
# SERVERS ("corvid,valkey"), SERVER_ARGS / CORVID_ARGS / VALKEY_ARGS (more
# server flags), MEMTIER and VALKEY (binaries; default ../shared/bin beside
# the repository, then PATH), CORVID (a prebuilt corvid-server; default:
# built from the working tree), REV (build corvid-server at that revision
# from a worktree), OUT (also write OUT.md and OUT.runs.csv). memtier needs
# apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/repl "$@"
