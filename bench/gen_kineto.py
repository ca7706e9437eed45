#!/usr/bin/env python3
"""gen_kineto.py -- writes a realistic Kineto (PyTorch profiler) Chrome trace.

    python3 bench/gen_kineto.py SIZE_MB OUT.json [--seed N]

The layout follows what libkineto writes (one key group per line, the
same argument names and order): deviceProperties for 8 A100s, then per
training step a ProfilerStep#N user annotation and a stream of operator
groups: a cpu_op (aten::..., with Input Dims / Input type), its
cudaLaunchKernel runtime call, the ac2g flow start/end pair and the kernel
with grid/block/registers/shared memory/occupancy; now and then a memcpy,
a memset, a cudaStreamSynchronize and a [memory] instant event.  The cpu
ops of the thread follow one another (the next starts after the previous
ends) inside their step's annotation, GEMMs inside a parent op
(aten::linear around aten::addmm, aten::matmul around aten::mm), with the
runtime call inside its op: nested or in sequence, as a profiler writes
them, never overlapping without nesting.  Timestamps
are fractional microseconds (ns resolution), as recent PyTorch writes them.
The event mix (~23% cpu_op, 23% runtime, 23% kernel, 23% flow, rest other)
and the mean event size (~330 bytes) are close to the corpus traces.
A fixed seed gives the same bytes every time.

    --many-shapes: many distinct launch shapes, as a real model's varying
    tensor sizes give: each op's kernel comes in 50 variants (a template
    argument in the name), each with its own block, registers and shared
    memory, and every launch has its own grid (1 to 65535 x 1 to 4 blocks),
    so nearly every launch is a shape of its own (the occupancy recipe's
    hard case).  Without it the bytes are those of earlier versions.

    --wild-shapes: launch shapes as unlike the bench as a real zoo of
    models gives, with configurations that cannot run among them: every
    launch draws its own block (1 to 1024 threads in x, now and then a y
    or z extent, 1 in 50 over the 1024-thread limit), registers per thread
    (mostly what the register file holds for that block; 1 in 50 more than
    fits, 1 in 50 over 255), shared memory (none, up to 48 KiB, 1 in 20
    more) and grid,
    and comes in one of 400 name variants per op; so nearly every launch
    is a shape of its own and some cannot launch at all (the occupancy,
    launch and roofline recipes' hard case).  Its own random stream: the
    other events are those of the plain trace.

    --memory: the [memory] events of profile_memory=True instead of the
    occasional random one: each operator allocates its output (a block of
    its first input's size, float32) inside its own time, at an address
    of its own, and blocks are freed inside later operators: activations
    a few operators on, temporaries at once, everything but the
    parameters allocated in step 1 at the end of each step.  Total
    Allocated is the running sum and Total Reserved grows in 2 MiB
    segments and never shrinks, as the caching allocator's do.
"""
import random
import sys

OPS = [
    ("aten::addmm", "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)", [[4096, 1024], [4096, 4096], [4096, 1024]]),
    ("aten::mm", "ampere_sgemm_128x64_nn", [[2048, 2048], [2048, 512]]),
    ("aten::add_", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)", [[64, 1024], [64, 1024], []]),
    ("aten::relu", "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)", [[64, 1024]]),
    ("aten::native_layer_norm", "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)", [[64, 128, 1024], [], [1024], [1024], []]),
    ("aten::_softmax", "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)", [[64, 16, 128, 128], [], []]),
    ("aten::copy_", "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})", [[64, 1024], [64, 1024], []]),
    ("aten::sum", "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)", [[64, 1024], [], [], []]),
]

# ops written inside a parent op (nesting, as PyTorch's module ops do)
PARENT = {"aten::addmm": "aten::linear", "aten::mm": "aten::matmul"}

DEV = """    {
      "id": %d, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 84990623744,
      "computeMajor": 8, "computeMinor": 0,
      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
      "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,
      "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 167936,
      "numSms": 108, "sharedMemPerBlockOptin": 166912
    }"""


def us(t_ns):
    return "%d.%03d" % (t_ns // 1000, t_ns % 1000)


MEM = '  {\n    "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",\n    "pid": %d, "tid": %d,\n    "ts": %s,\n    "args": {\n      "Total Reserved": %d, "Total Allocated": %d, "Bytes": %d, "Addr": %d, "Device Id": 0, "Device Type": 1\n    }\n  }'


def mem_event(ev, ts, nbytes, addr, pid, tid, totals):
    totals[0] += nbytes
    seg = 2 << 20
    if totals[0] > totals[1]:
        totals[1] = (totals[0] + seg - 1) // seg * seg
    ev.append(MEM % (pid, tid, us(ts), totals[1], totals[0], nbytes, addr))


def mem_events(ev, op, dims, t, dur, step, pid, tid, mrnd, live, next_addr, totals):
    """An operator's allocations and frees, all inside [t, t + dur)."""
    n = 1
    for d in (dims[0] if dims and dims[0] else [1024]):
        n *= d
    nbytes = (n * 4 + 511) // 512 * 512
    kind = "param" if step == 1 and mrnd.random() < 0.1 else ("temp" if mrnd.random() < 0.3 else "act")
    # free activations made a few ops ago (inside this op, before its output)
    at = t + 300
    while len([b for b in live[-12:] if b[2] == "act"]) >= 8:
        for i, b in enumerate(live):
            if b[2] == "act":
                del live[i]
                mem_event(ev, at, -b[1], b[0], pid, tid, totals)
                at += 100
                break
    addr = next_addr[0]
    next_addr[0] += nbytes + 512 * mrnd.randrange(1, 8)
    mem_event(ev, at + 100, nbytes, addr, pid, tid, totals)
    if kind == "temp":
        mem_event(ev, t + dur - 200, -nbytes, addr, pid, tid, totals)
    else:
        live.append((addr, nbytes, kind))


def wild_shape(r):
    """(block, registers, shared memory, grid, variant) of one --wild-shapes launch."""
    x = r.randrange(1, 1025)
    y = z = 1
    u = r.random()
    if u < 0.15:
        y = r.randrange(2, 33)
        x = max(1, x // y)
    elif u < 0.18:
        y, z = r.randrange(2, 9), r.randrange(2, 9)
        x = max(1, x // (y * z))
    if r.random() < 0.02:  # over the 1024 threads a block may have
        x = r.randrange(1025, 4097)
    # registers: mostly what fits the block in a 64 K register file, now and
    # then more than fits, or more than the 255 a thread may have
    fit = max(1, min(255, 65536 // (x * y * z)))
    u = r.random()
    regs = r.randrange(1, fit + 1) if u >= 0.04 else (r.randrange(1, 256) if u >= 0.02 else r.randrange(256, 512))
    # shared memory: none, up to the 48 KiB a launch has without opt-in, or
    # (1 in 20) more: beyond what the trace calculator assumes is allowed
    u = r.random()
    smem = 0 if u < 0.3 else (r.randrange(0, 48 * 1024 + 1) if u < 0.95 else r.randrange(48 * 1024 + 1, 400000))
    grid = (r.randrange(1, 65536), r.choice([1, 1, 1, 2, 3, 4, 16]), r.choice([1, 1, 1, 1, 2]))
    return (x, y, z), regs, smem, grid, r.randrange(400)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    target = int(float(sys.argv[1]) * 1e6)
    out = sys.argv[2]
    seed = 1
    if "--seed" in sys.argv:
        seed = int(sys.argv[sys.argv.index("--seed") + 1])
    rnd = random.Random(seed)
    many = "--many-shapes" in sys.argv
    wild = "--wild-shapes" in sys.argv
    wrnd = random.Random(seed + 3000)
    memory = "--memory" in sys.argv
    mrnd = random.Random(seed + 2000)
    live = []            # (addr, bytes, kind): blocks allocated and not freed, oldest first
    next_addr = [140000000000000]
    totals = [0, 0]      # allocated, reserved
    vrnd = random.Random(seed + 1000)
    variants = [(vrnd.choice([(32, 1, 1), (64, 1, 1), (96, 1, 1), (128, 1, 1), (192, 1, 1), (256, 1, 1), (384, 1, 1), (512, 1, 1), (1024, 1, 1), (32, 8, 1)]),
                 vrnd.randrange(16, 256), vrnd.choice([0, 0, 1024, 4096, 16384, 24576, 40960, 49152]), v) for v in range(50)]
    pid, tid = 4037, 23695
    t = 1712195495000000000  # ns
    corr, ext, step = 1000, 1, 0
    size = 0
    with open(out, "w") as f:
        head = '{\n  "schemaVersion": 1,\n  "deviceProperties": [\n' + ",\n".join(DEV % i for i in range(8)) + \
               '\n  ],\n  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},\n  "record_shapes": 1,\n  "traceEvents": [\n'
        f.write(head)
        size += len(head)
        first = True
        chunk = []
        while size < target:
            # one step: an annotation then ~400 operator groups
            step += 1
            step_start = t
            groups = []
            for g in range(400):
                op, kname, dims = OPS[rnd.randrange(len(OPS))]
                ext += 1
                corr += 1
                t += rnd.randrange(2000, 40000)
                parent_ts = t
                if op in PARENT:
                    t += 1000  # the GEMM starts 1 us into its parent op
                dur = rnd.randrange(8000, 60000)
                launch_dur = rnd.randrange(2000, 6000)
                launch_ts = t + rnd.randrange(500, dur - launch_dur - 500)  # the call lies inside its op
                kts = launch_ts + rnd.randrange(5000, 200000)
                kdur = rnd.randrange(1500, 900000)
                grid = rnd.choice([(108, 1, 1), (1024, 1, 1), (4096, 1, 1), (32, 16, 1), (65535, 1, 1)])
                block = rnd.choice([(128, 1, 1), (256, 1, 1), (512, 1, 1), (32, 4, 1)])
                regs = rnd.choice([16, 24, 32, 38, 64, 128, 168])
                smem = rnd.choice([0, 0, 1024, 16384, 49152])
                if many:
                    block, regs, smem, v = variants[vrnd.randrange(len(variants))]
                    grid = (vrnd.randrange(1, 65536), vrnd.randrange(1, 5), 1)
                    kname = kname.replace("(", "<v%d>(" % v, 1) if "(" in kname else "%s_v%d" % (kname, v)
                if wild:
                    block, regs, smem, grid, v = wild_shape(wrnd)
                    kname = kname.replace("(", "<w%d>(" % v, 1) if "(" in kname else "%s_w%d" % (kname, v)
                bps = grid[0] * grid[1] / 108.0
                wps = bps * block[0] * block[1] / 32.0
                occ = min(100, int(wps / 64 * 100))
                ev = []
                if op in PARENT:
                    # a module-level op around the GEMM (aten::linear around
                    # aten::addmm): ops nest, the kernel's op is the inner one
                    ev.append('  {\n    "ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,"Record function id": 0, "Ev Idx": %d, "Input Dims": %s, "Input type": [%s]\n    }\n  }'
                              % (PARENT[op], pid, tid, us(parent_ts), us(dur + 2000), ext, ext - 1, str(dims), ", ".join('"float"' if d else '"Scalar"' for d in dims)))
                    ext += 1
                ev.append('  {\n    "ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,"Record function id": 0, "Ev Idx": %d, "Input Dims": %s, "Input type": [%s]\n    }\n  }'
                          % (op, pid, tid, us(t), us(dur), ext, ext - 1, str(dims), ", ".join('"float"' if d else '"Scalar"' for d in dims)))
                ev.append('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,      "cbid": 211, "correlation": %d\n    }\n  }'
                          % (pid, tid, us(launch_ts), us(launch_dur), ext, corr))
                ev.append('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n    "cat": "ac2g", "name": "ac2g"\n  }' % (corr, pid, tid, us(launch_ts)))
                ev.append('  {\n    "ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,      "queued": 0, "device": 0, "context": 1,      "stream": 7, "correlation": %d,      "registers per thread": %d,      "shared memory": %d,      "blocks per SM": %f,      "warps per SM": %f,      "grid": [%d, %d, %d],      "block": [%d, %d, %d],      "est. achieved occupancy %%": %d\n    }\n  }'
                          % (kname, us(kts), us(kdur), ext, corr, regs, smem, bps, wps, grid[0], grid[1], grid[2], block[0], block[1], block[2], occ))
                ev.append('  {\n    "ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %s,\n    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }' % (corr, us(kts)))
                r = rnd.random()
                if r < 0.04:
                    corr += 1
                    nbytes = rnd.choice([4, 4096, 1 << 20, 64 << 20])
                    mdur = rnd.randrange(1500, 400000)
                    ev.append('  {\n    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,      "device": 0, "context": 1,      "stream": 7, "correlation": %d,      "bytes": %d, "memory bandwidth (GB/s)": %f\n    }\n  }'
                              % (us(kts + kdur + 1000), us(mdur), ext, corr, nbytes, nbytes / mdur))
                elif r < 0.06:
                    corr += 1
                    ev.append('  {\n    "ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,      "device": 0, "context": 1,      "stream": 7, "correlation": %d,      "bytes": 4096, "memory bandwidth (GB/s)": 1.5\n    }\n  }'
                              % (us(kts + kdur + 1000), us(2000), ext, corr))
                elif r < 0.10 and not memory:
                    ev.append('  {\n    "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",\n    "pid": %d, "tid": %d,\n    "ts": %s,\n    "args": {\n      "Total Reserved": 2097152, "Total Allocated": %d, "Bytes": %d, "Addr": %d, "Device Id": 0, "Device Type": 1\n    }\n  }'
                              % (pid, tid, us(t + 500), rnd.randrange(1 << 30), rnd.choice([512, 4096, -4096]), rnd.randrange(1 << 40)))
                if memory:
                    mem_events(ev, op, dims, t, dur, step, pid, tid, mrnd, live, next_addr, totals)
                groups.append(",\n".join(ev))
                t += dur  # the next op starts after this one ends: ops on a thread follow one another
                if op in PARENT:
                    t += 1000

            if memory:
                # the step's end: everything but the parameters of step 1 is freed
                keep = [b for b in live if b[2] == "param"]
                for b in live:
                    if b[2] != "param":
                        t += 200
                        ev = []
                        mem_event(ev, t, -b[1], b[0], pid, tid, totals)
                        groups.append(ev[0])
                live[:] = keep
            t += 50000
            ann = '  {\n    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,"Record function id": 0, "Ev Idx": %d\n    }\n  }' % (step, pid, tid, us(step_start), us(t - step_start), ext, ext)
            text = (",\n" if not first else "") + ann + ",\n" + ",\n".join(groups)
            first = False
            f.write(text)
            size += len(text)
        tail = ',\n  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n    "pid": "", "tid": "", "ts": %s\n  }\n  ],\n  "traceName": "gen_kineto.json",\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1712195400000000000\n}\n' % us(t)
        f.write(tail)


if __name__ == "__main__":
    main()
