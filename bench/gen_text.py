#!/usr/bin/env python3
"""Writes large synthetic nsys-stats and nvprof text files for bench/text_bench.c
(fixed seed; layouts as the tools print them).

   gen_text.py nsys|nvprof-trace|nvprof-summary OUT MEGABYTES
"""
import random, sys
kind, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
rnd = random.Random(12345)
target = int(mb * 1e6)
base = ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, F)",
         "ampere_sgemm_128x64_tn", "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(Params)",
         "flash_fwd_kernel", "void reduce_kernel<512, 1>(ReduceOp<float, MeanOps<float>>)"]
# a realistic number of distinct kernels (names repeat, as in real traces)
names = ["%s_%d" % (b, i) if i else b for i in range(200) for b in base]
with open(out, "w") as f:
    n = 0
    if kind == "nsys":
        f.write("[6/8] Executing 'cuda_gpu_kern_sum' stats report\n\n")
        W = [9, 15, 9, 17, 17, 11, 14, 14]
        L = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"]
        f.write("  ".join(l.rjust(w) for l, w in zip(L, W)) + "  Name\n")
        f.write("  ".join("-" * w for w in W) + "  " + "-" * 100 + "\n")
        while n < target:
            tot = rnd.randrange(1, 10**10); calls = rnd.randrange(1, 10**5)
            cells = ["%.1f" % (rnd.random() * 100), format(tot, ","), format(calls, ","), format(tot / calls, ",.1f"),
                     format(tot / calls, ",.1f"), format(rnd.randrange(1, 10**6), ","), format(rnd.randrange(1, 10**9), ","),
                     format(rnd.random() * 1e6, ",.1f")]
            line = "  ".join(c.rjust(w) for c, w in zip(cells, W)) + "  " + rnd.choice(names) + "\n"
            f.write(line); n += len(line)
    elif kind == "nvprof-trace":
        f.write("==1== Profiling result:\n")
        W = [10, 10, 16, 14, 6, 10, 8, 6, 10, 16, 8, 7]
        L = ["Start", "Duration", "Grid Size", "Block Size", "Regs*", "SSMem*", "DSMem*", "Size", "Throughput", "Device", "Context", "Stream"]
        f.write("  ".join(l.rjust(w) for l, w in zip(L, W)) + "  Name\n")
        t = 500.0
        while n < target:
            t += rnd.random() * 0.01
            cells = ["%.2fms" % t, "%.4fus" % (rnd.random() * 100), "(%d %d 1)" % (rnd.randrange(1, 4096), rnd.randrange(1, 8)),
                     "(%d 1 1)" % (32 << rnd.randrange(5)), "%d" % rnd.randrange(8, 255), "%.4fKB" % (rnd.random() * 48), "0B",
                     "-", "-", "Tesla V100-SXM2", "1", "7"]
            line = "  ".join(c.rjust(w) for c, w in zip(cells, W)) + "  %s [%d]\n" % (rnd.choice(names), rnd.randrange(10**6))
            f.write(line); n += len(line)
    else:
        f.write("==1== Profiling result:\n            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n")
        first = True
        while n < target:
            line = "%16s  %6.2f%%  %7.3fms  %8d  %7.3fus  %7.3fus  %7.3fms  %s\n" % (
                "GPU activities:" if first else "", rnd.random() * 100, rnd.random() * 999, rnd.randrange(1, 10**6), rnd.random() * 999,
                rnd.random() * 999, rnd.random() * 999, rnd.choice(names))
            first = False
            f.write(line); n += len(line)
