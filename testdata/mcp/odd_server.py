#!/usr/bin/env python3
# An MCP server (newline-delimited JSON-RPC over stdio) that misbehaves in
# the way argv[1] names, for the scripts of testdata/script:
#   stuck     never answers initialize
#   hang      its tool "wait" never answers; notifications/cancelled is
#             written to $ODD_LOG
#   crash     its tool "die" exits the process (zut restarts it)
#   elicit    its tool "ask" asks the user (elicitation/create) and
#             returns the answer, or the error
#   big       601 tools with 5000-byte descriptions; tools "t000" and
#             "dump" return 212500 bytes of text
import json, os, sys

mode = sys.argv[1] if len(sys.argv) > 1 else ""
log = open(os.environ.get("ODD_LOG", os.devnull), "a")

def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

def result(id, res):
    send({"jsonrpc": "2.0", "id": id, "result": res})

obj = {"type": "object"}
pending = {}
for line in sys.stdin:
    req = json.loads(line)
    method, id, params = req.get("method"), req.get("id"), req.get("params") or {}
    if method == "notifications/cancelled":
        log.write("cancelled %s: %s\n" % (params.get("requestId"), params.get("reason")))
        log.flush()
        continue
    if id is not None and method is None:  # an answer to our request
        ask = pending.pop(id, None)
        if ask is not None:
            if "error" in req:
                result(ask, {"content": [{"type": "text", "text": "elicitation failed: " + req["error"]["message"]}], "isError": True})
            else:
                result(ask, {"content": [{"type": "text", "text": "answer: " + json.dumps(req["result"], sort_keys=True)}]})
        continue
    if id is None:
        continue
    if method == "initialize":
        if mode == "stuck":
            continue
        result(id, {"protocolVersion": params.get("protocolVersion"), "capabilities": {"tools": {}},
                    "serverInfo": {"name": "odd-" + mode, "version": "1"}})
    elif method == "tools/list":
        if mode == "big":
            tools = [{"name": "t%03d" % i, "description": "x" * 5000, "inputSchema": obj} for i in range(600)]
            tools.append({"name": "dump", "description": "Dump a lot.", "inputSchema": obj})
        else:
            tools = [{"name": {"hang": "wait", "crash": "die", "elicit": "ask"}.get(mode, "noop"), "description": "A tool.", "inputSchema": obj}]
        result(id, {"tools": tools})
    elif method == "tools/call":
        name = params.get("name")
        if name == "wait":
            log.write("called wait %s\n" % id)
            log.flush()
            continue
        if name == "die":
            sys.exit(3)
        if name == "ask":
            pending[1000 + id] = id
            send({"jsonrpc": "2.0", "id": 1000 + id, "method": "elicitation/create", "params": {
                "mode": "form", "message": "Pick a name",
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string", "default": "Ada"},
                    "size": {"type": "integer", "minimum": 1, "maximum": 9}}, "required": ["size"]}}})
            continue
        if name == "dump" or name == "t000":
            result(id, {"content": [{"type": "text", "text": "line of the dump\n" * 12500}]})
            continue
        result(id, {"content": [{"type": "text", "text": "ok"}]})
    elif method == "ping":
        result(id, {})
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no method " + method}})
