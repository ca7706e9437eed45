#!/usr/bin/env python3
"""perflab serve: the door.  A traversal and hostile-input suite on the
loopback address only.

A temporary folder is served; beside it (outside it) lies a sentinel: a
valid Kineto trace whose one kernel is named SENTINEL_...  If the server
read it, parsed it or sent it, that name would show in a response.  Inside
the folder: plain and hostile traces (the HTML report's hostile-name
fixture, under a file name that is itself markup), a malformed file, a
symlink to the sentinel and a symlink to the folder above.

Every request is sent byte for byte on a raw socket (no client normalises
"..", percent-encoding or NUL), and checked:
  - each traversal form (.., %2e%2e, %2E%2E%2F, ..%2f, double encoding,
    backslash, //abs, %00, symlinks out, ../ in query parameters) gets
    400/403/404, and no response ever holds the sentinel's kernel name;
  - methods other than GET/HEAD get 405, a body 413, too many headers
    431, a long URI 414, a foreign Host header 403, an unknown query key
    400, a bad recipe option 400, an unknown recipe 404;
  - the pages that should work do (200), the malformed file shows its
    error on its row, and hostile names come back escaped only;
  - with --token, no token is 403, ?token= is 200 and sets a cookie that
    then works alone;
  - SIGTERM and SIGINT stop it: exit 0, "stopped" on stderr.
Usage: security.py PERFLAB_BINARY (from the source tree)."""
import html.parser
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PERFLAB = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/perflab")
FIX = "tests/fixtures/hostile"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


class Tags(html.parser.HTMLParser):
    """Elements or attributes that only the input could have put there."""
    def __init__(self):
        super().__init__()
        self.bad = []

    def handle_starttag(self, tag, attrs):
        if tag in ("img", "iframe", "object", "embed", "link", "base"):
            self.bad.append(tag)
        for k, v in attrs:
            if k.startswith("on") or k == "data-pwned" or (k in ("src", "href", "action") and v and re.match(r"\s*(javascript|data|https?):", v)):
                self.bad.append((tag, k, v))


def start(folder, *extra, env=None):
    p = subprocess.Popen([PERFLAB, "serve", folder, "--port", "0"] + list(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, **env) if env else None)
    line = p.stdout.readline().decode()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        p.kill()
        raise SystemExit("server did not start: %r %s" % (line, p.stderr.read().decode()[-500:]))
    return p, int(m.group(1))


def raw(port, request, timeout=60):
    """Sends request bytes; returns (status, headers text, body bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(request)
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    return (int(m.group(1)) if m else 0), head.decode("latin-1"), body


def get(port, path, headers=None, method="GET"):
    h = {"Host": "127.0.0.1:%d" % port, "Connection": "close"}
    h.update(headers or {})
    req = ("%s %s HTTP/1.1\r\n" % (method, path)).encode("latin-1")
    for k, v in h.items():
        req += ("%s: %s\r\n" % (k, v)).encode("latin-1")
    return raw(port, req + b"\r\n")


def main():
    tmp = tempfile.mkdtemp(prefix="perflab-serve-sec-")
    served = os.path.join(tmp, "served")
    os.makedirs(os.path.join(served, "sub"))
    # the sentinel, outside the served folder: a valid trace with a unique kernel name
    plain = open(os.path.join(FIX, "plain_trace.json"), encoding="utf-8").read()
    names = set(re.findall(r'"name":\s*"([^"]+)"', plain))
    kernel = next(n for n in sorted(names) if "gemm" in n.lower() or "kernel" in n.lower())
    sentinel_name = "SENTINEL_7f3a9c_kernel"
    with open(os.path.join(tmp, "sentinel.json"), "w", encoding="utf-8") as f:
        f.write(plain.replace(kernel, sentinel_name))
    shutil.copy(os.path.join(FIX, "plain_trace.json"), os.path.join(served, "plain.json"))
    shutil.copy(os.path.join(FIX, "plain_trace.json"), os.path.join(served, "sub", "again.json"))
    hostile_file = '<img src=x onerror="alert(1)">&.json'
    shutil.copy(os.path.join(FIX, "hostile_trace.json"), os.path.join(served, hostile_file))
    with open(os.path.join(served, "broken.json"), "w") as f:
        f.write('{"traceEvents": [ {"name": "x", "ph": "X", "ts": 1, ')
    os.symlink(os.path.join(tmp, "sentinel.json"), os.path.join(served, "link_out.json"))
    os.symlink(tmp, os.path.join(served, "up"))
    sentinel_bytes = sentinel_name.encode()

    p, port = start(served)
    try:
        def expect(path, codes, what, **kw):
            st, head, body = get(port, path, **kw)
            if st not in codes:
                fail("%s: %s -> %d, expected %s" % (what, path, st, codes))
            if sentinel_bytes in body:
                fail("%s: %s sent the sentinel's content" % (what, path))
            return st, head, body

        refused = [
            "/run/../sentinel.json", "/run/%2e%2e/sentinel.json", "/run/%2E%2E%2Fsentinel.json",
            "/run/..%2fsentinel.json", "/run/..%2Fsentinel.json", "/run/%2e%2e%2fsentinel.json",
            "/run/sub/../../sentinel.json", "/run/sub/%2e%2e/%2e%2e/sentinel.json", "/run/./plain.json",
            "/run/..\\sentinel.json", "/run/..%5csentinel.json", "/run//" + tmp.lstrip("/") + "/sentinel.json",
            "/run/%2f" + tmp.lstrip("/") + "/sentinel.json", "/run" + tmp + "/sentinel.json",
            "/run/plain.json%00.txt", "/run/%00", "/run/link_out.json", "/run/up/sentinel.json",
            "/timeline/link_out.json", "/export/link_out.json", "/export/../sentinel.json",
            "/job/up", "/job/..", "/job/%2e%2e", "/../sentinel.json", "/%2e%2e/sentinel.json",
            "/compare?a=../sentinel.json&b=plain.json", "/compare?a=plain.json&b=" + tmp + "/sentinel.json",
            "/compare?a=plain.json&b=link_out.json", "/compare?a=plain.json&b=up/sentinel.json",
            "/compare?baseline=%2e%2e/sentinel.json&target=plain.json", "/compare?a=plain.json&b=..%2fsentinel.json",
            "/compare?a=plain.json&b=%2e%2e%5csentinel.json", "/compare?a=plain.json&b=sub%00x",
        ]
        for path in refused:
            expect(path, (400, 403, 404), "traversal")
        # double encoding decodes once to a literal name that does not exist
        expect("/run/%252e%252e/sentinel.json", (403, 404), "double encoding")
        # doors
        expect("/", (405,), "POST", method="POST")
        expect("/run/plain.json", (405,), "DELETE", method="DELETE")
        expect("/run/plain.json", (405,), "PUT", method="PUT")
        st, _, _ = raw(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello" % port)
        if st != 413:
            fail("a GET with a body -> %d, expected 413" % st)
        many = {"X-H%d" % i: "v" for i in range(100)}
        expect("/", (431,), "100 headers", headers=many)
        expect("/run/" + "a" * 5000, (414, 431), "a 5000-byte URI")
        expect("/", (403,), "a foreign Host header (DNS rebinding)", headers={"Host": "evil.example:%d" % port})
        expect("/run/plain.json?evil=1", (400,), "an unknown query key")
        expect("/run/plain.json?recipe=top-kernels&set=top=abc", (400,), "a bad option value")
        expect("/run/plain.json?recipe=top-kernels&set=nosuch=1", (400,), "an unknown option")
        expect("/run/plain.json?recipe=../../sentinel", (404,), "a recipe name as a path")
        expect("/run/plain.json?recipe=nosuch", (404,), "an unknown recipe")
        expect("/run/nosuch.json", (404,), "a missing file")
        expect("/nosuch", (404,), "an unknown page")
        # pages that work
        st, head, body = expect("/", (200,), "runs page")
        text = body.decode("utf-8", "replace")
        for must in ("plain.json", "sub/again.json", "broken.json"):
            if must not in text:
                fail("runs page lacks %s" % must)
        if "link_out.json" in text or "up/" in text:
            fail("runs page lists a symlink that leaves the folder")
        if "Content-Security-Policy" not in text or "X-Content-Type-Options: nosniff" not in head:
            fail("runs page without its CSP or nosniff header")
        m = re.search(r"<tr><td class=\"name\"><a href=\"[^\"]*broken\.json\">.*?</tr>", text)
        if not m or 'class="err"' not in m.group(0) or "broken.json:1:" not in m.group(0):
            fail("the malformed file's row does not show its error (FILE:LINE:COLUMN)")
        if "<img src=x" in text or 'onerror="alert' in text:
            fail("a hostile file name came back as markup")
        if "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;.json" not in text:
            fail("the hostile file name is not on the runs page, escaped")
        for path in ("/run/plain.json", "/run/%3Cimg%20src%3Dx%20onerror%3D%22alert(1)%22%3E%26.json",
                     "/timeline/plain.json", "/compare?a=plain.json&b=sub/again.json", "/job/sub"):
            st, _, body = expect(path, (200,), "page")
            t = body.decode("utf-8", "replace")
            bad = Tags()
            bad.feed(t)
            if bad.bad:
                fail("%s: hostile markup got through: %s" % (path, bad.bad[:3]))
            if len(re.findall(r"<script>", t)) != 2:
                fail("%s: %d <script> elements, expected the page's own 2" % (path, len(re.findall(r"<script>", t))))
        st, head, body = expect("/export/plain.json", (200,), "export")
        if "attachment" not in head or not body.startswith(b"{"):
            fail("export is not a JSON attachment")
        st, _, body = expect("/", (200,), "HEAD", method="HEAD")
        if body:
            fail("HEAD sent a body")
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "hung"
        err = p.stderr.read().decode()
        if rc != 0 or "stopped (SIGTERM)" not in err:
            fail("SIGTERM: exit %s, stderr %r" % (rc, err[-300:]))

    # a token, on loopback
    p, port = start(served, "--token", "s3cret-token")
    try:
        st, _, _ = get(port, "/")
        if st != 403:
            fail("no token -> %d, expected 403" % st)
        st, _, _ = get(port, "/?token=wrong")
        if st != 403:
            fail("a wrong token -> %d, expected 403" % st)
        st, head, _ = get(port, "/?token=s3cret-token")
        m = re.search(r"Set-Cookie: (perflab_token=[^;\r\n]+)", head)
        if st != 200 or not m or "HttpOnly" not in head:
            fail("the token -> %d, cookie %s" % (st, bool(m)))
        elif get(port, "/run/plain.json", headers={"Cookie": m.group(1)})[0] != 200:
            fail("the token's cookie alone is refused")
        if get(port, "/run/plain.json", headers={"Authorization": "token s3cret-token"})[0] != 200:
            fail("Authorization: token T is refused")
    finally:
        p.send_signal(signal.SIGINT)
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "hung"
        err = p.stderr.read().decode()
        if rc != 0 or "stopped (SIGINT)" not in err:
            fail("SIGINT: exit %s, stderr %r" % (rc, err[-300:]))

    # --timeout per request: the slow page answers 503, the server goes on
    slow = os.path.join(tmp, "slow")
    os.makedirs(slow)
    shutil.copy(os.path.join(os.environ.get("PERFLAB_DATA", "tests/data"),
                             "corpus/kineto_multirank/hta_trace_diff/control/control.json.gz"), slow)
    p, port = start(slow, "--timeout", "0.3")
    try:
        t0 = time.time()
        st, _, _ = get(port, "/run/control.json.gz")
        if st != 503:
            fail("a page past --timeout -> %d, expected 503" % st)
        st, _, _ = get(port, "/nosuch")
        if st != 404:
            fail("the request after a timeout -> %d, expected 404 (the server went on)" % st)
        print("timeout: 503 after %.1f s, then 404" % (time.time() - t0))
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "hung"
        if rc != 0:
            fail("SIGTERM after a timeout: exit %s" % rc)

    # a long parse shows progress: every file counts as large here
    # (PERFLAB_SERVE_DEFER_BYTES=1), so the run page answers at once with a
    # page that reloads itself, and the report comes on a later reload
    p, port = start(slow, "--workers", "2", env={"PERFLAB_SERVE_DEFER_BYTES": "1"})
    try:
        t0 = time.time()
        st, _, body = get(port, "/run/control.json.gz")
        first = time.time() - t0
        if st != 200 or b'id="progress"' not in body or b'http-equiv="refresh"' not in body:
            fail("a long parse: first answer %d without the progress page" % st)
        seen, done = set(), False
        while time.time() - t0 < 120:
            st, _, body = get(port, "/run/control.json.gz")
            if st != 200:
                fail("a reload during the parse -> %d" % st)
                break
            m = re.search(rb'id="progress">([^<]*)', body)
            if not m:
                done = b"control.json.gz" in body and b"<h2>Findings</h2>" in body or b"<section" in body
                break
            seen.add(m.group(1).split(b":")[0].decode())
            time.sleep(0.3)
        if not done:
            fail("a long parse: the report never came (%s)" % sorted(seen))
        print("progress: first answer in %.2f s, then %s, the report after %.1f s" % (first, sorted(seen), time.time() - t0))
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "hung"
        if rc != 0:
            fail("SIGTERM after a deferred parse: exit %s" % rc)

    # option checks at start
    r = subprocess.run([PERFLAB, "serve", served, "--token", "a", "--no-token"], capture_output=True, timeout=30)
    if r.returncode != 2:
        fail("--token with --no-token: exit %d" % r.returncode)
    r = subprocess.run([PERFLAB, "serve", os.path.join(served, "plain.json")], capture_output=True, timeout=30)
    if r.returncode != 2:
        fail("serve FILE: exit %d" % r.returncode)

    if failures:
        print("%d failure(s); folder %s" % (len(failures), tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
