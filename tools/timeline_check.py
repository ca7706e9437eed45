#!/usr/bin/python3
"""Independent computation of the idle-time and launch-latency figures of a
Kineto trace, with nothing but the Python standard library (json, gzip,
decimal), for tests/lua/test_timeline_recipes.lua.

    python3 tools/timeline_check.py TRACE.json[.gz] [kernel_wait_ns]

Prints one line per figure, `key value`.  Times are integer nanoseconds
(ts/dur are read as decimals and multiplied by 1000 exactly).

Definitions (HTA, as in shared/reference/analysis-rules.md items 21-24):
- device ops: events with cat kernel / gpu_memcpy / gpu_memset (any case,
  also Memcpy / Memset), grouped by (args.device, args.stream);
- launch of an op: the first runtime event (cat cuda_runtime, cuda_driver or
  Runtime) with the same args.correlation;
- idle per stream: ops sorted by (start, file order); gap = start - the latest
  end so far; host wait if the launch's start > that end, else kernel wait
  if gap < kernel_wait_ns, else other;
- launch delay (kernels only) = start - (launch start + launch duration);
  quantiles by linear interpolation between order statistics (R type 7);
- short launches: kernel duration < launch duration;
- queue length per stream: +1 at the launch's start (the op's start when no
  launch), -1 at the op's end, ends before starts at equal times; maximum;
- overlap per device: |union(non-nccl kernels) ∩ union(nccl* kernels)|.
"""
import gzip
import json
import sys
from decimal import Decimal


def ns(v):
    return int(Decimal(str(v)) * 1000)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def union(iv):
    out = []
    for s, e in sorted(x for x in iv if x[1] > x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(iv):
    return sum(e - s for s, e in iv)


def intersect(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append([lo, hi])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def q7(vals, q):
    v = sorted(vals)
    h = (len(v) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def main():
    path = sys.argv[1]
    kwait = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    doc = load(path)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    launch = {}
    ops = []
    kinds = {"kernel": "kernel", "gpu_memcpy": "memcpy", "memcpy": "memcpy",
             "gpu_memset": "memset", "memset": "memset"}
    for order, e in enumerate(events):
        if e.get("ph") != "X":
            continue
        cat = str(e.get("cat", "")).lower()
        args = e.get("args") or {}
        if cat in ("cuda_runtime", "cuda_driver", "runtime"):
            c = args.get("correlation")
            if c is not None and c not in launch:
                launch[c] = (ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)))
        elif cat in kinds:
            s = ns(e["ts"])
            ops.append({"s": s, "e": s + ns(e.get("dur", 0)), "kind": kinds[cat], "name": e.get("name", ""),
                        "dev": args.get("device", 0), "stream": args.get("stream", -1),
                        "corr": args.get("correlation"), "order": order})
    for o in ops:
        l = launch.get(o["corr"]) if o["corr"] is not None else None
        o["ls"], o["le"] = (l if l else (None, None))
    ops.sort(key=lambda o: (o["s"], o["order"]))
    streams = {}
    for o in ops:
        streams.setdefault((o["dev"], o["stream"]), []).append(o)
    for key in sorted(streams):
        so = streams[key]
        hw = kw = ot = 0
        prev = so[0]["e"]
        for o in so[1:]:
            gap = o["s"] - prev
            if gap > 0:
                if o["ls"] is not None and o["ls"] > prev:
                    hw += gap
                elif gap < kwait:
                    kw += gap
                else:
                    ot += gap
            prev = max(prev, o["e"])
        span = max(o["e"] for o in so) - so[0]["s"]
        busy = length(union([[o["s"], o["e"]] for o in so]))
        tag = "%s:%s" % key
        print("idle.%s.ops %d" % (tag, len(so)))
        print("idle.%s.span_ns %d" % (tag, span))
        print("idle.%s.busy_ns %d" % (tag, busy))
        print("idle.%s.host_wait_ns %d" % (tag, hw))
        print("idle.%s.kernel_wait_ns %d" % (tag, kw))
        print("idle.%s.other_ns %d" % (tag, ot))
        # queue length
        pts = []
        for o in so:
            pts.append((o["ls"] if o["ls"] is not None else o["s"], 1))
            pts.append((o["e"], -1))
        pts.sort()
        q = qmax = 0
        for _, d in pts:
            q += d
            qmax = max(qmax, q)
        print("queue.%s.max %d" % (tag, qmax))
    kern = [o for o in ops if o["kind"] == "kernel"]
    delays = [o["s"] - o["le"] for o in kern if o["le"] is not None]
    print("launch.launches %d" % len(delays))
    print("launch.unmatched %d" % (len(kern) - len(delays)))
    if delays:
        print("launch.mean_ns %.6f" % (sum(delays) / len(delays)))
        for q in (0.5, 0.9, 0.99):
            print("launch.p%g_ns %.6f" % (q * 100, q7(delays, q)))
        print("launch.max_ns %d" % max(delays))
        print("launch.outliers %d" % sum(1 for d in delays if d > 100000))
    print("launch.short %d" % sum(1 for o in kern if o["le"] is not None and o["e"] - o["s"] < o["le"] - o["ls"]))
    devs = sorted(set(o["dev"] for o in kern))
    for d in devs:
        comm = union([[o["s"], o["e"]] for o in kern if o["dev"] == d and o["name"].lower().startswith("nccl")])
        comp = union([[o["s"], o["e"]] for o in kern if o["dev"] == d and not o["name"].lower().startswith("nccl")])
        if comm:
            print("overlap.%s.comm_ns %d" % (d, length(comm)))
            print("overlap.%s.overlap_ns %d" % (d, length(intersect(comm, comp))))


if __name__ == "__main__":
    main()
