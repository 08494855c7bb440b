#!/usr/bin/env bash
# Run the command fuzzer (tests/cmdfuzz) for longer than the test's
# default minute, against corvid-server (both network paths) and, when
# ../shared/bin/valkey-server or CORVID_VALKEY_SERVER is present, Valkey
# 8.0.1 in lockstep.
#
#   bench/cmdfuzz.sh [duration] [seed]
#   bench/cmdfuzz.sh 10m
#   bench/cmdfuzz.sh 30m 12345
#
# A failure prints the seed, the batch and the (minimized) commands;
#   go test ./tests/cmdfuzz -run 'TestCommandFuzz$' -v -cmdfuzz.seed S -cmdfuzz.batch B
# replays that batch with every command and reply logged.
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-10m}
seed_args=()
if [[ $# -ge 2 ]]; then seed_args=(-cmdfuzz.seed "$2"); fi
# go test's own -timeout must outlast the fuzzing plus minimization.
exec go test ./tests/cmdfuzz -run 'TestCommandFuzz$' -count=1 -v -timeout 0 \
	-cmdfuzz.duration "$dur" "${seed_args[@]}"
