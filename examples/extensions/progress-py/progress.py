#!/usr/bin/env python3
"""progress-py: a zut extension in raw Python (no SDK).

It speaks the extension protocol v2 and zut's additions beyond v2
(docs/protocol.md) with nothing but the standard library:

  - a `steps` tool that runs a task in numbered steps, reporting each one
    with tool_progress (every text replaces the previous one) and stopping
    on tool_cancel;
  - a `/steps [N]` command that asks how many steps with a ui.select
    dialog (a host request) and then submits a prompt;
  - ui2 frames: print, status with a priority, a right_bar widget, a tool
    renderer (render_tool), a shortcut, command completion;
  - the added interceptions input, before_agent_start and tool_result, and
    the added event agent_end.

Threads: the main thread is the reader. It reads stdin line by line and
never waits for anything else: a request from zut (command_invoked,
tool_call, event_intercept, render_tool, command_complete) gets a thread
of its own, and a host_response is handed to the thread waiting for it.
So a command can block on a dialog while other frames keep flowing.

On a zut without the additions (hello_ack.capabilities lacks them) it
says so once and keeps what works in protocol v2: /steps N and the tool.
"""

import json
import queue
import sys
import threading
import time

NAME = "progress-py"
WANTED = ["commands", "tools", "tool_cancel", "host_requests", "events2", "intercepts2", "ui2"]
ADDITIONS = ["host_requests", "events2", "intercepts2", "ui2"]
CHOICES = ["3", "5", "10"]
SHORTCUT = "ctrl+alt+s"
TOOL_SCHEMA = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1, "maximum": 50, "description": "how many steps"},
        "delay_ms": {"type": "integer", "minimum": 0, "maximum": 5000, "description": "pause per step, in milliseconds (default 200)"},
    },
    "required": ["count"],
}


def log(msg):
    """stderr goes to zut's log of this extension ($ZUT_HOME/logs/ext-progress-py.log)."""
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ the wire

_write_lock = threading.Lock()


def send(frame):
    """Writes one frame as one line. Several threads write, so one lock
    keeps their lines whole."""
    line = json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
    with _write_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class HostError(Exception):
    """A host_response with an error, or no answer because zut went away."""


_pending = {}  # host request id -> queue.Queue that gets its host_response
_pending_lock = threading.Lock()
_next_id = [0]


def host_request(method, params=None):
    """Sends a host_request and waits for its host_response; only the
    calling thread waits, the reader goes on. zut answers every request
    (a dialog nobody answers is cancelled after its timeout)."""
    with _pending_lock:
        _next_id[0] += 1
        rid = "r%d" % _next_id[0]
        answer = queue.Queue(maxsize=1)
        _pending[rid] = answer
    send({"type": "host_request", "id": rid, "method": method, "params": params or {}})
    resp = answer.get()
    if resp is None:
        raise HostError("%s: zut closed the connection" % method)
    if resp.get("error"):
        raise HostError(resp["error"])
    return resp.get("result") or {}


def route_host_response(frame):
    with _pending_lock:
        answer = _pending.pop(frame.get("id"), None)
    if answer is None:
        log("ignored host_response for unknown id %r" % frame.get("id"))
        return
    answer.put(frame)


def wake_all_waiters():
    """At the end of stdin nothing will answer: release every waiting thread."""
    with _pending_lock:
        waiting = list(_pending.values())
        _pending.clear()
    for answer in waiting:
        answer.put(None)


# ------------------------------------------------------------------ state

class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.caps = set()         # what hello_ack offers of ADDITIONS
        self.cancels = {}         # tool_call id -> threading.Event set by tool_cancel
        self.last_run = ""        # "3 of 3 steps done", for ?steps and the shortcut
        self.unreported = False   # last_run not yet told to the model
        self.updates = {}         # tool name "steps": progress updates of the last run

    def has(self, cap):
        return cap in self.caps


state = State()


def print_note(text, style="info"):
    """A transcript note (ui2 print), or a v2 notify on a zut without ui2."""
    if state.has("ui2"):
        send({"type": "print", "text": text, "style": style, "markdown": True})
    else:
        send({"type": "notify", "level": "error" if style == "error" else "info", "message": text})


# ------------------------------------------------------------------ commands

def on_command(frame):
    args = frame.get("args", "").strip()
    reply = {"type": "command_response", "id": frame["id"]}
    if args:
        if args not in CHOICES and not (args.isdigit() and 1 <= int(args) <= 50):
            reply.update(action="noop", error="/steps takes a number of steps from 1 to 50, for example: /steps 5")
            return send(reply)
        return send(dict(reply, action="prompt", prompt=steps_prompt(int(args))))
    if not state.has("host_requests"):
        reply.update(action="noop", error="/steps: this zut does not offer dialogs (capability host_requests, "
                     "docs/protocol.md \"Additions beyond v2\"); give the count instead: /steps 3")
        return send(reply)
    # This thread waits for the user; the reader keeps routing frames.
    try:
        answer = host_request("ui.select", {"title": "Steps", "message": "How many steps?", "options": CHOICES, "default": CHOICES[0]})
    except HostError as e:
        reply.update(action="noop", error="/steps: %s" % e)
        return send(reply)
    if answer.get("cancelled"):
        return send(dict(reply, action="display", display="steps: cancelled"))
    send(dict(reply, action="prompt", prompt=steps_prompt(int(answer["value"]))))


def steps_prompt(n):
    return "Run the steps tool with count %d and tell me when it is done." % n


def on_command_complete(frame):
    prefix = frame.get("prefix", "")
    send({"type": "command_completions", "id": frame["id"], "items": [c for c in CHOICES if c.startswith(prefix)]})


# ------------------------------------------------------------------ the tool

def int_arg(args, name, default, low, high):
    v = args.get(name, default)
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise ValueError("steps: %s must be an integer from %d to %d" % (name, low, high))
    return v


def bar(done, total, width=10):
    full = done * width // total
    return "[" + "#" * full + "." * (width - full) + "]"


def tool_result(cid, text, is_error=False):
    f = {"type": "tool_result", "id": cid, "content": [{"type": "text", "text": text}]}
    if is_error:
        f["is_error"] = True
    return f


def on_tool_call(frame):
    try:
        send(run_steps(frame))
    finally:
        with state.lock:
            state.cancels.pop(frame["id"], None)


def run_steps(frame):
    """Runs the steps and returns the tool_result frame."""
    cid, args = frame["id"], frame.get("args")
    if frame.get("name") != "steps" or not isinstance(args, dict):
        return tool_result(cid, "steps: the arguments must be an object such as {\"count\": 3}", True)
    try:
        count = int_arg(args, "count", None, 1, 50)
        delay = int_arg(args, "delay_ms", 200, 0, 5000)
    except ValueError as e:
        return tool_result(cid, str(e), True)
    with state.lock:
        cancelled = state.cancels.get(cid) or threading.Event()
    ui2 = state.has("ui2")
    if ui2:
        send({"type": "status", "key": "steps", "level": "info", "text": "steps 0/%d" % count, "priority": 5})
    done = 0
    while done < count and not cancelled.wait(delay / 1000.0):
        done += 1
        if ui2:
            # Each tool_progress replaces the previous one: send the whole line.
            send({"type": "tool_progress", "id": cid, "text": "step %d/%d %s" % (done, count, bar(done, count))})
            send({"type": "widget", "id": "steps", "position": "right_bar", "title": "Steps",
                  "lines": ["%d of %d" % (done, count), bar(done, count)]})
    with state.lock:
        state.last_run = "%d of %d steps done" % (done, count)
        state.unreported = True
        state.updates["steps"] = done if ui2 else 0
    if ui2:
        send({"type": "status", "key": "steps", "text": ""})
        send({"type": "widget_clear", "id": "steps"})
    if cancelled.is_set():
        # zut ignores a result after tool_cancel; the note tells the user.
        print_note("**steps** cancelled after %d of %d steps" % (done, count), "error")
        return tool_result(cid, "cancelled after %d of %d steps" % (done, count), True)
    print_note("**steps**: %d of %d done" % (done, count))
    return tool_result(cid, "ran %d of %d steps" % (done, count))


def on_tool_cancel(frame):
    with state.lock:
        ev = state.cancels.get(frame.get("id"))
    if ev is not None:
        ev.set()


def on_render_tool(frame):
    """The header of a steps call: once its arguments are complete (no
    result yet), and again with the result."""
    args = frame.get("args") or {}
    head = "steps: %s steps" % args.get("count", "?")
    if "result" in frame:
        head += " (failed)" if frame.get("is_error") else " (done)"
    send({"type": "render_tool_response", "id": frame["id"], "header": head})


# ------------------------------------------------------------------ events and interceptions

def on_intercept(frame):
    reply = {"type": "event_intercept_response", "id": frame["id"]}
    event = frame.get("event")
    if event == "input" and frame.get("text", "").strip() == "?steps":
        # Handled: nothing goes to the model.
        print_note("last steps run: %s" % (state.last_run or "none yet"))
        reply.update(action="handled")
    elif event == "before_agent_start":
        reply["system_prompt"] = "When a task has several steps, run the steps tool so that the user sees its progress."
        with state.lock:
            if state.unreported:
                # Saved before the prompt as a context block: the model sees
                # it, the user's own words (fork, previews) leave it out.
                reply["inject_text"] = "[%s] the last steps run: %s." % (NAME, state.last_run)
                state.unreported = False
    elif event == "tool_result" and frame.get("tool_name") == "steps" and not frame.get("is_error"):
        with state.lock:
            n = state.updates.get("steps", 0)
        reply["content"] = "%s\n(the user saw %d progress updates)" % (frame.get("content", ""), n)
    send(reply)


def on_event(frame):
    event = frame.get("event")
    if event == "session_start":
        with state.lock:
            state.last_run, state.unreported = "", False
    elif event == "agent_end" and state.has("ui2"):
        send({"type": "status", "key": "steps", "text": ""})


def on_shortcut(frame):
    print_note("last steps run: %s" % (state.last_run or "none yet"))


# ------------------------------------------------------------------ start and the reader

def handshake():
    send({"type": "hello", "protocol_version": 2, "name": NAME, "version": "1.0.0", "capabilities": WANTED})
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    ack = json.loads(line)
    if ack.get("type") != "hello_ack" or ack.get("protocol_version") != 2:
        log("%s: expected hello_ack of protocol 2, got %s; stopping" % (NAME, line.strip()))
        sys.exit(1)
    state.caps = set(ack.get("capabilities") or []) & set(ADDITIONS)
    missing = [c for c in ADDITIONS if c not in state.caps]

    complete = {"complete": True} if state.has("ui2") else {}
    send(dict({"type": "register_command", "name": "steps", "description": "run the steps tool (asks how many)"}, **complete))
    send({"type": "register_tool", "name": "steps", "description": "Run a task in numbered steps; the user sees the progress.", "schema": TOOL_SCHEMA})
    events = ["session_start"] + (["agent_end"] if state.has("events2") else [])
    intercept = ["input", "before_agent_start", "tool_result"] if state.has("intercepts2") else []
    send({"type": "subscribe", "events": events, "intercept": intercept})
    if state.has("ui2"):
        send({"type": "register_tool_renderer", "tool_name": "steps", "display_name": "Steps", "render_header": True})
        send({"type": "register_shortcut", "key": SHORTCUT, "description": "show the last steps run"})
    if missing:
        send({"type": "notify", "level": "warn", "message": "%s: this zut does not offer %s (docs/protocol.md \"Additions beyond v2\"): "
              "no dialogs, progress lines or interceptions; /steps N and the steps tool still work. Update zut for the rest."
              % (NAME, ", ".join(missing))})
    send({"type": "ready"})


HANDLERS = {
    "command_invoked": on_command,
    "command_complete": on_command_complete,
    "tool_call": on_tool_call,
    "render_tool": on_render_tool,
    "event_intercept": on_intercept,
    "event": on_event,
    "shortcut": on_shortcut,
}


def run_guarded(handler, frame):
    try:
        handler(frame)
    except Exception as e:  # a bug in one handler must not stop the reader
        log("%s failed on %s: %r" % (handler.__name__, frame.get("type"), e))


def main():
    handshake()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            frame = json.loads(line)
        except ValueError:
            log("skipped a line that is not JSON: %.80s" % line)
            continue
        if not isinstance(frame, dict):
            continue
        kind = frame.get("type")
        if kind == "host_response":
            route_host_response(frame)
        elif kind == "tool_cancel":
            on_tool_cancel(frame)
        elif kind == "shutdown":
            send({"type": "shutdown_ack"})
            break
        elif kind in HANDLERS:
            if kind == "tool_call":
                # Registered here, before the call's thread starts, so that
                # a tool_cancel read next always finds it.
                with state.lock:
                    state.cancels[frame.get("id")] = threading.Event()
            threading.Thread(target=run_guarded, args=(HANDLERS[kind], frame), daemon=True).start()
        elif kind != "host_stream":
            log("ignored a %s frame" % kind)
    wake_all_waiters()


if __name__ == "__main__":
    main()
