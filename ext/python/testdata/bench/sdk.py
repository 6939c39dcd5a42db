#!/usr/bin/env python3
"""A tool on the SDK, for the round-trip benchmark."""
import zut_ext as zut

ext = zut.Extension("bench", "1")
ext.tool("echo", "echo", None, lambda args, call: args.get("text", ""))
ext.run()
