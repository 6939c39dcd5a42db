#!/bin/sh
# fuzz.sh runs every fuzz target of zut, one after another, for N seconds
# each (default 30), and prints each target's execution count:
#
#	testdata/fuzz.sh [-t SECONDS] [-m MINIMIZE] [PATTERN]
#
# -t is the time per target; -m bounds the minimisation of each new
# interesting input (default 100ms, so that minimising never eats the
# budget); PATTERN keeps the targets whose "package FuzzName" matches the
# extended regular expression (grep -E). A target that finds a failure
# leaves its input under the package's testdata/fuzz/ and makes the
# script exit 1 after the others have run. The seeds of every target also
# run as ordinary tests in go test ./..., without this script.
set -u
cd "$(dirname "$0")/.." || exit 2

seconds=30
minimize=100ms
while getopts t:m: opt; do
	case $opt in
	t) seconds=$OPTARG ;;
	m) minimize=$OPTARG ;;
	*) echo "usage: testdata/fuzz.sh [-t SECONDS] [-m MINIMIZE] [PATTERN]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
pattern=${1:-.}

# Every "func FuzzX(" of the module's test files, as "./pkg FuzzX".
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
	dir=$(dirname "$file")
	sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file" | while read -r name; do
		echo "$dir $name"
	done
done | grep -E -e "$pattern")
if [ -z "$targets" ]; then
	echo "fuzz.sh: no fuzz target matches $pattern" >&2
	exit 2
fi

log=$(mktemp) || exit 2
trap 'rm -f "$log"' EXIT
trap 'exit 130' INT TERM
failed=0
while read -r dir name; do
	start=$(date +%s)
	go test -run '^$' -fuzz "^$name\$" -fuzztime "${seconds}s" -fuzzminimizetime "$minimize" "$dir" </dev/null >"$log" 2>&1
	status=$?
	took=$(($(date +%s) - start))
	# The last progress line carries the total: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), ...".
	execs=$(sed -n 's/^fuzz: elapsed: [0-9]*s, execs: \([0-9]*\) .*/\1/p' "$log" | tail -n 1)
	if [ "$status" -ne 0 ] && ! grep -q 'Failing input written' "$log" &&
		grep -q '^    context deadline exceeded$' "$log"; then
		# Go 1.26's fuzz coordinator can report its own -fuzztime deadline
		# as a failure on a loaded machine (go.dev/issue/75804, fixed in
		# Go 1.27): no input failed, so the run counts.
		printf '%-28s %-22s %10s execs  %4ss  (coordinator deadline, go.dev/issue/75804)\n' "$dir" "$name" "${execs:-?}" "$took"
	elif [ "$status" -eq 0 ]; then
		printf '%-28s %-22s %10s execs  %4ss\n' "$dir" "$name" "${execs:-?}" "$took"
	else
		printf '%-28s %-22s %10s execs  %4ss  FAILED\n' "$dir" "$name" "${execs:-?}" "$took"
		sed 's/^/    /' "$log"
		failed=1
	fi
done <<EOF
$targets
EOF
exit $failed
