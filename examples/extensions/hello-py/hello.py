#!/usr/bin/env python3
"""hello-py: a zut extension in plain Python, no SDK.

It registers /hellopy, which asks the model for a short greeting, and
/hellopy-echo, which shows its arguments as a note.
"""
import json
import sys


def emit(frame):
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def log(text):
    sys.stderr.write("hello-py: " + text + "\n")
    sys.stderr.flush()


def respond(msg):
    name, args = msg.get("name"), msg.get("args", "")
    if name == "hellopy":
        return {"action": "prompt", "prompt": "Greet me very briefly in one sentence."}
    if name == "hellopy-echo":
        if not args:
            return {"action": "noop", "error": "/hellopy-echo needs text, for example: /hellopy-echo hi"}
        return {"action": "display", "display": args}
    return {"action": "noop", "error": "hello-py has no command /%s" % name}


def main():
    emit({"type": "hello", "protocol_version": 2, "name": "hello-py",
          "version": "1.0.0", "capabilities": ["commands"]})
    while True:
        line = sys.stdin.readline()
        if not line:
            return  # zut closed our stdin
        try:
            msg = json.loads(line)
        except ValueError as err:
            log("skipped a line that is not JSON: %s" % err)
            continue
        kind = msg.get("type")
        if kind == "hello_ack":
            if msg.get("protocol_version") != 2:
                log("zut speaks protocol_version %r, this script speaks 2" % msg.get("protocol_version"))
                sys.exit(1)
            emit({"type": "register_command", "name": "hellopy", "description": "say hi (python)"})
            emit({"type": "register_command", "name": "hellopy-echo", "description": "show text as a note (python)"})
            emit({"type": "ready"})
        elif kind == "command_invoked":
            reply = {"type": "command_response", "id": msg.get("id")}
            reply.update(respond(msg))
            emit(reply)
        elif kind == "shutdown":
            emit({"type": "shutdown_ack"})
            return


if __name__ == "__main__":
    main()
