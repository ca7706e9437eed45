#!/usr/bin/env python3
"""Writes tests/fixtures/hostile/{hostile,plain}_trace.json: two small Kineto
traces, identical but for their kernel, op and thread names.  In the hostile
one the names hold markup (<script>, </svg>, '" onload="', <img onerror>),
'&', quotes and non-ASCII text; in the plain one they are plain words.  The
figures test (tests/lua/test_figures.lua) and the browser test
(tests/html/browser.py) render both and compare."""
import json, os, sys

HOSTILE = [
    '<script>document.documentElement.setAttribute("data-pwned","1")</script>gemm',
    '</svg><img src=x onerror="document.documentElement.setAttribute(\'data-pwned\',\'2\')">relu',
    'softmax" onload="document.documentElement.setAttribute(\'data-pwned\',\'3\')" x="',
    'add & mul <b>bold</b> \u2014 \u6838\u51fd\u6570 \u00fcber \U0001F680',
]
PLAIN = ['gemm_kernel', 'relu_kernel', 'softmax_kernel', 'add_mul_kernel']
OPS_H = ['aten::<script>alert(1)</script>', 'aten::"quoted" & \u00e9t\u00e9']
OPS_P = ['aten::custom_a', 'aten::custom_b']


def trace(kernels, ops):
    ev = []
    t = 1000
    corr = 1
    for step in (1, 2):
        s0 = t
        body = []
        for i, k in enumerate(kernels):
            op = ops[i % len(ops)]
            body.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 10, "tid": 11, "ts": t, "dur": 40,
                         "args": {"External id": corr}})
            body.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11,
                         "ts": t + 5, "dur": 10, "args": {"correlation": corr, "External id": corr}})
            dur = 30 + 20 * i + 10 * step
            body.append({"ph": "X", "cat": "kernel", "name": k, "pid": 0, "tid": 7, "ts": t + 20 + 3 * i, "dur": dur,
                         "args": {"device": 0, "stream": 7, "correlation": corr, "External id": corr,
                                  "registers per thread": 32 + 8 * i, "shared memory": 1024 * i,
                                  "grid": [200 + 100 * i, 1, 1], "block": [128 * (i + 1), 1, 1],
                                  "blocks per SM": 1.5, "warps per SM": 6.0, "est. achieved occupancy %": 50}})
            t += 60 + dur
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 10, "tid": 11,
                   "ts": s0, "dur": t - s0})
        ev.extend(body)
        t += 50
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8,
            "computeMinor": 0, "numSms": 108, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
            "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
            "sharedMemPerMultiprocessor": 167936, "sharedMemPerBlockOptin": 166912, "totalGlobalMem": 85899345920}],
            "traceEvents": ev}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "hostile")
    os.makedirs(out, exist_ok=True)
    for name, ks, ops in (("hostile", HOSTILE, OPS_H), ("plain", PLAIN, OPS_P)):
        with open(os.path.join(out, name + "_trace.json"), "w", encoding="utf-8") as f:
            json.dump(trace(ks, ops), f, ensure_ascii=False, indent=0)
            f.write("\n")


if __name__ == "__main__":
    main()
