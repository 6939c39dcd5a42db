#!/bin/sh
# concurrent.sh runs N copies of `zut ext test` at once on one extension,
# as N CI jobs on a loaded machine would, and reports how many passed:
#
#	host/exttest/testdata/concurrent.sh [-n N] [DIR] [-- FLAGS...]
#
# N defaults to 16 and DIR to the compliant extension of the corpus
# (testdata/corpus/ok). FLAGS go to every `zut ext test` (for example
# --quick). zut is built once into a temporary directory; each run's report
# is kept in it and the reports of failed runs are printed. The script exits
# 1 when any run failed. A correct extension is expected to pass all 16.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
n=16
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "usage: $0 [-n N] [DIR] [-- FLAGS...]" >&2; exit 2 ;;
	*) dir=$1; shift ;;
	esac
done
dir=${dir:-$here/corpus/ok}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zut-concurrent-XXXXXX")
(cd "$root" && go build -o "$tmp/zut" .) || exit 1
start=$(date +%s)
i=1
while [ "$i" -le "$n" ]; do
	( "$tmp/zut" ext test "$dir" "$@" >"$tmp/run-$i.txt" 2>&1; echo $? >"$tmp/run-$i.status" ) &
	i=$((i + 1))
done
wait
end=$(date +%s)
pass=0
fail=0
i=1
while [ "$i" -le "$n" ]; do
	if [ "$(cat "$tmp/run-$i.status")" = 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "== run $i failed:"
		grep -E '^  (fail|warn) ' "$tmp/run-$i.txt"
		tail -n 1 "$tmp/run-$i.txt"
	fi
	i=$((i + 1))
done
echo "$pass of $n concurrent runs passed, $fail failed, in $((end - start))s (reports in $tmp)"
[ "$fail" = 0 ]
