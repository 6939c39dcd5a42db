#!/usr/bin/env python3
"""sdkbare: declares no addition; its additive calls fail at once."""
import zut_ext as zut

ext = zut.Extension("sdkbare", "0.1.0")


@ext.command("try", "calls additions it did not declare")
def try_(args):
    out = []
    for name, fn in (("select", lambda: ext.select("x", ["a"])), ("print", lambda: ext.print("x")),
                     ("status priority", lambda: ext.set_status("k", "t", priority=1))):
        try:
            fn()
            out.append(name + " ok")
        except zut.CapabilityError as e:
            out.append("%s host=%s %s" % (name, e.host, e))
    return " | ".join(out)


ext.tool("echo", "", None, lambda args, call: args.get("text", ""))
ext.run()
