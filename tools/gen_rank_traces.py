#!/usr/bin/python3
"""Writes the Kineto traces of one simulated data-parallel job, one file per
rank, optionally with a planted straggler -- for the distributed and
stragglers recipes' tests and for the multi-file load bench.

    /usr/bin/python3 tools/gen_rank_traces.py OUTDIR [--ranks N] [--steps N]
        [--straggler R] [--delay-us US] [--seed N] [--size-mb MB] [--gzip]

OUTDIR gets rank-0.json ... rank-(N-1).json (.json.gz with --gzip; gzip
mtime 0).  Every file has distributedInfo {backend nccl, rank, world_size}.

The job, per step s (all ranks share one clock, as synchronised training):
  * each rank runs KERNELS compute kernels back to back on stream 7
    (duration base x lognormal(0, 3 %)); after the first half it enters an
    all_reduce (bucket 0) that runs on stream 20 beside the second half; after
    the last compute kernel it enters a second all_reduce (bucket 1);
  * the planted straggler (--straggler R) enters both collectives DELAY us
    late (a slow host: its compute kernels start late by that much);
  * a collective cannot finish before every rank has entered it: on rank r
    its kernel runs from r's entry to max(entries) + transfer time (the
    transfer time is the same on every rank, plus 0-2 us of jitter), so the
    ranks that wait for the straggler have long kernels and the straggler
    short ones, and the straggler's kernels start last;
  * the step ends 20 us after the last collective ends on every rank.
  Host side: ProfilerStep#s spans the step; each kernel is launched by a
  cpu_op (aten::mm..., or nccl:all_reduce with Input Dims) and a
  cudaLaunchKernel runtime call 5 us before it starts, tied by correlation
  and External id.  --size-mb: as many steps as make each file about that
  size (overrides --steps).  Deterministic for a seed.
"""
import gzip
import math
import os
import random
import sys

KERNELS = [  # name, cpu op, base duration (us)
    ("ampere_sgemm_128x64_nn", "aten::mm", 180.0),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >", "aten::add_", 40.0),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>", "aten::native_layer_norm", 60.0),
    ("ampere_sgemm_64x64_nt", "aten::mm", 150.0),
    ("void at::native::reduce_kernel<512, 1>", "aten::sum", 30.0),
    ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>", "aten::_softmax", 50.0),
]
COMM = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
TRANSFER = [400.0, 650.0]  # us per bucket
BUCKET_ELEMS = [4194304, 8388608]


def args():
    a = {"out": None, "ranks": 4, "steps": 12, "straggler": -1, "delay": 1500.0, "seed": 7, "size_mb": 0.0, "gzip": False}
    v = sys.argv[1:]
    i = 0
    while i < len(v):
        k = v[i]
        if k == "--ranks": a["ranks"] = int(v[i + 1]); i += 2
        elif k == "--steps": a["steps"] = int(v[i + 1]); i += 2
        elif k == "--straggler": a["straggler"] = int(v[i + 1]); i += 2
        elif k == "--delay-us": a["delay"] = float(v[i + 1]); i += 2
        elif k == "--seed": a["seed"] = int(v[i + 1]); i += 2
        elif k == "--size-mb": a["size_mb"] = float(v[i + 1]); i += 2
        elif k == "--gzip": a["gzip"] = True; i += 1
        elif a["out"] is None and not k.startswith("--"): a["out"] = k; i += 1
        else: sys.exit("usage: gen_rank_traces.py OUTDIR [--ranks N] [--steps N] [--straggler R] [--delay-us US] [--seed N] [--size-mb MB] [--gzip]")
    if a["out"] is None: sys.exit("gen_rank_traces.py: OUTDIR missing")
    return a


def simulate(a):
    """Per rank: list of (kind, name, op, start, dur, bucket) in time order, and step spans."""
    rng = random.Random(a["seed"])
    n = a["ranks"]
    steps = a["steps"]
    if a["size_mb"] > 0:
        # ~ 4 events x ~155 bytes per kernel, (len(KERNELS) * 2 + 2) kernels per step
        per_step = (len(KERNELS) * 2 + 2) * 4 * 155
        steps = max(2, int(a["size_mb"] * 1e6 / per_step))
    t = 1000.0
    runs = [[] for _ in range(n)]
    spans = []
    for s in range(steps):
        start = t
        halves = [[], []]
        for r in range(n):
            c = start + 30.0 + (a["delay"] if r == a["straggler"] else 0.0)
            for h in range(2):
                ks = []
                for (name, op, base) in KERNELS:
                    d = round(base * math.exp(rng.gauss(0, 0.03)), 3)
                    ks.append((name, op, c, d))
                    c += d + 2.0
                halves[h].append((ks, c))
        entries = [[halves[0][r][1] for r in range(n)], [halves[1][r][1] for r in range(n)]]
        ends = []
        for b in range(2):
            done = max(entries[b]) + TRANSFER[b]
            ends.append([done + rng.uniform(0, 2.0) for _ in range(n)])
        for r in range(n):
            ev = []
            for (name, op, c, d) in halves[0][r][0]: ev.append(("k", name, op, c, d, -1))
            ev.append(("c", COMM, "nccl:all_reduce", entries[0][r], round(ends[0][r] - entries[0][r], 3), 0))
            for (name, op, c, d) in halves[1][r][0]: ev.append(("k", name, op, c, d, -1))
            # bucket 1 waits for bucket 0 on the comm stream
            b1 = max(entries[1][r], ends[0][r])
            ev.append(("c", COMM, "nccl:all_reduce", b1, round(max(ends[1][r], b1 + 1.0) - b1, 3), 1))
            runs[r].append(ev)
        t = max(max(e) for e in ends) + 20.0
        spans.append((start, t - start))
    return runs, spans


def write_rank(path, r, n, ev_steps, spans, gz):
    out = []
    w = out.append
    w('{\n  "schemaVersion": 1,\n  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n' % (r, n))
    w('  "traceEvents": [\n')
    first = [True]

    def put(s):
        if first[0]: first[0] = False
        else: w(",\n")
        w(s)
    corr = 1000
    ext = 1
    for s, (ev, (st, dur)) in enumerate(zip(ev_steps, spans)):
        put('  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 100, "tid": 100, "ts": %.3f, "dur": %.3f, "args": {"External id": %d}}' % (s, st, dur, ext))
        ext += 1
        for (kind, name, op, ks, kd, b) in ev:
            corr += 1; ext += 1
            host = max(st + 0.5, ks - 5.0)
            if kind == "c":
                put('  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 100, "tid": 100, "ts": %.3f, "dur": 4.000, "args": {"External id": %d, "Input Dims": [[%d]], "Input type": ["float"]}}' % (op, host - 0.5, ext, BUCKET_ELEMS[b]))
            else:
                put('  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 100, "tid": 100, "ts": %.3f, "dur": 4.000, "args": {"External id": %d}}' % (op, host - 0.5, ext))
            put('  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": %.3f, "dur": 3.000, "args": {"correlation": %d, "External id": %d}}' % (host, corr, ext))
            stream = 20 if kind == "c" else 7
            put('  {"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d, "ts": %.3f, "dur": %.3f, "args": {"device": 0, "stream": %d, "correlation": %d, "External id": %d, "grid": [108, 1, 1], "block": [256, 1, 1]}}' % (name, stream, ks, kd, stream, corr, ext))
    w("\n  ]\n}\n")
    data = "".join(out).encode()
    tmp = path + ".part"
    if gz:
        with open(tmp, "wb") as f:
            with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
                g.write(data)
    else:
        with open(tmp, "wb") as f:
            f.write(data)
    os.replace(tmp, path)


def main():
    a = args()
    os.makedirs(a["out"], exist_ok=True)
    runs, spans = simulate(a)
    for r in range(a["ranks"]):
        name = "rank-%d.json" % r + (".gz" if a["gzip"] else "")
        write_rank(os.path.join(a["out"], name), r, a["ranks"], runs[r], spans, a["gzip"])


if __name__ == "__main__":
    main()
