#!/usr/bin/env python3
"""Writes large synthetic text profiles for the benchmarks (bench/run.sh),
from a fixed seed, in the layouts the tools print:

   gen_text.py KIND OUT MEGABYTES
   KIND: kernel-table   per-kernel latency table ('NAME | LATENCY TENSOR DRAM')
         ncu-text       Nsight Compute details text (ncu --print-details), one
                        block of sections, metrics and rule texts per launch
         nsys           nsys stats cuda_gpu_kern_sum console table
         nvprof-trace   nvprof --print-gpu-trace text
         nvprof-trace-csv  nvprof --print-gpu-trace --csv (units row, quoted
                        cells, kernel names with commas, memcpy rows, two GPUs)
         nvprof-summary nvprof summary text
         torch-table    PyTorch prof.key_averages().table() text with CPU and
                        CUDA columns (times with a unit per cell: us, ms, s),
                        one table of a few hundred operators and kernels per
                        profiled step, with its footer totals
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


# kernel-table: names as the seed tables show them (a 50-column name field;
# longer names cut to 47 characters + '...'), a realistic mix of frequent
# elementwise/reduce kernels and rarer GEMM/cuDNN ones, latencies in ns.
KT_NAMES = [
    ("vectorized_elementwise_kernel", 30), ("elementwise_kernel", 24), ("reduce_kernel", 9),
    ("cudnn::ops::nchwToNhwcKernel", 4), ("unrolled_elementwise_kernel", 3), ("cudnn::ops::convertTensor_kernel", 2),
    ("splitKreduce_kernel", 2), ("cudnn::ops::nhwcToNchwKernel", 2), ("CatArrayBatchedCopy", 1),
    ("vectorized_layer_norm_kernel", 1), ("CatArrayBatchedCopy_aligned16_contig", 1),
    ("ampere_fp16_s16816gemm_fp16_128x64_ldg8_relu_f2f_stages_64x3_tn", 1), ("cutlass_cudnn_train::Kernel", 1),
    ("RowwiseMomentsCUDAKernel", 1), ("GammaBetaBackwardCUDAKernel1", 1), ("ComputeInternalGradientsCUDAKernel", 1),
    ("ampere_sgemm_128x128_nn", 1), ("sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc", 1),
    ("softmax_warp_forward", 1), ("softmax_warp_backward", 1), ("pytorch_flash::flash_fwd_kernel", 1),
    ("cudnn_infer_ampere_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", 1),
    ("elementwise_kernel_with_index", 2), ("cudnn::winograd::generateWinogradTilesKernel", 1),
]


def kt_name(n):
    return (n if len(n) <= 50 else n[:47] + "...").ljust(50)


def gen_kernel_table(f, target):
    pool = []
    for n, w in KT_NAMES:
        pool += [kt_name(n)] * w
    f.write("Kernel".ljust(55) + "Latency Tensor   DRAM\n")
    n = 0
    while n < target:
        buf = []
        for _ in range(2000):
            lat = int(rnd.lognormvariate(9.0, 1.2)) // 32 * 32 + 32
            ten = rnd.random() * 0.3 if rnd.random() < 0.2 else 0.0
            dram = rnd.random() * 0.6 if rnd.random() < 0.4 else 0.0
            buf.append("%s| %10d %6.2f %6.2f\n" % (rnd.choice(pool), lat, ten, dram))
        s = "".join(buf)
        f.write(s)
        n += len(s)


# ncu-text: the sections and metric names ncu 2024 prints for each launch.
NCU_KERNELS = [
    ("wmma_pipe_kernel(int, int, int, const __nv_bfloat16 *, const __nv_bfloat16 *, float *)", "(32, 16, 1)x(256, 1, 1)"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char *, 3>>(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char *, 3>)", "(1024, 1, 1)x(128, 1, 1)"),
    ("ampere_sgemm_128x64_tn", "(64, 8, 1)x(128, 1, 1)"),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>>(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)", "(108, 1, 1)x(32, 16, 1)"),
    ("flash_fwd_kernel", "(4, 16, 8)x(128, 1, 1)"),
]
# (section, [(metric, unit, kind)]) with kind: f = 2 decimals, i = integer with
# thousands separators, p = percent, s = a fixed text
NCU_SECTIONS = [
    ("GPU Speed Of Light Throughput", [("DRAM Frequency", "Ghz", [1.59, 1.51]), ("SM Frequency", "Ghz", [1.14, 1.41, 1.06]), ("Elapsed Cycles", "cycle", "i"),
                                       ("Memory Throughput", "%", "p"), ("DRAM Throughput", "%", "p"), ("Duration", "us", "f"),
                                       ("L1/TEX Cache Throughput", "%", "p"), ("L2 Cache Throughput", "%", "p"),
                                       ("SM Active Cycles", "cycle", "f"), ("Compute (SM) Throughput", "%", "p")]),
    ("Compute Workload Analysis", [("Executed Ipc Active", "inst/cycle", "f"), ("Executed Ipc Elapsed", "inst/cycle", "f"),
                                   ("Issue Slots Busy", "%", "p"), ("Issued Ipc Active", "inst/cycle", "f"), ("SM Busy", "%", "p")]),
    ("Memory Workload Analysis", [("Memory Throughput", "Gbyte/s", "f"), ("Mem Busy", "%", "p"), ("Max Bandwidth", "%", "p"),
                                  ("L1/TEX Hit Rate", "%", "p"), ("L2 Hit Rate", "%", "p"), ("Mem Pipes Busy", "%", "p")]),
    ("Launch Statistics", [("Block Size", "", [128, 256, 512, 1024]), ("Function Cache Configuration", "", "s"), ("Grid Size", "", [108, 512, 1024, 4096, 65536]),
                           ("Registers Per Thread", "register/thread", [32, 40, 64, 96, 128, 168]), ("Shared Memory Configuration Size", "Kbyte", [32.77, 65.54, 135.17]),
                           ("Driver Shared Memory Per Block", "Kbyte/block", [1.02]), ("Dynamic Shared Memory Per Block", "byte/block", [0, 0, 49152]),
                           ("Static Shared Memory Per Block", "Kbyte/block", [0, 16.38, 36.86]), ("Threads", "thread", [131072, 262144, 524288, 1048576]), ("Waves Per SM", "", [0.59, 1.58, 4.74, 18.96])]),
    ("Occupancy", [("Block Limit SM", "block", [32]), ("Block Limit Registers", "block", [3, 4, 8]), ("Block Limit Shared Mem", "block", [3, 8, 32]),
                   ("Block Limit Warps", "block", [4, 8, 16]), ("Theoretical Active Warps per SM", "warp", [24, 32, 48, 64]),
                   ("Theoretical Occupancy", "%", "p"), ("Achieved Occupancy", "%", "p"), ("Achieved Active Warps Per SM", "warp", "w")]),
]
NCU_RULES = [
    ("OPT", "Est. Speedup: %.2f%%", ["All compute pipelines are under-utilized. Either this workload is very small or it doesn't issue enough warps",
                                     "per scheduler. Check the Launch Statistics and Scheduler Statistics sections for further details."]),
    ("INF", None, ["This workload is utilizing greater than 80.0% of the available compute or memory performance of the device.",
                   "To further improve performance, work will likely need to be shifted from the most utilized to another unit."]),
    ("OPT", "Est. Local Speedup: %.2f%%", ["The memory access pattern for shared loads might not be optimal and causes on average a 6.0 - way bank",
                                           "conflict across all 8388608 shared load requests. Check the Source Counters section for uncoalesced loads."]),
]


def ncu_value(kind):
    if isinstance(kind, list):
        v = rnd.choice(kind)
        return format(v, ",") if isinstance(v, int) else "%.2f" % v
    if kind == "w":
        return "%.2f" % (rnd.random() * 48)
    if kind == "f":
        return "%.2f" % (rnd.random() * 1000)
    if kind == "p":
        return "%.2f" % (rnd.random() * 100)
    if kind == "i":
        return format(rnd.randrange(1, 10**7), ",")
    return "CachePreferNone"


def gen_ncu_text(f, target):
    f.write("[2190710] bench@127.0.0.1\n")
    n = 0
    while n < target:
        out = []
        name, launch = rnd.choice(NCU_KERNELS)
        out.append("  %s %s, Context 1, Stream 7, Device 0, CC 8.0\n" % (name, launch))
        for sec, metrics in NCU_SECTIONS:
            w = max(len(m) for m, _, _ in metrics)
            w = max(w, 11)
            vals = [ncu_value(k) for _, _, k in metrics]
            uw = max(11, max(len(u) for _, u, _ in metrics))
            vw = max(12, max(len(v) for v in vals))
            rule = "    %s %s %s\n" % ("-" * w, "-" * uw, "-" * vw)
            out.append("    Section: %s\n" % sec)
            out.append(rule)
            out.append("    %s %s %s\n" % ("Metric Name".ljust(w), "Metric Unit".rjust(uw), "Metric Value".rjust(vw)))
            out.append(rule)
            for (m, u, _), v in zip(metrics, vals):
                out.append("    %s %s %s\n" % (m.ljust(w), u.rjust(uw), v.rjust(vw)))
            out.append(rule)
            out.append("\n")
            if rnd.random() < 0.5:
                kind, head, body = rnd.choice(NCU_RULES)
                first = (head % (rnd.random() * 90)) if head else body[0]
                rest = body if head else body[1:]
                out.append("    %-5s %s\n" % (kind, first.ljust(108)))
                for b in rest:
                    out.append("          %s\n" % b.ljust(108))
                out.append("\n")
        s = "".join(out)
        f.write(s)
        n += len(s)


# torch-table: the layout of key_averages().table() with CUDA columns, as in
# the corpus (a 55-character right-aligned name column, names cut to 52
# characters + '...', ten 12-character columns, two spaces after each).
TT_OPS = ["aten::mm", "aten::addmm", "aten::add", "aten::add_", "aten::mul", "aten::copy_", "aten::to", "aten::_to_copy",
          "aten::empty", "aten::empty_strided", "aten::linear", "aten::matmul", "aten::relu", "aten::gelu", "aten::softmax",
          "aten::_softmax", "aten::layer_norm", "aten::native_layer_norm", "aten::dropout", "aten::native_dropout",
          "aten::view", "aten::reshape", "aten::transpose", "aten::t", "aten::cat", "aten::sum", "aten::mean",
          "aten::convolution", "aten::_convolution", "aten::cudnn_convolution", "aten::batch_norm", "aten::fill_",
          "aten::zero_", "aten::zeros", "aten::scaled_dot_product_attention", "aten::_flash_attention_forward",
          "cudaLaunchKernel", "cudaMemcpyAsync", "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaFuncGetAttributes",
          "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pageable)", "Memset (Device)", "Optimizer.step#AdamW.step",
          "autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0", "ProfilerStep*"]
TT_KERNELS = ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
              "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda(float)#1}> >(int, at::native::gpu_kernel_impl<...>)",
              "ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_stages_32x5_tn", "ampere_sgemm_128x64_tn",
              "void cutlass::Kernel<cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_align8>(cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_align8::Params)",
              "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool>(at::cuda::detail::TensorInfo<float, unsigned int>)",
              "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
              "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t>, false, false, false, false, true, true, false>(Flash_fwd_params)",
              "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
              "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel"]


def tt_time(us):
    # torch.autograd.profiler_util._format_time
    if us >= 1e6:
        return "%.3fs" % (us / 1e6)
    if us >= 1e3:
        return "%.3fms" % (us / 1e3)
    return "%.3fus" % us


def tt_name(n):
    return (n[:52] + "...") if len(n) > 55 else n


def gen_torch_table(f, target):
    names = [tt_name(n) for n in TT_OPS] + [tt_name("%s_%d" % (k, i) if i else k) for i in range(30) for k in TT_KERNELS]
    sep = "-" * 55 + "  " + ("-" * 12 + "  ") * 10 + "\n"
    hdr = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "Self CUDA", "Self CUDA %",
           "CUDA total", "CUDA time avg", "# of Calls"]
    head = sep + hdr[0].rjust(55) + "  " + "".join(h.rjust(12) + "  " for h in hdr[1:]) + "\n" + sep
    n, step = 0, 0
    while n < target:
        step += 1
        buf = ["[step %d] loss=%.4f\n" % (step, rnd.random() * 3), head]
        nrows = rnd.randrange(150, 400)
        rows = []
        for _ in range(nrows):
            nm = rnd.choice(names)
            kern = not (nm.startswith(("aten::", "cuda", "Memcpy", "Memset", "Optimizer", "autograd", "Addmm", "Profiler")))
            calls = rnd.randrange(1, 5000)
            cuda_self = rnd.lognormvariate(5.0, 2.0) * (1 if kern or rnd.random() < 0.3 else 0)
            cpu_self = 0.0 if kern else rnd.lognormvariate(4.0, 2.0)
            cpu_tot = cpu_self * (1 + rnd.random() * 3)
            cuda_tot = cuda_self * (1 + rnd.random() * 2) if not kern else cuda_self
            rows.append((nm, cpu_self, cpu_tot, cuda_self, cuda_tot, calls))
        tot_cpu = sum(r[1] for r in rows) or 1.0
        tot_cuda = sum(r[3] for r in rows) or 1.0
        rows.sort(key=lambda r: -r[4])
        for nm, cs, ct, us, ut, calls in rows:
            cells = ["%.2f%%" % (100 * cs / tot_cpu), tt_time(cs), "%.2f%%" % (100 * ct / tot_cpu), tt_time(ct),
                     tt_time(ct / calls), tt_time(us), "%.2f%%" % (100 * us / tot_cuda), tt_time(ut), tt_time(ut / calls), "%d" % calls]
            buf.append(nm.rjust(55) + "  " + "".join(c.rjust(12) + "  " for c in cells) + "\n")
        buf.append(sep)
        buf.append("Self CPU time total: %s\nSelf CUDA time total: %s\n\n" % (tt_time(tot_cpu), tt_time(tot_cuda)))
        s = "".join(buf)
        f.write(s)
        n += len(s)


with open(out, "w") as f:
    n = 0
    if kind == "kernel-table":
        gen_kernel_table(f, target)
    elif kind == "torch-table":
        gen_torch_table(f, target)
    elif kind == "ncu-text":
        gen_ncu_text(f, target)
    elif kind == "nsys":
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
    elif kind == "nvprof-trace-csv":
        f.write("==1== Profiling result:\n")
        f.write('"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread",'
                '"Static SMem","Dynamic SMem","Size","Throughput","SrcMemType","DstMemType","Device","Context","Stream","Name"\n')
        f.write("ms,us,,,,,,,,KB,B,KB,GB/s,,,,,,\n")
        t = 500.0
        devs = ['"Tesla V100-SXM2-16GB (0)"', '"Tesla V100-SXM2-16GB (1)"']
        while n < target:
            t += rnd.random() * 0.01
            dev = rnd.choice(devs)
            if rnd.random() < 0.1:
                line = '%.6f,%.6f,,,,,,,,,,%.6f,%.6f,"Pageable","Device",%s,"1","7","[CUDA memcpy HtoD]"\n' % (
                    t, rnd.random() * 100, rnd.random() * 4096, rnd.random() * 12, dev)
            else:
                line = '%.6f,%.6f,"%d","%d","1","%d","1","1","%d",%.6f,"0",,,,,%s,"1","7","%s(float*, int) [%d]"\n' % (
                    t, rnd.random() * 100, rnd.randrange(1, 4096), rnd.randrange(1, 8), 32 << rnd.randrange(5),
                    rnd.randrange(8, 255), rnd.random() * 48, dev, rnd.choice(names).replace('"', "'"), rnd.randrange(10**6))
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
