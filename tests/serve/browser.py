#!/usr/bin/env python3
"""perflab serve in a real browser: Debian's headless chromium, driven over
the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no
extra Python package), the server on the loopback address.

A temporary folder holds copies of the nsys "mfu" pair, the Kineto
control/test traces (HTA's trace-diff example), an ncu report and the
hostile trace.  The walk:
  1. the runs page: one row per file, the page's scripts ran (a filter row
     under the header), screenshot runs.png;
  2. a run, by clicking its link: figures inline, screenshot run.png;
  3. sort a table by clicking a numeric header: the column's values come
     out ascending, then descending on a second click; a column filter
     hides rows;
  4. the timeline of a step: zoom in widens the figure, screenshot;
  5. compare two runs through the form (the Kineto pair, then the nsys
     pair): a diff section, screenshot compare.png;
  6. the hostile trace's page: no element or handler from the input;
and no console message (errors, CSP refusals) on any page.
Exit 77 (skipped) only without chromium.  PERFLAB_BROWSER_KEEP=DIR keeps
the screenshots.  Usage: browser.py PERFLAB_BINARY (from the source tree)."""
import base64
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PERFLAB = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/perflab")
DATA = os.environ.get("PERFLAB_DATA", "tests/data")
FILES = {
    "nsys/mfu_before.sqlite": DATA + "/corpus/nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite",
    "nsys/mfu_after.sqlite": DATA + "/corpus/nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_after.sqlite",
    "kineto/control.json.gz": DATA + "/corpus/kineto_multirank/hta_trace_diff/control/control.json.gz",
    "kineto/test.json.gz": DATA + "/corpus/kineto_multirank/hta_trace_diff/test/test.json.gz",
    "ncu/sgemm_naive.txt": DATA + "/corpus/ncu_text/unknownrepo_sgemm_naive_cc75.txt",
    "hostile.json": "tests/fixtures/hostile/hostile_trace.json",
}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


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
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)
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

    def open(self):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True}, session=False)
        self.session = a["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(m)
        self.send("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 1500, "deviceScaleFactor": 1, "mobile": False})

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

    def screenshot(self, path):
        r = self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

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


def main():
    chrome = chromium()
    if not chrome:
        print("SKIP: no chromium here (Debian: apt-get install chromium; tools/deps.sh installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="perflab-serve-browser-")
    served = os.path.join(tmp, "runs")
    for rel, src in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(served, rel)), exist_ok=True)
        shutil.copy(src, os.path.join(served, rel))
    keep = os.environ.get("PERFLAB_BROWSER_KEEP") or tmp
    os.makedirs(keep, exist_ok=True)
    srv = subprocess.Popen([PERFLAB, "serve", served, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = srv.stdout.readline().decode()
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
    if not m:
        srv.kill()
        print("FAIL: the server did not start: %r" % line)
        return 1
    base = m.group(1)
    # the runs page reads the files a few seconds' worth per request and
    # reloads itself until done: read them all before the walk
    import urllib.request
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    t0 = time.time()
    while b"still to read" in opener.open(base + "/", timeout=300).read():
        if time.time() - t0 > 400:
            fail("the runs page still has files to read after 400 s")
            break
    b = Browser(chrome, os.path.join(tmp, "profile"))
    try:
        b.open()

        def check_console(page):
            msgs = b.console()
            if msgs:
                fail("%s: console messages: %s" % (page, msgs[:3]))

        # 1. the runs page
        b.navigate(base + "/")
        rows = b.js("document.querySelectorAll('#runs tbody tr').length")
        if rows != len(FILES):
            fail("runs page: %s rows, %d files" % (rows, len(FILES)))
        if not b.js("document.querySelectorAll('#runs thead tr.filters input').length === 7"):
            fail("runs page: no filter row (the page's script did not run)")
        if not b.js("document.querySelector('#runs th').getAttribute('tabindex') === '0'"):
            fail("runs page: the sort script did not run")
        b.screenshot(os.path.join(keep, "runs.png"))
        check_console("runs")

        # 2. a run, by its link
        b.click_and_wait("document.querySelector('#runs a[href=\"/run/kineto/control.json.gz\"]').click()")
        if not b.js("location.pathname") == "/run/kineto/control.json.gz":
            fail("the run link led to %s" % b.js("location.pathname"))
        figs = b.js("document.querySelectorAll('figure.chart svg').length")
        if not figs:
            fail("run page: no figure")
        b.screenshot(os.path.join(keep, "run.png"))
        check_console("run")

        # 3. sort a table by a numeric column, then filter it
        res = b.js("""(function(){
          var ts=document.querySelectorAll('table.data');
          for(var k=0;k<ts.length;k++){var t=ts[k];var b=t.tBodies[0];if(!b||b.rows.length<4)continue;
            var hs=t.tHead.rows[0].cells;
            for(var i=0;i<hs.length;i++){if(!hs[i].classList.contains('num'))continue;
              var vals=function(){return Array.prototype.map.call(b.rows,function(r){return Number(r.cells[i].getAttribute('data-v'));});};
              var v0=vals();if(v0.some(isNaN))continue;
              var distinct=new Set(v0).size;if(distinct<3)continue;
              hs[i].click();var up=vals();hs[i].click();var down=vals();
              var asc=up.every(function(x,j){return j===0||up[j-1]<=x;});
              var desc=down.every(function(x,j){return j===0||down[j-1]>=x;});
              var f=t.tHead.querySelectorAll('tr.filters input')[i];
              f.value='>'+String(up[Math.floor(up.length/2)]);f.dispatchEvent(new Event('input'));
              var hidden=Array.prototype.filter.call(b.rows,function(r){return r.hidden;}).length;
              return {table:k,col:hs[i].textContent,asc:asc,desc:desc,rows:up.length,hidden:hidden,sorted:hs[i].getAttribute('aria-sort')};}}
          return null;})()""")
        print("sort: %s" % res)
        if not res:
            fail("run page: no table with a numeric column to sort")
        else:
            if not (res["asc"] and res["desc"]):
                fail("sorting did not order the column: %s" % res)
            if not res["hidden"]:
                fail("the column filter hid no row: %s" % res)
        b.screenshot(os.path.join(keep, "run-sorted.png"))
        check_console("sort")

        # 4. a step's timeline, zoomed
        b.navigate(base + "/timeline/kineto/control.json.gz")
        w0 = b.js("document.querySelector('.zoombox svg').getBoundingClientRect().width")
        b.js("document.querySelector('.zoom button[value=in]').click()")
        w1 = b.js("document.querySelector('.zoombox svg').getBoundingClientRect().width")
        if not (w1 and w0 and w1 > w0 * 1.3):
            fail("timeline zoom: width %s -> %s" % (w0, w1))
        steps = b.js("document.querySelectorAll('a[href*=\"window=\"]').length")
        if not steps:
            fail("timeline: no step links")
        b.screenshot(os.path.join(keep, "timeline.png"))
        check_console("timeline")

        # 5. compare two runs through the form: the Kineto pair, then the nsys pair
        for a_, b_, shot in (("kineto/control.json.gz", "kineto/test.json.gz", "compare.png"),
                             ("nsys/mfu_before.sqlite", "nsys/mfu_after.sqlite", "compare-nsys.png")):
            b.navigate(base + "/compare")
            b.click_and_wait("""(function(){var f=document.querySelector('form.cmp');
              f.querySelector('select[name=a]').value=%s;f.querySelector('select[name=b]').value=%s;
              f.querySelector('button').click();})()""" % (json.dumps(a_), json.dumps(b_)))
            secs = b.js("Array.prototype.map.call(document.querySelectorAll('section h2'),function(h){return h.textContent;})")
            print("compare %s %s: %s" % (a_, b_, secs))
            if "diff" not in (secs or []):
                fail("compare %s %s: no diff section (%s)" % (a_, b_, secs))
            b.screenshot(os.path.join(keep, shot))
            check_console("compare")

        # 6. the hostile trace: nothing from the input became markup
        b.navigate(base + "/run/hostile.json")
        bad = b.js("""document.querySelectorAll('[data-pwned]').length + document.querySelectorAll('img,iframe,object,embed').length
                      + Array.prototype.filter.call(document.querySelectorAll('*'),function(e){
                          return Array.prototype.some.call(e.attributes,function(a){return a.name.indexOf('on')===0;});}).length""")
        if bad:
            fail("hostile page: %d elements or handlers from the input" % bad)
        if b.js("document.querySelectorAll('script').length") != 2:
            fail("hostile page: scripts other than the page's own 2")
        check_console("hostile")
    finally:
        b.close()
        srv.send_signal(signal.SIGINT)
        try:
            srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            fail("the server did not stop on SIGINT")
    if failures:
        print("%d failure(s); screenshots in %s" % (len(failures), keep))
        return 1
    print("OK; screenshots in %s" % keep)
    if keep == tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
