#!/bin/sh
# Drive zut's RPC mode from a POSIX shell: send one prompt, print what
# happens. Two named pipes connect the shell to zut; sed picks fields out
# of the JSON lines, which is enough for the simple fields used here (it
# prints JSON string escapes such as \n as they are).
#
# Usage: client.sh PROMPT [ZUT FLAGS...]
#
# $ZUT names the zut binary (default: zut). The flags go to `zut rpc`.
set -eu

[ $# -ge 1 ] || { echo "usage: client.sh PROMPT [ZUT FLAGS...]" >&2; exit 2; }
prompt=$1
shift

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/in" "$dir/out"
"${ZUT:-zut}" rpc "$@" <"$dir/in" >"$dir/out" &
zut=$!
exec 3>"$dir/in" 4<"$dir/out"

# field NAME LINE prints the string member NAME of a JSON line.
field() {
	printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"
}

# quote TEXT prints TEXT as a JSON string.
quote() {
	printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | awk 'BEGIN { printf "\"" } { if (NR > 1) printf "\\n"; printf "%s", $0 } END { printf "\"" }'
}

# expect ID waits for the response to command ID and prints its line.
expect() {
	while IFS= read -r line <&4; do
		case $line in
		*'"type":"response","id":'"$1"','*)
			case $line in
			*'"success":true'*) printf '%s\n' "$line"; return 0 ;;
			esac
			echo "zut: $(field error "$line")" >&2
			return 1
			;;
		esac
	done
	echo "zut exited early" >&2
	return 1
}

printf '%s\n' "{\"type\":\"hello\",\"id\":1,\"token\":$(quote "${ZUTCORE_RPC_TOKEN:-}")}" >&3
line=$(expect 1)
echo "[zut $(field version "$line")] $(field provider "$line")/$(field model "$line")"
echo "> $prompt"
printf '%s\n' "{\"type\":\"prompt\",\"id\":2,\"message\":$(quote "$prompt")}" >&3
expect 2 >/dev/null
while IFS= read -r line <&4; do
	case $line in
	*'"type":"text_delta"'*) printf '%s' "$(field delta "$line")" ;;
	*'"type":"assistant_message"'*) echo ;;
	*'"type":"tool_call"'*) echo "[tool] $(field name "$line") $(printf '%s\n' "$line" | sed -n 's/.*"args":\(.*\)}$/\1/p')" ;;
	*'"type":"tool_result"'*'"is_error":true'*) echo "[error] $(field text "$line")" ;;
	*'"type":"tool_result"'*) echo "[result] $(field text "$line")" ;;
	*'"type":"error"'*) echo "[error] $(field message "$line")" ;;
	*'"type":"done"'*) echo "[done]"; break ;;
	esac
done
printf '%s\n' '{"type":"get_state","id":3}' >&3
line=$(expect 3)
usage=$(printf '%s\n' "$line" | sed -n 's/.*"usage":{"input":\([0-9]*\),"output":\([0-9]*\),.*"cost_usd":\([0-9.e-]*\)}.*/\1 input, \2 output tokens, $\3/p')
echo "[usage] $usage"
exec 3>&-    # end of stdin: zut finishes and exits
cat <&4 >/dev/null
wait "$zut"
