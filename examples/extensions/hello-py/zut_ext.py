"""zut_ext: the Python SDK for zut extensions.

An extension is a program that speaks zut's extension protocol v2 (and,
when it asks for them, zut's additions beyond v2) as JSON lines on its
stdin and stdout. This module does the handshake, the registrations and
the dispatch, so that an extension is a few handler functions:

    import zut_ext as zut

    ext = zut.Extension("hello", "1.0.0")

    @ext.command("hello", "say hi")
    def hello(args):
        return zut.prompt("Greet me in one short sentence.")

    ext.run()

Install: copy this one file next to your program. It needs Python 3.9 or
later and only the standard library. Documentation: docs/sdk-python.md
in the zut repository.

Threads, not asyncio. Every command, tool call and interception runs on
a worker thread of its own, so a handler may block: call a host request
such as ext.select(...), run a subprocess, sleep. Events and panel keys
run one at a time, in the order zut sent them, on one event thread, and
a command, tool call or interception starts only after the events that
came before it were handled. Every method of Extension is safe to call
from any thread.

A handler that raises produces an error reply (an is_error tool result, a
command error, an interception that allows the event) and a traceback in
the extension's log; the extension keeps running.

Capabilities: registrations declare the capability they need (an added
event with on(), an added interception, a shortcut, completion ...).
Methods used at run time that need an addition (ext.select, ext.print,
call.progress, ...) need it declared with ext.use(zut.HOST_REQUESTS, ...)
before run(). A method whose capability was not declared, or that the
host did not offer in hello_ack, raises CapabilityError at once; it never
waits for a timeout.

stdout carries the protocol. run() moves file descriptor 1 to stderr, so
print(), and subprocesses that inherit stdout, write to the extension's
log instead of corrupting a frame.
"""

import base64
import collections
import json
import os
import queue
import sys
import threading
import time
import traceback
import unicodedata

__version__ = "1.0.0"

PROTOCOL_VERSION = 2
MAX_LINE = 16 << 20

# The additions beyond protocol v2, one capability each.
HOST_REQUESTS = "host_requests"
EVENTS2 = "events2"
INTERCEPTS2 = "intercepts2"
UI2 = "ui2"
_ADDED = (HOST_REQUESTS, EVENTS2, INTERCEPTS2, UI2)
_V2_CAPS = ("commands", "tools", "alerts", "panels", "tool_cancel")

_V2_EVENTS = frozenset((
    "session_start", "session_opened", "session_switched", "session_forked",
    "session_compacted", "turn_start", "tool_call", "tool_confirmation_requested",
    "assistant_message", "turn_end"))
_EVENTS2 = frozenset((
    "session_shutdown", "agent_start", "agent_end", "tool_execution_start",
    "tool_execution_end", "tool_result", "input", "message_start", "message_update",
    "message_end", "model_change", "custom"))
_V2_INTERCEPTS = frozenset(("tool_call", "turn_start", "assistant_message"))
_INTERCEPTS2 = ("input", "before_agent_start", "tool_result", "context_prepare",
                "before_fork", "before_session_switch", "before_compact")

_MAX_EARLY = 256      # one-way frames kept until ready
_GRACE = 1.0          # seconds handlers get once the connection ends
_MAX_IDLE = 8         # idle worker threads kept

_local = threading.local()


# ---------------------------------------------------------------- errors

class ZutError(Exception):
    """The base of the SDK's errors."""


class CapabilityError(ZutError):
    """A method needs a capability that the extension did not declare
    (host False: call ext.use before run) or that the host did not offer
    in hello_ack (host True: use a zut that has it)."""

    def __init__(self, method, capability, host):
        self.method, self.capability, self.host = method, capability, host
        if host:
            msg = "%s: the host does not offer the capability %r; use a zut that does" % (method, capability)
        else:
            msg = "%s: needs the capability %r; call ext.use(%r) before run()" % (method, capability, capability)
        ZutError.__init__(self, msg)


class HostError(ZutError):
    """The host answered a request with an error (message is for a person)."""

    def __init__(self, method, message):
        self.method, self.message = method, message
        ZutError.__init__(self, message)


class ClosedError(ZutError):
    """The connection to the host has ended."""

    def __init__(self, what="extension connection closed"):
        ZutError.__init__(self, what)


class CancelledError(ZutError):
    """The tool call waiting for this request was cancelled."""

    def __init__(self, what="the tool call was cancelled"):
        ZutError.__init__(self, what)


# ---------------------------------------------------------------- values

class Record(dict):
    """A JSON object from the host: a dict whose members also read as
    attributes (ev.tool_name). A member that is absent reads as None; a
    trailing underscore reaches a keyword (ev.from_)."""

    __slots__ = ()

    def __getattr__(self, name):
        if name.endswith("_") and not name.startswith("_"):
            name = name[:-1]
        return self.get(name)

    def __setattr__(self, name, value):
        self[name] = value


def prompt(text):
    """A command response that submits text as a user prompt."""
    return {"action": "prompt", "prompt": text}


def insert(text):
    """A command response that puts text into the editor."""
    return {"action": "insert", "insert": text}


def display(text):
    """A command response that shows text as a note (no model call)."""
    return {"action": "display", "display": text}


def noop():
    """A command response that changes nothing."""
    return {"action": "noop"}


def error(message):
    """A command response that reports a failure; say what to do."""
    return {"action": "noop", "error": message}


def panel(id, lines, title="", footer=""):
    """A panel: id names it in render_panel, close_panel and panel keys."""
    p = {"id": id, "lines": list(lines)}
    if title:
        p["title"] = title
    if footer:
        p["footer"] = footer
    return p


def panel_response(p):
    """A command response that opens the panel p."""
    return {"action": "open_panel", "open_panel": p}


def text_result(text, **members):
    """A tool result with one text block; members such as details=...,
    activate_tools=[...] are added as they are."""
    r = {"content": [{"type": "text", "text": text}]}
    r.update(members)
    return r


def error_result(text, **members):
    """A failed tool result; the model sees text as the error."""
    return text_result(text, is_error=True, **members)


def image_result(mime_type, data, **members):
    """A tool result with one image; data is bytes (or base64 text)."""
    if isinstance(data, (bytes, bytearray)):
        data = base64.b64encode(data).decode("ascii")
    r = {"content": [{"type": "image", "mime_type": mime_type, "data": data}]}
    r.update(members)
    return r


# ------------------------------------------------------------ key names

# The one form of key names (docs/protocol.md, "Key names"): the same
# rules as zut's proto.CanonicalKey and the Node SDK; all three check the
# table proto/testdata/keys.txt.
_KEY_MODIFIERS = ("ctrl", "alt", "shift", "super", "hyper", "meta")
_MODIFIER_ALIASES = {"control": "ctrl", "option": "alt", "opt": "alt", "cmd": "super", "command": "super"}
_KEY_NAMES = {
    "enter": "enter", "return": "enter", "tab": "tab", "backspace": "backspace",
    "esc": "esc", "escape": "esc", "up": "up", "down": "down", "left": "left", "right": "right",
    "home": "home", "end": "end", "pageup": "pageup", "pgup": "pageup",
    "pagedown": "pagedown", "pgdn": "pagedown", "insert": "insert", "ins": "insert",
    "delete": "delete", "del": "delete", "begin": "begin",
}
_KEY_NAMES.update(("f%d" % i, "f%d" % i) for i in range(1, 13))
_SHIFT = 2


class KeyNameError(ValueError):
    """A key name no key has: key is the name as given, reason says what
    is wrong and what to write instead."""

    def __init__(self, key, reason):
        super().__init__("key %s: %s" % (json.dumps(key, ensure_ascii=False), reason))
        self.key, self.reason = key, reason


def canonical_key(name):
    """Returns the form in which zut names the key called name:
    "Alt + Ctrl + P" is "ctrl+alt+p", "shift+a" is "A", "escape" is "esc".
    Raises KeyNameError for a name no key has. shortcut() and set_editor()
    use it; compare the key of an editor key with its result."""
    key, reason = _canonical_key(name)
    if reason:
        raise KeyNameError(name, reason)
    return key


def _canonical_key(s):
    """(canonical name, "") or ("", the reason s names no key)."""
    if not isinstance(s, str):
        return "", "a key name is a string"
    s = "".join(c for c in s if c != " " and not "\t" <= c <= "\r")
    if not s:
        return "", 'no key name; name a key such as "ctrl+alt+p" (the space bar is "space")'
    for c in s:
        o = ord(c)
        if c == "\ufffd" or 0xD800 <= o <= 0xDFFF:
            return "", "not a valid character"
        if o < 0x20 or 0x7F <= o <= 0x9F:
            return "", 'a control character is not a key; name the key instead ("enter", "tab", "ctrl+a")'
    mods, has_mods = "", False
    if s == "+":
        name = "+"
    elif s.endswith("++"):
        name, mods, has_mods = "+", s[:-2], True
    elif s.endswith("+"):
        return "", 'ends with "+"; name the key after the last "+" ("ctrl++" is Ctrl with +)'
    elif "+" in s:
        i = s.rindex("+")
        name, mods, has_mods = s[i + 1:], s[:i], True
    else:
        name = s
    on = [False] * len(_KEY_MODIFIERS)
    if has_mods:
        for m in mods.split("+"):
            if not m:
                return "", 'an empty modifier: "+" joins a modifier (ctrl, alt, shift, super, hyper, meta) to what follows'
            i = _modifier_index(m)
            if i < 0 and _is_key_name(m):
                return "", '"%s" is a key, not a modifier; the key comes last, as in "ctrl+%s"' % (m, _ascii_lower(m))
            if i < 0:
                return "", 'unknown modifier "%s"; the modifiers are ctrl, alt, shift, super, hyper and meta' % m
            if on[i]:
                return "", 'modifier "%s" given twice' % _KEY_MODIFIERS[i]
            on[i] = True
    lower = _ascii_lower(name)
    if _modifier_index(name) >= 0:
        return "", '"%s" is a modifier, not a key; add the key after it, as in "%s+tab"' % (name, lower)
    if lower in _KEY_NAMES:
        name = _KEY_NAMES[lower]
    elif lower == "space":
        name = "space"
    elif lower == "rune":
        return "", '"rune" is only a panel_key name; name the character itself'
    elif len(name) == 1:
        others = any(v and i != _SHIFT for i, v in enumerate(on))
        if others:
            name = _lower_partner(name) or name
        elif on[_SHIFT]:
            up = _upper_partner(name)
            if up:
                name = up
            elif not _lower_partner(name):
                return "", ('Shift with "%s" is never reported: the terminal sends the character Shift types, '
                            'so claim that (Shift+1 is "!" on a US keyboard)' % name)
            on[_SHIFT] = False
    else:
        return "", ('unknown key name "%s"; a key is one character, "space", or one of enter, tab, backspace, esc, '
                    'up, down, left, right, home, end, pageup, pagedown, insert, delete, begin, f1 to f12' % name)
    return "".join(m + "+" for m, v in zip(_KEY_MODIFIERS, on) if v) + name, ""


def _modifier_index(m):
    m = _ascii_lower(m)
    m = _MODIFIER_ALIASES.get(m, m)
    return _KEY_MODIFIERS.index(m) if m in _KEY_MODIFIERS else -1


def _is_key_name(s):
    s = _ascii_lower(s)
    return s in _KEY_NAMES or s in ("space", "rune")


def _lower_partner(c):
    """The lower-case letter of the upper-case letter c when the two are a
    pair both ways (categories Lu and Ll), else None."""
    lo = c.lower()
    if len(lo) == 1 and unicodedata.category(c) == "Lu" and unicodedata.category(lo) == "Ll" and lo.upper() == c:
        return lo
    return None


def _upper_partner(c):
    """_lower_partner the other way."""
    up = c.upper()
    if len(up) == 1 and unicodedata.category(c) == "Ll" and unicodedata.category(up) == "Lu" and up.lower() == c:
        return up
    return None


def _ascii_lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


class Call:
    """A running tool call: its id and name, whether it was cancelled, and
    a way to report progress. cancelled is a threading.Event, set when
    zut abandons the call (tool_cancel), at shutdown and when the
    connection ends; a host request made while the call runs then raises
    CancelledError. A result returned after cancellation is dropped."""

    __slots__ = ("id", "name", "cancelled", "_ext", "_pending")

    def __init__(self, ext, id, name):
        self.id, self.name, self._ext = id, name, ext
        self.cancelled = threading.Event()
        self._pending = set()

    def progress(self, text):
        """Shows text as the call's progress line (capability ui2)."""
        self._ext._send_added("progress", UI2, {"type": "tool_progress", "id": self.id, "text": text})

    def _cancel(self, err):
        self.cancelled.set()
        for p in list(self._pending):
            p.put(("error", err))


class _Pending:
    """A host request waiting for its host_response."""

    __slots__ = ("q", "call")

    def __init__(self, call):
        self.q = queue.SimpleQueue()
        self.call = call

    def put(self, item):
        self.q.put(item)


class _Pool:
    """Worker threads for handlers: an idle worker takes the next job, and
    a new thread starts when none is idle, so a handler that waits never
    holds up another."""

    def __init__(self):
        self._q = queue.SimpleQueue()
        self._lock = threading.Condition()
        self._idle = 0
        self._active = 0

    def submit(self, job):
        with self._lock:
            self._active += 1
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1
        if spawn:
            threading.Thread(target=self._work, daemon=True, name="zut-handler").start()
        self._q.put(job)

    def _work(self):
        while True:
            job = self._q.get()
            try:
                job()
            except BaseException:  # jobs guard themselves; never lose a worker silently
                traceback.print_exc()
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    self._lock.notify_all()
                if self._idle >= _MAX_IDLE:
                    return
                self._idle += 1

    def wait(self, timeout):
        """Waits up to timeout seconds for the running jobs; True when none is left."""
        end = time.monotonic() + timeout
        with self._lock:
            while self._active > 0:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True


def _describe(exc):
    text = str(exc)
    return "%s: %s" % (type(exc).__name__, text) if text else type(exc).__name__


def _decorator(register, handler):
    if handler is not None:
        register(handler)
        return handler

    def wrap(fn):
        register(fn)
        return fn
    return wrap


# ---------------------------------------------------------------- extension

class Extension:
    """One extension: its registrations and handlers and, while run()
    serves, its connection to zut. name must equal the name in
    extension.json."""

    def __init__(self, name, version="0.0.0"):
        self.name = name
        self.version = version
        self.host = None  # the hello_ack, a Record, once run() has it
        self._lock = threading.RLock()
        self._caps = set()
        self._hello_caps = None
        self._regs = []
        self._commands = {}
        self._completions = {}
        self._tools = {}
        self._events = {}
        self._intercepts = {}
        self._customs = {}
        self._on_hello = []
        self._panel_keys = []
        self._panel_closes = []
        self._shortcuts = {}
        self._editor_fn = None
        self._renderers = {}
        self._msg_renderers = {}
        self._early = []
        self._subscribed = set()
        self._intercepted = set()
        self._calls = {}
        self._pending = {}
        self._seq = 0
        self._out = None
        self._wlock = threading.Lock()
        self._acked = False
        self._ready = False
        self._closed = False
        self._ended = False
        self._pool = _Pool()
        self._scond = threading.Condition()
        self._squeue = collections.deque()
        self._sbusy = False
        self._stopping = False
        self._dispatch = {
            "tool_call": self._on_tool_call,
            "tool_cancel": self._on_tool_cancel,
            "command_invoked": self._on_command,
            "event_intercept": self._on_intercept,
            "event": self._on_event,
            "panel_key": self._on_panel_key,
            "panel_close": self._on_panel_close,
            "host_response": self._on_host_response,
            "host_stream": self._on_host_stream,
            "shortcut": self._on_shortcut,
            "command_complete": self._on_command_complete,
            "editor_key": self._on_editor_key,
            "render_tool": self._on_render_tool,
            "render_message": self._on_render_message,
            "hello_ack": lambda f: self.log("ignored a second hello_ack"),
        }

    # ------------------------------------------------------------ registration

    def use(self, *capabilities):
        """Declares additions (HOST_REQUESTS, EVENTS2, INTERCEPTS2, UI2)
        that handlers use at run time. Call it before run()."""
        with self._lock:
            for c in capabilities:
                self._declare(c)

    def offers(self, capability):
        """Reports whether the host offered capability in hello_ack."""
        h = self.host
        return bool(h) and capability in (h.get("capabilities") or ())

    def on_hello(self, fn=None):
        """Adds fn(host) to run after hello_ack and before ready;
        registrations made there are announced before ready. Usable as a
        decorator."""
        def reg(f):
            with self._lock:
                self._on_hello.append(f)
        return _decorator(reg, fn)

    def command(self, name, description="", handler=None, complete=None):
        """Registers /name. handler(args) gets the text after the name and
        returns a response (prompt(...), display(...), ...), a str (shown
        as a note) or None (noop). complete(prefix), when given, returns
        completions of the arguments (capability ui2, declared here).
        Usable as a decorator."""
        def reg(fn):
            with self._lock:
                key = name.lower()
                again = key in self._commands
                self._commands[key] = (name, fn)
                if complete is not None:
                    self._declare(UI2)
                    self._completions[key] = complete
                if not again:
                    f = {"type": "register_command", "name": name}
                    if description:
                        f["description"] = description
                    if complete is not None:
                        f["complete"] = True
                    self._register(f)
        return _decorator(reg, handler)

    def tool(self, name, description="", schema=None, handler=None, deferred=False, interactive=False):
        """Registers a tool the model can call. schema is the JSON Schema
        (a dict) of its arguments. handler(args, call) gets the arguments
        (a dict, which it must validate) and a Call, and returns a str, a
        tool result (text_result(...), ...) or None. deferred hides the
        tool until a result names it in activate_tools; interactive
        removes the host's 60 s deadline (for a tool that waits for a
        person). Usable as a decorator."""
        def reg(fn):
            with self._lock:
                again = name in self._tools
                self._tools[name] = fn
                if not again:
                    f = {"type": "register_tool", "name": name}
                    if description:
                        f["description"] = description
                    if schema is not None:
                        f["schema"] = schema
                    if deferred:
                        f["deferred"] = True
                    if interactive:
                        f["interactive"] = True
                    self._register(f)
        return _decorator(reg, handler)

    def on(self, event, handler=None):
        """Subscribes handler(ev) to the event named event; ev is the event
        frame as a Record (ev.session, ev.state, ev.step, ev.tool_name ...).
        An event added beyond v2 declares EVENTS2. Usable as a decorator."""
        def reg(fn):
            with self._lock:
                if event in _EVENTS2:
                    self._declare(EVENTS2)
                self._events.setdefault(event, []).append(fn)
                self._subscribe(event, False)
        return _decorator(reg, handler)

    def on_custom(self, name, handler=None):
        """Adds handler(ev) for custom events named name ("" for all) that
        other extensions emit; ev.name, ev.data, ev.from_. Declares EVENTS2."""
        def reg(fn):
            with self._lock:
                self._declare(EVENTS2)
                self._customs.setdefault(name, []).append(fn)
                self._subscribe("custom", False)
        return _decorator(reg, handler)

    def intercept(self, event, handler=None):
        """Adds an interceptor handler(ev) of event: it gets the
        event_intercept frame as a Record and returns None (allow, change
        nothing) or a dict of event_intercept_response members (block,
        reason, modified_args, context, replace_text, action, text,
        system_prompt, inject_text, content, is_error, messages, cancel).
        Several interceptors run in the order added; a rewrite is what the
        next one sees and a block, cancel or handled ends the chain. An
        interception added beyond v2 declares INTERCEPTS2. Usable as a
        decorator."""
        def reg(fn):
            with self._lock:
                if event not in _V2_INTERCEPTS:
                    self._declare(INTERCEPTS2)
                self._intercepts.setdefault(event, []).append(fn)
                self._subscribe(event, True)
        return _decorator(reg, handler)

    def on_panel_key(self, fn):
        """Adds fn(key) for keys pressed in the extension's panel; key has
        panel_id, key (up, down, enter, esc, rune, ...) and text."""
        with self._lock:
            self._panel_keys.append(fn)
        return fn

    def on_panel_close(self, fn):
        """Adds fn(panel_id), run when the user closed the panel or another
        panel took its place."""
        with self._lock:
            self._panel_closes.append(fn)
        return fn

    def shortcut(self, key, description="", handler=None):
        """Claims the editor key (such as "ctrl+alt+p"); handler() runs on a
        worker thread each time it is pressed. Declares UI2. Usable as a
        decorator. The key may be spelled in any way canonical_key()
        accepts ("Alt + Ctrl + P"); a name no key has is logged, and zut
        refuses it with a note in the chat."""
        if not isinstance(key, str):
            raise TypeError("shortcut key must be a str, not %s" % type(key).__name__)
        canon, reason = _canonical_key(key)
        if reason:
            self.log("shortcut: %s; zut will refuse it" % KeyNameError(key, reason))

        def reg(fn):
            with self._lock:
                self._declare(UI2)
                if reason:
                    f = {"type": "register_shortcut", "key": key}
                    if description:
                        f["description"] = description
                    self._register(f)
                    return
                again = canon in self._shortcuts
                self._shortcuts[canon] = fn
                if not again:
                    f = {"type": "register_shortcut", "key": canon}
                    if description:
                        f["description"] = description
                    self._register(f)
        return _decorator(reg, handler)

    def tool_renderer(self, tool_name, header=None, body=None, display_name="", border_color="", body_markdown=False):
        """Changes how calls of tool_name are shown: header(args, width)
        returns the header line, body(result, is_error, width) the body;
        "" keeps the default. Declares UI2."""
        with self._lock:
            self._declare(UI2)
            again = tool_name in self._renderers
            self._renderers[tool_name] = (header, body)
            if not again:
                f = {"type": "register_tool_renderer", "tool_name": tool_name}
                for k, v in (("display_name", display_name), ("border_color", border_color),
                             ("body_markdown", body_markdown), ("render_header", header is not None),
                             ("render_body", body is not None)):
                    if v:
                        f[k] = v
                self._register(f)

    def message_renderer(self, name, handler=None):
        """Registers the renderer name for print(..., renderer=name) notes:
        handler(content, width) returns the lines. Declares UI2."""
        def reg(fn):
            with self._lock:
                self._declare(UI2)
                again = name in self._msg_renderers
                self._msg_renderers[name] = fn
                if not again:
                    self._register({"type": "register_message_renderer", "name": name})
        return _decorator(reg, handler)

    def register_option(self, name, description="", default=""):
        """Declares an option the user can set ($ZUT_OPT_<NAME> or
        options.<name> in config.json); read it with option(name).
        Declares HOST_REQUESTS."""
        with self._lock:
            self._declare(HOST_REQUESTS)
            f = {"type": "register_option", "name": name}
            if description:
                f["description"] = description
            if default:
                f["default"] = default
            self._register(f)

    def _declare(self, cap):
        self._caps.add(cap)
        if self._hello_caps is not None and cap not in self._hello_caps:
            self.log("capability %r is used after the hello was sent; declare it with ext.use before run()" % cap)

    def _register(self, frame):
        self._regs.append(frame)
        if self._ready:
            self._write_quiet(frame)

    def _subscribe(self, event, intercept):
        if not self._ready:
            return
        done = self._intercepted if intercept else self._subscribed
        if event not in done:
            done.add(event)
            self._write_quiet({"type": "subscribe", ("intercept" if intercept else "events"): [event]})

    # ------------------------------------------------------------ one-way frames

    def notify(self, message, level="info"):
        """Shows a one-shot note; level is info, success, warn or error."""
        self._send({"type": "notify", "level": level, "message": message})

    def clear_notes(self):
        """Removes this extension's notes."""
        self._send({"type": "clear_notes"})

    def alert(self, reason="", kind="bell"):
        """Asks for a terminal bell; reason is metadata, never shown."""
        f = {"type": "alert", "kind": kind}
        if reason:
            f["reason"] = reason
        self._send(f)

    def set_status(self, key, text, level="info", priority=0):
        """Sets the status item key ("" text removes it). A priority (lower
        is further left) needs UI2."""
        f = {"type": "status", "key": key, "level": level, "text": text}
        if priority:
            self._needs("set_status priority", UI2)
            f["priority"] = priority
        self._send(f)

    def clear_status(self, key):
        """Removes the status item key."""
        self._send({"type": "status", "key": key, "text": ""})

    def set_widget(self, id, lines, title="", position="above_input", **style):
        """Sets the widget id at position above_input, below_input or
        right_bar (any extension). The style members (priority, markdown,
        border_color, no_border) need UI2."""
        f = {"type": "widget", "id": id, "position": position, "lines": list(lines)}
        if title:
            f["title"] = title
        if style:
            self._needs("set_widget style", UI2)
            f.update(style)
        self._send(f)

    def clear_widget(self, id):
        """Removes the widget id."""
        self._send({"type": "widget_clear", "id": id})

    def submit(self, text):
        """Queues text as a user prompt (interactive mode)."""
        self._send({"type": "submit", "text": text})

    def submit_slash(self, text):
        """Runs "/name args" as if the user typed it."""
        self._send({"type": "submit_slash", "text": text})

    def open_panel(self, p):
        """Opens the panel p (see panel()) without a command, for example
        from an interactive tool. From a command return panel_response(p)."""
        self._send({"type": "open_panel", "panel": p})

    def render_panel(self, p):
        """Redraws the open panel p["id"]."""
        f = {"type": "panel_render", "panel_id": p["id"]}
        for k in ("title", "lines", "footer"):
            if k in p:
                f[k] = p[k]
        self._send(f)

    def close_panel(self, panel_id):
        """Closes the panel panel_id."""
        self._send({"type": "panel_close", "panel_id": panel_id})

    def print(self, text, style="plain", **members):
        """Adds a transcript note, never sent to the model (UI2). style is
        plain, info, error or block; members: markdown, border_color,
        subtitle, renderer."""
        f = {"type": "print", "text": text, "style": style}
        f.update(members)
        self._send_added("print", UI2, f)

    def set_header(self, text, **members):
        """Shows the extension's header (UI2); members: markdown, border_color."""
        self._send_added("set_header", UI2, dict(members, type="header", text=text))

    def clear_header(self):
        """Removes the header (UI2)."""
        self._send_added("clear_header", UI2, {"type": "header_clear"})

    def set_footer(self, text, **members):
        """Shows the extension's footer (UI2)."""
        self._send_added("set_footer", UI2, dict(members, type="footer", text=text))

    def clear_footer(self):
        """Removes the footer (UI2)."""
        self._send_added("clear_footer", UI2, {"type": "footer_clear"})

    def set_ui_visibility(self, **hide):
        """Replaces what the extension asks to hide (UI2): hide_startup_message,
        hide_status_bar, hide_separator, hide_input_hint."""
        self._send_added("set_ui_visibility", UI2, dict(hide, type="ui_visibility"))

    def set_editor(self, keys, handler):
        """Asks for the editor keys (UI2): handler(key) gets key.key and
        key.text and returns quickly (zut waits 200 ms) one of
        {"action": "passthrough" | "consumed"}, {"action": "remap",
        "key": k} or {"action": "submit", "text": t}; None passes through.
        Keys may be spelled in any way canonical_key() accepts; key.key is
        the canonical name."""
        self._needs("set_editor", UI2)
        canon = []
        for k in keys:
            c, reason = _canonical_key(k)
            if reason:
                self.log("set_editor: %s; zut will refuse it" % KeyNameError(k, reason))
                c = k
            canon.append(c)
        with self._lock:
            self._editor_fn = handler
        self._send({"type": "set_editor", "keys": canon})

    def reset_editor(self):
        """Gives every key back to the editor (UI2)."""
        self._needs("reset_editor", UI2)
        with self._lock:
            self._editor_fn = None
        self._send({"type": "reset_editor"})

    def log(self, message):
        """Writes one line to the extension's log (stderr)."""
        line = "%s %s: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), self.name, str(message).rstrip("\n"))
        try:
            sys.stderr.write(line)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------ host requests

    def request(self, method, params=None, on_chunk=None):
        """Sends the host request method with params (a dict) and waits for
        the result (a Record); on_chunk(text) gets streamed text on the
        calling thread. Raises CapabilityError without HOST_REQUESTS,
        HostError when the host answers with an error, CancelledError when
        the calling tool call is cancelled, ClosedError when the
        connection ends."""
        self._needs(method, HOST_REQUESTS)
        if not self._ready:
            if self._ended:
                raise ClosedError("%s: extension connection closed" % method)
            raise ZutError("%s: the handshake with the host has not finished; call it from a handler, after run() started" % method)
        call = getattr(_local, "call", None)
        p = _Pending(call)
        with self._lock:
            if self._closed:
                raise ClosedError("%s: extension connection closed" % method)
            self._seq += 1
            rid = "h%d" % self._seq
            self._pending[rid] = p
            if call is not None:
                call._pending.add(p)
        try:
            if call is not None and call.cancelled.is_set():
                raise CancelledError("%s: the tool call was cancelled" % method)
            self._write({"type": "host_request", "id": rid, "method": method, "params": params or {}})
            while True:
                kind, val = p.q.get()
                if kind == "chunk":
                    if on_chunk is not None:
                        self._guard("%s chunk callback" % method, on_chunk, val)
                    continue
                if kind == "error":
                    if isinstance(val, CancelledError):
                        raise CancelledError("%s: the tool call was cancelled" % method)
                    if isinstance(val, ClosedError):
                        raise ClosedError("%s: extension connection closed" % method)
                    raise val
                if val.get("error"):
                    raise HostError(method, val["error"])
                res = val.get("result")
                return res if isinstance(res, Record) else Record()
        finally:
            with self._lock:
                self._pending.pop(rid, None)
                if call is not None:
                    call._pending.discard(p)

    def select(self, message, options, **params):
        """Asks the user to choose one of options; params: title, default,
        timeout_ms, border_color. Returns value, index, cancelled."""
        return self.request("ui.select", dict(params, message=message, options=list(options)))

    def confirm(self, message, **params):
        """Asks a yes/no question; params: title, default (bool), timeout_ms.
        Returns value (bool), cancelled."""
        return self.request("ui.confirm", dict(params, message=message))

    def input(self, message, **params):
        """Asks for a line of text; params: title, placeholder, default,
        timeout_ms. Returns value, cancelled."""
        return self.request("ui.input", dict(params, message=message))

    def overlay(self, text, **params):
        """Shows a modal dialog; params: title, markdown, actions, width,
        max_height, anchor, border_color, timeout_ms. Returns action,
        index, cancelled."""
        return self.request("ui.overlay", dict(params, text=text))

    def messages(self):
        """The messages of the current branch, as sent to the model."""
        return self.request("session.messages").get("messages") or []

    def session_info(self):
        """The open session: id, path, cwd, title, branch."""
        return self.request("session.info")

    def context_stats(self):
        """estimated_tokens, context_limit, usage_percent, message_count."""
        return self.request("session.context_stats")

    def append_entry(self, entry_type, data):
        """Saves data on the current branch as a custom entry; returns its id."""
        return self.request("session.append_entry", {"entry_type": entry_type, "data": data}).get("id")

    def entries(self, entry_type=""):
        """The extension's custom entries (of entry_type) on the branch, oldest first."""
        params = {"entry_type": entry_type} if entry_type else {}
        return self.request("session.entries", params).get("entries") or []

    def model(self):
        """The current model: model ("provider/id"), provider, id, context_window, max_output."""
        return self.request("model.get")

    def set_model(self, model):
        """Switches to model ("provider/id"); fails while a prompt runs."""
        return self.request("model.set", {"model": model})

    def models(self):
        """Every model zut knows."""
        return self.request("model.list").get("models") or []

    def tools(self):
        """Every tool: name, description, source, extension, enabled."""
        return self.request("tools.list").get("tools") or []

    def set_active_tools(self, names):
        """Offers the model only the tools names from the next request on;
        None offers every tool again."""
        self.request("tools.set_active", {"names": None if names is None else list(names)})

    def complete(self, prompt, on_chunk=None, **params):
        """One model call outside the conversation; params: model, system,
        max_tokens. on_chunk(text) gets the text as it streams. Returns
        text, input_tokens, output_tokens, model."""
        params["prompt"] = prompt
        if on_chunk is not None:
            params["stream"] = True
        return self.request("llm.complete", params, on_chunk)

    def option(self, name):
        """The value of the option name (set, environment, config or default)."""
        return self.request("options.get", {"name": name}).get("value") or ""

    def set_option(self, name, value):
        """Sets the option name for the rest of this run of zut."""
        return self.request("options.set", {"name": name, "value": value})

    def send(self, text, mode="queue"):
        """Submits text as a prompt: mode queue, steer or interrupt."""
        self.request("app.send", {"text": text, "mode": mode})

    def exit(self):
        """Asks zut to quit."""
        self.request("app.exit")

    def reload(self):
        """Restarts every extension, this one too."""
        try:
            self.request("app.reload_extensions")
        except ClosedError:
            pass

    def emit_custom(self, name, data=None):
        """Sends the custom event name with data to the other extensions."""
        self.request("app.notify_custom", {"name": name, "data": data})

    def set_editor_text(self, text):
        """Replaces the text in the user's editor."""
        self.request("editor.set_text", {"text": text})

    def suspend_tui(self, fn):
        """Releases the terminal, runs fn() (which may use /dev/tty), then
        takes it back. Without a terminal UI fn runs all the same."""
        r = self.request("tui.suspend")
        try:
            return fn()
        finally:
            if r.get("suspended"):
                self.request("tui.resume")

    # ------------------------------------------------------------ serving

    def run(self):
        """Serves the extension on stdin and stdout until zut sends shutdown
        (answered with shutdown_ack) or closes stdin, then returns. It
        sends hello, waits for hello_ack, runs the on_hello functions,
        announces the registrations and sends ready. On a protocol error
        it logs why and exits with status 1."""
        with self._lock:
            if self._out is not None:
                raise ZutError("run extension %r: it is already running" % self.name)
            self._out = os.dup(1)
        os.dup2(2, 1)
        try:
            sys.stdout.flush()  # what was printed before run goes to the log
        except (OSError, ValueError):
            pass
        sys.stdout = sys.stderr
        err = self._serve(sys.stdin.buffer)
        if err:
            self.log(err)
            sys.exit(1)

    def _serve(self, rf):
        with self._lock:
            caps = list(_V2_CAPS) + [c for c in _ADDED if c in self._caps]
            self._hello_caps = set(caps)
        threading.Thread(target=self._serial, daemon=True, name="zut-events").start()
        try:
            self._write({"type": "hello", "protocol_version": PROTOCOL_VERSION, "name": self.name,
                         "version": self.version, "capabilities": caps})
        except ZutError as e:
            self._end()
            return "run extension %r: %s" % (self.name, e)
        err = None
        loads = json.loads
        while True:
            try:
                line = rf.readline(MAX_LINE + 1)
            except (OSError, ValueError) as e:
                err = "run extension %r: read from the host: %s" % (self.name, e)
                break
            if not line:
                if not self._acked:
                    err = "run extension %r: the host closed stdin before hello_ack" % self.name
                break
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while True:
                    rest = rf.readline(1 << 20)
                    if not rest or rest.endswith(b"\n"):
                        break
                self.log("skipped a line from the host longer than %d bytes" % MAX_LINE)
                continue
            try:
                f = loads(line, object_hook=Record)
            except (ValueError, RecursionError) as e:  # RecursionError: nested too deep
                if line.strip():
                    self.log("skipped a line from the host that is not JSON: %s" % e)
                continue
            if not isinstance(f, dict):
                self.log("skipped a line from the host that is not a JSON object")
                continue
            t = f.get("type")
            if not isinstance(t, str):
                self.log("skipped a frame from the host without a type")
                continue
            if t == "shutdown":
                self._write_quiet({"type": "shutdown_ack"})
                break
            if not self._acked:
                if t != "hello_ack":
                    self.log("ignored a %s frame that came before hello_ack" % t)
                    continue
                err = self._hello_ack(f)
                if err:
                    break
                continue
            h = self._dispatch.get(t)
            if h is None:
                self.log("ignored a frame of type %r" % t)
                continue
            try:
                h(f)
            except Exception:
                self.log("could not handle a %s frame:\n%s" % (t, traceback.format_exc()))
        self._end()
        return err

    def _hello_ack(self, f):
        if f.get("protocol_version") != PROTOCOL_VERSION:
            return ("run extension %r: the host speaks protocol_version %r, this SDK speaks %d; "
                    "use a zut and an SDK of the same protocol" % (self.name, f.get("protocol_version"), PROTOCOL_VERSION))
        self.host = f
        self._acked = True
        for fn in list(self._on_hello):
            self._guard("on_hello function", fn, f)
        with self._lock:
            for r in self._regs:
                self._write_quiet(r)
            events = sorted(self._events)
            if self._customs and "custom" not in self._events:
                events.append("custom")
            inter = [e for e in ("tool_call", "turn_start", "assistant_message") + _INTERCEPTS2 if self._intercepts.get(e)]
            inter += sorted(e for e in self._intercepts if e not in inter)
            if events or inter:
                s = {"type": "subscribe"}
                if events:
                    s["events"] = events
                if inter:
                    s["intercept"] = inter
                self._subscribed.update(events)
                self._intercepted.update(inter)
                self._write_quiet(s)
            self._write_quiet({"type": "ready"})
            self._ready = True
            early, self._early = self._early, []
            for fr in early:
                self._write_quiet(fr)
        return None

    def _end(self):
        with self._lock:
            self._closed = True
            self._ready = False
            self._ended = True
            calls = list(self._calls.values())
            self._calls.clear()
            pending = list(self._pending.values())
            self._early = []
        closed = ClosedError()
        for c in calls:
            c._cancel(closed)
        for p in pending:
            p.put(("error", closed))
        with self._scond:
            self._stopping = True
            self._scond.notify_all()
        if not self._pool.wait(_GRACE):
            self.log("handlers still running %.0f s after the connection ended; they ignore call.cancelled" % _GRACE)

    # ------------------------------------------------------------ writing

    def _write(self, frame):
        data = json.dumps(frame, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._wlock:
            if self._closed:
                raise ClosedError()
            try:
                view = memoryview(data)
                while view:
                    n = os.write(self._out, view)
                    view = view[n:]
            except OSError as e:
                self._closed = True
                raise ClosedError("write %s frame to the host: %s" % (frame.get("type"), e))
            if frame.get("type") == "shutdown_ack":
                self._closed = True

    def _write_quiet(self, frame):
        try:
            self._write(frame)
        except ClosedError:
            pass
        except (TypeError, ValueError) as e:
            self.log("could not encode a %s frame: %s" % (frame.get("type"), e))

    def _send(self, frame):
        with self._lock:
            if self._ended:
                raise ClosedError()
            if not self._ready:
                if len(self._early) >= _MAX_EARLY:
                    raise ZutError("send %s: %d frames already wait for the connection to the host" % (frame["type"], _MAX_EARLY))
                self._early.append(frame)
                return
        self._write(frame)

    def _send_added(self, method, cap, frame):
        self._needs(method, cap)
        self._send(frame)

    def _needs(self, method, cap):
        declared = cap in (self._hello_caps if self._hello_caps is not None else self._caps)
        if not declared:
            raise CapabilityError(method, cap, False)
        if self._acked and not self.offers(cap):
            raise CapabilityError(method, cap, True)

    def _reply(self, frame):
        try:
            self._write(frame)
        except ClosedError:
            pass

    # ------------------------------------------------------------ dispatch

    def _guard(self, what, fn, *args):
        """Runs fn(*args); an exception is logged with its traceback and
        returned as the second value."""
        try:
            return fn(*args), None
        except Exception as e:
            self.log("%s raised %s\n%s" % (what, _describe(e), traceback.format_exc()))
            return None, e

    def _serial(self):
        q, cond = self._squeue, self._scond
        while True:
            with cond:
                while not q and not self._stopping:
                    self._sbusy = False
                    cond.wait()
                if self._stopping:
                    return
                fn = q.popleft()
                self._sbusy = True
            try:
                fn()
            except Exception:
                self.log("event handler failed:\n%s" % traceback.format_exc())

    def _serially(self, fn):
        with self._scond:
            self._squeue.append(fn)
            self._scond.notify()

    def _after_events(self, job):
        """Runs job on a worker once the events that came before it were handled."""
        with self._scond:
            if not self._sbusy and not self._squeue:
                self._pool.submit(job)
                return
            self._squeue.append(lambda: self._pool.submit(job))
            self._scond.notify()

    def _on_tool_call(self, f):
        id = f.get("id")
        if not isinstance(id, str):
            self.log("ignored a tool_call without an id")
            return
        call = Call(self, id, _str(f.get("name")))
        with self._lock:
            self._calls[id] = call
        args = f.get("args")
        self._after_events(lambda: self._run_tool(call, Record() if args is None else args))

    def _run_tool(self, call, args):
        fn = self._tools.get(call.name)
        if fn is None:
            res = error_result("extension %r has no tool %r" % (self.name, call.name))
        else:
            _local.call = call
            try:
                res, exc = self._guard("tool %r" % call.name, fn, args, call)
            finally:
                _local.call = None
            if exc is not None:
                res = error_result("%s: %s" % (call.name, _describe(exc)))
        with self._lock:
            live = self._calls.pop(call.id, None) is not None
        if not live or call.cancelled.is_set():
            return
        if res is None:
            res = {"content": []}
        elif isinstance(res, str):
            res = text_result(res)
        elif not isinstance(res, dict):
            res = error_result("%s: the handler returned %s; return a str or a dict such as text_result(...)" % (call.name, type(res).__name__))
        frame = _frame("tool_result", call.id, res)
        try:
            self._write(frame)
        except ClosedError:
            pass
        except (TypeError, ValueError) as e:
            self.log("tool %r: the result is not JSON (%s); sent it without details" % (call.name, e))
            frame.pop("details", None)
            try:
                self._write(frame)
            except (TypeError, ValueError) as e:
                self._reply(dict(error_result("%s: the result is not JSON: %s" % (call.name, e)), type="tool_result", id=call.id))
            except ClosedError:
                pass

    def _on_tool_cancel(self, f):
        with self._lock:
            call = self._calls.pop(_str(f.get("id")), None)
        if call is not None:
            call._cancel(CancelledError())

    def _on_command(self, f):
        self._after_events(lambda: self._run_command(f))

    def _run_command(self, f):
        name = _str(f.get("name"))
        entry = self._commands.get(name.lower())
        if entry is None:
            resp = error("extension %r has no command /%s" % (self.name, name))
        else:
            resp, exc = self._guard("command /%s" % name, entry[1], _str(f.get("args")))
            if exc is not None:
                resp = error("/%s: %s" % (name, _describe(exc)))
        if resp is None:
            resp = noop()
        elif isinstance(resp, str):
            resp = display(resp)
        elif not isinstance(resp, dict):
            resp = error("/%s: the handler returned %s; return a str or a dict such as display(...)" % (name, type(resp).__name__))
        frame = _frame("command_response", f.get("id"), resp)
        if not frame.get("action"):
            frame["action"] = "noop"
        try:
            self._write(frame)
        except ClosedError:
            pass
        except (TypeError, ValueError) as e:
            self._reply(dict(error("/%s: the response is not JSON: %s" % (name, e)), type="command_response", id=f.get("id")))

    def _on_intercept(self, f):
        self._after_events(lambda: self._run_intercept(f))

    def _run_intercept(self, f):
        event = _str(f.get("event"))
        resp = {}
        ev = Record(f)
        for fn in list(self._intercepts.get(event, ())):
            d, exc = self._guard("%s interceptor" % event, fn, ev)
            if exc is not None or not d:
                continue
            if not isinstance(d, dict):
                self.log("%s interceptor returned %s; return None or a dict" % (event, type(d).__name__))
                continue
            stop = _merge(self, event, ev, resp, d)
            if stop:
                break
        try:
            self._write(_frame("event_intercept_response", f.get("id"), resp))
        except ClosedError:
            pass
        except (TypeError, ValueError) as e:
            self.log("%s interceptor: the answer is not JSON (%s); allowed the event" % (event, e))
            self._reply({"type": "event_intercept_response", "id": f.get("id")})

    def _on_event(self, f):
        self._serially(lambda: self._run_event(f))

    def _run_event(self, f):
        name = _str(f.get("event"))
        for fn in list(self._events.get(name, ())):
            self._guard("%s event handler" % name, fn, f)
        if name == "custom":
            for fn in list(self._customs.get(_str(f.get("name")), ())) + list(self._customs.get("", ())):
                self._guard("custom event handler", fn, f)

    def _on_panel_key(self, f):
        def run():
            for fn in list(self._panel_keys):
                self._guard("panel key handler", fn, f)
        self._serially(run)

    def _on_panel_close(self, f):
        pid = _str(f.get("panel_id"))

        def run():
            for fn in list(self._panel_closes):
                self._guard("panel close handler", fn, pid)
        self._serially(run)

    def _on_host_response(self, f):
        p = self._pending.get(_str(f.get("id")))
        if p is None:
            self.log("ignored a host_response for %r: nothing waits for it" % f.get("id"))
            return
        p.put(("done", f))

    def _on_host_stream(self, f):
        p = self._pending.get(_str(f.get("id")))
        if p is not None:
            p.put(("chunk", _str(f.get("text"))))

    def _on_shortcut(self, f):
        key, reason = _canonical_key(_str(f.get("key")))
        fn = self._shortcuts.get(key if not reason else _str(f.get("key")))
        if fn is None:
            self.log("ignored shortcut %r: no handler" % f.get("key"))
            return
        self._after_events(lambda: self._guard("shortcut %s" % f.get("key"), fn))

    def _answer(self, what, frame, fn, *args, fallback=None):
        def job():
            out = fallback
            if fn is not None:
                res, exc = self._guard(what, fn, *args)
                if exc is None and res is not None:
                    out = res
            self._reply(frame(out))
        self._pool.submit(job)

    def _on_command_complete(self, f):
        fn = self._completions.get(_str(f.get("name")).lower())
        self._answer("completion of /%s" % f.get("name"), lambda items: {
            "type": "command_completions", "id": f.get("id"), "items": [str(i) for i in items]},
            fn, _str(f.get("prefix")), fallback=[])

    def _on_editor_key(self, f):
        def frame(a):
            a = _frame("editor_key_response", f.get("id"), a if isinstance(a, dict) else {})
            a.setdefault("action", "passthrough")
            return a
        self._answer("editor key %s" % f.get("key"), frame, self._editor_fn, f, fallback={})

    def _on_render_tool(self, f):
        header, body = self._renderers.get(_str(f.get("tool_name")), (None, None))

        def job():
            r = {"type": "render_tool_response", "id": f.get("id")}
            if header is not None:
                h, _ = self._guard("tool renderer header", header, f.get("args") or Record(), f.get("width") or 0)
                if h:
                    r["header"] = str(h)
            if body is not None and f.get("result") is not None:
                b, _ = self._guard("tool renderer body", body, f.get("result"), bool(f.get("is_error")), f.get("width") or 0)
                if b:
                    r["body"] = str(b)
            self._reply(r)
        self._pool.submit(job)

    def _on_render_message(self, f):
        fn = self._msg_renderers.get(_str(f.get("name")))
        content = _str(f.get("content"))
        self._answer("message renderer %s" % f.get("name"), lambda lines: {
            "type": "render_message_response", "id": f.get("id"), "lines": [str(l) for l in lines]},
            fn, content, f.get("width") or 0, fallback=[content])


def _str(v):
    """v when it is a str, else "" (a member of the wrong type from the host)."""
    return v if isinstance(v, str) else ""


def _frame(type_, id, members):
    """A reply frame: type and id first, then the handler's members."""
    f = {"type": type_, "id": id}
    f.update(members)
    f["type"], f["id"] = type_, id
    return f


def _join(a, b):
    b = (b or "").strip() if isinstance(b, str) else ""
    if not b:
        return a
    return b if not a else a + "\n\n" + b


def _merge(ext, event, ev, resp, d):
    """Adds one interceptor's answer d to resp, applies its rewrites to ev
    for the next interceptor, and reports whether the chain ends."""
    if event in ("tool_call", "turn_start", "assistant_message") and d.get("block"):
        resp.clear()
        resp.update(block=True, reason=d.get("reason") or "")
        return True
    if event == "tool_call":
        ma = d.get("modified_args")
        if isinstance(ma, dict):
            ev["tool_args"] = resp["modified_args"] = ma
        elif ma is not None:
            ext.log("tool_call interceptor: modified_args for %r is not an object; ignored" % ev.get("tool_name"))
    elif event == "turn_start":
        ctx = _join(resp.get("context", ""), d.get("context"))
        if ctx:
            resp["context"] = ctx
    elif event == "assistant_message":
        if d.get("replace_text"):
            ev["text"] = resp["replace_text"] = d["replace_text"]
    elif event == "input":
        if d.get("action") == "handled":
            resp.clear()
            resp["action"] = "handled"
            return True
        if d.get("action") == "transform" and isinstance(d.get("text"), str):
            resp.update(action="transform", text=d["text"])
            ev["text"] = d["text"]
    elif event == "before_agent_start":
        for k in ("system_prompt", "inject_text"):
            v = _join(resp.get(k, ""), d.get(k))
            if v:
                resp[k] = v
    elif event == "tool_result":
        for k in ("content", "is_error"):
            if d.get(k) is not None:
                ev[k] = resp[k] = d[k]
    elif event == "context_prepare":
        if isinstance(d.get("messages"), list):
            ev["messages"] = resp["messages"] = d["messages"]
    elif event in ("before_fork", "before_session_switch", "before_compact"):
        if d.get("cancel"):
            resp.clear()
            resp.update(cancel=True, reason=d.get("reason") or "")
            return True
    else:
        resp.update(d)
    return False


__all__ = [
    "Extension", "Call", "Record", "ZutError", "CapabilityError", "HostError", "ClosedError",
    "CancelledError", "HOST_REQUESTS", "EVENTS2", "INTERCEPTS2", "UI2", "PROTOCOL_VERSION",
    "prompt", "insert", "display", "noop", "error", "panel", "panel_response",
    "text_result", "error_result", "image_result", "canonical_key", "KeyNameError",
]
