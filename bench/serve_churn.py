#!/usr/bin/env python3
"""serve_churn.py -- perflab serve's memory under a churn of cold parses.

    python3 bench/serve_churn.py PERFLAB_BINARY DIR [serve options...]

DIR holds big/big.json (a large Kineto trace) and cold/c0..c3.json.gz (a
small trace, copied).  One client, one request at a time (the figures do
not depend on the machine's load): the runs page until every file is read,
then 48 rounds of: touch cold/cI (a new version), its top-kernels page and
its run page (every recipe); every 8th round the big trace's top-kernels
page and the runs page.  Prints VmHWM and VmRSS (MB) as it goes: with a
cache cap C they must level off under C plus the big trace's parse.
docs/serve.md has the figures."""
import subprocess, re, sys, http.client, time, os
perflab, served = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
srv = subprocess.Popen([perflab, "serve", served, "--port", "0"] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", srv.stdout.readline().decode()).group(1))
def hwm():
    d = {}
    for l in open("/proc/%d/status" % srv.pid):
        if l.startswith(("VmHWM", "VmRSS")): d[l.split(":")[0]] = int(l.split()[1]) // 1024
    return d
def get(p):
    while True:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=3000); c.request("GET", p); r = c.getresponse(); b = r.read(); c.close()
        if b"reading:" in b or b"still to read" in b: time.sleep(0.5); continue
        return r.status
t = time.time()
get("/"); print("warm %.0f s" % (time.time() - t), hwm(), flush=True)
for i in range(48):
    f = os.path.join(served, "cold", "c%d.json.gz" % (i % 4))
    os.utime(f, ns=(time.time_ns(), time.time_ns()))
    get("/run/cold/c%d.json.gz?recipe=top-kernels" % (i % 4))
    get("/run/cold/c%d.json.gz" % (i % 4))
    if i % 8 == 7:
        get("/run/big/big.json?recipe=top-kernels"); get("/"); print(i, hwm(), flush=True)
print("end %.0f s" % (time.time() - t), hwm())
srv.terminate(); srv.wait()
