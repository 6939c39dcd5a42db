#!/usr/bin/env python3
"""Drive zut's RPC mode from Python: send one prompt, print what happens.

Usage: client.py PROMPT [ZUT FLAGS...]

$ZUT names the zut binary (default: zut). The flags go to `zut rpc`, for
example --model anthropic/claude-sonnet-4-6. Set ZUTCORE_RPC_TOKEN to make
zut require it; this client sends it in hello.
"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: client.py PROMPT [ZUT FLAGS...]")
    prompt, flags = sys.argv[1], sys.argv[2:]
    zut = subprocess.Popen(
        [os.environ.get("ZUT", "zut"), "rpc", *flags],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
    )
    next_id = 0

    def send(cmd):
        nonlocal next_id
        next_id += 1
        cmd["id"] = next_id
        zut.stdin.write(json.dumps(cmd) + "\n")
        zut.stdin.flush()
        return next_id

    def lines():
        for line in zut.stdout:
            yield json.loads(line)

    events = lines()

    def response(cid):
        # Responses carry the command's id; events seen meanwhile are shown.
        for msg in events:
            if msg["type"] == "response" and msg.get("id") == cid:
                if not msg["success"]:
                    sys.exit("zut: %s: %s" % (msg["command"], msg["error"]))
                return msg.get("data")
            show(msg)
        sys.exit("zut exited early")

    hello = response(send({"type": "hello", "token": os.environ.get("ZUTCORE_RPC_TOKEN", "")}))
    print("[zut %s] %s/%s" % (hello["version"], hello["provider"], hello["model"]))
    print("> " + prompt)
    response(send({"type": "prompt", "message": prompt}))
    for msg in events:
        show(msg)
        if msg["type"] == "done":
            break
    state = response(send({"type": "get_state"}))
    usage = state["usage"]
    print("[usage] %d input, %d output tokens, $%.6f" % (usage["input"], usage["output"], usage["cost_usd"]))
    zut.stdin.close()  # end of stdin: zut finishes and exits
    for msg in events:
        show(msg)
    sys.exit(zut.wait())


def show(msg):
    t = msg["type"]
    if t == "text_delta":
        sys.stdout.write(msg["delta"])
    elif t == "assistant_message":
        sys.stdout.write("\n")
    elif t == "tool_call":
        print("[tool] %s %s" % (msg["name"], json.dumps(msg["args"], separators=(",", ":"))))
    elif t == "tool_result":
        text = " ".join(b.get("text", "") for b in msg["content"] if b["type"] == "text")
        print("[%s] %s" % ("error" if msg["is_error"] else "result", text))
    elif t == "error":
        print("[error] " + msg["message"])
    elif t == "done":
        print("[done]")
    elif t.startswith("ext_"):
        print("[%s] %s" % (t, json.dumps(msg, separators=(",", ":"))))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
