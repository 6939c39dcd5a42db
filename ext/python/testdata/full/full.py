#!/usr/bin/env python3
"""sdkfull: every feature of zut_ext.py, for the Go tests of ext/python."""
import json
import os
import subprocess
import threading

import zut_ext as zut

ext = zut.Extension("sdkfull", "1.2.3")
ext.use(zut.HOST_REQUESTS, zut.UI2)
seen = []  # events, in order
panel_lines = ["a", "b"]


@ext.on_hello
def hello(host):
    # A registration made after hello_ack is announced before ready.
    ext.command("late", "registered in on_hello", lambda args: "late " + host.cwd)
    ext.notify("early note")  # queued until ready


@ext.command("prompt", "a prompt")
def cmd_prompt(args):
    return zut.prompt("P:" + args)


ext.command("insert", "", lambda args: zut.insert("I:" + args))
ext.command("display", "", lambda args: "D:" + args)
ext.command("noop", "", lambda args: None)
ext.command("err", "", lambda args: zut.error("bad input: " + args))


@ext.command("fail", "raises")
def cmd_fail(args):
    raise ValueError("boom")


@ext.command("badreturn", "")
def cmd_badreturn(args):
    return 42


@ext.command("pick", "completion", complete=lambda prefix: [o for o in ("alpha", "beta", "gamma") if o.startswith(prefix)])
def cmd_pick(args):
    return "picked " + args


@ext.command("panel", "opens a panel")
def cmd_panel(args):
    return zut.panel_response(zut.panel("sdk-panel", panel_lines, title="T", footer="F"))


@ext.on_panel_key
def panel_key(k):
    if k.key == "down":
        ext.render_panel(zut.panel(k.panel_id, ["a", "> b"], title="T"))
    elif k.key == "rune" and k.text == "x":
        ext.close_panel(k.panel_id)


@ext.on_panel_close
def panel_close(pid):
    ext.notify("closed " + pid)


@ext.command("events", "the events seen")
def cmd_events(args):
    return " | ".join(seen)


@ext.on("session_opened")
def session_opened(ev):
    seen.append("session_opened %s %s" % (ev.session.id, json.dumps(ev.state)))


@ext.on("turn_start")
def turn_start(ev):
    seen.append("turn_start %d" % ev.step)


@ext.on("turn_end")
def turn_end(ev):
    seen.append("turn_end %s" % ev.stop)


@ext.on("agent_end")
def agent_end(ev):
    seen.append("agent_end %s %s" % (ev.stop, ev.response))


@ext.on("turn_start")
def turn_start_raises(ev):
    raise RuntimeError("an event handler that raises does not stop the others")


@ext.on_custom("ping")
def ping(ev):
    seen.append("custom %s %s from %s" % (ev.name, json.dumps(ev.data), ev.from_))


@ext.command("ask", "dialogs")
def cmd_ask(args):
    s = ext.select("Where?", ["staging", "production"], title="Deploy")
    c = ext.confirm("Sure?", default=True)
    i = ext.input("Note", placeholder="what")
    o = ext.overlay("**Done**", markdown=True, actions=["ok", "undo"])
    return "%s/%d %s %s %s/%d" % (s.value, s.index, c.value, i.value, o.action, o.index)


@ext.command("info", "session and model")
def cmd_info(args):
    s = ext.session_info()
    m = ext.model()
    msgs = ext.messages()
    st = ext.context_stats()
    tools = ext.tools()
    models = ext.models()
    return "%s %s %s %d %d %s %d" % (s.id, s.branch.id, m.model, len(msgs), st.estimated_tokens, tools[0].name, len(models))


@ext.command("llm", "a completion")
def cmd_llm(args):
    chunks = []
    r = ext.complete("hi", on_chunk=chunks.append, system="be brief")
    return "%s %s" % (r.text, chunks)


@ext.command("opt", "options")
def cmd_opt(args):
    before = ext.option("color")
    r = ext.set_option("color", "red")
    return "%s %s %s" % (before, r.value, ext.option("color"))


@ext.command("entries", "custom entries")
def cmd_entries(args):
    eid = ext.append_entry("note", {"n": 1})
    es = ext.entries("note")
    return "%s %d %s" % (eid, len(es), json.dumps(es[-1].data))


@ext.command("app", "app control")
def cmd_app(args):
    ext.send("queued prompt", "steer")
    ext.set_editor_text("new text")
    ext.emit_custom("ping", {"from": "sdkfull"})
    ext.set_active_tools(["read"])
    ext.set_active_tools(None)
    ext.set_model("fake/m2")
    ran = []
    ext.suspend_tui(lambda: ran.append(True))
    ext.exit()
    ext.reload()
    return "app %s" % ran


@ext.command("hosterr", "a request the host refuses")
def cmd_hosterr(args):
    try:
        ext.request("no.such_method")
    except zut.HostError as e:
        return "HostError %s: %s" % (e.method, e)
    return "no error"


@ext.command("ui", "ui frames")
def cmd_ui(args):
    ext.print("a note", "info")
    ext.print("boxed", renderer="box")
    ext.set_header("head", markdown=True)
    ext.set_footer("foot")
    ext.clear_header()
    ext.clear_footer()
    ext.set_ui_visibility(hide_status_bar=True)
    ext.set_status("st", "status text", "warn", priority=5)
    ext.set_status("plain", "plain status")
    ext.clear_status("plain")
    ext.set_widget("w", ["one", "two"], title="W")
    ext.set_widget("w2", ["below"], position="below_input", priority=2, border_color="#ff0000")
    ext.clear_widget("w2")
    ext.notify("warned", "warn")
    ext.clear_notes()
    ext.alert("question_ready")
    ext.submit("submitted text")
    ext.submit_slash("/pick alpha")
    ext.set_editor(["Control + S"], lambda k: {"action": "submit", "text": k.text + "!"})
    return zut.noop()


@ext.command("stray", "writes to stdout")
def cmd_stray(args):
    print("stray print to stdout")
    subprocess.run(["sh", "-c", "echo stray from a child"], check=True)
    os.write(1, b"stray write to fd 1\n")
    return "strayed"


@ext.shortcut("ctrl+alt+s", "a shortcut")
def on_shortcut():
    ext.notify("shortcut model " + ext.model().model)


# Any spelling zut accepts claims the key; a name no key has is refused.
@ext.shortcut("Ctrl + Alt + Q", "spelled loosely")
def on_shortcut_q():
    ext.notify("shortcut q")


ext.shortcut("ctrl+bogus", "no such key", lambda: ext.notify("shortcut bogus"))


ext.tool_renderer("echo", header=lambda args, width: "echo %s (%d)" % (args.get("text"), width),
                  body=lambda result, is_error, width: result.upper() + (" ERR" if is_error else ""))
ext.message_renderer("box", lambda content, width: ["[" + content + "]", str(width)])
ext.register_option("color", "a colour", "blue")

ECHO_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@ext.tool("echo", "echo the text", ECHO_SCHEMA)
def tool_echo(args, call):
    if not isinstance(args.get("text"), str):
        return zut.error_result("echo: text must be a string")
    return args["text"]


@ext.tool("state", "saves state")
def tool_state(args, call):
    if args.get("mode") == "clear":
        return zut.text_result("cleared", details=None)
    if args.get("mode") == "keep":
        return zut.text_result("kept")
    return zut.text_result("saved", details={"v": args.get("v")})


ext.tool("image", "an image", None, lambda args, call: zut.image_result("image/png", b"\x89PNG"))


@ext.tool("boom", "raises")
def tool_boom(args, call):
    raise RuntimeError("kaput")


ext.tool("badresult", "returns a number", None, lambda args, call: 42)
ext.tool("loader", "activates hidden", None, lambda args, call: zut.text_result("loaded", activate_tools=["hidden"]))
ext.tool("hidden", "a deferred tool", None, lambda args, call: "hidden ran", deferred=True)


@ext.tool("progress", "reports progress")
def tool_progress(args, call):
    call.progress("half")
    call.progress("all")
    return "done " + call.id


@ext.tool("wait", "waits until cancelled", interactive=True)
def tool_wait(args, call):
    ext.notify("waiting " + call.name)
    if call.cancelled.wait(60):
        ext.notify("cancelled wait")
    return "not cancelled"


@ext.tool("askwait", "a dialog nobody answers", interactive=True)
def tool_askwait(args, call):
    try:
        ext.select("nobody answers", ["a"])
    except zut.CancelledError as e:
        ext.notify("request cancelled: %s" % e)
        raise
    return "answered"


@ext.intercept("tool_call")
def ic_rewrite(ev):
    if ev.tool_name == "bash":
        args = dict(ev.tool_args)
        args["guarded"] = True
        return {"modified_args": args}


@ext.intercept("tool_call")
def ic_block(ev):
    if "rm -rf" in (ev.tool_args.get("command") or "") and ev.tool_args.get("guarded"):
        return {"block": True, "reason": "refused: rm -rf"}


ext.intercept("turn_start", lambda ev: {"context": "first %d" % ev.step})
ext.intercept("turn_start", lambda ev: 1 / 0)
ext.intercept("turn_start", lambda ev: {"context": "  second  "})
ext.intercept("assistant_message", lambda ev: {"block": True, "reason": "hidden"} if ev.text == "hide" else {"replace_text": ev.text.replace("SECRET", "[redacted]")})


@ext.intercept("input")
def ic_input(ev):
    if ev.text == "/handled":
        return {"action": "handled"}
    if ev.text.startswith("shout "):
        return {"action": "transform", "text": ev.text[6:].upper()}


ext.intercept("before_agent_start", lambda ev: {"system_prompt": "SP for " + ev.prompt, "inject_text": "inject"})
ext.intercept("tool_result", lambda ev: {"content": ev.content.upper()} if ev.tool_name == "read" else None)
ext.intercept("context_prepare", lambda ev: {"messages": [{"index": -1, "role": "system", "content": "notes"}] + list(ev.messages)})
ext.intercept("before_fork", lambda ev: {"cancel": True, "reason": "no fork of " + ev.target_id})
ext.intercept("before_session_switch", lambda ev: {"cancel": ev.reason == "clear", "reason": "keep it"})
ext.intercept("before_compact", lambda ev: {"cancel": ev.is_automatic, "reason": "not now"})

ext.run()
