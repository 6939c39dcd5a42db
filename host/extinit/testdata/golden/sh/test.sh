#!/bin/sh
# Tests of demo: feed main.sh the frames zut would send and check
# what it answers. Run it in this directory: sh test.sh
set -u
cd "$(dirname "$0")" || exit 1
out=$(./main.sh <<'FRAMES'
{"type":"hello_ack","protocol_version":2,"zut_version":"test","provider":"test","model":"test","cwd":".","extension_dir":".","data_dir":"."}
{"type":"command_invoked","id":"1","name":"demo","args":"hi"}
{"type":"tool_call","id":"2","name":"demo","args":{"text":"hi"}}
{"type":"tool_call","id":"3","name":"demo","args":{}}
{"type":"command_invoked","id":"4","name":"demo-panel","args":""}
{"type":"panel_key","panel_id":"demo-panel","key":"down"}
{"type":"panel_key","panel_id":"demo-panel","key":"enter"}
{"type":"shutdown"}
FRAMES
)
# Each check names what must be true of some line of the output.
fails=$(printf '%s\n' "$out" | jq -r -s '
def check(cond; what): if any(.[]; cond) then empty else "FAIL: " + what end;
(if .[0].type == "hello" and .[0].name == "demo" and .[0].protocol_version == 2 then empty else "FAIL: the first line is not the hello" end),
check(.type == "ready"; "ready"),
check(.type == "command_response" and .id == "1" and .display == "demo: hi"; "/demo hi"),
check(.type == "tool_result" and .id == "2" and .content == [{type: "text", text: "HI"}]; "demo(hi)"),
check(.type == "tool_result" and .id == "3" and .is_error == true; "demo({}) is an error"),
check(.type == "command_response" and .id == "4" and .action == "open_panel" and .open_panel.lines[0] == "› first item"; "the panel opens"),
check(.type == "panel_render" and .lines[1] == "› second item"; "down moves the cursor"),
check(.type == "notify" and .message == "picked second item"; "enter picks"),
check(.type == "shutdown_ack"; "shutdown_ack")') || fails="FAIL: the output is not JSON lines: $out"
if [ -n "$fails" ]; then
	printf '%s\n' "$fails" >&2
	exit 1
fi
echo ok
