#!/usr/bin/env python3
"""The raw-JSON equivalent of sdk.py: the same tool, no SDK."""
import json
import sys

out = sys.stdout


def emit(frame):
    out.write(json.dumps(frame) + "\n")
    out.flush()


emit({"type": "hello", "protocol_version": 2, "name": "bench", "version": "1", "capabilities": ["tools"]})
for line in sys.stdin:
    f = json.loads(line)
    t = f.get("type")
    if t == "hello_ack":
        emit({"type": "register_tool", "name": "echo", "description": "echo"})
        emit({"type": "ready"})
    elif t == "tool_call":
        emit({"type": "tool_result", "id": f["id"], "content": [{"type": "text", "text": f["args"].get("text", "")}]})
    elif t == "shutdown":
        emit({"type": "shutdown_ack"})
        break
