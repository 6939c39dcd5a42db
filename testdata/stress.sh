#!/bin/sh
# stress.sh runs the whole test suite several times in a row with CPU hogs
# beside it, the way CI's loaded 2-core machines run it, and reports each
# round:
#
#	testdata/stress.sh [-n ROUNDS] [-j HOGS] [-race] [PACKAGES...]
#
# -n is the number of rounds (default 5), -j the number of busy loops
# started beside the suite (default 2), -race adds the race detector, and
# PACKAGES default to ./... . Each round runs go test -count=1 and keeps its
# output in $TMPDIR/zut-stress-N.log; the script prints one line per round
# and exits 1 when any round failed. Source .ci/run's environment first
# (or let .ci/run install the tools) so that no test is skipped.
set -u
cd "$(dirname "$0")/.." || exit 2

rounds=5
hogs=2
race=
while [ $# -gt 0 ]; do
	case $1 in
	-n) rounds=$2; shift 2 ;;
	-j) hogs=$2; shift 2 ;;
	-race) race=-race; shift ;;
	-*) echo "usage: testdata/stress.sh [-n ROUNDS] [-j HOGS] [-race] [PACKAGES...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- ./...

pids=
i=0
while [ "$i" -lt "$hogs" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' EXIT INT TERM

failed=0
round=1
while [ "$round" -le "$rounds" ]; do
	log="${TMPDIR:-/tmp}/zut-stress-$round.log"
	start=$(date +%s)
	if go test -count=1 $race "$@" >"$log" 2>&1; then
		result=ok
	else
		result=FAIL
		failed=1
	fi
	end=$(date +%s)
	echo "round $round: $result in $((end - start))s ($(grep -c '^ok' "$log") packages ok; log $log)"
	if [ "$result" = FAIL ]; then
		grep -E '^(--- FAIL|FAIL|panic:)' "$log" | head -20
	fi
	round=$((round + 1))
done
exit $failed
