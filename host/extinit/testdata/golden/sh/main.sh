#!/bin/sh
# demo: a zut extension in POSIX sh and jq, speaking the protocol as
# raw JSON lines (docs/protocol.md of the zut repository). Run it with
# `zut --ext .` in this directory; test it with `sh test.sh`. jq must be
# on PATH.
#
# One jq run answers each frame: it prints the reply frames and, when the
# script's state (the panel's cursor) changes, a last line {"state": ...}.
set -u

emit() {
	printf '%s\n' "$1"
}

# handle is the jq program answering one frame from zut; $state is the
# script's state.
handle='
def no_command: {type: "command_response", id, action: "noop", error: ("demo has no command /" + .name)};
def items: ["first item", "second item", "third item"];
def picker($c): {id: "demo-panel", title: "demo", footer: "↑/↓ move · enter pick · esc close",
	lines: [items | to_entries[] | (if .key == $c then "› " else "  " end) + .value]};
if .type == "command_invoked" then
	if .name == "demo" then
		{type: "command_response", id, action: "display",
		 display: (if (.args // "") == "" then "demo: hello! Try /demo some text" else "demo: " + .args end)}
	elif .name == "demo-panel" then
		{type: "command_response", id, action: "open_panel", open_panel: picker(0)}, {state: {cursor: 0}}
	else no_command end
elif .type == "tool_call" then
	if .name == "demo" then
		{type: "tool_result", id} + if (.args.text | type) == "string"
			then {content: [{type: "text", text: (.args.text | ascii_upcase)}]}
			else {content: [{type: "text", text: "demo: text must be a string, for example {\"text\": \"hi\"}"}], is_error: true} end
	else
		{type: "tool_result", id, is_error: true, content: [{type: "text", text: ("demo has no tool " + .name)}]}
	end
elif .type == "panel_key" and .panel_id == "demo-panel" then
	$state.cursor as $c |
	if .key == "down" or .key == "up" then
		(if .key == "down" then ($c + 1) % 3 else ($c + 2) % 3 end) as $n |
		(picker($n) | {type: "panel_render", panel_id: .id, title, lines, footer}), {state: {cursor: $n}}
	elif .key == "enter" then
		{type: "panel_close", panel_id: "demo-panel"}, {type: "notify", level: "info", message: ("picked " + items[$c])}
	else empty end
elif .type == "event_intercept" then {type: "event_intercept_response", id}
elif .type == "shutdown" then {type: "shutdown_ack"}, {state: {exit: true}}
else empty end'

emit '{"type":"hello","protocol_version":2,"name":"demo","version":"0.1.0","capabilities":["commands","tools","panels"]}'
acked=
state='{"cursor":0}'
while IFS= read -r line; do
	if [ -z "$acked" ]; then
		# The first frame from zut is hello_ack. Answer it without jq:
		# zut counts an extension that is quiet for 250 ms after hello_ack
		# as ready, and starting jq on a busy machine can take that long.
		case $line in
		*'"hello_ack"'*) ;;
		*) continue ;;
		esac
		case $line in
		*'"protocol_version":2,'* | *'"protocol_version":2}'* | *'"protocol_version": 2,'* | *'"protocol_version": 2}'*) ;;
		*)
			echo "demo: zut does not speak protocol_version 2, as this script does" >&2
			exit 1
			;;
		esac
		acked=1
		emit '{"type":"register_command","name":"demo","description":"say hello from demo (/demo some text)"}'
		emit '{"type":"register_tool","name":"demo","description":"Return the text in capital letters.","schema":{"type":"object","properties":{"text":{"type":"string","description":"the text to shout"}},"required":["text"]}}'
		emit '{"type":"register_command","name":"demo-panel","description":"pick an item in a panel"}'
		emit '{"type":"ready"}'
		continue
	fi
	if ! out=$(printf '%s\n' "$line" | jq -c --argjson state "$state" "$handle" 2>/dev/null); then
		echo "demo: skipped a line that is not a JSON object" >&2
		continue
	fi
	[ -z "$out" ] && continue
	while IFS= read -r reply; do
		case $reply in
		'{"state":{"exit":true}}') exit 0 ;;
		'{"state":'*) state=${reply#'{"state":'} && state=${state%'}'} ;;
		*) emit "$reply" ;;
		esac
	done <<REPLIES
$out
REPLIES
done
