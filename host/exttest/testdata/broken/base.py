#!/usr/bin/env python3
"""The extension behind every case in this directory.

It is a compliant protocol v2 extension (a command, a panel, a tool with
state, events and a tool_call interceptor) and, with mode "ok-additions",
uses every addition. Every other mode, named after the check it breaks,
breaks it in exactly one way. Each case directory runs it with its mode:

    {"name": "<case>", "exec": "python3", "args": ["../base.py", "<mode>"]}

The extension's name comes from the manifest in its working directory.
"""
import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
NAME = json.load(open("extension.json"))["name"]
ADDITIONS = MODE == "ok-additions" or MODE.startswith("additions.")


def emit(frame):
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


def caps():
    c = ["commands", "tools", "panels", "tool_cancel"]
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
    version = 1 if MODE == "handshake.protocol_version" else 2
    name = "someone-else" if MODE == "handshake.name" else NAME
    emit({"type": "hello", "protocol_version": version, "name": name, "version": "1.0.0", "capabilities": caps()})


def register():
    emit({"type": "register_command", "name": "bad name" if MODE == "registration.commands" else "ping",
          "description": "answer pong", "complete": MODE in ("ok-additions", "additions.complete")})
    emit({"type": "register_command", "name": "panel", "description": "open a panel"})
    schema = dict(SCHEMA)
    if MODE == "registration.schema":
        schema["anyOf"] = [{"required": ["text"]}]
        del schema["required"]
    emit({"type": "register_tool", "name": "bash" if MODE == "registration.tools" else "echo",
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
    if MODE != "registration.ready":
        emit({"type": "ready"})
    if MODE == "registration.late":
        emit({"type": "subscribe", "events": events, "intercept": intercept})


def ask(method, params):
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
        ask("ui.select", {"message": "Which?", "options": []})
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
            ask(method, params)
        emit({"type": "print", "text": "pong", "style": "info", "renderer": "fancy"})
        emit({"type": "header", "text": "echo"})
        emit({"type": "status", "key": "echo", "text": "ready", "priority": 2})
    if MODE == "additions.ui":
        emit({"type": "print", "text": "pong", "style": "sparkly"})
    action = "explode" if MODE == "calls.command" else "display"
    emit({"type": "command_response", "id": rid, "action": action, "display": "pong"})
    if MODE == "calls.ids":
        emit({"type": "command_response", "id": "bogus-7", "action": "display", "display": "pong"})


def tool(msg):
    args = msg.get("args")
    text = args.get("text") if isinstance(args, dict) else None
    if MODE == "ok-additions":
        emit({"type": "tool_progress", "id": msg["id"], "text": "echoing"})
    if not isinstance(text, str):
        block = {"type": "bogus"} if MODE == "calls.tool_invalid" else {"type": "text", "text": "echo needs a string text"}
        emit({"type": "tool_result", "id": msg["id"], "is_error": True, "content": [block]})
        return
    block = {"type": "video"} if MODE == "calls.tool" else {"type": "text", "text": text}
    details = {"last": ("x" * (300 << 10)) if MODE == "state.details" else text}
    emit({"type": "tool_result", "id": msg["id"], "content": [block], "details": details})


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
    elif kind == "event_intercept":
        intercept(msg)
    elif kind == "event":
        if MODE == "events.deliver" and msg.get("event") == "turn_end":
            sys.exit(4)
        if MODE == "state.restore" and msg.get("event") == "session_switched" and "state" in msg:
            sys.exit(6)
    elif kind == "panel_key":
        pid = msg.get("panel_id")
        emit({"type": "panel_render", "panel_id": "other" if MODE == "panels.keys" else pid,
              "title": "Echoes", "lines": ["key " + msg.get("key", "")]})
    elif kind == "panel_close":
        panel_open.discard(msg.get("panel_id"))
        if MODE == "panels.close":
            emit({"type": "panel_render", "panel_id": msg.get("panel_id"), "lines": ["still here"]})
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
    for line in lines():
        handle(json.loads(line))
    if MODE == "robustness.stdin_closed":
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
