#!/usr/bin/env python3
"""The extension behind every case in this directory.

It is a compliant protocol v2 extension (a command, a panel, a tool with
state, events and a tool_call interceptor) and, with mode "ok-additions",
uses every addition. A mode named "legal.*" is another compliant variant
(no tool_cancel, an asynchronous tool that honours cancellation, a plain
right_bar widget, ...). Every other mode, named after the check it
breaks, breaks it in exactly one way. Each case directory runs it with its
mode:

    {"name": "<case>", "exec": "python3", "args": ["../base.py", "<mode>"]}

The extension's name comes from the manifest in its working directory.
"""
import json
import os
import subprocess
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
NAME = json.load(open("extension.json"))["name"]
ADDITIONS = MODE == "ok-additions" or MODE.startswith("additions.")


def emit(frame):
    with out_lock:
        sys.stdout.write(json.dumps(frame) + "\n")
        sys.stdout.flush()


def log(text):
    sys.stderr.write(NAME + ": " + text + "\n")
    sys.stderr.flush()


SCHEMA = {"type": "object", "properties": {"text": {"type": "string", "description": "what to echo"}},
          "required": ["text"]}
panel_open = set()
requests = {}
seq = [0]
out_lock = threading.Lock()
timers = {}  # tool call id -> the timer that answers it (asynchronous modes)
asks = {}  # panel id -> tool call id (the interactive tool "ask")
seen_calls = set()
LATE = 0.3  # how long the asynchronous modes take to answer, in seconds
ASYNC = MODE in ("cancel.late", "legal.cancel_async")
INTERACTIVE = MODE in ("cancel.panel", "legal.interactive")
MINIMAL = MODE == "legal.minimal"


def caps():
    if MINIMAL:
        return ["commands"]
    c = ["commands", "tools", "panels", "tool_cancel"]
    if MODE == "legal.no_cancel_cap":
        c.remove("tool_cancel")
    if MODE == "registration.declared":
        c.remove("tools")
    if MODE == "handshake.capabilities":
        c.append("telepathy")
    if ADDITIONS and MODE != "additions.capabilities":
        c += ["host_requests", "events2", "intercepts2", "ui2"]
    return c


def hello():
    if MODE == "handshake.hello_first":
        sys.stdout.write("starting up...\n")
        sys.stdout.flush()
    if MODE == "handshake.hello_deadline":
        time.sleep(30)
    if MODE == "handshake.hello_slow":
        time.sleep(2)
    version = 1 if MODE == "handshake.protocol_version" else 2
    name = "someone-else" if MODE == "handshake.name" else NAME
    emit({"type": "hello", "protocol_version": version, "name": name, "version": "1.0.0", "capabilities": caps()})


def register():
    emit({"type": "register_command", "name": "bad name" if MODE == "registration.commands" else "ping",
          "description": "answer pong", "complete": MODE in ("ok-additions", "additions.complete")})
    if MINIMAL:
        emit({"type": "ready"})
        return
    if INTERACTIVE:
        emit({"type": "register_tool", "name": "ask", "description": "ask the user a yes/no question in a panel",
              "schema": {"type": "object"}, "interactive": True})
    emit({"type": "register_command", "name": "panel", "description": "open a panel"})
    schema = json.loads(json.dumps(SCHEMA))
    if MODE in ("calls.tool_branch", "legal.tool_branch_default"):
        schema["properties"]["mode"] = {"type": "string", "enum": ["plain", "loud"]}
    if MODE == "registration.schema":
        schema["anyOf"] = [{"required": ["text"]}]
        del schema["required"]
    if MODE != "legal.commands_only":
        emit({"type": "register_tool", "name": "bash" if MODE in ("registration.tools", "legal.no_tools_bash") else "echo",
              "description": "echo the text back", "schema": schema})
    events = ["session_opened", "session_switched", "turn_start", "turn_end"]
    intercept = ["tool_call"]
    if MODE == "registration.subscribe":
        events.append("telepathy_event")
    if ADDITIONS:
        events += ["custom", "agent_end", "message_update"]
        intercept += ["input", "context_prepare", "before_compact"]
    if MODE != "registration.late":
        emit({"type": "subscribe", "events": events, "intercept": intercept})
    if ADDITIONS:
        emit({"type": "register_option", "description": "a setting", "default": "on"} if MODE == "additions.option"
             else {"type": "register_option", "name": "loud", "description": "answer loudly", "default": "off"})
        emit({"type": "register_shortcut", "key": {"additions.shortcut": "", "additions.key_name": "ctrl+bogus"}.get(MODE, "ctrl+alt+e"),
              "description": "echo"})
        emit({"type": "set_editor", "keys": ["ctrl+s", "shift+1"] if MODE == "additions.key_name" else ["ctrl+s"]})
        emit({"type": "register_tool_renderer", "tool_name": "echo", "render_header": True})
        emit({"type": "register_message_renderer", "name": "fancy"})
    if MODE not in ("registration.ready", "legal.auto_ready"):
        emit({"type": "ready"})
    if MODE == "registration.late":
        emit({"type": "subscribe", "events": events, "intercept": intercept})


def host_ask(method, params):
    seq[0] += 1
    rid = "r%d" % seq[0]
    requests[rid] = method
    emit({"type": "host_request", "id": rid, "method": method, "params": params})


def command(msg):
    rid, name = msg["id"], msg["name"]
    if name == "panel":
        panel = {"title": "Echoes", "lines": ["one", "two"], "footer": "esc close"}
        if MODE != "panels.open":
            panel["id"] = "echo-panel"
        panel_open.add(panel.get("id"))
        emit({"type": "command_response", "id": rid, "action": "open_panel", "open_panel": panel})
        return
    if MODE == "robustness.stdout":
        sys.stdout.write("debug: got /ping\n")
    if MODE == "robustness.frames":
        emit({"type": "notify", "level": "info", "message": 42})
    if MODE == "additions.capabilities":
        emit({"type": "print", "text": "pong"})
    if MODE == "additions.host_request":
        host_ask("ui.select", {"message": "Which?", "options": []})
    if MODE == "ok-additions":
        for method, params in [("ui.select", {"message": "Which?", "options": ["a", "b"]}),
                               ("ui.confirm", {"message": "Sure?"}), ("ui.input", {"message": "Name?"}),
                               ("ui.overlay", {"title": "Note", "text": "hi", "actions": ["ok"]}),
                               ("session.messages", {}), ("session.info", {}), ("session.context_stats", {}),
                               ("session.append_entry", {"entry_type": "echo", "data": {"n": 1}}),
                               ("session.entries", {"entry_type": "echo"}), ("model.get", {}), ("model.list", {}),
                               ("tools.list", {}), ("llm.complete", {"prompt": "hi", "stream": True}),
                               ("options.get", {"name": "loud"}), ("app.notify_custom", {"name": "echo"}),
                               ("tui.suspend", None), ("tui.resume", None)]:
            host_ask(method, params)
        emit({"type": "print", "text": "pong", "style": "info", "renderer": "fancy"})
        emit({"type": "header", "text": "echo"})
        emit({"type": "status", "key": "echo", "text": "ready", "priority": 2})
    if MODE == "additions.ui":
        emit({"type": "print", "text": "pong", "style": "sparkly"})
    if MODE == "legal.right_bar":
        emit({"type": "widget", "id": "pong", "position": "right_bar", "title": "Pong", "lines": ["1 pong"]})
    if MODE == "legal.unknown_position":
        emit({"type": "widget", "id": "pong", "position": "floating", "title": "Pong", "lines": ["1 pong"]})
    if MODE == "frames.widget_id":
        emit({"type": "widget", "position": "above_input", "title": "Pong", "lines": ["1 pong"]})
    if MODE == "frames.widget_clear_id":
        emit({"type": "widget_clear"})
    if MODE == "frames.status_key":
        emit({"type": "status", "level": "info", "text": "pong"})
    if MODE == "frames.level":
        emit({"type": "notify", "level": "loud", "message": "pong"})
    if MODE == "calls.prompt_empty":
        emit({"type": "command_response", "id": rid, "action": "prompt", "prompt": "  "})
        return
    action = "explode" if MODE == "calls.command" else "display"
    emit({"type": "command_response", "id": rid, "action": action, "display": "pong"})
    if MODE == "calls.ids":
        emit({"type": "command_response", "id": "bogus-7", "action": "display", "display": "pong"})


def answer_later(rid, frame):
    def fire():
        if timers.pop(rid, None) is not None:
            emit(frame)
    t = threading.Timer(LATE, fire)
    timers[rid] = t
    t.start()


def ask(msg):
    pid = "ask-" + msg["id"]
    asks[pid] = msg["id"]
    emit({"type": "open_panel", "panel": {"id": pid, "title": "Question", "lines": ["Go on?"], "footer": "enter yes - esc no"}})


def tool(msg):
    seen_calls.add(msg["id"])
    if msg.get("name") == "ask":
        ask(msg)
        return
    if MODE == "calls.tool_timeout":
        return  # never answers
    if MODE == "legal.slow_tool":
        time.sleep(LATE)
    args = msg.get("args")
    text = args.get("text") if isinstance(args, dict) else None
    if MODE == "ok-additions":
        emit({"type": "tool_progress", "id": msg["id"], "text": "echoing"})
    if not isinstance(text, str):
        block = {"type": "bogus"} if MODE == "calls.tool_invalid" else {"type": "text", "text": "echo needs a string text"}
        emit({"type": "tool_result", "id": msg["id"], "is_error": True, "content": [block]})
        return
    block = {"type": "video"} if MODE == "calls.tool" else {"type": "text", "text": text}
    if MODE == "calls.tool_branch" and args.get("mode") == "loud":
        block = {"type": "shout", "text": text.upper()}
    details = {"last": ("x" * (300 << 10)) if MODE == "state.details" else text}
    result = {"type": "tool_result", "id": msg["id"], "content": [block], "details": details}
    if ASYNC:
        answer_later(msg["id"], result)
        return
    emit(result)


def intercept(msg):
    resp = {"type": "event_intercept_response", "id": msg["id"]}
    ev = msg.get("event")
    if ev == "tool_call" and msg.get("tool_name") == "bash":
        if MODE == "events.intercept":
            return  # never answers for bash
        if MODE == "events.chain" and "git push" in msg["tool_args"]["command"]:
            resp["modified_args"] = {"command": "echo guarded"}
    if ev == "context_prepare":
        resp["messages"] = [{"index": -1, "role": "system", "content": "notes"}] + msg["messages"]
    emit(resp)


def handle(msg):
    kind = msg.get("type")
    if MODE == "calls.unknown_fields" and "zut_test_unknown" in msg:
        sys.exit(3)
    if kind == "hello_ack":
        if MODE == "legal.pipelined":
            if msg.get("protocol_version") != 2:
                sys.exit(1)
            return  # registered already, right after hello (C4)
        if msg.get("protocol_version") != 2 and MODE == "handshake.version_linger":
            return  # neither stops nor says anything
        if msg.get("protocol_version") != 2 and MODE != "handshake.version_mismatch":
            log("zut speaks protocol_version %r, this script 2" % msg.get("protocol_version"))
            sys.exit(1)
        if MODE == "robustness.stderr":
            log("x" * (100 << 10))
        register()
    elif kind == "command_invoked":
        command(msg)
    elif kind == "tool_call":
        tool(msg)
    elif kind == "tool_cancel":
        if MODE == "cancel.tool_cancel":
            sys.exit(5)
        cid = msg.get("id")
        if MODE == "cancel.unknown_id" and cid not in seen_calls:
            sys.exit(7)
        if MODE == "legal.cancel_async" and cid in timers:
            timers.pop(cid).cancel()
        if MODE == "legal.interactive":
            for pid, call in list(asks.items()):
                if call == cid:
                    del asks[pid]
                    emit({"type": "panel_close", "panel_id": pid})
    elif kind == "event_intercept":
        intercept(msg)
    elif kind == "event":
        if MODE == "events.deliver" and msg.get("event") == "turn_end":
            sys.exit(4)
        if MODE == "state.restore" and msg.get("event") == "session_switched" and "state" in msg:
            sys.exit(6)
    elif kind == "panel_key" and msg.get("panel_id") in asks:
        pid = msg.get("panel_id")
        if msg.get("key") == "enter":
            call = asks.pop(pid)
            emit({"type": "panel_close", "panel_id": pid})
            emit({"type": "tool_result", "id": call, "content": [{"type": "text", "text": "yes"}]})
    elif kind == "panel_close" and msg.get("panel_id") in asks:
        call = asks.pop(msg.get("panel_id"))
        emit({"type": "tool_result", "id": call, "is_error": True, "content": [{"type": "text", "text": "the user closed the question"}]})
    elif kind == "panel_key":
        pid = msg.get("panel_id")
        emit({"type": "panel_render", "panel_id": "other" if MODE == "panels.keys" else pid,
              "title": "Echoes", "lines": ["key " + msg.get("key", "")]})
    elif kind == "panel_close":
        panel_open.discard(msg.get("panel_id"))
        if MODE == "panels.close":
            emit({"type": "panel_render", "panel_id": msg.get("panel_id"), "lines": ["still here"]})
        if MODE == "panels.close.late":
            pid = msg.get("panel_id")
            threading.Timer(LATE, lambda: emit({"type": "panel_render", "panel_id": pid, "lines": ["still here"]})).start()
    elif kind == "command_complete":
        if MODE != "additions.complete":
            emit({"type": "command_completions", "id": msg["id"], "items": ["pong", "ping"]})
    elif kind == "editor_key":
        emit({"type": "editor_key_response", "id": msg["id"],
              "action": "explode" if MODE == "additions.editor_key" else "passthrough"})
    elif kind == "render_tool":
        emit({"type": "render_tool_response", "id": msg["id"], "header": "echo " + json.dumps(msg.get("args"))})
    elif kind == "render_message":
        if MODE != "additions.render":
            emit({"type": "render_message_response", "id": msg["id"], "lines": ["* " + msg.get("content", "")]})
    elif kind == "host_response":
        requests.pop(msg.get("id"), None)
    elif kind == "shutdown":
        if MODE == "robustness.shutdown":
            return
        if MODE == "robustness.shutdown_noack":
            sys.exit(0)
        if MODE == "robustness.process_group":
            subprocess.Popen(["sleep", "30"])
        if MODE == "robustness.process_group.setsid":
            # Outside the group, out of reach of zut's kill: it holds
            # stdout and stderr for two seconds, then goes by itself.
            subprocess.Popen(["sleep", "2"], start_new_session=True)
        emit({"type": "shutdown_ack"})
        sys.exit(0)
    elif kind == "zut_test_unknown" and MODE == "robustness.unknown_frame":
        sys.exit(8)


def lines():
    """Lines of stdin. In mode robustness.slow_host, each read is taken as
    whole lines, as a naive script might: a frame that arrives in pieces
    breaks it."""
    if MODE != "robustness.slow_host":
        for line in sys.stdin:
            yield line
        return
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            return
        for piece in chunk.decode().split("\n"):
            if piece.strip():
                yield piece


def main():
    hello()
    if MODE == "legal.pipelined":
        register()
    for line in lines():
        handle(json.loads(line))
    if MODE == "robustness.stdin_closed":
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
