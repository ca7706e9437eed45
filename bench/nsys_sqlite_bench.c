/*
** nsys_sqlite_bench.c -- the floor for perflab's nsys-sqlite reader
** (bench/run.sh): a bare sqlite3_step loop over the same tables and columns
** that src/core/fmt_nsys_sqlite.c reads, opened the same way (read-only,
** immutable, the same mmap size), each value fetched once (sqlite3_column_value,
** then its type and integer or text) and folded into a checksum, and
** nothing stored: what any reader of the export must at least spend.
**
**   nsys_sqlite_bench FILE [RUNS=3]
**
** prints "RESULT median_wall_s min_wall_s peak_rss_kb rows bytes median_cpu_s"
** like load_bench.  The tables are the generated benchmark file's (bench/
** gen_nsys_sqlite.py): StringIds, kernels, runtime, memcpy, NVTX, GPUs,
** processes, threads, metadata.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* the queries of fmt_nsys_sqlite.c for these tables (same columns, same order) */
static const char *const Q[] = {
  "SELECT \"id\", \"value\" FROM \"StringIds\" ORDER BY 1",
  "SELECT \"name\", \"value\" FROM \"META_DATA_EXPORT\"",
  "SELECT \"demangledName\", \"shortName\", \"mangledName\", \"start\", \"end\", \"deviceId\", \"streamId\", "
  "\"contextId\", "
  "\"correlationId\", \"globalPid\", \"gridX\", \"gridY\", \"gridZ\", \"blockX\", \"blockY\", \"blockZ\", "
  "\"registersPerThread\", "
  "\"staticSharedMemory\", \"dynamicSharedMemory\", \"localMemoryPerThread\", NULL, \"graphNodeId\", "
  "\"sharedMemoryExecuted\" "
  "FROM \"CUPTI_ACTIVITY_KIND_KERNEL\"",
  "SELECT \"nameId\", \"start\", \"end\", \"globalTid\", \"correlationId\", \"eventClass\", \"returnValue\" FROM "
  "\"CUPTI_ACTIVITY_KIND_RUNTIME\"",
  "SELECT \"id\", \"name\" FROM \"ENUM_CUDA_MEMCPY_OPER\"",
  "SELECT \"copyKind\", \"srcKind\", \"dstKind\", \"start\", \"end\", \"deviceId\", \"streamId\", \"contextId\", "
  "\"correlationId\", "
  "\"globalPid\", \"bytes\" FROM \"CUPTI_ACTIVITY_KIND_MEMCPY\"",
  "SELECT \"eventType\", \"text\", \"textId\", \"start\", \"end\", \"globalTid\", \"endGlobalTid\", \"domainId\", "
  "\"category\" FROM \"NVTX_EVENTS\"",
  "SELECT \"id\", \"name\", \"computeMajor\", \"computeMinor\", \"smCount\", \"threadsPerWarp\", "
  "\"maxThreadsPerBlock\", \"maxWarpsPerSm\", "
  "\"maxBlocksPerSm\", \"maxRegistersPerBlock\", \"maxRegistersPerSm\", \"maxShmemPerBlock\", "
  "\"maxShmemPerBlockOptin\", \"maxShmemPerSm\", "
  "\"totalMemory\", \"clockRate\", \"memoryBandwidth\", \"l2CacheSize\" FROM \"TARGET_INFO_GPU\"",
  "SELECT \"globalPid\", \"pid\", \"name\" FROM \"PROCESSES\"",
  "SELECT \"globalTid\", \"nameId\", \"priority\" FROM \"ThreadNames\"",
};

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: nsys_sqlite_bench FILE [RUNS]\n");
    return 2;
  }
  const char *file = argv[1];
  int runs = argc > 2 ? atoi(argv[2]) : 3;
  if (runs < 1) runs = 1;
  struct stat sb;
  if (stat(file, &sb) != 0) {
    perror(file);
    return 2;
  }
  double *t = calloc((size_t)runs, sizeof *t), *tc = calloc((size_t)runs, sizeof *tc);
  size_t rows = 0;
  uint64_t sum = 0;
  for (int r = 0; r < runs; r++) {
    double t0 = now(), c0 = cpu();
    char uri[4200];
    snprintf(uri, sizeof uri, "file:%s?immutable=1", file);
    sqlite3 *db;
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
      fprintf(stderr, "%s\n", sqlite3_errmsg(db));
      return 1;
    }
    char q[64];
    snprintf(q, sizeof q, "PRAGMA mmap_size=%lld", (long long)sb.st_size);
    sqlite3_exec(db, q, NULL, NULL, NULL);
    rows = 0;
    for (size_t i = 0; i < sizeof Q / sizeof Q[0]; i++) {
      sqlite3_stmt *st;
      if (sqlite3_prepare_v2(db, Q[i], -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", Q[i], sqlite3_errmsg(db));
        return 1;
      }
      int nc = sqlite3_column_count(st);
      while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < nc; c++) { /* one lookup per cell, as perflab's reader does */
          sqlite3_value *v = sqlite3_column_value(st, c);
          int ty = sqlite3_value_type(v);
          if (ty == SQLITE_TEXT) sum += (uint64_t)sqlite3_value_bytes(v) + (uint8_t)sqlite3_value_text(v)[0];
          else if (ty == SQLITE_INTEGER) sum += (uint64_t)sqlite3_value_int64(v);
        }
        rows++;
      }
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    t[r] = now() - t0;
    tc[r] = cpu() - c0;
  }
  double best = t[0];
  for (int r = 1; r < runs; r++)
    if (t[r] < best) best = t[r];
  qsort(t, (size_t)runs, sizeof *t, cmpd);
  qsort(tc, (size_t)runs, sizeof *tc, cmpd);
  double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
  double medc = runs % 2 ? tc[runs / 2] : (tc[runs / 2 - 1] + tc[runs / 2]) / 2;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("RESULT %.6f %.6f %ld %zu %lld %.6f\n", med, best, ru.ru_maxrss, rows, (long long)sb.st_size, medc);
  fprintf(stderr, "  sqlite3_step floor %s: median %.3f s wall, %.3f s CPU, %zu rows (checksum %llu)\n", file, med,
          medc, rows, (unsigned long long)sum);
  free(t);
  free(tc);
  return 0;
}
