"""A small LSP client over stdio for the tests: starts `brine lsp`, sends
requests and notifications, collects what the server publishes."""
import json
import os
import select
import subprocess
import time


class Client:
    def __init__(self, brine, debounce_ms=0, env=None):
        self.proc = subprocess.Popen([brine, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.buf = b""
        self.next_id = 1
        self.diags = {}      # uri -> the last published diagnostics
        self.published = []  # (time, uri, version) of each publish
        self.other = []
        self.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {},
                                    "initializationOptions": {"debounceMs": debounce_ms}})
        self.notify("initialized", {})

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def read_message(self, timeout=30.0):
        deadline = time.time() + timeout
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                n = None
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        n = int(line.split(b":")[1])
                if n is not None and len(rest) >= n:
                    self.buf = rest[n:]
                    return json.loads(rest[:n])
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no message from brine lsp")
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if not r:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise EOFError("brine lsp closed its stdout (exit %s): %s" %
                               (self.proc.poll(), self.proc.stderr.read().decode(errors="replace")))
            self.buf += chunk

    def handle(self, msg):
        if msg.get("method") == "textDocument/publishDiagnostics":
            p = msg["params"]
            self.diags[p["uri"]] = p["diagnostics"]
            self.published.append((time.time(), p["uri"], p.get("version")))
        else:
            self.other.append(msg)

    def request(self, method, params, timeout=30.0):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = self.read_message(timeout)
            if msg.get("id") == rid and "method" not in msg:
                if "error" in msg:
                    return {"__error__": msg["error"]}
                return msg.get("result")
            self.handle(msg)

    def wait_diagnostics(self, uri, version=None, timeout=30.0):
        """Until diagnostics for uri (of that version) arrive; returns them."""
        start = len(self.published)
        while True:
            for t, u, v in self.published[start:]:
                if u == uri and (version is None or v == version):
                    return self.diags[uri]
            start = len(self.published)
            self.handle(self.read_message(timeout))

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "brine",
                                                              "version": version, "text": text}})
        return self.wait_diagnostics(uri, version)

    def change(self, uri, text, version):
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def pos(self, uri, line, col, **extra):
        p = {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}
        p.update(extra)
        return p

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        return self.proc.returncode
