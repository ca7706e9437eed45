#!/usr/bin/env python3
"""serve_load.py -- the load test of `perflab serve` (issue 33), loopback only.

    python3 bench/serve_load.py PERFLAB_BINARY [--clients 32] [--seconds 30]
        [--big-mb 1000] [--cache-memory 2G] [--data DIR]

A folder is served with: a generated Kineto trace of --big-mb MB
(bench/gen_kineto.py, fixed seed, kept in --data between runs), a few
corpus files (tests/data/corpus: Kineto, nsys, ncu), a malformed trace and
"cold" copies of a small trace.  --clients threads send requests for
--seconds (bounded: each client stops at the deadline, every request has a
120 s socket timeout), chosen at random (fixed seed) among
  - cached pages (70 %): the runs page, a run, a compare, a timeline;
  - cold parses (20 %): a cold copy's mtime is changed, then its run page
    is asked for: the server parses it again;
  - the big trace (5 %): top-kernels on it (parsed once, cached after);
  - the malformed file (5 %): its page, which must answer 422.
A failed request is a connection error, a timeout or an unexpected status
(anything but 200, and 422 for the malformed file).  Printed: requests,
requests per second, p50/p90/p99/max latency, failures (must be 0) and the
server's peak RSS (VmHWM), beside the cache cap and the big trace's size.
A pool of --workers Lua states serves the requests, and cached pages are
answered from the shared page cache without a worker (docs/serve.md): a
cold parse of the big trace holds its worker for its duration, which is
what p99 and max show."""
import argparse
import http.client
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(ROOT, "tests/data/corpus")
SMALL = {
    "kineto/control.json.gz": "kineto_multirank/hta_trace_diff/control/control.json.gz",
    "kineto/test.json.gz": "kineto_multirank/hta_trace_diff/test/test.json.gz",
    "nsys/before.sqlite": "nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite",
    "nsys/after.sqlite": "nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_after.sqlite",
    "ncu/gemm.txt": "ncu_text/cuda_gemm_h20_doc_raw_warptile.txt",
}
COLD = "kineto_trace/hta_a100_sxm4_80gb_rank0.json.gz"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perflab")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--big-mb", type=int, default=1000)
    ap.add_argument("--cache-memory", default="2G")
    ap.add_argument("--data", default=os.path.join(ROOT, "build/bench-data"))
    ap.add_argument("--cached-only", action="store_true", help="only the cached pages (the serving cost alone)")
    ap.add_argument("--workers", help="perflab serve --workers N (default: the server's)")
    a = ap.parse_args()
    os.makedirs(a.data, exist_ok=True)
    big = os.path.join(a.data, "serve_kineto_%dMB.json" % a.big_mb)
    if not os.path.exists(big):
        print("== generating %s" % big, flush=True)
        subprocess.run([sys.executable, os.path.join(HERE, "gen_kineto.py"), str(a.big_mb), big], check=True)
    tmp = tempfile.mkdtemp(prefix="perflab-serve-load-")
    served = os.path.join(tmp, "runs")
    for rel, src in SMALL.items():
        os.makedirs(os.path.dirname(os.path.join(served, rel)), exist_ok=True)
        shutil.copy(os.path.join(CORPUS, src), os.path.join(served, rel))
    os.makedirs(os.path.join(served, "cold"))
    for i in range(4):
        shutil.copy(os.path.join(CORPUS, COLD), os.path.join(served, "cold", "c%d.json.gz" % i))
    os.makedirs(os.path.join(served, "big"))
    os.link(big, os.path.join(served, "big", "big.json")) if os.stat(big).st_dev == os.stat(served).st_dev \
        else shutil.copy(big, os.path.join(served, "big", "big.json"))
    with open(os.path.join(served, "broken.json"), "w") as f:
        f.write('{"traceEvents": [ {"name": "k", "ph": "X", "ts": 1, "dur": ')
    srv = subprocess.Popen([a.perflab, "serve", served, "--port", "0", "--cache-memory", a.cache_memory]
                           + (["--workers", a.workers] if a.workers else []),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", srv.stdout.readline().decode())
    if not m:
        srv.kill()
        raise SystemExit("the server did not start: " + srv.stderr.read().decode()[-500:])
    port = int(m.group(1))

    def get(path):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        c.close()
        return r.status

    def get_body(path):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        c.request("GET", path)
        body = c.getresponse().read()
        c.close()
        return body

    # warm the cached pages once (not timed): the runs page parses everything but the big trace's page
    t = time.time()
    while b"still to read" in get_body("/"):
        pass
    print("== warm-up (runs page, every file parsed once, the big one included): %.1f s" % (time.time() - t), flush=True)
    cached = ["/", "/run/kineto/control.json.gz", "/run/nsys/before.sqlite", "/run/ncu/gemm.txt",
              "/compare?a=kineto/control.json.gz&b=kineto/test.json.gz", "/timeline/kineto/test.json.gz"]
    for p in cached:
        get(p)
    lat, fails, kinds = [], [], {}
    lock = threading.Lock()
    deadline = time.time() + a.seconds

    def client(seed):
        rnd = random.Random(seed)
        while time.time() < deadline:
            x = rnd.random()
            if x < 0.70 or a.cached_only:
                kind, path, ok = "cached", rnd.choice(cached), (200,)
            elif x < 0.90:
                i = rnd.randrange(4)
                f = os.path.join(served, "cold", "c%d.json.gz" % i)
                os.utime(f, ns=(time.time_ns(), time.time_ns()))
                kind, path, ok = "cold", "/run/cold/c%d.json.gz?recipe=top-kernels" % i, (200,)
            elif x < 0.95:
                kind, path, ok = "big", "/run/big/big.json?recipe=top-kernels", (200,)
            else:
                kind, path, ok = "malformed", "/run/broken.json", (422,)
            t0 = time.time()
            try:
                st = get(path)
            except Exception as e:
                st = repr(e)
            dt = time.time() - t0
            with lock:
                lat.append(dt)
                kinds.setdefault(kind, []).append(dt)
                if st not in ok:
                    fails.append((path, st))

    t0 = time.time()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(a.clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.time() - t0
    hwm = 0
    with open("/proc/%d/status" % srv.pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) * 1024
    srv.send_signal(signal.SIGTERM)
    rc = srv.wait(timeout=120)
    shutil.rmtree(tmp, ignore_errors=True)

    def pct(xs, q):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")
    print("== perflab serve, %d clients, %.0f s (wall %.1f s), big trace %d MB, --cache-memory %s%s%s" % (
        a.clients, a.seconds, wall, a.big_mb, a.cache_memory, ", cached pages only" if a.cached_only else "",
        ", --workers " + a.workers if a.workers else ""))
    print("requests %d, %.1f req/s, failed %d" % (len(lat), len(lat) / wall, len(fails)))
    print("latency p50 %.3f s, p90 %.3f s, p95 %.3f s, p99 %.3f s, max %.3f s" % (
        pct(lat, .5), pct(lat, .9), pct(lat, .95), pct(lat, .99), max(lat or [0])))
    for k, xs in sorted(kinds.items()):
        print("  %-9s %6d requests, p50 %.3f s, p95 %.3f s, p99 %.3f s" % (k, len(xs), pct(xs, .5), pct(xs, .95), pct(xs, .99)))
    print("peak RSS %.0f MB (the big trace: %.0f MB on disk); stopped by SIGTERM: exit %d" % (
        hwm / 1e6, os.path.getsize(big) / 1e6, rc))
    for f in fails[:5]:
        print("  failed: %s -> %s" % f)
    return 1 if fails or rc != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
