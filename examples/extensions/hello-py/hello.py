#!/usr/bin/env python3
"""hello-py: the quick-start extension on the Python SDK.

It registers /hellopy, which asks the model for a short greeting, and
/hellopy-echo, which shows its arguments as a note. zut_ext.py beside it
is a copy of the SDK (ext/python/zut_ext.py in the zut repository).
"""
import zut_ext as zut

ext = zut.Extension("hello-py", "1.0.0")


@ext.command("hellopy", "say hi (python)")
def hellopy(args):
    return zut.prompt("Greet me very briefly in one sentence.")


@ext.command("hellopy-echo", "show text as a note (python)")
def echo(args):
    if not args:
        return zut.error("/hellopy-echo needs text, for example: /hellopy-echo hi")
    return zut.display(args)


ext.run()
