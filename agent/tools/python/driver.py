# The driver of zut's python tool. zut starts it as
#
#     python3 -u -c <this file> REQUEST_FD RESULT_FD
#
# and sends one JSON object per line on REQUEST_FD:
#
#     {"id": 1, "code": "...", "marker": "..."}
#
# The code runs in a persistent namespace (a module named __main__), like a
# REPL: when its last statement is an expression, the repr of its value is
# returned. The code's own stdout and stderr are file descriptors 1 and 2,
# which zut reads; when a call ends the driver flushes them and writes the
# call's marker on each, so that zut knows where the call's output ends.
# Then it writes one JSON object per line on RESULT_FD:
#
#     {"id": 1, "value": "42" or null, "traceback": "..." or null,
#      "exception": "ZeroDivisionError" or null, "interrupted": false}
#
# The first line on RESULT_FD, before any request, is
#     {"ready": true, "version": "3.11.7", "pid": 1234}
#
# SIGINT raises KeyboardInterrupt only while user code runs; the driver puts
# its handler back after every call. A process forked by the code never
# answers: it exits when its code returns to the driver. Protocol fds are
# not inherited by programs the code starts.

import ast
import builtins
import json
import linecache
import os
import signal
import sys
import traceback
import types

MAX_TEXT = 64 * 1024  # longest value repr or traceback sent back


def clip(s, n=MAX_TEXT):
    if len(s) <= n:
        return s
    half = n // 2
    return s[:half] + "\n[... %d characters cut ...]\n" % (len(s) - 2 * half) + s[-half:]


class Driver:
    def __init__(self, req_fd, res_fd):
        for fd in (req_fd, res_fd):
            os.set_inheritable(fd, False)
        self.pid = os.getpid()
        self.requests = os.fdopen(req_fd, "r", encoding="utf-8", newline="\n")
        self.results = os.fdopen(res_fd, "w", encoding="utf-8", newline="\n")
        self.running = False
        self.cell = 0
        self.driver_file = sys._getframe().f_code.co_filename
        module = types.ModuleType("__main__")
        module.__builtins__ = builtins
        sys.modules["__main__"] = module
        self.ns = module.__dict__
        sys.argv = [""]
        if sys.path and sys.path[0] != "":
            sys.path.insert(0, "")

    def on_sigint(self, signum, frame):
        if self.running:
            raise KeyboardInterrupt

    def send(self, obj):
        self.results.write(json.dumps(obj, ensure_ascii=True) + "\n")
        self.results.flush()

    def serve(self):
        signal.signal(signal.SIGINT, self.on_sigint)
        self.send({"ready": True, "version": sys.version.split()[0], "pid": self.pid})
        while True:
            line = self.requests.readline()
            if not line:
                break
            try:
                req = json.loads(line)
            except ValueError as e:
                self.send({"id": None, "traceback": "zut python driver: bad request: %s\n" % e})
                continue
            res = self.run(req.get("code", ""))
            if os.getpid() != self.pid:
                os._exit(0)  # a forked child: its work is done
            signal.signal(signal.SIGINT, self.on_sigint)
            self.mark(req.get("marker", ""))
            res["id"] = req.get("id")
            self.send(res)
        os._exit(0)  # do not wait for threads the code left running

    def mark(self, marker):
        data = marker.encode("ascii", "replace")
        for f in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                f.flush()
            except Exception:
                pass
        for fd in (1, 2):
            try:
                os.write(fd, data)
            except OSError:
                pass

    def strip(self, te, seen):
        # Leave the driver's own frames (the call into the code, the SIGINT
        # handler) out of a traceback and of the exceptions chained to it.
        if te is None or id(te) in seen:
            return
        seen.add(id(te))
        frames = [f for f in te.stack if f.filename != self.driver_file]
        te.stack = traceback.StackSummary.from_list(frames)
        self.strip(te.__cause__, seen)
        self.strip(te.__context__, seen)

    def failure(self, e, interrupted=False):
        te = traceback.TracebackException(type(e), e, e.__traceback__)
        self.strip(te, set())
        text = "".join(te.format())
        return {"value": None, "traceback": clip(text), "exception": type(e).__name__, "interrupted": interrupted}

    def run(self, code):
        self.cell += 1
        name = "<python-%d>" % self.cell
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
        try:
            tree = ast.parse(code, name, "exec")
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            body = compile(tree, name, "exec", flags=flags, dont_inherit=True)
            tail = compile(last, name, "eval", flags=flags, dont_inherit=True) if last is not None else None
        except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError) as e:
            text = "".join(traceback.format_exception_only(type(e), e))
            return {"value": None, "traceback": clip(text), "exception": type(e).__name__, "interrupted": False}
        try:
            self.running = True
            self.evaluate(body)
            value = self.evaluate(tail) if tail is not None else None
            if value is None:
                return {"value": None, "traceback": None, "exception": None, "interrupted": False}
            builtins._ = value
            text = repr(value)
        except KeyboardInterrupt as e:
            self.running = False
            return self.failure(e, interrupted=True)
        except BaseException as e:  # SystemExit too: the interpreter stays
            self.running = False
            return self.failure(e)
        finally:
            self.running = False
        return {"value": clip(text), "traceback": None, "exception": None, "interrupted": False}

    def evaluate(self, code):
        result = eval(code, self.ns)
        if code.co_flags & 0x80:  # CO_COROUTINE: top-level await
            import asyncio

            loop = asyncio.new_event_loop()
            try:
                result = loop.run_until_complete(result)
            finally:
                loop.close()
        return result


Driver(int(sys.argv[1]), int(sys.argv[2])).serve()
