#!/usr/bin/env python3
# A small MCP server (newline-delimited JSON-RPC over stdio): one tool,
# one prompt, one resource.
import json, os, sys

# NOTES_LOG names a file that records whether a provider key reached it.
log = open(os.environ.get("NOTES_LOG", os.devnull), "a")
log.write("key=%s\n" % ("present" if os.environ.get("ANTHROPIC_API_KEY") else "absent"))
log.flush()
notes = ["Buy milk at 9"]

def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

def result(id, res):
    send({"jsonrpc": "2.0", "id": id, "result": res})

for line in sys.stdin:
    req = json.loads(line)
    method, id, params = req.get("method"), req.get("id"), req.get("params") or {}
    if id is None:
        continue  # notifications
    if method == "initialize":
        result(id, {"protocolVersion": params.get("protocolVersion"),
                    "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
                    "serverInfo": {"name": "notes-server", "version": "0.3"},
                    "instructions": "Notes live in memory: add one note per call."})
    elif method == "tools/list":
        result(id, {"tools": [{"name": "add", "description": "Add a note.",
                               "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]})
    elif method == "tools/call":
        token = (params.get("_meta") or {}).get("progressToken")
        if token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1, "total": 2, "message": "saving"}})
        notes.append(params["arguments"]["text"])
        result(id, {"content": [{"type": "text", "text": "added: %s (%d notes)" % (notes[-1], len(notes))}]})
    elif method == "prompts/list":
        result(id, {"prompts": [{"name": "brief", "description": "Write a brief.", "arguments": [{"name": "topic", "required": True}]}]})
    elif method == "prompts/get":
        topic = params["arguments"]["topic"]
        result(id, {"messages": [{"role": "user", "content": {"type": "text", "text": "Write a brief about %s, in 3 lines." % topic}}]})
    elif method == "resources/list":
        result(id, {"resources": [{"uri": "note://today", "name": "today", "mimeType": "text/plain"}]})
    elif method == "resources/read":
        result(id, {"contents": [{"uri": params["uri"], "mimeType": "text/plain", "text": "\n".join(notes)}]})
    elif method == "ping":
        result(id, {})
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no method " + method}})
