#!/usr/bin/env python3
"""ask: dialogs (ui.select, ui.confirm, ui.input) from a slash command and
from an interactive tool, in plain Python without an SDK.

Host requests are answered asynchronously, so every command and tool call
runs on a thread of its own while the main loop keeps reading stdin and
hands each host_response to the thread waiting for it.
"""
import json
import queue
import sys
import threading

_out = threading.Lock()
_waiting = {}          # request id -> queue of the host_response
_waiting_lock = threading.Lock()
_seq = [0]


def emit(frame):
    with _out:
        sys.stdout.write(json.dumps(frame) + "\n")
        sys.stdout.flush()


def ask(method, params):
    """Send a host_request and wait for its result; raise on an error."""
    with _waiting_lock:
        _seq[0] += 1
        rid = "ask-%d" % _seq[0]
        box = queue.Queue(maxsize=1)
        _waiting[rid] = box
    emit({"type": "host_request", "id": rid, "method": method, "params": params})
    resp = box.get()
    if resp is None:
        raise RuntimeError("the host went away")
    if resp.get("error"):
        raise RuntimeError(resp["error"])
    return resp.get("result") or {}


def deploy(msg):
    """/deploy: choose an environment, confirm, and leave a note."""
    try:
        env = ask("ui.select", {"title": "Deploy", "message": "Where to?",
                                "options": ["staging", "production"], "default": "staging"})
        if env["cancelled"]:
            reply = {"action": "display", "display": "deploy cancelled"}
        else:
            sure = ask("ui.confirm", {"message": "Deploy to %s now?" % env["value"],
                                      "default": env["value"] == "staging"})
            if sure["cancelled"] or not sure["value"]:
                reply = {"action": "display", "display": "not deployed to " + env["value"]}
            else:
                note = ask("ui.input", {"message": "Release note", "placeholder": "what changed"})
                text = note["value"] or "(no note)"
                reply = {"action": "prompt",
                         "prompt": "Write the commands to deploy to %s. Release note: %s" % (env["value"], text)}
    except RuntimeError as e:
        reply = {"error": "deploy: %s" % e}
    reply.update(type="command_response", id=msg["id"])
    emit(reply)


def ask_user(msg):
    """The ask_user tool: the model asks the user a question."""
    args = msg.get("args") or {}
    question = args.get("question") or "?"
    try:
        if args.get("choices"):
            r = ask("ui.select", {"message": question, "options": args["choices"]})
        else:
            r = ask("ui.input", {"message": question})
        if r["cancelled"]:
            content, is_error = "the user did not answer", True
        else:
            content, is_error = "the user answered: %s" % r["value"], False
    except RuntimeError as e:
        content, is_error = "could not ask the user: %s" % e, True
    emit({"type": "tool_result", "id": msg["id"], "is_error": is_error,
          "content": [{"type": "text", "text": content}]})


emit({"type": "hello", "protocol_version": 2, "name": "ask", "version": "1.0.0",
      "capabilities": ["commands", "tools", "host_requests"]})

for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello_ack":
        if "host_requests" not in msg.get("capabilities", []):
            sys.stderr.write("ask: this zut does not offer host_requests; the dialogs will fail\n")
        emit({"type": "register_command", "name": "deploy", "description": "choose, confirm and describe a deployment"})
        emit({"type": "register_tool", "name": "ask_user", "interactive": True,
              "description": "Ask the user a question and wait for the answer. Give choices for a multiple-choice question.",
              "schema": {"type": "object", "properties": {
                  "question": {"type": "string"},
                  "choices": {"type": "array", "items": {"type": "string"}}},
                  "required": ["question"]}})
        emit({"type": "ready"})
    elif kind == "host_response":
        with _waiting_lock:
            box = _waiting.pop(msg["id"], None)
        if box is not None:
            box.put(msg)
    elif kind == "command_invoked":
        threading.Thread(target=deploy, args=(msg,), daemon=True).start()
    elif kind == "tool_call":
        threading.Thread(target=ask_user, args=(msg,), daemon=True).start()
    elif kind == "shutdown":
        emit({"type": "shutdown_ack"})
        break

# stdin ended or shutdown: release the threads still waiting.
with _waiting_lock:
    for box in _waiting.values():
        box.put(None)
