#!/usr/bin/env python3
"""Tests of demo: they start main.py as zut would and speak the
protocol with it. Run them in this directory: python3 -m unittest
"""
import json
import os
import queue
import subprocess
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class Host:
    """A small stand-in for zut: it starts the extension, does the
    handshake and exchanges frames with it."""

    def __init__(self):
        self.proc = subprocess.Popen([os.path.join(HERE, "main.py")], cwd=HERE,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.frames = queue.Queue()
        self.seq = 0
        threading.Thread(target=self._read, daemon=True).start()
        hello = self.next()
        assert hello["type"] == "hello" and hello["name"] == "demo" and hello["protocol_version"] == 2, hello
        self.send({"type": "hello_ack", "protocol_version": 2, "zut_version": "test", "provider": "test",
                   "model": "test", "cwd": HERE, "extension_dir": HERE, "data_dir": HERE})
        self.registered = []
        while True:
            f = self.next()
            if f["type"] == "ready":
                break
            self.registered.append(f)

    def _read(self):
        for line in self.proc.stdout:
            self.frames.put(json.loads(line))
        self.frames.put(None)

    def send(self, frame):
        self.proc.stdin.write((json.dumps(frame) + "\n").encode())
        self.proc.stdin.flush()

    def next(self, type_=None):
        """Returns the next frame (of type_), skipping others."""
        while True:
            f = self.frames.get(timeout=10)
            if f is None:
                raise AssertionError("the extension closed its stdout")
            if type_ is None or f["type"] == type_:
                return f

    def request(self, frame, reply):
        self.seq += 1
        frame["id"] = str(self.seq)
        self.send(frame)
        f = self.next(reply)
        assert f["id"] == frame["id"], f
        return f

    def close(self):
        self.send({"type": "shutdown"})
        self.next("shutdown_ack")
        return self.proc.wait(timeout=2)


class TestExtension(unittest.TestCase):
    def setUp(self):
        self.host = Host()

    def tearDown(self):
        self.assertEqual(self.host.close(), 0)

    def test_command(self):
        r = self.host.request({"type": "command_invoked", "name": "demo", "args": "hi"}, "command_response")
        self.assertEqual(r["display"], "demo: hi")

    def test_tool(self):
        r = self.host.request({"type": "tool_call", "name": "demo", "args": {"text": "hi"}}, "tool_result")
        self.assertEqual(r["content"], [{"type": "text", "text": "HI"}])
        r = self.host.request({"type": "tool_call", "name": "demo", "args": {}}, "tool_result")
        self.assertTrue(r["is_error"])

    def test_panel(self):
        r = self.host.request({"type": "command_invoked", "name": "demo-panel", "args": ""}, "command_response")
        self.assertEqual(r["action"], "open_panel")
        self.assertEqual(r["open_panel"]["lines"][0], "› first item")
        self.host.send({"type": "panel_key", "panel_id": "demo-panel", "key": "down"})
        self.assertEqual(self.host.next("panel_render")["lines"][1], "› second item")
        self.host.send({"type": "panel_key", "panel_id": "demo-panel", "key": "enter"})
        self.assertEqual(self.host.next("notify")["message"], "picked second item")


if __name__ == "__main__":
    unittest.main()
