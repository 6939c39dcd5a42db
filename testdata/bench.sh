#!/usr/bin/env bash
# testdata/bench.sh [-n ROUNDS] [COMMIT]: whole-process benchmarks of the
# zut binary, the working tree against COMMIT (default HEAD), run one
# after the other in alternation so that both see the same machine:
#
#   version     zut --version (start-up)
#   text        zut -p, one text turn against the scripted model server
#   tool        zut -p, a bash call and an answer
#   doctor      zut ext doctor with 10 Python extensions
#   stream      zut -p of one answer streamed as 25,000 text deltas
#   idle-tui    the interactive UI idle in tmux (memory only)
#   deltas      stream minus text: what the 24,999 extra deltas cost, the
#               per-delta path without the process and the turn around it
#
# For each it prints the median wall time and the median peak resident
# memory of both builds, and the ratio working tree / COMMIT; then the
# two binaries' sizes. It needs go, git, python3, tmux and GNU time
# (/usr/bin/time; apt install time). Not part of the test suite: the
# figures depend on the machine, so they go into notes, not assertions.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=7
if [ "${1:-}" = "-n" ]; then rounds=$2; shift 2; fi
base=${1:-HEAD}
for tool in go git python3 tmux /usr/bin/time; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench.sh: $tool is missing" >&2; exit 2; }
done

work=$(mktemp -d)
fm_pids=()
cleanup() {
	for p in "${fm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	tmux -L zut-bench kill-server 2>/dev/null || true
	git worktree remove --force "$work/src" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

echo "building $base and the working tree (CGO_ENABLED=$(go env CGO_ENABLED)) ..." >&2
git worktree add --detach -q "$work/src" "$base"
(cd "$work/src" && go build -o "$work/zut-base" .)
go build -o "$work/zut-head" .
go build -o "$work/fakemodel" ./provider/providertest/cmd/fakemodel

# The scripted model servers, one per case, answering in a loop.
serve() { # serve NAME SCRIPT: start fakemodel on SCRIPT, set URL_NAME
	printf '%s' "$2" >"$work/$1.json"
	"$work/fakemodel" -loop "$work/$1.json" >"$work/$1.url" &
	fm_pids+=($!)
	until [ -s "$work/$1.url" ]; do sleep 0.05; done
	printf -v "URL_$1" '%s' "$(head -1 "$work/$1.url")"
}
serve text '[{"text": "A short answer in a few words.", "usage": {"input": 100, "output": 8}}]'
serve tool '[{"tools": [{"id": "c1", "name": "bash", "args": {"command": "echo hi", "timeout": 10}}]}, {"text": "It printed hi."}]'
long=$(python3 -c 'print("x" * 25000, end="")')
serve stream "[{\"text\": \"$long\", \"chunks\": 25000}]"

# Ten Python extensions for ext doctor.
home="$work/home"
for i in $(seq 0 9); do
	d="$home/extensions/py$i"
	mkdir -p "$d"
	cat >"$d/ext.py" <<EOF
#!/usr/bin/env python3
import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "py$i", "capabilities": ["commands"]})
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello_ack":
        emit({"type": "register_command", "name": "py$i", "description": "idle"})
        emit({"type": "ready"})
    elif m["type"] == "shutdown":
        emit({"type": "shutdown_ack"}); break
EOF
	chmod +x "$d/ext.py"
	printf '{"name": "py%d", "version": "1.0.0", "exec": "./ext.py", "language": "python"}' "$i" >"$d/extension.json"
done
mkdir -p "$work/proj"

# run BIN CASE: one sample, "SECONDS KIB" on stdout.
run() {
	local bin=$1 case=$2 t0 t1
	local -a cmd
	case $case in
	version) cmd=("$bin" --version) ;;
	text) cmd=(env ANTHROPIC_API_KEY=k "$bin" -p --no-session --no-extensions --provider anthropic --base-url "$URL_text" hi) ;;
	tool) cmd=(env ANTHROPIC_API_KEY=k "$bin" -p --yolo --no-session --no-extensions --provider anthropic --base-url "$URL_tool" run) ;;
	doctor) cmd=(env ZUT_HOME="$home" "$bin" ext doctor) ;;
	stream) cmd=(env ANTHROPIC_API_KEY=k "$bin" -p --no-session --no-extensions --provider anthropic --base-url "$URL_stream" go) ;;
	esac
	t0=$EPOCHREALTIME
	(cd "$work/proj" && env ZUT_HOME="$work/zh" /usr/bin/time -f '%M' -o "$work/rss" "${cmd[@]}" >/dev/null 2>&1) || true
	t1=$EPOCHREALTIME
	echo "$(python3 -c "print(f'{$t1 - $t0:.6f}')") $(tail -1 "$work/rss")"
}

# idle BIN: the peak resident memory of the UI, idle, in KiB.
idle() {
	local bin=$1 pid rss
	tmux -L zut-bench kill-server 2>/dev/null || true
	tmux -L zut-bench -f /dev/null new-session -d -x 100 -y 30 \
		"cd $work/proj && env ZUT_HOME=$work/zh ANTHROPIC_API_KEY=k $bin --no-session --provider anthropic --base-url $URL_text"
	for _ in $(seq 100); do
		tmux -L zut-bench capture-pane -p | grep -q 'ask anything' && break
		sleep 0.05
	done
	sleep 1
	pid=$(pgrep -f "^$bin --no-session" | head -1)
	rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
	tmux -L zut-bench kill-server 2>/dev/null || true
	echo "0 $rss"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

printf '%-9s %12s %12s %7s %11s %11s %7s\n' case "base ms" "head ms" ratio "base MiB" "head MiB" ratio
for case in version text tool doctor stream idle-tui; do
	: >"$work/base.$case"
	: >"$work/head.$case"
	for _ in $(seq "$rounds"); do
		for side in base head; do
			if [ "$case" = idle-tui ]; then idle "$work/zut-$side"; else run "$work/zut-$side" "$case"; fi >>"$work/$side.$case"
		done
	done
	bt=$(cut -d' ' -f1 "$work/base.$case" | median)
	ht=$(cut -d' ' -f1 "$work/head.$case" | median)
	bm=$(cut -d' ' -f2 "$work/base.$case" | median)
	hm=$(cut -d' ' -f2 "$work/head.$case" | median)
	python3 - "$case" "$bt" "$ht" "$bm" "$hm" <<'EOF'
import sys
c, bt, ht, bm, hm = sys.argv[1], *map(float, sys.argv[2:])
r = lambda a, b: f"{b / a:.2f}x" if a else "-"
print(f"{c:<9} {bt*1000:12.2f} {ht*1000:12.2f} {r(bt, ht):>7} {bm/1024:11.1f} {hm/1024:11.1f} {r(bm, hm):>7}")
EOF
done
# deltas: the median stream time less the median text-turn time, per build.
python3 - "$(cut -d' ' -f1 "$work/base.stream" | median)" "$(cut -d' ' -f1 "$work/base.text" | median)" \
	"$(cut -d' ' -f1 "$work/head.stream" | median)" "$(cut -d' ' -f1 "$work/head.text" | median)" <<'EOF'
import sys
bs, bt, hs, ht = map(float, sys.argv[1:])
b, h = bs - bt, hs - ht
print(f"{'deltas':<9} {b*1000:12.2f} {h*1000:12.2f} {f'{h / b:.2f}x' if b > 0 else '-':>7}   (stream - text)")
EOF
bs=$(stat -c %s "$work/zut-base")
hs=$(stat -c %s "$work/zut-head")
python3 -c "print(f'binary    {$bs/1e6:.1f} MB (base) {$hs/1e6:.1f} MB (head) {$hs/$bs:.2f}x')"
