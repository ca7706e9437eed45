#!/usr/bin/env python3
"""gen_nsys_sqlite.py N OUT.sqlite [--seed S] -- a large Nsight Systems export
for the benchmark (bench/run.sh, `make bench`; never test data).

Writes the 2024.5 layout of `nsys export --type sqlite` (schema 3.13.2: the
column lists of StringIds, CUPTI_ACTIVITY_KIND_KERNEL / _RUNTIME / _MEMCPY,
NVTX_EVENTS, TARGET_INFO_GPU, PROCESSES, ThreadNames, META_DATA_EXPORT and
ENUM_CUDA_MEMCPY_OPER as in the corpus exports) with N kernels, N launching
runtime calls (cudaLaunchKernel_v7000 / cuLaunchKernelEx) plus N/10
synchronisation calls, N/20 copies and N/10 NVTX ranges, over 2 processes of
2 threads whose correlation ids repeat (as real multi-process exports do).
Kernel names: 400 templated names, Zipf-like frequencies.  Journal mode
delete, page size 4096, written in one transaction, no indexes (as nsys)."""
import random
import sqlite3
import sys

DDL = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER,
  maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, maxWarpsPerSm INTEGER,
  maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
  srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER,
  dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
"""

VM = 1 << 56


def gtid(pid, tid):
    return VM + (pid << 24) + tid


def main():
    n = int(sys.argv[1])
    out = sys.argv[2]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    rng = random.Random(seed)
    db = sqlite3.connect(out)
    db.execute("PRAGMA page_size = 4096")
    db.execute("PRAGMA journal_mode = DELETE")
    db.executescript(DDL)
    strings = ["cudaLaunchKernel_v7000", "cuLaunchKernelEx", "cudaStreamSynchronize_v3020", "cudaMemcpyAsync_v3020",
               "python3", "pt_main_thread", "step", "forward", "backward"]
    kinds = ["gemm", "elementwise", "reduce", "softmax", "layer_norm", "flash_fwd", "copy", "nccl_allreduce"]
    knames = []
    for i in range(400):
        k = kinds[i % len(kinds)]
        knames.append((len(strings), len(strings) + 1))
        strings.append("void at::native::%s_kernel<%d, float, at::native::Op%d<float>>(int, float*, float const*)" % (k, i, i))
        strings.append("%s_kernel" % k)
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", enumerate(strings))
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", [
        ("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"), ("EXPORT_PRODUCT_VERSION", "2024.5.1.113"),
        ("EXPORT_SCHEMA_VERSION", "3.13.2"), ("DERIVED_BY", "perflab bench/gen_nsys_sqlite.py")])
    db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", [
        (1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"), (2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"),
        (8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device")])
    pids = [(1000, 1001, 1002), (2000, 2001, 2002)]
    db.executemany("INSERT INTO PROCESSES VALUES (?, ?, ?)", [(gtid(p, 0), p, "python3") for p, _, _ in pids])
    db.executemany("INSERT INTO ThreadNames VALUES (?, ?, ?)", [(5, 0, gtid(p, t)) for p, a, b in pids for t in (a, b)])
    db.executemany("INSERT INTO TARGET_INFO_GPU VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", [
        (0, d, "NVIDIA H100 80GB HBM3", "0000:%02x:00.0" % d, 1, 52428800, 85520809984, 3352320000000, 1980000000,
         132, 65536, 49152, 232448, 233472, 65536, 32, 64, 32, 1024, 9, 0) for d in (0, 1)])
    # weights ~ 1/rank
    weights = [1.0 / (i + 1) for i in range(len(knames))]
    cum, s = [], 0.0
    for w in weights:
        s += w
        cum.append(s)
    import bisect
    per = n // 2
    rt_rows, k_rows, mc_rows, nv_rows = [], [], [], []

    def flush(force=False):
        if force or len(k_rows) >= 200000:
            db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", rt_rows)
            db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", k_rows)
            db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", mc_rows)
            db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (?,?,?,?,?,?)", nv_rows)
            for rows in (rt_rows, k_rows, mc_rows, nv_rows):
                rows.clear()

    for dev, (pid, t0, t1) in enumerate(pids):
        t = 1_000_000
        gpu = t
        corr = 0
        step_start = t
        for i in range(per):
            tid = t0 if i % 3 else t1
            corr += 1
            launch = t
            dur = rng.randint(2000, 9000)
            rt_rows.append((launch, launch + dur, 0 if i % 8 else 1, gtid(pid, tid), corr, 0 if i % 8 else 1, 0, None))
            t += dur + rng.randint(200, 3000)
            ki = bisect.bisect_left(cum, rng.random() * s)
            kd = rng.randint(1500, 400000) // (1 + ki % 7)
            gpu = max(gpu, launch + dur + 3000)
            k_rows.append((gpu, gpu + kd, dev, 1, None, 7 + i % 3, corr, gtid(pid, 0), knames[ki][0], knames[ki][1], None,
                           1, 0, 32 + 8 * (ki % 12), 108 + ki, 1, 1, 128 * (1 + ki % 8), 1, 1, 1024 * (ki % 5), 0, 0, 0,
                           corr, 0, None, 1))
            gpu += kd + rng.randint(0, 2000)
            if i % 10 == 9:
                corr += 1
                rt_rows.append((t, t + rng.randint(1000, 50000), 0, gtid(pid, tid), corr, 2, 0, None))
                t += 60000
            if i % 20 == 19:
                corr += 1
                b = rng.choice((4096, 1 << 20, 64 << 20))
                rt_rows.append((t, t + 4000, 0, gtid(pid, tid), corr, 3, 0, None))
                mc_rows.append((gpu, gpu + b // 20000 + 1000, dev, 1, None, 7, corr, gtid(pid, 0), b, rng.choice((1, 2, 8)),
                                None, 0, 2, dev, 1, dev, 1, None, None, None))
                gpu += b // 20000 + 1000
                t += 5000
            if i % 10 == 0:
                nv_rows.append((t - 1000, t + 500, 59, "forward", gtid(pid, tid), 0))
            if i % 1000 == 999:
                nv_rows.append((step_start, t, 59, "step", gtid(pid, t0), 0))
                step_start = t
            flush()
    flush(True)
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
