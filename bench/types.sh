#!/usr/bin/env bash
# Streams, HyperLogLog and geo side by side: corvid-server vs valkey-server
# 8.0.1, the same settings for both (--save '' --appendonly no, otherwise
# defaults), each run on a fresh server on a free loopback port in its own
# process group, the servers' order rotating round by round, medians of the
# rounds, Corvid/Valkey ratios from the one run.
#
# Throughput cases, at 50 clients (THREADS x CLIENTS), pipeline 1, TIME s each:
#
#   xadd        XADD stream:<n> * f <16 random bytes>, 1000 keys (memtier)
#   xreadgroup  XREADGROUP GROUP g c<i> COUNT 1 STREAMS stream:<n> > and then
#               XACK stream:<n> g <the id it got>, on 1000 streams filled
#               beforehand (group g at 0; STREAM_ENTRIES each, default 150
#               per second of TIME); a Go loop of 50 connections, one
#               command in flight each (the XACK needs the read's reply);
#               one read+ack pair is one op, its latency the pair's
#   pfadd       PFADD hll:<n> <16 random bytes>, 1000 keys (memtier)
#   pfcount     PFCOUNT hll:<n> over 1000 HLLs filled beforehand, the even
#               ones sparse (200 elements), the odd ones dense (5000)
#   pfcount3    PFCOUNT of three of those keys at random: a union (memtier)
#   geoadd      GEOADD geo:<n> <lon> <lat> <16 random bytes>, 1000 keys, 64
#               fixed (lon, lat) pairs from the whole valid range cycled
#               (memtier cannot randomize floats)
#   geosearch   GEOSEARCH geo:<n> FROMLONLAT <lon> <lat> BYRADIUS 50 km ASC
#               COUNT 10 over GEO_KEYS (100) sets of GEO_MEMBERS (10,000)
#               members at random in lon 0..10, lat 45..55 (about 90
#               within 50 km), 16 fixed centers inside cycled (memtier)
#
# memtier is memtier_benchmark 2.3.0 -t 2 -c 25 --pipeline 1
# --distinct-client-seed --random-data --data-size 16, keys at random.
# Per case and server: ops/s, server CPU microseconds per op (utime+stime
# from /proc/PID/stat around the load), p50/p99 latency, and the error
# replies (INFO stats total_error_replies before and after the load). A run
# with error replies, an XREADGROUP that found its stream drained, or an
# XACK that did not reply 1 is flagged: kept out of the medians and listed
# with INFO errorstats under the tables.
#
# Memory cases: used_memory (INFO memory) and VmRSS growth per element, on
# a fresh server, each reading after SETTLE (1 s) and MEMORY PURGE:
#
#   mem-stream  MEM_ELEMENTS (1,000,000) XADD of one 16-byte field into
#               MEM_KEYS (100) streams, pipelined over one connection
#   mem-geo     MEM_ELEMENTS geo members (m:<i>, random valid coordinates)
#               over MEM_KEYS sets, 100 per GEOADD
#
# Output: a line per run as it finishes, then markdown tables on stdout
# (the cases' command lines; throughput: each server's ops/s, CPU us/op,
# p50 and p99 ms, the corvid/valkey ratios, error replies and flagged runs;
# memory: bytes per element, used_memory and RSS, and the ratios; the
# flagged runs with the reason). Ratios: ops/s above 1, CPU, latency and
# bytes below 1 favour Corvid. OUT=PREFIX also writes PREFIX.md (the same,
# with the command line) and PREFIX.runs.csv (every run's raw figures).
# The method in detail, and every flag: bench/types/main.go,
# `bench/types.sh -h`.
#
#   bench/types.sh                     # 10 s x 3 rounds, every case (~11 min)
#   bench/types.sh -time 2 -rounds 1 -keys 200 -geo-keys 10 -mem-elements 20000   # smoke: < 1 min
#   CASES=xreadgroup,geosearch TIME=20 ROUNDS=5 OUT=/tmp/types bench/types.sh
#
# Environment (each also a flag): TIME (10), ROUNDS (3), THREADS (2),
# CLIENTS (25), KEYS (1000), CASES (all: xadd,xreadgroup,pfadd,pfcount,
# pfcount3,geoadd,geosearch,mem-stream,mem-geo), STREAM_ENTRIES (0: auto),
# GEO_KEYS (100), GEO_MEMBERS (10000), MEM_ELEMENTS (1000000), MEM_KEYS
# (100), SETTLE (1s), SERVERS ("corvid,valkey"), SERVER_ARGS / CORVID_ARGS /
# VALKEY_ARGS (more server flags), MEMTIER and VALKEY (binaries; default
# ../shared/bin beside the repository, /work/shared/bin, then PATH), CORVID
# (a prebuilt corvid-server; default: built from the working tree), REV
# (build corvid-server at that revision from a worktree), OUT. memtier
# needs apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/types "$@"
