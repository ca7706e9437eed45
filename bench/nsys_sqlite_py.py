#!/usr/bin/env python3
"""nsys_sqlite_py.py [--star] FILE [RUNS=1] -- reading an nsys export in
Python with the sqlite3 module (read-only URI): every row of the tables
perflab reads, fetched with fetchall(), the kernel and runtime names
resolved through a StringIds dict.  By default the same columns as perflab's
reader (bench/nsys_sqlite_bench.c lists them: like for like); with --star,
`SELECT *` of each table, what a user typically writes.  Prints the RESULT
line of load_bench."""
import resource
import sqlite3
import sys
import time

Q = [
    'SELECT id, value FROM StringIds ORDER BY 1',
    'SELECT name, value FROM META_DATA_EXPORT',
    'SELECT demangledName, shortName, mangledName, start, "end", deviceId, streamId, contextId, correlationId, globalPid, '
    'gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory, '
    'localMemoryPerThread, NULL, graphNodeId, sharedMemoryExecuted FROM CUPTI_ACTIVITY_KIND_KERNEL',
    'SELECT nameId, start, "end", globalTid, correlationId, eventClass, returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME',
    'SELECT id, name FROM ENUM_CUDA_MEMCPY_OPER',
    'SELECT copyKind, srcKind, dstKind, start, "end", deviceId, streamId, contextId, correlationId, globalPid, bytes '
    'FROM CUPTI_ACTIVITY_KIND_MEMCPY',
    'SELECT eventType, text, textId, start, "end", globalTid, endGlobalTid, domainId, category FROM NVTX_EVENTS',
    'SELECT * FROM TARGET_INFO_GPU',
    'SELECT globalPid, pid, name FROM PROCESSES',
    'SELECT globalTid, nameId, priority FROM ThreadNames',
]


STAR = ['SELECT * FROM StringIds ORDER BY 1', 'SELECT * FROM META_DATA_EXPORT', 'SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL',
        'SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME', 'SELECT * FROM ENUM_CUDA_MEMCPY_OPER',
        'SELECT * FROM CUPTI_ACTIVITY_KIND_MEMCPY', 'SELECT * FROM NVTX_EVENTS', 'SELECT * FROM TARGET_INFO_GPU',
        'SELECT * FROM PROCESSES', 'SELECT * FROM ThreadNames']


def once(path, star):
    db = sqlite3.connect("file:%s?immutable=1" % path, uri=True)
    out = {}
    qs = STAR if star else Q
    for q, key in zip(qs, Q):
        out[key] = db.execute(q).fetchall()
    strings = dict(out[Q[0]])
    if star:   # the kernel row's name ids: demangledName, shortName (columns 8, 9 of the 2024 layout)
        kern = [(strings.get(r[8]), strings.get(r[9])) + r for r in out[Q[2]]]
        rt = [(strings.get(r[5]),) + r for r in out[Q[3]]]
        db.close()
        return sum(len(v) for v in out.values()), kern, rt
    kern = [(strings.get(r[0]), strings.get(r[1])) + r[2:] for r in out[Q[2]]]
    rt = [(strings.get(r[0]),) + r[1:] for r in out[Q[3]]]
    db.close()
    return sum(len(v) for v in out.values()), kern, rt


def main():
    args = sys.argv[1:]
    star = "--star" in args
    args = [a for a in args if a != "--star"]
    path = args[0]
    runs = int(args[1]) if len(args) > 1 else 1
    walls, cpus, rows = [], [], 0
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        rows, kern, rt = once(path, star)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        del kern, rt
    walls.sort()
    cpus.sort()
    import os
    size = os.path.getsize(path)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("RESULT %.6f %.6f %d %d %d %.6f" % (walls[len(walls) // 2], walls[0], rss, rows, size, cpus[len(cpus) // 2]))


if __name__ == "__main__":
    main()
