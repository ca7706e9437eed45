/* test_fmt_nvprof.c -- format nvprof on every corpus file of corpus/nvprof
** (licences "none stated"/"not stated"/"unknown": read from
** $PERFLAB_DATA, a failure when absent) and on inline variants.
**
** Expected figures were computed independently with python3: for the
** summaries, rows after the header (and units row) up to the first blank
** line, split into API calls / "[CUDA ...]" / kernel rows, the Time column
** converted with its suffix or the units row and summed; for the GPU trace,
** lines containing "(8 1 1)" (kernels, durations summed) and lines ending in
** "[CUDA memcpy ...]"; for the trace CSV, csv.reader over the lines after the
** units row; for --metrics, lines matching r'\s+\d+\s+\w+'.
*/
#include "tload.h"
#include "fmt_helpers.h"

static void summaries(void) {
  static const struct {
    const char *file;
    size_t nk, nm, na;
    double tk, tm, ta;
  } f[] = {
    { "nvprof/unknownrepo_v100_nvprof_matrix_sums_summary.txt", 2, 3, 13, 6032600.0, 225845903.0, 373277753.0 },
    { "nvprof/xplacer_v100_aws_nvprof_cfd_000_097K.log", 4, 3, 18, 252116661.0, 11588748.0, 507803587.0 },
    { "nvprof/xplacer_v100_lassen_nvprof_cfd_000_097K.log", 4, 3, 17, 280009637.0, 19472638.0, 643919764.0 },
    { "nvprof/xplacer_v100_lassen_nvprof_hotspot_00_1024.log", 1, 2, 11, 52192.0, 944570.0, 266353381.0 },
    { "nvprof/xplacer_v100pcie_nvprof_bfs_000_graph4096_unified_memory.log", 2, 0, 12, 1229214.0, 0, 274960175.0 },
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    pl_profile *p = tl_corpus(f[i].file, "nvprof");
    if (!p) continue;
    TC_EQ_INT(tl_rows(p, "kernel_summary"), f[i].nk);
    TC_EQ_INT(tl_rows(p, "api_summary"), f[i].na);
    TC_EQ_INT(tl_rows(p, "summary"), f[i].nk + f[i].nm + f[i].na);
    if (f[i].nm) TC_EQ_INT(tl_rows(p, "memcpy_summary"), f[i].nm);
    else TC_EQ_INT(tl_rows(p, "memcpy_summary"), (size_t)-1);
    TC_NEAR(tl_sum(p, "kernel_summary", "total_ns"), f[i].tk, 1e-9);
    if (f[i].nm) TC_NEAR(tl_sum(p, "memcpy_summary", "total_ns"), f[i].tm, 1e-9);
    TC_NEAR(tl_sum(p, "api_summary", "total_ns"), f[i].ta, 1e-9);
    pl_profile_free(p);
  }
  /* cells with unit suffixes: 225.83ms, 148ns, 97.39% */
  pl_profile *p = tl_corpus("nvprof/unknownrepo_v100_nvprof_matrix_sums_summary.txt", "nvprof");
  if (p) {
    const pl_table *a = tl_table(p, "api_summary");
    long r = tl_find(a, "name", "cuDeviceGetAttribute");
    TC_NEAR(tl_num(a, "calls", r), 404, 0);
    TC_NEAR(tl_num(a, "total_ns", r), 830980, 1e-12);
    TC_NEAR(tl_num(a, "min_ns", r), 148, 0);
    TC_NEAR(tl_num(a, "share_pct", r), 0.22, 1e-12);
    TC_EQ_STR(tl_str(a, "type", r), "API calls");
    const pl_table *m = tl_table(p, "memcpy_summary");
    r = tl_find(m, "name", "[CUDA memcpy HtoD]");
    TC_NEAR(tl_num(m, "total_ns", r), 225.83e6, 1e-12);
    TC_NEAR(tl_num(m, "share_pct", r), 97.39, 1e-12);
    const pl_table *k = tl_table(p, "kernel_summary");
    r = tl_find(k, "short_name", "row_sums");
    TC_NEAR(tl_num(k, "total_ns", r), 3431000, 1e-12);
    TC_EQ_STR(tl_str(k, "type", r), "GPU activities");
    pl_profile_free(p);
  }
  /* units row "%  ms ...": 8.27e-03 ms */
  p = tl_corpus("nvprof/xplacer_v100_aws_nvprof_cfd_000_097K.log", "nvprof");
  if (p) {
    const pl_table *k = tl_table(p, "kernel_summary");
    long r = tl_find(k, "short_name", "cuda_time_step");
    TC_NEAR(tl_num(k, "calls", r), 6000, 0);
    TC_NEAR(tl_num(k, "mean_ns", r), 8270, 1e-12);
    TC_NEAR(tl_num(k, "max_ns", r), 10240, 1e-12);
    TC_NEAR(tl_num(k, "share_pct", r), 18.83, 1e-12);
    pl_profile_free(p);
  }
  /* Unified Memory block */
  p = tl_corpus("nvprof/xplacer_v100pcie_nvprof_bfs_000_graph4096_unified_memory.log", "nvprof");
  if (p) {
    const pl_table *u = tl_table(p, "unified_memory");
    TC_EQ_INT(u ? u->nrows : 0, 5);
    long r = tl_find(u, "name", "Host To Device");
    TC_NEAR(tl_num(u, "count", r), 26, 0);
    TC_NEAR(tl_num(u, "total_size_bytes", r), 464.0 * 1024, 1e-12);
    TC_NEAR(tl_num(u, "max_size_bytes", r), 112.0 * 1024, 1e-12);
    TC_NEAR(tl_num(u, "total_time_ns", r), 105696, 1e-12);
    r = tl_find(u, "name", "Gpu page fault groups");
    TC_CHECK(isnan(tl_num(u, "avg_size_bytes", r)));
    TC_NEAR(tl_num(u, "count", r), 39, 0);
    TC_EQ_STR(tl_str(u, "device_name", r), "Tesla V100-PCIE-32GB (0)");
    TC_NEAR(tl_num(u, "device", r), 0, 0); /* the file's first (only) device */
    const pl_meta *m = pl_profile_meta_get(p, "um_cpu_page_faults");
    TC_CHECK(m && m->num == 15);
    pl_profile_free(p);
  }
}

static void traces(void) {
  pl_profile *p = tl_corpus("nvprof/xplacer_v100_lassen_nvprof_gpu_trace_bfs_111_graph4096.log", "nvprof");
  if (p) {
    TC_EQ_INT(tl_rows(p, "kernels"), 16);
    TC_EQ_INT(tl_rows(p, "memcpy"), 18);
    TC_EQ_INT(tl_rows(p, "unified_memory_events"), 3);
    TC_NEAR(tl_sum(p, "kernels", "duration_ns"), 90144, 1e-12);
    TC_NEAR(tl_sum(p, "memcpy", "size_bytes"), 114704, 1e-12);
    TC_NEAR(tl_sum(p, "kernel_summary", "total_ns"), 90144, 1e-12);
    const pl_table *k = tl_table(p, "kernels");
    TC_EQ_STR(tl_str(k, "name", 0), "Kernel(Node*, int*, bool*, bool*, bool*, int*, int)");
    TC_NEAR(tl_num(k, "launch_id", 0), 426, 0);
    TC_NEAR(tl_num(k, "grid_x", 0), 8, 0);
    TC_NEAR(tl_num(k, "block_x", 0), 512, 0);
    TC_NEAR(tl_num(k, "block_y", 0), 1, 0);
    TC_NEAR(tl_num(k, "registers", 0), 21, 0);
    TC_NEAR(tl_num(k, "smem_static_bytes", 0), 0, 0);
    TC_NEAR(tl_num(k, "start_ns", 0), 572.86e6, 1e-12);
    TC_NEAR(tl_num(k, "duration_ns", 0), 7648, 1e-12);
    TC_NEAR(tl_num(k, "stream", 0), 7, 0);
    TC_EQ_STR(tl_str(k, "device_name", 0), "Tesla V100-SXM2");
    TC_NEAR(tl_num(k, "device", 0), 0, 0);
    TC_CHECK(k->cols[pl_table_col(k, "start_ns")]->type == PL_INT); /* int64 ns, as every timeline */
    TC_CHECK(k->cols[pl_table_col(k, "duration_ns")]->type == PL_INT);
    const pl_table *ks = tl_table(p, "kernel_summary");
    long r = tl_find(ks, "short_name", "Kernel2");
    TC_NEAR(tl_num(ks, "calls", r), 8, 0);
    const pl_table *m = tl_table(p, "memcpy");
    TC_NEAR(tl_num(m, "size_bytes", 0), 96.0 * 1024, 1e-12);
    TC_NEAR(tl_num(m, "throughput_bytes_per_s", 0), 13.369 * 1073741824.0, 1e-12);
    TC_EQ_STR(tl_str(m, "dst_mem_type", 1), "Managed");
    const pl_table *u = tl_table(p, "unified_memory_events");
    TC_EQ_STR(tl_str(u, "value", 0), "PC 0x10004324");
    TC_CHECK(isnan(tl_num(u, "duration_ns", 0)));
    pl_profile_free(p);
  }
  p = tl_corpus("nvprof/cuda_timeline_gtx950_nvprof_gpu_trace.csv", "nvprof");
  if (p) {
    TC_EQ_INT(tl_rows(p, "kernels"), 2);
    TC_EQ_INT(tl_rows(p, "memcpy"), 6);
    /* durations in us (units row), 2.016 + 1.696 */
    TC_NEAR(tl_sum(p, "kernels", "duration_ns"), 3712, 1e-12);
    /* sizes in KB (units row), 6 x 39.0625 KB = 234.375 KB = 240000 B */
    TC_NEAR(tl_sum(p, "memcpy", "size_bytes"), 240000, 1e-12);
    const pl_table *k = tl_table(p, "kernels");
    TC_NEAR(tl_num(k, "start_ns", 0), 215.521107e6, 1e-12);
    TC_NEAR(tl_num(k, "grid_x", 0), 40, 0);
    TC_NEAR(tl_num(k, "block_x", 0), 256, 0);
    TC_NEAR(tl_num(k, "registers", 1), 8, 0);
    TC_NEAR(tl_num(k, "stream", 1), 14, 0);
    TC_NEAR(tl_num(k, "launch_id", 1), 225, 0);
    TC_EQ_STR(tl_str(k, "short_name", 0), "kernel_vectorAdd");
    pl_profile_free(p);
  }
}

static void metrics(void) {
  pl_profile *p = tl_corpus("nvprof/thrust2d_gtx1070_nvprof_metrics_shared-descent.profile", "nvprof");
  if (!p) return;
  const pl_table *m = tl_table(p, "metrics");
  TC_EQ_INT(m ? m->nrows : 0, 20);
  TC_NEAR(tl_sum(p, "metrics", "invocations"), 120, 0);
  TC_NEAR(tl_sum(p, "metrics", "kernel_id"), 5 * (0 + 1 + 2 + 3), 0);
  /* the 12 "Low (1)" cells (4 rows x 3) are text, not numbers */
  size_t nan_avg = 0;
  int ca = pl_table_col(m, "avg");
  for (size_t i = 0; m && i < m->nrows; i++)
    if (isnan(pl_cell_num(m, ca, i))) nan_avg++;
  TC_EQ_INT(nan_avg, 4);
  TC_EQ_STR(tl_str(m, "avg_raw", 4), "Low (1)");
  TC_EQ_STR(tl_str(m, "metric", 1), "gld_efficiency");
  TC_EQ_STR(tl_str(m, "description", 1), "Global Memory Load Efficiency");
  TC_NEAR(tl_num(m, "avg", 1), 82.14, 1e-12);
  TC_EQ_STR(tl_str(m, "unit", 1), "pct");
  TC_NEAR(tl_num(m, "invocations", 10), 20, 0);
  TC_EQ_STR(tl_str(m, "short_name", 10), "binary_reduce_kernel");
  TC_EQ_STR(tl_str(m, "device_name", 0), "GeForce GTX 1070 (0)");
  TC_NEAR(tl_num(m, "device", 0), 0, 0);
  pl_profile_free(p);
}

static void variants(void) {
  /* old nvprof: no Type column, "==N== API calls:" before the API table */
  const char *a = "==1== NVPROF is profiling process 1, command: ./a\n"
                  "==1== Profiling application: ./a\n"
                  "==1== Profiling result:\n"
                  "Time(%)      Time     Calls       Avg       Min       Max  Name\n"
                  " 60.00%  3.0000us         2  1.5000us  1.0000us  2.0000us  k(int)\n"
                  " 40.00%  2.0000us         1  2.0000us  2.0000us  2.0000us  [CUDA memcpy HtoD]\n"
                  "\n"
                  "==1== API calls:\n"
                  "Time(%)      Time     Calls       Avg       Min       Max  Name\n"
                  "100.00%  1.0000ms         1  1.0000ms  1.0000ms  1.0000ms  cudaMalloc\n";
  pl_profile *p = tl_text(a, NULL);
  if (p) {
    TC_EQ_STR(p->format, "nvprof");
    TC_NEAR(tl_sum(p, "kernel_summary", "total_ns"), 3000, 1e-12);
    TC_NEAR(tl_sum(p, "memcpy_summary", "total_ns"), 2000, 1e-12);
    TC_NEAR(tl_sum(p, "api_summary", "total_ns"), 1e6, 1e-12);
    pl_profile_free(p);
  }
  /* nvprof --csv summary with a units row */
  const char *b = "==2== Profiling result:\n"
                  "\"Type\",\"Time(%)\",\"Time\",\"Calls\",\"Avg\",\"Min\",\"Max\",\"Name\"\n"
                  ",%,ms,,ms,ms,ms,\n"
                  "\"GPU activities\",70.0,0.7,2,0.35,0.3,0.4,\"k(int, float)\"\n"
                  "\"GPU activities\",30.0,0.3,1,0.3,0.3,0.3,\"[CUDA memcpy DtoH]\"\n"
                  "\"API calls\",100.0,5.0,1,5.0,5.0,5.0,\"cudaMalloc\"\n";
  p = tl_text(b, NULL);
  if (p) {
    const pl_table *k = tl_table(p, "kernel_summary");
    TC_NEAR(tl_num(k, "total_ns", 0), 700000, 1e-12);
    TC_NEAR(tl_num(k, "calls", 0), 2, 0);
    TC_EQ_STR(tl_str(k, "short_name", 0), "k");
    TC_NEAR(tl_sum(p, "api_summary", "total_ns"), 5e6, 1e-12);
    TC_EQ_INT(tl_rows(p, "memcpy_summary"), 1);
    pl_profile_free(p);
  }
  /* nvprof --metrics --csv */
  const char *c =
      "==3== Metric result:\n"
      "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n"
      "\"Tesla K80 (0)\",\"k(int)\",3,\"achieved_occupancy\",\"Achieved Occupancy\",0.5,0.6,0.55\n"
      "\"Tesla K80 (0)\",\"k(int)\",3,\"dram_read_throughput\",\"Device Memory Read "
      "Throughput\",1.0GB/s,2.0GB/s,1.5GB/s\n";
  p = tl_text(c, NULL);
  if (p) {
    const pl_table *m = tl_table(p, "metrics");
    TC_EQ_INT(m ? m->nrows : 0, 2);
    TC_NEAR(tl_num(m, "avg", 0), 0.55, 1e-12);
    TC_NEAR(tl_num(m, "avg", 1), 1.5 * 1073741824.0, 1e-12);
    TC_EQ_STR(tl_str(m, "unit", 1), "byte/s");
    TC_EQ_STR(tl_str(m, "raw", 1), "1.5GB/s");
    pl_profile_free(p);
  }
}

static void errors(void) {
  const char *head = "==1== Profiling result:\n"
                     "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n";
  char buf[1024];
  /* a truncated row: the line ends at column 55 */
  snprintf(buf, sizeof buf, "%s GPU activities:   97.39%%  225.83ms         1  225.83ms\n", head);
  TL_ERR(buf, "nvprof", "t:3:56: expected the minimum time, found end of file");
  /* a non-number in a numeric column */
  snprintf(buf, sizeof buf, "%s GPU activities:   97.39%%  225.83ms       one  225.83ms  225.83ms  225.83ms  k\n",
           head);
  TL_ERR(buf, "nvprof", "t:3:43: expected the number of calls, found \"one  225.83ms  225.83ms  225.83ms  k\"");
  /* a time without a unit and no units row */
  snprintf(buf, sizeof buf, "%s GPU activities:   97.39%%  225.83         1  225.83ms  225.83ms  225.83ms  k\n", head);
  TL_ERR(buf, "nvprof",
         "t:3:28: expected the total time (e.g. 225.83ms), found \"225.83         1  225.83ms  225.83ms  22...\"");
  /* CSV with an unterminated quote */
  TL_ERR("\"Start\",\"Duration\",\"Name\"\n"
         "ms,us,\n"
         "1.0,2.0,\"k(int\n",
         "nvprof", "t:3:15: expected a closing quote for the field opened at line 3 column 9, found end of file");
  /* a bad grid cell in the text trace */
  TL_ERR("==1== Profiling result:\n"
         "   Start  Duration            Grid Size      Block Size  Name\n"
         "1.0000ms  2.0000us              (8 1 x)       (512 1 1)  k\n",
         "nvprof", "t:3:33: expected '(X Y Z)' in column 'Grid Size', found \"(8 1 x)\"");
}

/* Issue 22 class 8: a shell prompt after a metrics block ends the block
** with a diagnostic (tests/fixtures/nvprof/metrics_then_shell_prompt.txt:
** 4 metric rows, figures as written there). */
static void metrics_then_prompt(void) {
  pl_profile *p = fh_load("tests/fixtures/nvprof/metrics_then_shell_prompt.txt", "nvprof");
  if (!p) return;
  const pl_table *m = pl_profile_find(p, "metrics");
  TC_EQ_INT(fh_rows(p, "metrics"), 4);
  TC_NEAR(fh_num(m, "avg", 0), 99.5, 0);
  TC_NEAR(fh_num(m, "max", 3), 25, 0);
  TC_EQ_STR(fh_str(m, "kernel", 3), "void scale_kernel(float*, float, int)");
  TC_EQ_INT(p->ndiags, 3); /* two ==PROF== lines, then the end of the block */
  TC_EQ_INT(p->diags[2].line, 14);
  TC_CHECK(strstr(p->diags[2].msg, "the metrics block ends before this line") != NULL);
  TC_CHECK(strstr(p->diags[2].msg, "user@gpu-node:~/thrust$ ls") != NULL);
  pl_profile_free(p);
  /* a metrics row with a number of invocations that is not one stays an error */
  const char bad[] = "==1== Metric result:\n"
                     "Invocations                               Metric Name                        Metric Description  "
                     "       Min         Max         Avg\n"
                     "    Kernel: k()\n"
                     "         2x                         branch_efficiency                         Branch Efficiency  "
                     "   100.00%     100.00%     100.00%\n";
  TC_EQ_STR(fh_error("bad.txt", bad, sizeof bad - 1, "nvprof"),
            "bad.txt:4:10: expected the number of invocations, found \"2x\"");
}

/* Issue 22 class 10: several runs in one log, each its own run (a `run`
** column on every table, per-run meta); figures as written in the fixtures. */
static void two_runs(void) {
  pl_profile *p = fh_load("tests/fixtures/nvprof/two_runs_summary.txt", "nvprof");
  if (p) {
    const pl_table *k = pl_profile_find(p, "kernel_summary");
    TC_EQ_INT(fh_rows(p, "kernel_summary"), 2);
    TC_EQ_INT(fh_rows(p, "api_summary"), 4);
    TC_EQ_INT(fh_rows(p, "memcpy_summary"), 2);
    TC_EQ_INT(pl_table_col(k, "run"), 0); /* first, as in tb-profiler */
    TC_NEAR(fh_num(k, "run", 0), 1, 0);
    TC_NEAR(fh_num(k, "calls", 0), 10, 0);
    TC_NEAR(fh_num(k, "mean_ns", 0), 462000, 0); /* 462.00us, not a merged 55 ms */
    TC_NEAR(fh_num(k, "run", 1), 2, 0);
    TC_NEAR(fh_num(k, "mean_ns", 1), 110e6, 0);
    const pl_table *a = pl_profile_find(p, "api_summary");
    TC_NEAR(fh_num(a, "run", 2), 2, 0);
    TC_EQ_STR(fh_str(a, "name", 2), "cudaLaunchKernel");
    TC_EQ_STR(fh_str(a, "type", 2), "API calls");
    const pl_meta *m = pl_profile_meta_get(p, "runs");
    TC_CHECK(m && m->num == 2);
    m = pl_profile_meta_get(p, "run2.command");
    TC_CHECK(m && m->text && strcmp(m->text, "./matmul 4096") == 0);
    m = pl_profile_meta_get(p, "run1.pid");
    TC_CHECK(m && m->text && strcmp(m->text, "2101") == 0);
    m = pl_profile_meta_get(p, "command");
    TC_CHECK(m && m->text && strcmp(m->text, "./matmul 512") == 0);
    pl_profile_free(p);
  }
  p = fh_load("tests/fixtures/nvprof/two_runs_gpu_trace.txt", "nvprof");
  if (p) {
    const pl_table *k = pl_profile_find(p, "kernels"), *s = pl_profile_find(p, "kernel_summary");
    TC_EQ_INT(fh_rows(p, "kernels"), 5);
    TC_NEAR(fh_sum(k, "run"), 1 + 1 + 2 + 2 + 2, 0);
    TC_EQ_INT(fh_rows(p, "kernel_summary"), 2); /* one per run */
    TC_NEAR(fh_num(s, "calls", 0), 2, 0);
    TC_NEAR(fh_num(s, "total_ns", 0), 6000, 0); /* 2 + 4 us */
    TC_NEAR(fh_num(s, "share_pct", 0), 100, 0); /* of its run */
    TC_NEAR(fh_num(s, "calls", 1), 3, 0);
    TC_NEAR(fh_num(s, "mean_ns", 1), 40000, 0); /* (30 + 50 + 40) / 3 us */
    const pl_meta *m = pl_profile_meta_get(p, "run2.device");
    TC_CHECK(m && m->text && strcmp(m->text, "Tesla T4") == 0);
    m = pl_profile_meta_get(p, "run1.device");
    TC_CHECK(m && m->text && strcmp(m->text, "Tesla V100-SXM2") == 0);
    pl_profile_free(p);
  }
  /* one run: no run column, no runs meta (the corpus tables are unchanged) */
  p = tl_corpus("nvprof/unknownrepo_v100_nvprof_matrix_sums_summary.txt", "nvprof");
  if (p) {
    TC_EQ_INT(pl_table_col(pl_profile_find(p, "kernel_summary"), "run"), -1);
    TC_CHECK(pl_profile_meta_get(p, "runs") == NULL);
    pl_profile_free(p);
  }
}

int main(void) {
  summaries();
  metrics_then_prompt();
  two_runs();
  traces();
  metrics();
  variants();
  errors();
  return tc_done();
}
