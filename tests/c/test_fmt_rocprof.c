/* test_fmt_rocprof.c -- format rocprof on every corpus file of
** corpus/rocprof (licences not stated / not verified: read from
** $PERFLAB_DATA, a failure when absent) and inline variants.
**
** Expected figures computed independently with python3's csv module:
** row counts, sum(int(TotalDurationNs)), sum(int(Calls)); for the
** rocprofv3 kernel trace sum(End_Timestamp - Start_Timestamp); for
** agent_info the number of rows with Agent_Type == "GPU" and the Hive_Id.
*/
#include "tload.h"
#include "fmt_helpers.h"

static void stats(void) {
  static const struct {
    const char *file, *table;
    size_t rows;
    double total, calls;
  } f[] = {
    { "rocprof/hpctraining_mi300a_rocprofv3_kernel_stats.csv", "kernel_summary", 4, 201048351, 4001 },
    { "rocprof/rocprof_batched_gemm_results.stats.csv", "kernel_summary", 1, 331634184678.0, 1 },
    { "rocprof/rocprof_hip_programming_results.copy_stats.csv", "memcpy_summary", 2, 1066407390, 3 },
    { "rocprof/rocprof_hip_programming_results.hip_stats.csv", "api_summary", 7, 2154335636.0, 13 },
    { "rocprof/rocprof_hip_programming_results.stats.csv", "kernel_summary", 1, 3431611, 1 },
    { "rocprof/rocprof_ozaki_tests_results.stats.csv", "kernel_summary", 19, 828149553, 102946 },
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    pl_profile *p = tl_corpus(f[i].file, "rocprof");
    if (!p) continue;
    TC_EQ_INT(p->ntables, 1);
    TC_EQ_INT(tl_rows(p, f[i].table), f[i].rows);
    TC_NEAR(tl_sum(p, f[i].table, "total_ns"), f[i].total, 0);
    TC_NEAR(tl_sum(p, f[i].table, "calls"), f[i].calls, 0);
    pl_profile_free(p);
  }
  pl_profile *p = tl_corpus("rocprof/rocprof_ozaki_tests_results.stats.csv", "rocprof");
  if (p) {
    const pl_table *k = tl_table(p, "kernel_summary");
    long r = tl_find(k, "name", "__amd_rocclr_copyBuffer.kd");
    TC_NEAR(tl_num(k, "calls", r), 1920, 0);
    TC_NEAR(tl_num(k, "total_ns", r), 9986541, 0);
    TC_NEAR(tl_num(k, "share_pct", r), 1.2058861788699173, 1e-15);
    TC_EQ_STR(tl_str(k, "short_name", r), "__amd_rocclr_copyBuffer");
    TC_EQ_STR(tl_str(k, "short_name", 1), "invscal_kernel_special"); /* "[clone .kd]" dropped */
    pl_profile_free(p);
  }
  p = tl_corpus("rocprof/hpctraining_mi300a_rocprofv3_kernel_stats.csv", "rocprof");
  if (p) {
    const pl_table *k = tl_table(p, "kernel_summary");
    TC_NEAR(tl_num(k, "min_ns", 0), 80200, 0);
    TC_NEAR(tl_num(k, "max_ns", 0), 108480, 0);
    TC_NEAR(tl_num(k, "stddev_ns", 0), 3547.283930, 1e-15);
    TC_NEAR(tl_num(k, "mean_ns", 0), 87907.575425, 1e-15);
    pl_profile_free(p);
  }
}

static void traces(void) {
  pl_profile *p = tl_corpus("rocprof/hpctraining_mi300a_rocprofv3_kernel_trace_head.csv", "rocprof");
  if (p) {
    const pl_table *k = tl_table(p, "kernels");
    TC_EQ_INT(k ? k->nrows : 0, 9);
    TC_NEAR(tl_sum(p, "kernels", "duration_ns"), 501080, 0);
    TC_NEAR(tl_sum(p, "kernel_summary", "total_ns"), 501080, 0);
    TC_EQ_INT(tl_rows(p, "kernel_summary"), 4);
    /* exact int64 timestamps (above 2^53) */
    int cs = pl_table_col(k, "end_ns");
    TC_CHECK(cs >= 0 && k->cols[cs]->type == PL_INT);
    if (cs >= 0) TC_CHECK(pl_cell_int(k, cs, 0) == 5329321973322123LL);
    TC_NEAR(tl_num(k, "duration_ns", 0), 108920, 0);
    TC_NEAR(tl_num(k, "grid_x", 0), 912, 0); /* 233472 / 256 */
    TC_NEAR(tl_num(k, "grid_items_x", 0), 233472, 0);
    TC_NEAR(tl_num(k, "block_x", 0), 256, 0);
    TC_NEAR(tl_num(k, "grid_x", 2), 16, 0); /* 4096 / 256 */
    TC_NEAR(tl_num(k, "smem_static_bytes", 0), 4360, 0);
    TC_NEAR(tl_num(k, "device", 0), 4, 0);
    TC_NEAR(tl_num(k, "correlation", 8), 9, 0);
    const pl_table *s = tl_table(p, "kernel_summary");
    long r = tl_find(s, "name", "__omp_offloading_32_2f3c6__QMnorm_modPnorm_l26");
    TC_NEAR(tl_num(s, "calls", r), 3, 0);
    TC_NEAR(tl_num(s, "max_ns", r), 108920, 0);
    pl_profile_free(p);
  }
  p = tl_corpus("rocprof/rocprof_hip_programming_output_vec_add_gpu.csv", "rocprof");
  if (p) {
    const pl_table *k = tl_table(p, "kernels");
    TC_EQ_INT(k ? k->nrows : 0, 1);
    TC_EQ_STR(tl_str(k, "short_name", 0), "vector_add");
    TC_NEAR(tl_num(k, "grid_items_x", 0), 1000000000, 0);
    TC_NEAR(tl_num(k, "grid_x", 0), 3906250, 0); /* 1e9 / 256 */
    TC_NEAR(tl_num(k, "block_x", 0), 256, 0);
    TC_NEAR(tl_num(k, "registers", 0), 8, 0);
    TC_NEAR(tl_num(k, "Wavefronts", 0), 15625000, 0);
    TC_NEAR(tl_num(k, "GPUBusy", 0), 100, 0);
    TC_EQ_STR(tl_str(k, "obj", 0), "0x7faada620900");
    pl_profile_free(p);
  }
  p = tl_corpus("rocprof/hpctraining_mi300a_rocprofv3_agent_info.csv", "rocprof");
  if (p) {
    const pl_table *d = tl_table(p, "devices");
    TC_EQ_INT(d ? d->nrows : 0, 8);
    size_t gpus = 0;
    for (size_t i = 0; d && i < d->nrows; i++) {
      const char *t = tl_str(d, "type", (long)i);
      if (t && strcmp(t, "GPU") == 0) gpus++;
    }
    TC_EQ_INT(gpus, 4);
    TC_EQ_STR(tl_str(d, "name", 4), "AMD Instinct MI300A");
    TC_EQ_STR(tl_str(d, "arch", 4), "gfx942");
    TC_NEAR(tl_num(d, "sm_count", 4), 228, 0);
    TC_NEAR(tl_num(d, "clock_hz", 4), 2100e6, 0);
    TC_CHECK(isnan(tl_num(d, "sm_count", 0))); /* CPU agent */
    int ch = pl_table_col(d, "Hive_Id");
    TC_CHECK(ch >= 0 && d->cols[ch]->type == PL_INT);
    if (ch >= 0) TC_CHECK(pl_cell_int(d, ch, 4) == 1763021218530103933LL);
    const pl_meta *m = pl_profile_meta_get(p, "device");
    TC_CHECK(m && m->text && strcmp(m->text, "AMD Instinct MI300A") == 0);
    pl_profile_free(p);
  }
}

static void errors(void) {
  TL_ERR("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
         "\"k\",1,100,100\n",
         "rocprof", "t:2:14: expected 5 fields as in the header (line 1), found 4: the record ends early");
  TL_ERR("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
         "\"k\",1,100,100,100.0\n"
         "\"k2,1,100,100,100.0\n",
         "rocprof", "t:4:1: expected a closing quote for the field opened at line 3 column 1, found end of file");
  TL_ERR("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
         "\"End_Timestamp\"\n"
         "\"KERNEL_DISPATCH\",4,1,2,\"k\",1,200,100\n",
         "rocprof", "t:2:1: expected an end timestamp not before the start, found start 200 end 100");
  TL_ERR("a,b\n1,2\n", "rocprof",
         "t:1:1: expected a rocprof CSV header (results.stats.csv, results.csv, kernel_trace.csv or agent_info.csv), "
         "found \"a,b\"");
}

/* Issue 22 class 7: ROCm 4 stats with unquoted commas in kernel names
** (tests/fixtures/rocprof/rocm4_stats_unquoted_commas.csv): the last four
** fields are Calls/TotalDurationNs/AverageNs/Percentage, the rest is the
** name; figures as written in the fixture. */
static void rocm4_commas(void) {
  pl_profile *p = fh_load("tests/fixtures/rocprof/rocm4_stats_unquoted_commas.csv", "rocprof");
  if (!p) return;
  const pl_table *k = pl_profile_find(p, "kernel_summary");
  TC_EQ_INT(fh_rows(p, "kernel_summary"), 3);
  TC_EQ_STR(
      fh_str(k, "name", 0),
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>) [clone .kd]");
  TC_EQ_STR(fh_str(k, "short_name", 0), "vectorized_elementwise_kernel");
  TC_NEAR(fh_num(k, "calls", 0), 12, 0);
  TC_NEAR(fh_num(k, "total_ns", 0), 48000, 0);
  TC_NEAR(fh_num(k, "mean_ns", 0), 4000, 0);
  TC_NEAR(fh_num(k, "share_pct", 0), 48, 0);
  TC_EQ_STR(fh_str(k, "name", 2), "void foo<1>(float*)");
  TC_NEAR(fh_sum(k, "calls"), 20, 0);
  TC_NEAR(fh_sum(k, "total_ns"), 100000, 0);
  TC_EQ_INT(k->cols[fh_col(k, "calls")]->type, PL_INT);
  TC_EQ_INT(p->ndiags, 1);
  TC_EQ_INT(p->diags[0].line, 2);
  pl_profile_free(p);
  /* a row whose tail is not numbers is not re-joined: the CSV error stays */
  const char bad[] = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\nk, x,1,2,3,oops\n";
  TC_EQ_STR(fh_error("bad.csv", bad, sizeof bad - 1, "rocprof"),
            "bad.csv:2:12: expected 5 fields as in the header (line 1), found 6");
}

int main(void) {
  stats();
  rocm4_commas();
  traces();
  errors();
  return tc_done();
}
