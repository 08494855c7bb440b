#!/usr/bin/env bash
# Throughput of GET/SET/ZADD as the keyspace grows from 10^3 to 10^7 keys,
# corvid-server beside redis-server 7.0.15, and GET latency while corvid's
# dicts rehash (issue 6). The method is in bench/keyspace/doc.go.
#
#   bench/keyspace-scaling.sh [-sizes 1e3,1e4,1e5,1e6,1e7] [-time 10] [-redis=false] [-rehash=false] ...
#
# Writes /tmp/keyspace-scaling.md and .csv (-out PREFIX); -help lists the flags.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/keyspace "$@"
