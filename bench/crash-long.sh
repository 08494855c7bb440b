#!/usr/bin/env bash
# The crash tests' long version (issue 25): each crash loop of
# tests/integration/aof_test.go for ROUNDS rounds instead of CI's 20
# (TestAOFCrashLoop: SIGKILL at a random moment, appendfsync always and
# everysec) and 3 (TestCrashDuringSnapshot: SIGKILL during a BGREWRITEAOF
# with always and everysec, and during a BGSAVE with the AOF on and with
# RDB only, of 200k keys). A correctness run, not a timing one: other load
# on the machine does not matter. Prints one summary line per loop, the
# verdicts and the duration; the whole `go test -v` output goes to LOG.
#
#   bench/crash-long.sh [rounds] [log]     # default 100 /tmp/crash-long.log
#   bench/crash-long.sh 20                 # CI's random loops, 20 rounds of the others
#   REV=HEAD bench/crash-long.sh           # the tests and server of a revision (a worktree)
#
# Without REV the tests run from the working tree and the test harness
# builds the server from it, uncommitted changes included; the header
# line says so.
#
# A failure names the round, what the server loaded against what it had
# to, and a directory (kept) with the files as the kill left them and the
# killed server's log; starting corvid-server on a copy of it with the
# loop's arguments loads the same files again.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-100}
LOG=${2:-/tmp/crash-long.log}
src=.
if [ -n "${REV:-}" ]; then
	tmp=$(mktemp -d)
	trap 'git worktree remove --force "$tmp/src" 2>/dev/null || true; rm -rf "$tmp"' EXIT
	git worktree add -q --detach "$tmp/src" "$REV"
	src=$tmp/src
	what="corvid at $(git rev-parse --short "$REV")"
else
	what="corvid from the working tree at $(git rev-parse --short HEAD)"
	[ -z "$(git status --porcelain -- cmd internal tests go.mod go.sum)" ] || what="$what, with uncommitted changes"
fi
echo "crash loops, $ROUNDS rounds each: $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), $what"
run=(go test ./tests/integration -run '^(TestAOFCrashLoop|TestCrashDuringSnapshot)$' -count=1 -v -timeout 0)
echo "CORVID_CRASH_ROUNDS=$ROUNDS ${run[*]}"
start=$(date +%s)
status=0
(cd "$src" && CORVID_CRASH_ROUNDS=$ROUNDS "${run[@]}") >"$LOG" 2>&1 || status=$?
secs=$(($(date +%s) - start))
sed -n 's/.*crash-summary: /  /p' "$LOG"
grep -E '^ *--- (PASS|FAIL|SKIP)' "$LOG" || true
if [ "$status" -ne 0 ]; then
	echo "FAILED (exit $status); the failures:"
	grep -E -A8 '^ +aof_test\.go:[0-9]+: ' "$LOG" | grep -v 'crash-summary' | head -60 || tail -40 "$LOG"
fi
echo "$((secs / 60)) min $((secs % 60)) s; full output in $LOG"
exit "$status"
