/*
** ncu_metrics.c -- which Nsight Compute metric becomes which kernel column
** (the canonical mapping across ncu versions and both exports), and the
** numbers of an ncu report: values in either locale, "(!)" not-collected
** markers, launch dimensions "(a, b, c)".  The readers (fmt_ncu_text.c,
** fmt_ncu_csv.c, ncu_summary.c) and the table builder (ncu_builder.c) share
** these through ncu.h; docs/formats-ncu.md lists the mapping.
*/
#include "ncu.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the canonical mapping ---------------------------------------------- */

typedef struct ncu_canon {
  int cls;            /* section class; NCU_SEC_RAW: raw-page metric names */
  const char *metric; /* as ncu prints it (any version) */
  const char *col;    /* kernel column */
  int numeric;
  const char *doc; /* for the column (first entry of a column wins) */
} ncu_canon;

static const ncu_canon canon[] = {
  /* GPU Speed Of Light [Throughput] (2019-2020: SOL FB/L2/TEX, Memory [%], SM [%]) */
  { NCU_SEC_SOL, "Duration", "duration_ns", 1, "kernel duration (GPU Speed Of Light: Duration), ns" },
  { NCU_SEC_SOL, "Elapsed Cycles", "elapsed_cycles", 1, "elapsed cycles (GPU Speed Of Light), cycles" },
  { NCU_SEC_SOL, "SM Frequency", "sm_frequency_hz", 1,
    "SM clock during the launch, Hz (printed as cycle/nsecond, cycle/usecond, Ghz or hz)" },
  { NCU_SEC_SOL, "DRAM Frequency", "dram_frequency_hz", 1,
    "DRAM clock, Hz (DRAM Frequency; 'Memory Frequency' before 2021)" },
  { NCU_SEC_SOL, "Memory Frequency", "dram_frequency_hz", 1, NULL },
  { NCU_SEC_SOL, "Memory Throughput", "memory_throughput_pct", 1,
    "memory throughput, percent of peak (Memory Throughput; 'Memory [%]' before 2022)" },
  { NCU_SEC_SOL, "Memory [%]", "memory_throughput_pct", 1, NULL },
  { NCU_SEC_SOL, "DRAM Throughput", "dram_throughput_pct", 1,
    "DRAM throughput, percent of peak (DRAM Throughput; 'SOL FB' before 2021)" },
  { NCU_SEC_SOL, "SOL FB", "dram_throughput_pct", 1, NULL },
  { NCU_SEC_SOL, "L2 Cache Throughput", "l2_throughput_pct", 1,
    "L2 throughput, percent of peak (L2 Cache Throughput; 'SOL L2' before 2021)" },
  { NCU_SEC_SOL, "SOL L2", "l2_throughput_pct", 1, NULL },
  { NCU_SEC_SOL, "L1/TEX Cache Throughput", "l1tex_throughput_pct", 1,
    "L1/TEX throughput, percent of peak (L1/TEX Cache Throughput; 'SOL TEX' before 2021)" },
  { NCU_SEC_SOL, "SOL TEX", "l1tex_throughput_pct", 1, NULL },
  { NCU_SEC_SOL, "SM Active Cycles", "sm_active_cycles", 1, "cycles with at least one warp active, averaged over SMs" },
  { NCU_SEC_SOL, "Compute (SM) Throughput", "compute_throughput_pct", 1,
    "compute (SM) throughput, percent of peak (Compute (SM) Throughput; 'Compute (SM) [%]' 2020-2021; 'SM [%]' "
    "2019-2020)" },
  { NCU_SEC_SOL, "Compute (SM) [%]", "compute_throughput_pct", 1, NULL },
  { NCU_SEC_SOL, "SM [%]", "compute_throughput_pct", 1, NULL },
  /* Launch Statistics */
  { NCU_SEC_LAUNCH, "Block Size", "block_size", 1,
    "threads per block (Launch Statistics: Block Size, or the product of block_x/y/z)" },
  { NCU_SEC_LAUNCH, "Grid Size", "grid_size", 1,
    "blocks in the grid (Launch Statistics: Grid Size, or the product of grid_x/y/z)" },
  { NCU_SEC_LAUNCH, "Registers Per Thread", "registers", 1, "registers per thread" },
  { NCU_SEC_LAUNCH, "Static Shared Memory Per Block", "smem_static_bytes", 1,
    "static shared memory per block, bytes (Kbyte values snapped to the multiple of 128 B within the printed "
    "rounding)" },
  { NCU_SEC_LAUNCH, "Dynamic Shared Memory Per Block", "smem_dynamic_bytes", 1,
    "dynamic shared memory per block, bytes (snapped like smem_static_bytes)" },
  { NCU_SEC_LAUNCH, "Driver Shared Memory Per Block", "smem_driver_bytes", 1,
    "shared memory the driver reserves per block (CC >= 8.0), bytes (snapped like smem_static_bytes)" },
  { NCU_SEC_LAUNCH, "Shared Memory Configuration Size", "smem_config_bytes", 1,
    "shared memory carveout configured for the launch, bytes (snapped like smem_static_bytes)" },
  { NCU_SEC_LAUNCH, "Threads", "threads", 1, "threads in the launch (grid_size x block_size)" },
  { NCU_SEC_LAUNCH, "Waves Per SM", "waves_per_sm", 1, "waves of blocks per SM at theoretical occupancy" },
  { NCU_SEC_LAUNCH, "# SMs", "sm_count", 1, "SMs on the device (Launch Statistics '# SMs', 2023+)" },
  { NCU_SEC_LAUNCH, "# TPCs", "tpc_count", 1, "TPCs on the device (2023+)" },
  { NCU_SEC_LAUNCH, "Function Cache Configuration", "cache_config", 0,
    "function cache configuration (cudaFuncCachePreferNone before 2022, CachePreferNone after)" },
  { NCU_SEC_LAUNCH, "Stack Size", "stack_size", 1, "stack size per thread as printed (no unit)" },
  { NCU_SEC_LAUNCH, "Cluster Size", "cluster_size", 1, "thread-block cluster size (0: no clusters; CC >= 9.0)" },
  { NCU_SEC_LAUNCH, "Cluster Scheduling Policy", "cluster_scheduling_policy", 0,
    "cluster scheduling policy (CC >= 9.0)" },
  { NCU_SEC_LAUNCH, "Enabled TPC IDs", "enabled_tpc_ids", 0,
    "TPCs enabled for the launch ('all' unless a green context restricts them)" },
  { NCU_SEC_LAUNCH, "Uses Green Context", "uses_green_context", 1, "1 when launched in a green context" },
  /* Occupancy */
  { NCU_SEC_OCC, "Block Limit SM", "block_limit_sm", 1, "occupancy limit from the per-SM block maximum, blocks" },
  { NCU_SEC_OCC, "Block Limit Registers", "block_limit_registers", 1, "occupancy limit from registers, blocks" },
  { NCU_SEC_OCC, "Block Limit Shared Mem", "block_limit_smem", 1, "occupancy limit from shared memory, blocks" },
  { NCU_SEC_OCC, "Block Limit Warps", "block_limit_warps", 1, "occupancy limit from the per-SM warp maximum, blocks" },
  { NCU_SEC_OCC, "Block Limit Barriers", "block_limit_barriers", 1, "occupancy limit from barriers, blocks (2024+)" },
  { NCU_SEC_OCC, "Theoretical Active Warps per SM", "theoretical_warps", 1, "theoretical active warps per SM" },
  { NCU_SEC_OCC, "Theoretical Occupancy", "theoretical_occupancy_pct", 1, "theoretical occupancy, percent" },
  { NCU_SEC_OCC, "Achieved Occupancy", "achieved_occupancy_pct", 1, "achieved occupancy, percent" },
  { NCU_SEC_OCC, "Achieved Active Warps Per SM", "achieved_warps", 1, "achieved active warps per SM" },
  { NCU_SEC_OCC, "Max Active Clusters", "max_active_clusters", 1, "maximum active clusters (CC >= 9.0)" },
  { NCU_SEC_OCC, "Max Cluster Size", "max_cluster_size", 1, "maximum cluster size, blocks (CC >= 9.0)" },
  { NCU_SEC_OCC, "Overall GPU Occupancy", "overall_gpu_occupancy_pct", 1,
    "overall GPU occupancy, percent (CC >= 9.0)" },
  { NCU_SEC_OCC, "Cluster Occupancy", "cluster_occupancy_pct", 1, "cluster occupancy, percent (CC >= 9.0)" },
  /* raw page (--page raw) metric names */
  { NCU_SEC_RAW, "gpu__time_duration.sum", "duration_ns", 1, NULL },
  { NCU_SEC_RAW, "gpc__cycles_elapsed.max", "elapsed_cycles", 1, NULL },
  { NCU_SEC_RAW, "sm__cycles_elapsed.avg.per_second", "sm_frequency_hz", 1, NULL },
  { NCU_SEC_RAW, "gpc__cycles_elapsed.avg.per_second", "sm_frequency_hz", 1, NULL },
  { NCU_SEC_RAW, "dram__cycles_elapsed.avg.per_second", "dram_frequency_hz", 1, NULL },
  { NCU_SEC_RAW, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory_throughput_pct", 1, NULL },
  { NCU_SEC_RAW, "dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct", 1, NULL },
  { NCU_SEC_RAW, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct", 1, NULL },
  { NCU_SEC_RAW, "lts__throughput.avg.pct_of_peak_sustained_elapsed", "l2_throughput_pct", 1, NULL },
  { NCU_SEC_RAW, "l1tex__throughput.avg.pct_of_peak_sustained_active", "l1tex_throughput_pct", 1, NULL },
  { NCU_SEC_RAW, "sm__cycles_active.avg", "sm_active_cycles", 1, NULL },
  { NCU_SEC_RAW, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "compute_throughput_pct", 1, NULL },
  { NCU_SEC_RAW, "launch__block_size", "block_size", 1, NULL },
  { NCU_SEC_RAW, "launch__grid_size", "grid_size", 1, NULL },
  { NCU_SEC_RAW, "launch__registers_per_thread", "registers", 1, NULL },
  { NCU_SEC_RAW, "launch__shared_mem_per_block_static", "smem_static_bytes", 1, NULL },
  { NCU_SEC_RAW, "launch__shared_mem_per_block_dynamic", "smem_dynamic_bytes", 1, NULL },
  { NCU_SEC_RAW, "launch__shared_mem_per_block_driver", "smem_driver_bytes", 1, NULL },
  { NCU_SEC_RAW, "launch__shared_mem_config_size", "smem_config_bytes", 1, NULL },
  { NCU_SEC_RAW, "launch__thread_count", "threads", 1, NULL },
  { NCU_SEC_RAW, "launch__waves_per_multiprocessor", "waves_per_sm", 1, NULL },
  { NCU_SEC_RAW, "launch__sm_count", "sm_count", 1, NULL },
  { NCU_SEC_RAW, "device__attribute_multiprocessor_count", "sm_count", 1, NULL },
  { NCU_SEC_RAW, "launch__func_cache_config", "cache_config", 0, NULL },
  { NCU_SEC_RAW, "launch__occupancy_limit_blocks", "block_limit_sm", 1, NULL },
  { NCU_SEC_RAW, "launch__occupancy_limit_registers", "block_limit_registers", 1, NULL },
  { NCU_SEC_RAW, "launch__occupancy_limit_shared_mem", "block_limit_smem", 1, NULL },
  { NCU_SEC_RAW, "launch__occupancy_limit_warps", "block_limit_warps", 1, NULL },
  { NCU_SEC_RAW, "launch__occupancy_limit_barriers", "block_limit_barriers", 1, NULL },
  { NCU_SEC_RAW, "sm__maximum_warps_avg_per_active_cycle", "theoretical_warps", 1, NULL },
  { NCU_SEC_RAW, "sm__maximum_warps_per_active_cycle_pct", "theoretical_occupancy_pct", 1, NULL },
  { NCU_SEC_RAW, "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct", 1, NULL },
  { NCU_SEC_RAW, "sm__warps_active.avg.per_cycle_active", "achieved_warps", 1, NULL },
  { NCU_SEC_RAW, "launch__grid_dim_x", "grid_x", 1, NULL },
  { NCU_SEC_RAW, "launch__grid_dim_y", "grid_y", 1, NULL },
  { NCU_SEC_RAW, "launch__grid_dim_z", "grid_z", 1, NULL },
  { NCU_SEC_RAW, "launch__block_dim_x", "block_x", 1, NULL },
  { NCU_SEC_RAW, "launch__block_dim_y", "block_y", 1, NULL },
  { NCU_SEC_RAW, "launch__block_dim_z", "block_z", 1, NULL },
};
#define NCANON (sizeof canon / sizeof canon[0])

const char *pl_ncu_canon_column(size_t i, int *numeric, const char **doc) {
  if (i >= NCANON) return NULL;
  *numeric = canon[i].numeric;
  *doc = canon[i].doc;
  return canon[i].col;
}

static int eqn(const char *s, size_t n, const char *w) { return strlen(w) == n && memcmp(s, w, n) == 0; }

int pl_ncu_section_class(const char *s, size_t n) {
  if (eqn(s, n, "GPU Speed Of Light Throughput") || eqn(s, n, "GPU Speed Of Light") || eqn(s, n, "SpeedOfLight"))
    return NCU_SEC_SOL;
  if (eqn(s, n, "Launch Statistics") || eqn(s, n, "LaunchStats")) return NCU_SEC_LAUNCH;
  if (eqn(s, n, "Occupancy")) return NCU_SEC_OCC;
  /* `ncu --metrics a,b,...` prints the metrics it was asked for under this
  ** section (text page and details CSV): raw metric names, as the raw page */
  if (eqn(s, n, "Command line profiler metrics")) return NCU_SEC_RAW;
  return NCU_SEC_OTHER;
}

const char *pl_ncu_canonical(int cls, const char *metric, size_t n, int *numeric) {
  for (size_t i = 0; i < NCANON; i++)
    if (canon[i].cls == cls && eqn(metric, n, canon[i].metric)) {
      if (numeric) *numeric = canon[i].numeric;
      return canon[i].col;
    }
  return NULL;
}

/* ---- numbers ------------------------------------------------------------ */

int pl_ncu_parse_value(const char *s, size_t n, int *locale, double *out) {
  if (pl_parse_double(s, n, out) == 0) return 0;
  if (*locale) {
    if (pl_parse_number_sep(s, n, 1, out) == 0) return 0;
    return pl_parse_number_sep(s, n, 0, out);
  }
  if (pl_parse_number_sep(s, n, 0, out) == 0) return 0;
  /* locale numbers need a digit on each side of a space or comma */
  if (pl_parse_number_sep(s, n, 1, out) == 0) {
    int ok = 0;
    for (size_t i = 1; i + 1 < n; i++)
      if ((s[i] == ' ' || s[i] == ',') && s[i - 1] >= '0' && s[i - 1] <= '9' && s[i + 1] >= '0' && s[i + 1] <= '9')
        ok = 1;
    if (!ok) return -1;
    *locale = 1;
    return 0;
  }
  return -1;
}

/* Snaps a size printed in decimal kilobytes (or larger) with limited
** decimals to the multiple of 128 bytes inside its rounding interval. */

int pl_ncu_not_collected(const char *s, size_t n) {
  if (n < 3 || memcmp(s, "(!)", 3) != 0) return 0;
  s += 3;
  n -= 3;
  while (n > 0 && *s == ' ') {
    s++;
    n--;
  }
  return n == 0 || eqn(s, n, "nan") || eqn(s, n, "NaN") || eqn(s, n, "n/a") || eqn(s, n, "N/A") || eqn(s, n, "-nan") ||
         eqn(s, n, "inf");
}

int pl_ncu_read_uint(const char *s, size_t n, size_t *i, int64_t *v) {
  size_t st = *i;
  int64_t x = 0;
  while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
    x = x * 10 + (s[*i] - '0');
    (*i)++;
    if (x > ((int64_t)1 << 50)) return 0;
  }
  if (*i == st) return 0;
  *v = x;
  return 1;
}

int pl_ncu_read_dim3(const char *s, size_t n, size_t *i, int64_t out[3]) {
  if (*i >= n || s[*i] != '(') return 0;
  (*i)++;
  for (int k = 0; k < 3; k++) {
    while (*i < n && s[*i] == ' ') (*i)++;
    if (!pl_ncu_read_uint(s, n, i, &out[k])) return 0;
    while (*i < n && s[*i] == ' ') (*i)++;
    if (k < 2) {
      if (*i >= n || s[*i] != ',') return 0;
      (*i)++;
    }
  }
  if (*i >= n || s[*i] != ')') return 0;
  (*i)++;
  return 1;
}
