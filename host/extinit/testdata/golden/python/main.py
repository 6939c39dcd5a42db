#!/usr/bin/env python3
"""demo: a zut extension on the Python SDK (zut_ext.py beside it).

Run it with `zut --ext .` in this directory; test it with
`python3 -m unittest`. The SDK is documented in docs/sdk-python.md of
the zut repository.
"""
import zut_ext as zut

ext = zut.Extension("demo", "0.1.0")


@ext.command("demo", "say hello from demo (/demo some text)")
def hello(args):
    if not args:
        return zut.display("demo: hello! Try /demo some text")
    return zut.display("demo: " + args)


TOOL_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "the text to shout"}},
    "required": ["text"],
}


@ext.tool("demo", "Return the text in capital letters.", TOOL_SCHEMA)
def shout(args, call):
    text = args.get("text")
    if not isinstance(text, str):
        return zut.error_result("demo: text must be a string, for example {\"text\": \"hi\"}")
    return text.upper()


PANEL = "demo-panel"
ITEMS = ["first item", "second item", "third item"]
cursor = [0]


def picker():
    lines = [("› " if i == cursor[0] else "  ") + item for i, item in enumerate(ITEMS)]
    return zut.panel(PANEL, lines, title="demo", footer="↑/↓ move · enter pick · esc close")


@ext.command("demo-panel", "pick an item in a panel")
def open_picker(args):
    cursor[0] = 0
    return zut.panel_response(picker())


@ext.on_panel_key
def panel_key(k):
    if k.panel_id != PANEL:
        return
    if k.key in ("up", "down"):
        cursor[0] = (cursor[0] + (1 if k.key == "down" else -1)) % len(ITEMS)
        ext.render_panel(picker())
    elif k.key == "enter":
        ext.close_panel(PANEL)
        ext.notify("picked " + ITEMS[cursor[0]])


ext.run()
