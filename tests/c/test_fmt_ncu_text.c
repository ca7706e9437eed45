/* test_fmt_ncu_text.c -- format "ncu-text" (Nsight Compute CLI details page).
**
** Expected figures were computed from the files independently of the parser:
**   seed 003: grep -c "Context 1, Stream" (21 launches), grep -c "Section:"
**   (189 = 21 x 9), grep -c "^    WRN" (189), grep -c "^    INF" (63), and
**   awk over the "Duration usecond" rows (sum 763010 ns); block size, grid size
**   and registers with grep | sort | uniq -c (all 21 rows 128 / 8 / 254).
**   Per-file launch and rule counts: grep -c of kernel lines and of lines
**   starting with WRN/INF/OPT.  Occupancy figures: the oracle table of
**   corpus/MANIFEST.md (re-derived there with the occupancy model).
*/
#include "tcheck.h"
#include "format.h"
#include "fmt_helpers.h"
#include "ncu.h"

#include <dirent.h>

static const char *shared_dir(void) {
  const char *s = getenv("PERFLAB_DATA");
  return s && *s ? s : "tests/data";
}

static pl_profile *load(const char *path, pl_err *e) {
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  return pl_load_file(path, NULL, &o, e);
}

static pl_profile *load_buf(const char *name, const char *text, const char *fmt, pl_err *e) {
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  return pl_load_buffer(name, text, strlen(text), fmt, &o, e);
}

static int col(const pl_table *t, const char *name) {
  int c = pl_table_col(t, name);
  if (c < 0) fprintf(stderr, "no column %s in %s\n", name, t->name);
  return c;
}

static double num(const pl_table *t, const char *name, size_t row) {
  int c = col(t, name);
  return c < 0 ? NAN : pl_cell_num(t, c, row);
}

static const char *str(const pl_table *t, const char *name, size_t row) {
  size_t n;
  int c = col(t, name);
  return c < 0 ? NULL : pl_cell_str(t, c, row, &n);
}

static size_t count_str(const pl_table *t, const char *name, const char *v) {
  size_t k = 0, n;
  int c = col(t, name);
  for (size_t i = 0; c >= 0 && i < t->nrows; i++) {
    const char *s = pl_cell_str(t, c, i, &n);
    if (s && strcmp(s, v) == 0) k++;
  }
  return k;
}

static void err_text(const pl_err *e, char *out, size_t n) { pl_err_format(e, out, n); }

/* The MANIFEST oracle: file, launch index, block size, registers, static +
** dynamic + driver shared memory, configuration size, block limits SM /
** registers / shared memory / warps, theoretical occupancy. */
typedef struct oracle {
  const char *file;
  int idx;
  int block, regs, smem, config, lsm, lreg, lsmem, lwarps;
  double theo;
} oracle;
static const oracle oracles[] = {
  { "cuda_gemm_a800_tc_03_wmma_pipe.details.txt", 0, 256, 66, 37888, 135168, 32, 3, 3, 8, 37.50 },
  { "cuda_gemm_h20_doc_raw_warptile.txt", 0, 128, 211, 9216, 65536, 32, 2, 7, 16, 12.50 },
  { "cuda_gemm_h20_tc_04_wgmma_tma_ws.details.txt", 0, 256, 154, 99456, 102400, 32, 1, 1, 8, 12.50 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 0, 256, 38, 1024, 32768, 32, 6, 32, 8, 75 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 1, 128, 18, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 2, 128, 16, 1024, 32768, 32, 32, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 3, 128, 24, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 4, 128, 16, 1024, 32768, 32, 32, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 5, 128, 16, 1024, 32768, 32, 32, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 6, 128, 16, 1024, 32768, 32, 32, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 7, 128, 22, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 8, 128, 16, 1024, 32768, 32, 32, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 9, 128, 16, 1024, 32768, 32, 32, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 10, 128, 16, 1024, 32768, 32, 32, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 11, 128, 24, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 12, 128, 20, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 13, 128, 22, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 14, 128, 20, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 15, 128, 23, 1024, 32768, 32, 21, 32, 16, 100 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 16, 512, 32, 1552, 16384, 32, 4, 9, 4, 100 },
  { "gpumode_lecture001_triton_profile_cc89.txt", 0, 256, 38, 1024, 16384, 24, 6, 16, 6, 100 },
  { "gpumode_lecture001_triton_profile_cc89.txt", 1, 128, 20, 1024, 32768, 24, 21, 32, 12, 100 },
  { "unknownrepo_llmc_softmax_forward_cc86.txt", 0, 512, 39, 1024, 8192, 16, 3, 8, 3, 100 },
  { "unknownrepo_llmc_softmax_forward_cc86.txt", 1, 512, 22, 3072, 16384, 16, 5, 5, 3, 100 },
  { "unknownrepo_llmc_softmax_forward_cc86.txt", 2, 32, 18, 1152, 32768, 16, 84, 28, 48, 33.33 },
  { "unknownrepo_rtx2050_cc86_max_flops_and_matmul.txt", 0, 256, 16, 1024, 8192, 16, 16, 8, 6, 100 },
  { "unknownrepo_rtx2050_cc86_max_flops_and_matmul.txt", 1, 256, 100, 9216, 65536, 16, 2, 7, 6, 33.33 },
  { "unknownrepo_sgemm_naive_cc75.txt", 0, 1024, 49, 0, 32768, 16, 1, 16, 1, 100 },
  { "unknownrepo_v100_ncu2021_wide_matrix_sums.txt", 0, 256, 21, 0, 0, 32, 10, 32, 8, 100 },
  { "unknownrepo_v100_ncu2021_wide_matrix_sums.txt", 1, 256, 26, 0, 0, 32, 8, 32, 8, 100 },
};

/* launches per corpus file (grep -c of kernel lines; the 2020 Julia file has
** a third section block whose kernel line the paste lost) */
static const struct {
  const char *file;
  int launches;
  int rules;
} counts[] = {
  { "cuda_gemm_a800_tc_03_wmma_pipe.details.txt", 1, 13 },
  { "cuda_gemm_h20_doc_raw_warptile.txt", 5, 9 },
  { "cuda_gemm_h20_tc_04_wgmma_tma_ws.details.txt", 1, 15 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", 17, 51 },
  { "gpumode_lecture001_triton_profile_cc89.txt", 2, 5 },
  { "kernelabstractions_jl_v100_nsight_cu_cli_2020_sol.txt", 3, 0 },
  { "unknownrepo_llmc_softmax_forward_cc86.txt", 3, 0 },
  { "unknownrepo_nv_nsight_cu_cli_2020_sol_locale_fi.txt", 6, 0 },
  { "unknownrepo_rtx2050_cc86_max_flops_and_matmul.txt", 2, 4 },
  { "unknownrepo_sgemm_naive_cc75.txt", 1, 2 },
  { "unknownrepo_v100_ncu2021_wide_matrix_sums.txt", 2, 6 },
};

static void test_seed003(void) {
  pl_err e;
  pl_profile *p = load("tests/fixtures/ncu/003_ebb91119a615c85c.txt", &e);
  TC_CHECK(p != NULL);
  if (!p) {
    char b[1200];
    err_text(&e, b, sizeof b);
    fprintf(stderr, "%s\n", b);
    return;
  }
  TC_EQ_STR(p->format, "ncu-text");
  pl_table *k = pl_profile_find(p, "kernels"), *r = pl_profile_find(p, "rules");
  pl_table *m = pl_profile_find(p, "metrics"), *po = pl_profile_find(p, "program_output");
  TC_CHECK(k && r && m && po);
  if (!k || !r || !m || !po) {
    pl_profile_free(p);
    return;
  }
  TC_EQ_INT(k->nrows, 21);
  double sum = 0;
  int all9 = 1, blk = 1, reg = 1, grid = 1;
  for (size_t i = 0; i < k->nrows; i++) {
    sum += num(k, "duration_ns", i);
    if (num(k, "sections", i) != 9) all9 = 0;
    if (num(k, "block_size", i) != 128 || num(k, "block_x", i) != 128 || num(k, "block_y", i) != 1) blk = 0;
    if (num(k, "registers", i) != 254) reg = 0;
    if (num(k, "grid_size", i) != 8 || num(k, "grid_x", i) != 8) grid = 0;
    TC_EQ_INT(num(k, "id", i), (long long)i);
  }
  TC_NEAR(sum, 763010, 1e-9); /* 763.01 us */
  TC_CHECK(all9);
  TC_CHECK(blk);
  TC_CHECK(reg);
  TC_CHECK(grid);
  TC_EQ_INT(count_str(r, "severity", "WRN"), 189);
  TC_EQ_INT(count_str(r, "severity", "INF"), 63);
  TC_EQ_INT(r->nrows, 252);
  TC_EQ_STR(str(k, "short_name", 0), "ImplicitGemmConvolution"); /* cutlass::Kernel<...>: its argument */
  TC_EQ_STR(str(k, "timestamp", 0), "2025-May-15 09:00:25");
  TC_EQ_INT(num(k, "stream", 0), 7);
  TC_EQ_STR(str(k, "process", 0), "program");
  /* first launch, values as printed (line 29 on) */
  TC_NEAR(num(k, "sm_frequency_hz", 0), 1.27e9, 1e-12);
  TC_NEAR(num(k, "dram_frequency_hz", 0), 7.05e9, 1e-12);
  TC_NEAR(num(k, "elapsed_cycles", 0), 46271, 0);
  TC_NEAR(num(k, "memory_throughput_pct", 0), 9.05, 1e-12);   /* Memory [%] */
  TC_NEAR(num(k, "compute_throughput_pct", 0), 11.38, 1e-12); /* Compute (SM) [%] */
  TC_NEAR(num(k, "dram_throughput_pct", 0), 0.69, 1e-12);
  TC_NEAR(num(k, "smem_config_bytes", 0), 102400, 0); /* 102.40 Kbyte */
  TC_NEAR(num(k, "smem_driver_bytes", 0), 1024, 0);   /* 1.02 Kbyte/block */
  TC_NEAR(num(k, "smem_dynamic_bytes", 0), 98304, 0); /* 98.30 Kbyte/block */
  TC_NEAR(num(k, "smem_static_bytes", 0), 0, 0);
  TC_NEAR(num(k, "threads", 0), 1024, 0);
  TC_NEAR(num(k, "waves_per_sm", 0), 0.29, 1e-12);
  TC_NEAR(num(k, "block_limit_sm", 0), 16, 0);
  TC_NEAR(num(k, "block_limit_registers", 0), 2, 0);
  TC_NEAR(num(k, "block_limit_smem", 0), 1, 0);
  TC_NEAR(num(k, "block_limit_warps", 0), 12, 0);
  TC_NEAR(num(k, "theoretical_warps", 0), 4, 0);
  TC_NEAR(num(k, "theoretical_occupancy_pct", 0), 8.33, 1e-12);
  TC_NEAR(num(k, "achieved_occupancy_pct", 0), 8.33, 1e-12);
  TC_NEAR(num(k, "achieved_occupancy_pct", 20), 8.34, 1e-12); /* last launch */
  TC_EQ_STR(str(k, "cache_config", 0), "cudaFuncCachePreferNone");
  /* metrics: the first row is DRAM Frequency 7.05 cycle/nsecond */
  TC_EQ_STR(str(m, "section", 0), "GPU Speed Of Light Throughput");
  TC_EQ_STR(str(m, "metric", 0), "DRAM Frequency");
  TC_EQ_STR(str(m, "unit", 0), "cycle/nsecond");
  TC_EQ_STR(str(m, "base_unit", 0), "Hz");
  TC_NEAR(num(m, "value", 0), 7.05e9, 1e-12);
  TC_CHECK(str(m, "raw", 0) == NULL); /* a number: its text only with raw_text */
  {
    pl_profile *q = fh_load_raw_text("tests/fixtures/ncu/003_ebb91119a615c85c.txt", &e);
    TC_CHECK(q != NULL);
    if (q) {
      TC_EQ_STR(str(pl_profile_find(q, "metrics"), "raw", 0), "7.05");
      pl_profile_free(q);
    }
  }
  TC_EQ_INT(m->nrows, 21 * 58); /* 10+5+8+5+4+4+10+8+4 rows per launch */
  /* rules: continuation lines joined; the URL wrapped as "...-c" / "-aa)" re-joined */
  TC_EQ_STR(str(r, "message", 0),
            "This kernel grid is too small to fill the available resources on this device, "
            "resulting in only 0.3 full waves across all SMs. Look at Launch Statistics for more details.");
  TC_EQ_STR(str(r, "section", 0), "GPU Speed Of Light Throughput");
  TC_EQ_STR(str(r, "message", 11),
            "This kernel has uncoalesced shared accesses resulting in a total of 1152 excessive "
            "wavefronts (2% of the total 71424 wavefronts). Check the L1 Wavefronts Shared Excessive table for the "
            "primary source locations. The CUDA Best Practices Guide "
            "(https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/"
            "index.html#shared-memory-in-matrix-multiplication-c-aa) "
            "has an example on optimizing shared memory accesses.");
  TC_CHECK(isnan(num(r, "est_speedup_pct", 0)));
  /* program output: the CSV the program printed between ==PROF== lines */
  TC_EQ_INT(po->nrows, 2);
  TC_EQ_STR(str(po, "text", 0), "Layer,N,H,W,C,K,R,S,Runtime,GFLOPs");
  TC_EQ_INT(num(po, "line", 1), 26);
  /* meta */
  const pl_meta *mt = pl_profile_meta_get(p, "tool");
  TC_CHECK(mt && mt->text && strcmp(mt->text, "Nsight Compute") == 0);
  mt = pl_profile_meta_get(p, "sm_count");
  TC_CHECK(mt && mt->num == 28); /* "less than the GPU's 28 multiprocessors" */
  pl_profile_free(p);
}

static void test_variants(void) {
  pl_err e;
  /* 2023 A100 log: no thousands separators, no blank lines, "Estimated Speedup" */
  pl_profile *p = load("tests/data/corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt", &e);
  TC_CHECK(p != NULL);
  if (p) {
    pl_table *k = pl_profile_find(p, "kernels"), *r = pl_profile_find(p, "rules");
    TC_EQ_INT(k->nrows, 17);
    TC_EQ_INT(r->nrows, 51);
    TC_EQ_STR(str(k, "cc", 0), "8.0");
    TC_EQ_INT(num(k, "grid_x", 0), 864);
    TC_EQ_INT(num(k, "block_x", 0), 256);
    TC_EQ_INT(num(k, "device", 0), 0);
    TC_NEAR(num(k, "elapsed_cycles", 0), 15606, 0);
    TC_NEAR(num(k, "threads", 0), 221184, 0);
    TC_EQ_STR(str(k, "short_name", 1), "square_kernel_0d1d234");
    /* the Launch Statistics rule "OPT   Estimated Speedup: 50%" of launch 0 */
    TC_EQ_STR(str(r, "severity", 1), "OPT");
    TC_EQ_STR(str(r, "section", 1), "Launch Statistics");
    TC_NEAR(num(r, "est_speedup_pct", 1), 50, 0);
    TC_NEAR(num(r, "est_speedup_pct", 2), 21.63, 1e-12);
    TC_CHECK(strncmp(str(r, "message", 1), "A wave of thread blocks is defined", 34) == 0);
    const pl_meta *mt = pl_profile_meta_get(p, "sm_count");
    TC_CHECK(mt && mt->num == 108); /* inferred from waves: A100 */
    pl_profile_free(p);
  }
  /* 2023.3 with the shell prompt naming the version */
  p = load("tests/data/corpus/ncu_text/gpumode_lecture001_triton_profile_cc89.txt", &e);
  TC_CHECK(p != NULL);
  if (p) {
    const pl_meta *mt = pl_profile_meta_get(p, "version");
    TC_CHECK(mt && mt->text && strcmp(mt->text, "2023.3") == 0);
    TC_EQ_INT(pl_profile_find(p, "kernels")->nrows, 2);
    pl_profile_free(p);
  }
  /* 2019-2020 NVTX layout: range line, section, then the kernel line */
  p = load("tests/data/corpus/ncu_text/kernelabstractions_jl_v100_nsight_cu_cli_2020_sol.txt", &e);
  TC_CHECK(p != NULL);
  if (p) {
    pl_table *k = pl_profile_find(p, "kernels");
    TC_EQ_INT(k->nrows, 3);
    TC_EQ_STR(str(k, "name", 0), "ptxcall___gpu_transpose_kernel_naive__430_2");
    TC_EQ_STR(str(k, "nvtx_range", 0), "Naive transpose (32, 32)");
    TC_EQ_STR(str(k, "name", 1), "ptxcall___gpu_transpose_kernel_naive__430_3");
    TC_EQ_INT(num(k, "stream", 1), 25);
    TC_CHECK(str(k, "name", 2) == NULL);                        /* the paste ends before its kernel line */
    TC_NEAR(num(k, "duration_ns", 0), 1170000, 0);              /* 1.17 msecond */
    TC_NEAR(num(k, "dram_frequency_hz", 0), 878.88e6, 1e-12);   /* Memory Frequency cycle/usecond */
    TC_NEAR(num(k, "dram_throughput_pct", 0), 38.16, 1e-12);    /* SOL FB */
    TC_NEAR(num(k, "memory_throughput_pct", 0), 65.93, 1e-12);  /* Memory [%] */
    TC_NEAR(num(k, "compute_throughput_pct", 0), 23.56, 1e-12); /* SM [%] */
    TC_NEAR(num(k, "l2_throughput_pct", 2), 60.02, 1e-12);      /* SOL L2 */
    TC_NEAR(num(k, "sm_active_cycles", 0), 1440706.40, 1e-12);
    TC_CHECK(p->ndiags >= 1);
    pl_profile_free(p);
  }
  /* locale numbers, old wide layout, shell prompts */
  char path[1024];
  snprintf(path, sizeof path, "%s/corpus/ncu_text/unknownrepo_nv_nsight_cu_cli_2020_sol_locale_fi.txt", shared_dir());
  FILE *f = fopen(path, "rb");
  if (f) {
    fclose(f);
    p = load(path, &e);
    TC_CHECK(p != NULL);
    if (p) {
      pl_table *k = pl_profile_find(p, "kernels");
      TC_EQ_INT(k->nrows, 6);
      TC_NEAR(num(k, "elapsed_cycles", 0), 23982976, 0);        /* "23 982 976" */
      TC_NEAR(num(k, "dram_frequency_hz", 0), 866.86e6, 1e-12); /* "866,86" cycle/usecond */
      TC_NEAR(num(k, "sm_active_cycles", 0), 23111929.56, 1e-12);
      TC_NEAR(num(k, "elapsed_cycles", 3), 5277, 0);  /* "5 277" */
      TC_NEAR(num(k, "duration_ns", 3), 5540, 1e-12); /* "5,54" usecond */
      TC_EQ_STR(str(k, "name", 4), "gemv_kernel");
      pl_profile_free(p);
    }
  } else tc_need(path);
  /* H20 --set full: Ghz, us, Est. Speedup / Est. Local Speedup, # SMs */
  snprintf(path, sizeof path, "%s/corpus/ncu_text/cuda_gemm_h20_tc_04_wgmma_tma_ws.details.txt", shared_dir());
  f = fopen(path, "rb");
  if (f) {
    fclose(f);
    p = load(path, &e);
    TC_CHECK(p != NULL);
    if (p) {
      pl_table *k = pl_profile_find(p, "kernels"), *r = pl_profile_find(p, "rules");
      TC_NEAR(num(k, "dram_frequency_hz", 0), 2.62e9, 1e-12);
      TC_NEAR(num(k, "duration_ns", 0), 190850, 1e-12);
      TC_NEAR(num(k, "sm_count", 0), 78, 0);
      TC_NEAR(num(k, "block_limit_barriers", 0), 32, 0);
      TC_EQ_STR(str(k, "cluster_scheduling_policy", 0), "PolicySpread");
      TC_EQ_STR(str(k, "enabled_tpc_ids", 0), "all");
      TC_EQ_INT(num(k, "grid_y", 0), 16);
      /* rule 3 is "OPT   Est. Speedup: 1.891%" with the text on the next lines */
      TC_NEAR(num(r, "est_speedup_pct", 3), 1.891, 1e-12);
      TC_EQ_STR(str(r, "section", 3), "Memory Workload Analysis Chart");
      TC_CHECK(strncmp(str(r, "message", 3), "Out of the 33653664.0 bytes", 27) == 0);
      TC_EQ_STR(str(r, "section", 1), "GPU Speed Of Light Roofline Chart"); /* a section without a table */
      TC_NEAR(num(r, "est_local_speedup_pct", 5), 33.18, 1e-12);
      TC_CHECK(isnan(num(r, "est_speedup_pct", 5)));
      const pl_meta *mt = pl_profile_meta_get(p, "sm_count");
      TC_CHECK(mt && mt->num == 78);
      pl_profile_free(p);
    }
  } else tc_need(path);
}

static void test_oracles(void) {
  const char *last = NULL;
  pl_profile *p = NULL;
  pl_table *k = NULL;
  int checked = 0;
  for (size_t i = 0; i < sizeof oracles / sizeof oracles[0]; i++) {
    const oracle *o = &oracles[i];
    if (last == NULL || strcmp(last, o->file) != 0) {
      if (p) pl_profile_free(p);
      char path[1024];
      snprintf(path, sizeof path, "%s/corpus/ncu_text/%s", shared_dir(), o->file);
      pl_err e;
      p = load(path, &e);
      last = o->file;
      k = p ? pl_profile_find(p, "kernels") : NULL;
      if (!p) {
        if (tc_need(path)) {
          tc_fail++;
          fprintf(stderr, "FAIL: %s does not load\n", path);
        }
        continue;
      }
    }
    if (!k) continue;
    size_t r = (size_t)o->idx;
    TC_CHECK(r < k->nrows);
    if (r >= k->nrows) continue;
    double smem = num(k, "smem_static_bytes", r) + num(k, "smem_dynamic_bytes", r);
    double drv = num(k, "smem_driver_bytes", r);
    if (!isnan(drv)) smem += drv;
    TC_EQ_INT(num(k, "block_size", r), o->block);
    TC_EQ_INT(num(k, "block_x", r) * num(k, "block_y", r) * num(k, "block_z", r), o->block);
    TC_EQ_INT(num(k, "registers", r), o->regs);
    TC_EQ_INT(smem, o->smem);
    TC_EQ_INT(num(k, "smem_config_bytes", r), o->config);
    TC_EQ_INT(num(k, "block_limit_sm", r), o->lsm);
    TC_EQ_INT(num(k, "block_limit_registers", r), o->lreg);
    TC_EQ_INT(num(k, "block_limit_smem", r), o->lsmem);
    TC_EQ_INT(num(k, "block_limit_warps", r), o->lwarps);
    TC_NEAR(num(k, "theoretical_occupancy_pct", r), o->theo, 1e-12);
    checked++;
  }
  if (p) pl_profile_free(p);
  printf("occupancy oracle: %d launches checked\n", checked);
}

/* Every ncu_text corpus file parses, with the launch and rule counts above. */
static void test_corpus(void) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/corpus/ncu_text", shared_dir());
  DIR *d = opendir(dir);
  if (!d) {
    tc_need(dir);
    return;
  }
  struct dirent *de;
  int files = 0;
  size_t dropped = 0;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    pl_err e;
    pl_profile *p = load(path, &e);
    if (!p) {
      char b[1200];
      err_text(&e, b, sizeof b);
      fprintf(stderr, "corpus file failed: %s\n", b);
    }
    TC_CHECK(p != NULL);
    if (!p) continue;
    files++;
    TC_EQ_STR(p->format, "ncu-text");
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
      if (strcmp(counts[i].file, de->d_name) != 0) continue;
      TC_EQ_INT(pl_profile_find(p, "kernels")->nrows, counts[i].launches);
      TC_EQ_INT(pl_profile_find(p, "rules")->nrows, counts[i].rules);
    }
    /* numbers' texts dropped from raw by default, nothing else */
    dropped += fh_raw_rule(path, p);
    pl_profile_free(p);
  }
  closedir(d);
  TC_CHECK(files >= 11);
  TC_CHECK(dropped > 1000);
}

static void test_errors(void) {
  pl_err e;
  char b[1200];
  /* seed 003 cut in the middle of the first Occupancy table (after line 150) */
  size_t len;
  char *seed = tc_slurp("tests/fixtures/ncu/003_ebb91119a615c85c.txt", &len);
  TC_CHECK(seed != NULL);
  if (seed) {
    size_t cut = 0;
    int lines = 0;
    while (cut < len && lines < 150) {
      if (seed[cut] == '\n') lines++;
      cut++;
    }
    seed[cut] = '\0';
    pl_profile *p = load_buf("cut.txt", seed, NULL, &e);
    TC_CHECK(p == NULL);
    err_text(&e, b, sizeof b);
    TC_EQ_STR(
        b,
        "cut.txt:151:1: expected a metric row or the closing '-----' rule of section 'Occupancy', found end of file");
    free(seed);
  }
  /* a number where text stands */
  const char *bad = "  k(int) (8, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 8.6\n"
                    "    Section: Launch Statistics\n"
                    "    -------------------------------- --------------- ---------------\n"
                    "    Metric Name                          Metric Unit    Metric Value\n"
                    "    -------------------------------- --------------- ---------------\n"
                    "    Block Size                                                   128\n"
                    "    Registers Per Thread             register/thread            many\n"
                    "    -------------------------------- --------------- ---------------\n";
  pl_profile *p = load_buf("bad.txt", bad, NULL, &e);
  TC_CHECK(p == NULL);
  err_text(&e, b, sizeof b);
  TC_EQ_STR(b, "bad.txt:7:65: expected a number for 'Registers Per Thread' (unit 'register/thread'), found \"many\"");
  /* a canonical numeric metric without a unit */
  const char *bad2 = "  k(int) (8, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 8.6\n"
                     "    Section: Launch Statistics\n"
                     "    ---------------------- ----------- ------------\n"
                     "    Block Size                             12x8\n"
                     "    ---------------------- ----------- ------------\n";
  p = load_buf("bad2.txt", bad2, "ncu-text", &e);
  TC_CHECK(p == NULL);
  err_text(&e, b, sizeof b);
  TC_EQ_STR(b, "bad2.txt:4:44: expected a number for 'Block Size', found \"12x8\"");
  /* the same input well-formed parses, and the missing header row is fine */
  const char *good = "  k(int) (8, 2, 1)x(64, 2, 1), Context 1, Stream 7, Device 0, CC 8.6\n"
                     "    Section: Launch Statistics\n"
                     "    ---------------------------- ----------- ---------------\n"
                     "    Block Size                                           128\n"
                     "    Function Cache Configuration             CachePreferNone\n"
                     "    Registers Per Thread     register/thread              40\n"
                     "    ---------------------------- ----------- ---------------\n";
  p = load_buf("good.txt", good, NULL, &e);
  TC_CHECK(p != NULL);
  if (p) {
    pl_table *k = pl_profile_find(p, "kernels");
    TC_EQ_INT(num(k, "grid_size", 0), 16); /* 8 x 2 x 1 */
    TC_EQ_INT(num(k, "block_size", 0), 128);
    TC_EQ_STR(str(k, "cache_config", 0), "CachePreferNone");
    TC_EQ_INT(num(k, "registers", 0), 40); /* a unit wider than its column, right-aligned */
    pl_profile_free(p);
  }
  /* nothing of ncu in it */
  p = load_buf("none.txt", "hello\nworld\n", "ncu-text", &e);
  TC_CHECK(p == NULL);
}

static void test_detect(void) {
  size_t len;
  char *s = tc_slurp("tests/fixtures/ncu/003_ebb91119a615c85c.txt", &len);
  if (s) {
    const pl_format *f = pl_format_detect(s, len);
    TC_CHECK(f && strcmp(f->id, "ncu-text") == 0);
    free(s);
  }
  s = tc_slurp("tests/data/corpus/ncu_csv/superbench_b200_cc100_cublaslt_ncu_details.csv", &len);
  if (s) {
    const pl_format *f = pl_format_detect(s, len);
    TC_CHECK(f && strcmp(f->id, "ncu-csv") == 0);
    free(s);
  }
  const pl_format *t = pl_format_find("ncu-text");
  const char *kt = "Kernel                                   Latency Tensor   DRAM\nfoo |  4160   0.00   0.00\n";
  TC_EQ_INT(t->detect(kt, strlen(kt)), 0);
  const char *plain = "a,b,c\n1,2,3\n";
  TC_EQ_INT(t->detect(plain, strlen(plain)), 0);
}

static void test_helpers(void) {
  double v = 0, est = NAN, estl = NAN;
  int loc = 0;
  TC_CHECK(pl_ncu_parse_value("1,532,524,284", 13, &loc, &v) == 0 && v == 1532524284.0 && loc == 0);
  TC_CHECK(pl_ncu_parse_value("866,86", 6, &loc, &v) == 0 && v == 866.86 && loc == 1);
  TC_CHECK(pl_ncu_parse_value("abc", 3, &loc, &v) != 0);
  const char *s = "Est. Speedup: 8.362%   Est. Local Speedup: 87.5%  rest";
  size_t used = pl_ncu_speedup_prefix(s, strlen(s), &est, &estl);
  TC_NEAR(est, 8.362, 1e-12);
  TC_NEAR(estl, 87.5, 1e-12);
  TC_EQ_STR(s + used, "  rest");
  int numeric = 0;
  TC_EQ_STR(pl_ncu_canonical(NCU_SEC_SOL, "SOL FB", 6, &numeric), "dram_throughput_pct");
  TC_EQ_STR(pl_ncu_canonical(NCU_SEC_SOL, "Compute (SM) [%]", 16, &numeric), "compute_throughput_pct");
  TC_EQ_STR(pl_ncu_canonical(NCU_SEC_RAW, "launch__registers_per_thread", 28, &numeric), "registers");
  TC_CHECK(pl_ncu_canonical(NCU_SEC_OCC, "SOL FB", 6, &numeric) == NULL);
}


/* ---- the fast paths: whole-row cache, value cache, pool ----------------- */

/* One launch of a details page whose rows vary with i: values wider than
** their column, long names running into the unit column, rows with no
** unit, text values, grouped numbers, trailing blanks, tabs, CRLF, rows
** that come and go or change name between launches. */
static void launch_text(pl_buf *o, int i) {
  static const char *vals[] = { "1.59", "1,024", "6,180,923", "1,234.5", "12345678.25", "0", "n/a", "3" };
  pl_buf_printf(o, "  kern_%d(float*) (%d, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 8.0\n", i % 3, 8 + i);
  pl_buf_printf(o, "    Section: GPU Speed Of Light Throughput\n");
  /* the lines opening a table: now and then not as last time (a blank line
  ** first, another header spelling) */
  if (i % 7 == 6) pl_buf_printf(o, "\n");
  pl_buf_printf(o, "    ----------------------- ----------- ------------\n");
  pl_buf_printf(o, i % 5 == 3 ? "    Metric Name             Metric Unit  Metric Value\n"
                              : "    Metric Name             Metric Unit Metric Value\n");
  pl_buf_printf(o, "    ----------------------- ----------- ------------\n");
  pl_buf_printf(o, "    DRAM Frequency                  Ghz         %s\n", i % 2 ? "1.59" : "1.6");
  pl_buf_printf(o, "    Elapsed Cycles                cycle    %s\n", vals[1 + i % 3]);
  pl_buf_printf(o, "    Duration                         us   %s\n", i % 4 == 3 ? "1234567890.5" : "436.23");
  pl_buf_printf(o, "    Memory Throughput                 %%        %d.%02d%s\n", 90 + i % 7, i % 100,
                i % 3 == 1 ? "   " : "");
  if (i % 5 != 2) pl_buf_printf(o, "    SM Active Cycles              cycle       261.09\r\n");
  /* a name running over into the unit column (the unit ends at its column's end) */
  pl_buf_printf(o, "    %-34s%s%13s\n", i % 4 == 1 ? "Compute (SM) Throughput Extra" : "Compute (SM) Throughput", "%",
                i % 4 == 1 ? "1.5" : "62.72");
  pl_buf_printf(o, "    L2 Hit Rate\t                  %%        %d\n", i % 9);
  pl_buf_printf(o, "    ----------------------- ----------- ------------\n\n");
  pl_buf_printf(o, "    Section: Launch Statistics\n");
  pl_buf_printf(o, "    -------------------------------- --------------- ---------------\n");
  pl_buf_printf(o, "    Metric Name                          Metric Unit    Metric Value\n");
  pl_buf_printf(o, "    -------------------------------- --------------- ---------------\n");
  pl_buf_printf(o, "    Block Size                                                 %s\n", i % 2 ? "1,024" : "128");
  pl_buf_printf(o, "    Function Cache Configuration                     CachePreferNone\n");
  pl_buf_printf(o, "    Registers Per Thread             register/thread              %d\n", 30 + i % 4);
  pl_buf_printf(o, "    Shared Memory Configuration Size           Kbyte           %s\n", i % 2 ? "32.77" : "65.54");
  pl_buf_printf(o, "    Some Text Metric                                      %s\n", vals[i % 8]);
  pl_buf_printf(o, "    Waves Per SM                                                %s\n",
                i % 3 ? "0.50" : "12,345.25");
  pl_buf_printf(o, "    -------------------------------- --------------- ---------------\n\n");
  pl_buf_printf(o, "    OPT   Est. Local Speedup: 88.09%%\n");
  pl_buf_printf(o, "          The memory access pattern %d.\n\n", i % 2);
}

static void same_tables(const pl_table *a, size_t a0, const pl_table *b, size_t nrows, const char *what) {
  char x[512], y[512];
  int bad = 0;
  for (size_t c = 0; c < b->ncols && !bad; c++) {
    int ca = pl_table_col(a, b->cols[c]->name);
    if (ca < 0) {
      fprintf(stderr, "%s: no column %s\n", what, b->cols[c]->name);
      bad = 1;
      break;
    }
    if (strcmp(b->cols[c]->name, "id") == 0 || strcmp(b->cols[c]->name, "kernel_id") == 0 ||
        strcmp(b->cols[c]->name, "line") == 0)
      continue;
    for (size_t r = 0; r < nrows; r++) {
      pl_cell_text(a, ca, a0 + r, x, sizeof x);
      pl_cell_text(b, (int)c, r, y, sizeof y);
      if (strcmp(x, y) != 0 || pl_cell_missing(a, ca, a0 + r) != pl_cell_missing(b, (int)c, r)) {
        fprintf(stderr, "%s: row %zu column %s: '%s' vs '%s' alone\n", what, r, b->cols[c]->name, x, y);
        bad = 1;
        break;
      }
    }
  }
  TC_CHECK(!bad);
}

/* Many launches in one input (rows found again from the caches) read the
** same as each launch alone (every row read the first, slow way). */
static void test_row_cache(void) {
  enum { N = 40 };
  pl_buf all, one;
  pl_buf_init(&all);
  pl_buf_init(&one);
  pl_buf_printf(&all, "[123] prog@host\n");
  /* the line numbers of each launch's kernel line and first rule, counted here */
  size_t kline[N], rline[N];
  for (int i = 0; i < N; i++) {
    size_t at = all.len;
    launch_text(&all, i);
    size_t nl = 0;
    for (size_t j = 0; j < at; j++) nl += all.data[j] == '\n';
    kline[i] = nl + 1;
    const char *opt = strstr(all.data + at, "    OPT ");
    rline[i] = 0;
    if (opt) {
      rline[i] = kline[i];
      for (const char *q = all.data + at; q < opt; q++) rline[i] += *q == '\n';
    }
  }
  /* the last line without its line end: the input is not NUL-terminated here */
  pl_buf_printf(&all, "    trailing program output");
  char *exact = malloc(all.len);
  memcpy(exact, all.data, all.len);
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  o.raw_text = 1; /* the value texts' pipeline too (pl_ncu_b_flush, raw_defer) */
  pl_err e;
  pl_profile *p = pl_load_buffer("many", exact, all.len, "ncu-text", &o, &e);
  TC_CHECK(p != NULL);
  if (!p) {
    char b[1200];
    err_text(&e, b, sizeof b);
    fprintf(stderr, "%s\n", b);
  }
  pl_table *k = p ? pl_profile_find(p, "kernels") : NULL, *m = p ? pl_profile_find(p, "metrics") : NULL;
  TC_CHECK(k && m);
  if (k && m) {
    TC_EQ_INT(k->nrows, N);
    size_t m0 = 0;
    for (int i = 0; i < N; i++) {
      one.len = 0;
      pl_buf_printf(&one, "[123] prog@host\n");
      launch_text(&one, i);
      pl_profile *q = pl_load_buffer("one", one.data, one.len, "ncu-text", &o, &e);
      TC_CHECK(q != NULL);
      if (!q) continue;
      pl_table *k1 = pl_profile_find(q, "kernels"), *m1 = pl_profile_find(q, "metrics");
      char what[64];
      snprintf(what, sizeof what, "launch %d metrics", i);
      TC_CHECK(m0 + m1->nrows <= m->nrows);
      if (m0 + m1->nrows <= m->nrows) same_tables(m, m0, m1, m1->nrows, what);
      snprintf(what, sizeof what, "launch %d kernels", i);
      TC_EQ_INT(k1->nrows, 1);
      /* the kernel row: same cells (a row of the many-launch table vs the one) */
      pl_table *kk = pl_table_take(k, (size_t[]){ (size_t)i }, 1);
      same_tables(kk, 0, k1, 1, what);
      pl_table_free(kk);
      m0 += m1->nrows;
      pl_profile_free(q);
    }
    TC_EQ_INT(m0, m->nrows);
    /* line numbers, with table openings skipped as seen before */
    pl_table *r = pl_profile_find(p, "rules");
    TC_CHECK(r != NULL && r->nrows == N);
    for (int i = 0; i < N; i++) {
      TC_EQ_INT((size_t)pl_cell_num(k, col(k, "line"), (size_t)i), kline[i]);
      if (r && r->nrows == N) TC_EQ_INT((size_t)pl_cell_num(r, col(r, "line"), (size_t)i), rline[i]);
    }
    /* values by hand: grouped numbers and their raw text */
    int cv = col(m, "value"), cr = col(m, "raw"), cm = col(m, "metric");
    size_t n;
    int seen = 0;
    for (size_t r = 0; r < m->nrows; r++) {
      const char *raw = pl_cell_str(m, cr, r, &n), *mn = pl_cell_str(m, cm, r, &n);
      double v = pl_cell_num(m, cv, r);
      if (!raw || !mn) continue;
      if (strcmp(raw, "6,180,923") == 0) {
        TC_CHECK(v == 6180923.0);
        seen |= 1;
      }
      if (strcmp(raw, "1,234.5") == 0) {
        TC_CHECK(v == 1234.5);
        seen |= 2;
      }
      if (strcmp(raw, "12,345.25") == 0) {
        TC_CHECK(v == 12345.25);
        seen |= 4;
      }
      if (strcmp(raw, "1,024") == 0 && strcmp(mn, "Block Size") == 0) {
        TC_CHECK(v == 1024.0);
        seen |= 8;
      }
      if (strcmp(raw, "n/a") == 0) {
        TC_CHECK(isnan(v));
        seen |= 16;
      }
    }
    TC_EQ_INT(seen, 31);
    /* read by default: the same but for the numbers' texts, all dropped */
    o.raw_text = 0;
    pl_profile *q = pl_load_buffer("many", exact, all.len, "ncu-text", &o, &e);
    TC_CHECK(q != NULL);
    if (q) {
      size_t nums = 0;
      for (size_t r = 0; r < m->nrows; r++) nums += !pl_cell_missing(m, cv, r);
      TC_EQ_INT(fh_ncu_raw_rule(m, pl_profile_find(q, "metrics")), nums);
      TC_CHECK(nums >= (size_t)N * 10); /* not a vacuous comparison */
      pl_profile_free(q);
    }
  }
  if (p) pl_profile_free(p);
  free(exact);
  pl_buf_free(&all);
  pl_buf_free(&one);
}

static void test_pool(void) {
  pl_pool *p = pl_pool_new();
  /* a 7-byte string and an 8-byte one whose first 8 bytes match its key */
  const char a[] = "abcdefg", b8[] = "abcdefg\x07", e[] = "";
  uint32_t ia = pl_pool_intern(p, a, 7), ib = pl_pool_intern(p, b8, 8), ie = pl_pool_intern(p, e, 0);
  TC_CHECK(ia != ib && ia != ie && ib != ie);
  TC_EQ_INT(pl_pool_intern(p, a, 7), ia);
  TC_EQ_INT(pl_pool_intern(p, b8, 8), ib);
  TC_EQ_INT(pl_pool_intern(p, e, 0), ie);
  TC_EQ_INT(pl_pool_intern(p, "abc", 3) != ia, 1);
  /* many strings of every length 0..40, twice: the same ids, the same text */
  char buf[64];
  uint32_t ids[2000];
  for (int i = 0; i < 2000; i++) {
    int len = i % 41;
    for (int j = 0; j < len; j++) buf[j] = (char)('a' + (i * 7 + j * 3) % 26);
    if (len > 2) buf[len - 1] = (char)('0' + i % 10), buf[0] = (char)('A' + i % 26);
    ids[i] = pl_pool_intern(p, buf, (size_t)len);
  }
  int ok = 1;
  for (int i = 0; i < 2000; i++) {
    int len = i % 41;
    for (int j = 0; j < len; j++) buf[j] = (char)('a' + (i * 7 + j * 3) % 26);
    if (len > 2) buf[len - 1] = (char)('0' + i % 10), buf[0] = (char)('A' + i % 26);
    size_t n;
    const char *s = pl_pool_str(p, ids[i], &n);
    if (pl_pool_intern(p, buf, (size_t)len) != ids[i] || n != (size_t)len || memcmp(s, buf, n) != 0 || s[n] != '\0')
      ok = 0;
  }
  TC_CHECK(ok);
  /* the two-step intern (hash, prefetch, intern with the hash) gives the same ids */
  ok = 1;
  for (int i = 0; i < 2400; i++) {
    int len = i % 41;
    for (int j = 0; j < len; j++) buf[j] = (char)('a' + (i * 7 + j * 3) % 26);
    if (len > 2) buf[len - 1] = (char)('0' + i % 10), buf[0] = (char)('A' + i % 26);
    uint64_t key;
    uint32_t tag = pl_pool_key(buf, (size_t)len, &key);
    pl_pool_prefetch_tag(p, tag);
    uint32_t id = pl_pool_intern_key(p, buf, (size_t)len, tag, key);
    if (i < 2000 && id != ids[i]) ok = 0;
    if (pl_pool_intern(p, buf, (size_t)len) != id) ok = 0;
  }
  TC_CHECK(ok);
  size_t n;
  TC_CHECK(pl_pool_str(p, 0, &n) == NULL && n == 0);
  TC_EQ_STR(pl_pool_str(p, ib, &n), "abcdefg\x07");
  TC_EQ_INT(n, 8);
  pl_pool_release(p);
}

int main(void) {
  test_seed003();
  test_variants();
  test_oracles();
  test_corpus();
  test_errors();
  test_detect();
  test_helpers();
  test_row_cache();
  test_pool();
  return tc_done();
}
