#!/usr/bin/env python3
"""The HTML report in a real browser: Debian's headless chromium.

For a kernel table (seed 000), an ncu report, a Kineto trace and the
hostile/plain fixture pair, `perflab run all FILE --format html` is loaded
in chromium; the test checks that
  - the screenshot is not blank (a share of its pixels is not white),
  - every figure the report lists is in the DOM as an inline <svg> inside
    its <figure>, and every table is there,
  - the page's own script ran under its Content-Security-Policy (it marks
    each table header sortable: tabindex="0"), and the console logged
    nothing (errors, CSP refusals, console.*: the DevTools Log and Runtime
    events),
  - the page references no resource (no src, href other than #anchors,
    url(), @import, <link>, <img>: a URL in the text, such as ncu's advice
    citing its documentation, is data),
  - with hostile kernel and op names (<script>, </svg>, '" onload="', &,
    non-ASCII) the DOM has the same number of elements as with plain names,
    and no script from the input ran (no data-pwned attribute anywhere),
  - it prints (Page.printToPDF gives a PDF with pages).
One chromium serves every page, driven over the DevTools protocol on a pipe
(tests/lib/cdp.py): a launch per page and action cost most of the time.
Exit 77 (skipped) only when no chromium is installed (tools/deps.sh installs it).
Usage: browser.py PERFLAB_BINARY   (run from the source tree; PERFLAB_DATA
points at tests/data; PERFLAB_BROWSER_KEEP=DIR keeps the screenshots)."""
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cdp import Browser, chromium  # noqa: E402  (tests/lib/cdp.py)

PERFLAB = sys.argv[1] if len(sys.argv) > 1 else "build/perflab"
DATA = os.environ.get("PERFLAB_DATA", "tests/data")
INPUTS = {
    "seed000": DATA + "/seeds/000_86950a828dffa530.txt",
    "ncu": DATA + "/corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt",
    "kineto": DATA + "/corpus/kineto_trace/hta_a100_alexnet_trace.json.gz",
    "hostile": "tests/fixtures/hostile/hostile_trace.json",
    "plain": "tests/fixtures/hostile/plain_trace.json",
    # an nsys export of two processes (two ranks), and a 4-rank Kineto job
    "nsys": DATA + "/corpus/nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite",
    "multirank": ["tests/fixtures/multirank/straggler/rank-%d.json.gz" % r for r in range(4)],
}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def png_nonwhite_share(path):
    """Share of pixels that are not white, from the PNG itself (8-bit RGB/RGBA)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "PNG type %d/%d" % (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    nonwhite = total = 0
    i = 0
    for _ in range(h):
        ft = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp * 4):          # every 4th pixel
            total += 1
            if min(line[x], line[x + 1], line[x + 2]) < 235:
                nonwhite += 1
        prev = line
    return nonwhite / max(total, 1)


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements = 0
        self.stack = []
        self.figures = []          # data-name of each <figure> holding an <svg>
        self.tables = 0
        self.sortable = 0
        self.th = 0
        self.pwned = []
        self.handlers = []
        self.resources = []        # anything that would make the browser fetch
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        self.elements += 1
        a = dict(attrs)
        if tag in ("link", "img", "iframe", "object", "embed", "image", "use", "audio", "video", "source", "base", "form"):
            self.resources.append((tag, a))
        self.in_style = tag == "style"
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster", "data") and v and not v.startswith("#"):
                self.resources.append((tag, k, v))
            if k == "style" or (v and "url(" in v and not v.startswith("url(#")):
                self.resources.append((tag, k, v))
            if k == "data-pwned":
                self.pwned.append((tag, v))
            if k.startswith("on"):
                self.handlers.append((tag, k))
        if tag == "svg" and self.stack and self.stack[-1][0] == "figure":
            self.figures.append(self.stack[-1][1].get("data-name"))
        if tag == "table" and "data" in (a.get("class") or ""):
            self.tables += 1
        if tag == "th":
            self.th += 1
            if a.get("tabindex") == "0":
                self.sortable += 1
        if tag not in ("meta", "br", "img", "input", "link", "hr"):
            self.stack.append((tag, a))

    def handle_data(self, data):
        if self.in_style and ("@import" in data or "url(" in data):
            self.resources.append(("style", data[:80]))

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)


def main():
    chrome = chromium()
    if not chrome:
        print("SKIP: no chromium here (Debian: apt-get install chromium; tools/deps.sh installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="perflab-browser-")
    counts = {}
    # one browser for every page (a launch costs seconds): a viewport of
    # 1200x1800 as the screenshots have always had
    b = Browser(chrome, os.path.join(tmp, "profile"))
    try:
        b.open(1200, 1800)
        for name, src in INPUTS.items():
            check_page(b, tmp, name, src, counts)
    finally:
        b.close()
    if "hostile" in counts and "plain" in counts and counts["hostile"] != counts["plain"]:
        fail("hostile names changed the DOM: %d elements, %d with plain names" % (counts["hostile"], counts["plain"]))
    if failures:
        print("%d failure(s); pages and screenshots in %s" % (len(failures), tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print("OK")
    return 0


def check_page(b, tmp, name, src, counts):
    srcs = src if isinstance(src, list) else [src]
    missing = [f for f in srcs if not os.path.exists(f)]
    if missing:
        fail("missing test input " + ", ".join(missing))
        return
    page = os.path.join(tmp, name + ".html")
    with open(page, "wb") as f:
        r = subprocess.run([PERFLAB, "run", "all"] + srcs + ["--format", "html"], stdout=f, stderr=subprocess.PIPE, timeout=300)
    if r.returncode != 0:
        fail("%s: perflab exit %d: %s" % (name, r.returncode, r.stderr.decode(errors="replace")))
        return
    rj = subprocess.run([PERFLAB, "run", "all"] + srcs + ["--format", "json"], capture_output=True, timeout=300)
    data = json.loads(rj.stdout)
    # a collapsed report (not applicable to these inputs) shows one line, no tables or figures
    reports = [rep for rep in data["reports"] if not rep.get("collapsed")]
    text = open(page, encoding="utf-8").read()
    if not (0 <= text.find('id="summary"') < text.find('id="r1"')):
        fail("%s: the page does not open with the summary" % name)
    if "actions" not in data["summary"]:
        fail("%s: the JSON has no summary actions" % name)
    want_figs = [n for rep in reports for n in rep["figures"]]
    want_tables = sum(len(rep["tables"]) for rep in reports)
    # a URL may be data (ncu's advice cites its docs) but never a resource
    # the page would fetch: src/href/url()/@import/<link>/<img>...
    raw = Dom()
    raw.feed(text)
    if raw.resources:
        fail("%s: the page references resources: %s" % (name, raw.resources[:3]))
    b.console()                       # drain what an earlier page logged
    b.navigate("file://" + os.path.abspath(page))
    shot = os.path.join(tmp, name + ".png")
    b.screenshot(shot)
    keep = os.environ.get("PERFLAB_BROWSER_KEEP")   # a folder to keep the screenshots in, to look at them
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(shot, os.path.join(keep, name + ".png"))
    share = png_nonwhite_share(shot)
    print("%s: screenshot %s, %.1f %% of pixels not white" % (name, shot, 100 * share))
    if share < 0.02:
        fail("%s: the screenshot is blank (%.2f %% not white)" % (name, 100 * share))
    # the DOM after the page's script ran (before printing: print media
    # must not be what is counted)
    dom = Dom()
    dom.feed(b.dom())
    # it prints: a PDF with pages
    pdf = os.path.join(tmp, name + ".pdf")
    b.print_pdf(pdf)
    pages = 0
    with open(pdf, "rb") as f:
        body = f.read()
    pages = len(re.findall(rb"/Type\s*/Page\b", body)) if body.startswith(b"%PDF") else 0
    print("%s: printed to %d PDF page(s)" % (name, pages))
    if pages < 1:
        fail("%s: printing to PDF gave no page" % name)
    # errors, CSP refusals, console.* from the page, however they came
    console = b.console()
    if console:
        fail("%s: console messages: %s" % (name, console[:3]))
    counts[name] = dom.elements
    print("%s: %d elements, %d figures (report: %d), %d tables (report: %d), %d/%d sortable headers" % (
        name, dom.elements, len(dom.figures), len(want_figs), dom.tables, want_tables, dom.sortable, dom.th))
    dom.figures = [f for f in dom.figures if f != "summary"]   # the summary's bars
    if sorted(dom.figures) != sorted(want_figs):
        fail("%s: figures in the DOM %s, the report has %s" % (name, dom.figures, want_figs))
    if len(want_figs) == 0:
        fail("%s: no figure at all" % name)
    if dom.tables != want_tables:
        fail("%s: %d tables in the DOM, the report has %d" % (name, dom.tables, want_tables))
    if dom.th == 0 or dom.sortable != dom.th:
        fail("%s: the page's script did not run (%d of %d headers sortable)" % (name, dom.sortable, dom.th))
    if dom.resources:
        fail("%s: the DOM references resources: %s" % (name, dom.resources[:3]))
    if dom.pwned or dom.handlers:
        fail("%s: input ran as markup: %s %s" % (name, dom.pwned, dom.handlers))


if __name__ == "__main__":
    sys.exit(main())
