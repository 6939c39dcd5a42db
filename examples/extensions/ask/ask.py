#!/usr/bin/env python3
"""ask: dialogs (ui.select, ui.confirm, ui.input) from a slash command and
from an interactive tool, and a panel of the questions asked, on the
Python SDK (zut_ext.py beside it is a copy of ext/python/zut_ext.py).

The SDK runs every command and tool call on a thread of its own, so a
handler simply calls ext.select(...) and waits for the answer.
"""
import zut_ext as zut

ext = zut.Extension("ask", "1.1.0")
ext.use(zut.HOST_REQUESTS)

NO_DIALOGS = ("this zut does not offer dialogs (capability host_requests, "
              "docs/protocol.md \"Additions beyond v2\"); update zut to use /deploy and ask_user")
PANEL = "ask-history"
history = []     # {"q": question, "a": answer}, oldest first; saved in the tool results' details
cursor = [0]     # the selected line of the panel


@ext.on_hello
def check_host(host):
    if not ext.offers(zut.HOST_REQUESTS):
        ext.log(NO_DIALOGS)


@ext.command("deploy", "choose, confirm and describe a deployment")
def deploy(args):
    if not ext.offers(zut.HOST_REQUESTS):
        return zut.error("deploy: " + NO_DIALOGS)
    env = ext.select("Where to?", ["staging", "production"], title="Deploy", default="staging")
    if env.cancelled:
        return zut.display("deploy cancelled")
    sure = ext.confirm("Deploy to %s now?" % env.value, default=env.value == "staging")
    if sure.cancelled or not sure.value:
        return zut.display("not deployed to " + env.value)
    note = ext.input("Release note", placeholder="what changed")
    text = note.value or "(no note)"
    return zut.prompt("Write the commands to deploy to %s. Release note: %s" % (env.value, text))


ASK_SCHEMA = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["question"],
}


@ext.tool("ask_user", "Ask the user a question and wait for the answer. Give choices for a multiple-choice question.",
          ASK_SCHEMA, interactive=True)
def ask_user(args, call):
    if not ext.offers(zut.HOST_REQUESTS):
        return zut.error_result("could not ask the user: " + NO_DIALOGS)
    question = args.get("question")
    if not isinstance(question, str) or not question.strip():
        return zut.error_result('ask_user needs "question", the text to ask the user')
    choices = args.get("choices")
    if choices is not None and not isinstance(choices, list):
        return zut.error_result('"choices" must be a list of strings')
    if choices:
        r = ext.select(question, [str(c) for c in choices])
    else:
        r = ext.input(question)
    if r.cancelled:
        return zut.error_result("the user did not answer")
    history.append({"q": question, "a": r.value})
    del history[:-20]
    return zut.text_result("the user answered: %s" % r.value, details={"version": 1, "history": history})


def restore(ev):
    """A session event brings back the history saved on that branch."""
    state = ev.state or {}
    history[:] = [h for h in (state.get("history") or []) if isinstance(h, dict)]


for name in ("session_start", "session_opened", "session_switched", "session_forked"):
    ext.on(name, restore)


def history_panel():
    lines = []
    for i, h in enumerate(history):
        lines.append("%s %s → %s" % ("›" if i == cursor[0] else " ", h["q"], h["a"]))
    return zut.panel(PANEL, lines, title="Questions asked", footer="↑/↓ move · enter puts the answer in the editor · esc close")


@ext.command("asked", "show the questions the model asked and their answers")
def asked(args):
    if not history:
        return zut.display("no questions asked yet on this branch")
    cursor[0] = len(history) - 1
    return zut.panel_response(history_panel())


@ext.on_panel_key
def panel_key(k):
    if k.panel_id != PANEL or not history:
        return
    if k.key in ("up", "down"):
        step = -1 if k.key == "up" else 1
        cursor[0] = max(0, min(len(history) - 1, cursor[0] + step))
        ext.render_panel(history_panel())
    elif k.key == "enter":
        answer = history[cursor[0]]["a"]
        ext.close_panel(PANEL)
        try:
            ext.set_editor_text(answer)
        except zut.ZutError as e:
            ext.notify("could not fill the editor: %s" % e, "warn")


ext.run()
