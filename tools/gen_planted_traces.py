#!/usr/bin/python3
"""Writes small Kineto (PyTorch profiler) traces with a planted cause, for
the suspicion recipe's tests and README example.

    /usr/bin/python3 tools/gen_planted_traces.py [OUTDIR] [--seed N]

OUTDIR (default tests/fixtures/suspicion) gets, gzip-compressed:
  normal_1.pt.trace.json.gz, normal_2.pt.trace.json.gz   baseline runs
  abnormal_1.pt.trace.json.gz, abnormal_2.pt.trace.json.gz
      the same program where the kernel PLANTED runs 1.5x longer and the
      counter gpu_sm_frequency drops from ~1410 MHz to ~1005 MHz (with noise);
      every other kernel and counter has the normal distribution.

Each run: STEPS ProfilerStep#N spans on the CPU; in each, the host launches
the kernels of KERNELS (cudaLaunchKernel, 8 us apart) and the GPU runs them
back to back (device 0, stream 7); the step ends at a synchronize after the
last kernel.  Kernel durations are base x lognormal(0, 4 %).  Counters
(ph "C", pid 0, args {"GPU 0": value}) are sampled every 250 us:
gpu_sm_frequency (MHz) and gpu_utilization (%).  Deterministic for a seed
(random.Random(seed + run index), gzip mtime 0).
"""
import gzip
import json
import math
import os
import random
import sys

PLANTED = "ampere_sgemm_128x64_nn"
# name, base duration (us), launches per step, grid, block, registers, smem
KERNELS = [
    (PLANTED, 420.0, 3, [108, 4, 1], [256, 1, 1], 122, 24576),
    ("volta_fp16_s884gemm_fp16_64x64_ldg8_f2f_nn", 310.0, 2, [216, 1, 1], [128, 1, 1], 168, 16384),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int, float*)", 95.0, 4, [1024, 1, 1], [128, 1, 1], 24, 0),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(at::native::ReduceOp<float>)", 60.0, 3, [432, 1, 1], [512, 1, 1], 32, 32),
    ("void cunn_SoftMaxForward<4, float, float, float>(float*, float const*, int)", 80.0, 2, [2048, 1, 1], [256, 1, 1], 38, 64),
    ("void at::native::elementwise_kernel<128, 2>(int, float*)", 40.0, 5, [512, 1, 1], [128, 1, 1], 20, 0),
    ("layer_norm_fwd_kernel", 55.0, 2, [256, 1, 1], [256, 1, 1], 40, 8192),
]
STEPS = 10
PID = 4242


def make_run(seed, abnormal):
    rng = random.Random(seed)
    ev = []
    corr = 1000
    t = 1_000_000.0  # us
    steps = []
    kernels = []
    for s in range(STEPS):
        start = t
        c = start + 15.0
        g = start + 40.0
        for (name, base, launches, grid, block, regs, smem) in KERNELS:
            for _ in range(launches):
                dur = base * math.exp(rng.gauss(0.0, 0.04))
                if abnormal and name == PLANTED:
                    dur *= 1.5
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID, "tid": PID,
                           "ts": round(c, 3), "dur": 6.0, "args": {"correlation": corr, "External id": corr}})
                ks = max(g, c + 6.0)
                ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                           "ts": round(ks, 3), "dur": round(dur, 3),
                           "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": corr,
                                    "registers per thread": regs, "shared memory": smem,
                                    "grid": grid, "block": block, "External id": corr}})
                kernels.append((ks, ks + dur))
                corr += 1
                c += 8.0
                g = ks + dur + 2.0
        end = max(c, g) + 25.0
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": PID, "tid": PID,
                   "ts": round(c, 3), "dur": round(end - 5.0 - c, 3), "args": {"correlation": corr}})
        corr += 1
        steps.append((s, start, end))
        t = end + 30.0
    for (s, start, end) in steps:
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": PID, "tid": PID,
                   "ts": round(start, 3), "dur": round(end - start, 3), "args": {}})
    # counters every 250 us over the whole run
    ts = 1_000_000.0 - 500.0
    while ts < t + 500.0:
        freq = (1005.0 if abnormal else 1410.0) + rng.gauss(0.0, 15.0)
        util = min(100.0, 92.0 + rng.gauss(0.0, 2.0))
        ev.append({"ph": "C", "name": "gpu_sm_frequency", "pid": 0, "ts": round(ts, 3), "args": {"GPU 0": round(freq, 1)}})
        ev.append({"ph": "C", "name": "gpu_utilization", "pid": 0, "ts": round(ts, 3), "args": {"GPU 0": round(util, 2)}})
        ts += 250.0
    ev.sort(key=lambda e: (e["ts"], e["name"]))
    return {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85031714816,
                              "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                              "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536,
                              "warpSize": 32, "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 167936,
                              "numSms": 108, "sharedMemPerBlockOptin": 166912}],
        "traceEvents": ev,
        "traceName": "planted_%s_seed%d" % ("abnormal" if abnormal else "normal", seed),
    }


def main():
    args = sys.argv[1:]
    seed = 7
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    out = args[0] if args else "tests/fixtures/suspicion"
    os.makedirs(out, exist_ok=True)
    runs = [("normal_1", False), ("normal_2", False), ("abnormal_1", True), ("abnormal_2", True)]
    for k, (name, abnormal) in enumerate(runs):
        doc = make_run(seed * 100 + k, abnormal)
        data = json.dumps(doc, separators=(",", ":")).encode()
        path = os.path.join(out, name + ".pt.trace.json.gz")
        with open(path, "wb") as f:
            with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as z:
                z.write(data)
        print(path, len(data), "bytes of JSON")


if __name__ == "__main__":
    main()
