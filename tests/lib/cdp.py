"""Headless chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: fds 3 and 4, no port, no extra Python package).
One browser process serves many pages: html/browser.py and serve/browser.py
use it instead of a chromium launch per page and per action."""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    """The DevTools protocol over fds 3 (commands in) and 4 (replies out)."""

    def __init__(self, chrome, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.out_r, out_w = os.pipe()

        def fds():
            # out of the way first: a pipe may already sit on fd 3 or 4
            # (dup2 of an fd onto itself keeps it close-on-exec)
            r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(out_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                      "--user-data-dir=" + profile, "--hide-scrollbars", "--remote-debugging-pipe",
                                      "about:blank"], preexec_fn=fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(out_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no reply from chromium")
            r, _, _ = select.select([self.out_r], [], [], left)
            if r:
                chunk = os.read(self.out_r, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method, params=None, timeout=120, session=True):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(m).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            r = self._read_message(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r.get("result", {})
            self.events.append(r)

    def wait_event(self, name, timeout=120):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == name:
                    del self.events[i]
                    return e
            self.events.append(self._read_message(deadline))

    def open(self, width=1200, height=1500):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True}, session=False)
        self.session = a["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(m)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def navigate(self, url):
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def js(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("js: %s: %s" % (expr[:80], r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def click_and_wait(self, expr):
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        self.js(expr)
        self.wait_event("Page.loadEventFired")

    def screenshot(self, path, full_page=False):
        """A PNG of the viewport (or of the whole page: full_page)."""
        p = {"format": "png"}
        if full_page:
            p["captureBeyondViewport"] = True
            m = self.send("Page.getLayoutMetrics")["cssContentSize"]
            p["clip"] = {"x": 0, "y": 0, "width": m["width"], "height": m["height"], "scale": 1}
        r = self.send("Page.captureScreenshot", p)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def print_pdf(self, path):
        """The page printed (print media, no header or footer), as a PDF."""
        r = self.send("Page.printToPDF", {"displayHeaderFooter": False, "printBackground": True}, timeout=300)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def dom(self):
        """The document as the browser holds it after its scripts ran (what --dump-dom prints)."""
        return self.js("document.documentElement.outerHTML")

    def console(self):
        """Console messages, log entries and exceptions seen so far (drained)."""
        out = []
        rest = []
        for e in self.events:
            m = e.get("method")
            if m == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (e["params"]["type"], [a.get("value") for a in e["params"]["args"]]))
            elif m == "Runtime.exceptionThrown":
                out.append("exception: %s" % e["params"]["exceptionDetails"].get("text"))
            elif m == "Log.entryAdded":
                out.append("log %s: %s" % (e["params"]["entry"]["level"], e["params"]["entry"]["text"]))
            else:
                rest.append(e)
        self.events = rest
        return out

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
