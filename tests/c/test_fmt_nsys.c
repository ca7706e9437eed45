/* test_fmt_nsys.c -- format nsys-stats on every corpus file of
** corpus/nsys_stats (read from $PERFLAB_DATA, a failure when absent: their
** licences are not stated) and on small inline variants.
**
** Expected figures were computed independently with python3 over the files:
** for each text table, the rows between the dashes line and the next blank
** line were counted and the "Total Time" column summed after removing ','
**   (re.fullmatch(r' *-+( +-+)* *', line) finds the dashes line; the total
**    is token 2 of a row, token 1 for the size tables);
** for the CSV files, rows after the header and the sum of field 2 / field 3.
*/
#include "tload.h"
#include "fmt_helpers.h"

static void v3_2023(void) {
  pl_profile *p = tl_corpus("nsys_stats/nsight_systems_deep_dive_a100_nsys_stats_v3.txt", "nsys-stats");
  if (!p) return;
  TC_EQ_INT(tl_rows(p, "nvtx_sum"), 2);
  TC_EQ_INT(tl_rows(p, "osrt_sum"), 27);
  TC_EQ_INT(tl_rows(p, "cuda_api_sum"), 6);
  TC_EQ_INT(tl_rows(p, "cuda_gpu_kern_sum"), 1);
  TC_EQ_INT(tl_rows(p, "cuda_gpu_mem_time_sum"), 2);
  TC_EQ_INT(tl_rows(p, "cuda_gpu_mem_size_sum"), 2);
  TC_EQ_INT(tl_rows(p, "kernel_summary"), 1);
  TC_NEAR(tl_sum(p, "nvtx_sum", "total_ns"), 3664181, 0);
  TC_NEAR(tl_sum(p, "osrt_sum", "total_ns"), 499157696, 0);
  TC_NEAR(tl_sum(p, "cuda_api_sum", "total_ns"), 110350216, 0);
  TC_NEAR(tl_sum(p, "cuda_gpu_mem_time_sum", "total_ns"), 4768, 0);
  /* awk 'NR>=19 && NR<=45 {gsub(",","",$3); s+=$3} END {print s}' -> 1216 */
  TC_NEAR(tl_sum(p, "osrt_sum", "calls"), 1216, 0);
  const pl_table *k = tl_table(p, "kernel_summary");
  long r = tl_find(k, "short_name", "vectorAdd");
  TC_CHECK(r == 0);
  TC_EQ_STR(tl_str(k, "name", r), "vectorAdd(const float *, const float *, float *, int)");
  TC_NEAR(tl_num(k, "calls", r), 1010, 0);
  TC_NEAR(tl_num(k, "total_ns", r), 1831281, 0);
  TC_NEAR(tl_num(k, "mean_ns", r), 1813.1, 1e-12);
  TC_NEAR(tl_num(k, "med_ns", r), 1823, 0);
  TC_NEAR(tl_num(k, "min_ns", r), 1791, 0);
  TC_NEAR(tl_num(k, "max_ns", r), 4705, 0);
  TC_NEAR(tl_num(k, "stddev_ns", r), 93.3, 1e-12);
  TC_NEAR(tl_num(k, "share_pct", r), 100, 0);
  const pl_table *n = tl_table(p, "nvtx_sum");
  TC_EQ_STR(tl_str(n, "style", 0), "PushPop");
  TC_EQ_STR(tl_str(n, "name", 1), "Warmup");
  TC_NEAR(tl_num(n, "instances", 0), 1, 0);
  const pl_meta *m = pl_profile_meta_get(p, "report_names");
  TC_CHECK(m && m->text && strcmp(m->text, "2023+") == 0);
  pl_profile_free(p);
}

static void alcf_2022(void) {
  pl_profile *p = tl_corpus("nsys_stats/alcf_polaris_a100_babelstream_nsys_stats.txt", "nsys-stats");
  if (!p) return;
  TC_EQ_INT(tl_rows(p, "nvtx_sum"), (size_t)-1); /* SKIPPED: no table */
  TC_EQ_INT(p->ndiags, 1);
  TC_EQ_INT(p->diags[0].line, 5);
  TC_CHECK(strstr(p->diags[0].msg, "does not contain NV Tools Extension") != NULL);
  TC_EQ_INT(tl_rows(p, "osrt_sum"), 22);
  TC_EQ_INT(tl_rows(p, "cuda_api_sum"), 5);
  TC_EQ_INT(tl_rows(p, "cuda_gpu_kern_sum"), 6);
  TC_EQ_INT(tl_rows(p, "kernel_summary"), 6);
  TC_NEAR(tl_sum(p, "osrt_sum", "total_ns"), 703264299, 0);
  TC_NEAR(tl_sum(p, "cuda_api_sum", "total_ns"), 465306729, 0);
  TC_NEAR(tl_sum(p, "kernel_summary", "total_ns"), 238396748, 0);
  TC_NEAR(tl_sum(p, "cuda_gpu_mem_time_sum", "total_ns"), 61381882, 0);
  /* 805.511 MB -> bytes */
  TC_NEAR(tl_sum(p, "cuda_gpu_mem_size_sum", "total_bytes"), 805511000, 1e-12);
  TC_EQ_STR(tl_str(tl_table(p, "cuda_gpu_mem_size_sum"), "size_unit", 0), "MB");
  const pl_table *k = tl_table(p, "kernel_summary");
  long r = tl_find(k, "short_name", "dot_kernel");
  TC_CHECK(r == 2);
  TC_NEAR(tl_num(k, "grid_x", r), 256, 0);
  TC_NEAR(tl_num(k, "grid_y", r), 1, 0);
  TC_NEAR(tl_num(k, "block_x", r), 1024, 0);
  TC_NEAR(tl_num(k, "calls", r), 100, 0);
  TC_NEAR(tl_num(k, "total_ns", r), 43518576, 0);
  TC_NEAR(tl_num(k, "med_ns", r), 435581.5, 0);
  r = tl_find(k, "short_name", "add_kernel");
  TC_NEAR(tl_num(k, "grid_x", r), 32768, 0);
  TC_EQ_STR(tl_str(k, "name", r), "void add_kernel<double>(const T1 *, const T1 *, T1 *)");
  pl_profile_free(p);
}

static void conv_2019(void) {
  pl_profile *p = tl_corpus("nsys_stats/conv_kernel_nsys_2019.5.2_stats_cut.txt", "nsys-stats");
  if (!p) return;
  TC_EQ_INT(tl_rows(p, "cuda_api_sum"), 5);
  TC_EQ_INT(tl_rows(p, "cuda_gpu_kern_sum"), 3);
  TC_EQ_INT(tl_rows(p, "cuda_gpu_mem_time_sum"), 2);
  TC_EQ_INT(tl_rows(p, "cuda_gpu_mem_size_sum"), 2);
  TC_EQ_INT(tl_rows(p, "osrt_sum"), 25);
  TC_NEAR(tl_sum(p, "cuda_api_sum", "total_ns"), 1427238104, 0);
  TC_NEAR(tl_sum(p, "kernel_summary", "total_ns"), 104429684, 0);
  TC_NEAR(tl_sum(p, "cuda_gpu_mem_time_sum", "total_ns"), 1046139085, 0);
  TC_NEAR(tl_sum(p, "osrt_sum", "total_ns"), 294484321079.0, 0);
  /* (1723922.0 + 545660.0) KiB */
  TC_NEAR(tl_sum(p, "cuda_gpu_mem_size_sum", "total_bytes"), 2269582.0 * 1024, 1e-12);
  const pl_table *k = tl_table(p, "kernel_summary");
  long r = tl_find(k, "name", "conv_forward_kernel");
  TC_CHECK(r == 0);
  TC_NEAR(tl_num(k, "calls", r), 6, 0);
  TC_NEAR(tl_num(k, "total_ns", r), 104424277, 0);
  TC_NEAR(tl_num(k, "mean_ns", r), 17404046.2, 1e-12);
  TC_NEAR(tl_num(k, "max_ns", r), 81061518, 0);
  TC_NEAR(tl_num(k, "share_pct", r), 100.0, 0);
  const pl_meta *m = pl_profile_meta_get(p, "report_names");
  TC_CHECK(m && m->text && strcmp(m->text, "2019") == 0);
  pl_profile_free(p);
}

static void csv_2024(void) {
  pl_profile *p = tl_corpus("nsys_stats/unknownrepo_dotllm_rtx4090_nsys2024.6.2_cuda_gpu_kern_sum.csv", "nsys-stats");
  if (p) {
    TC_EQ_INT(tl_rows(p, "cuda_gpu_kern_sum"), 15);
    TC_EQ_INT(tl_rows(p, "kernel_summary"), 15);
    TC_NEAR(tl_sum(p, "kernel_summary", "total_ns"), 198511027, 0);
    TC_NEAR(tl_sum(p, "kernel_summary", "calls"), 679, 0);
    const pl_table *k = tl_table(p, "kernel_summary");
    long r = tl_find(k, "name", "dequant_q4_k_f16");
    TC_CHECK(r == 1);
    TC_NEAR(tl_num(k, "calls", r), 193, 0);
    TC_NEAR(tl_num(k, "med_ns", r), 93278, 0);
    TC_NEAR(tl_num(k, "line", r), 3, 0);
    pl_profile_free(p);
  }
  p = tl_corpus("nsys_stats/unknownrepo_dotllm_rtx4090_nsys2024.6.2_cuda_api_sum_cut.csv", "nsys-stats");
  if (p) {
    TC_EQ_INT(tl_rows(p, "cuda_api_sum"), 11);
    TC_NEAR(tl_sum(p, "cuda_api_sum", "total_ns"), 2176478030.0, 0);
    TC_NEAR(tl_sum(p, "cuda_api_sum", "calls"), 1979, 0);
    pl_profile_free(p);
  }
}

/* `nsys stats` (not --stats=true) prints "** Title (name):" and, with
** --format csv, quoted CSV; 2022 CSV keeps GridXYZ cells with spaces. */
static void variants(void) {
  const char *a =
      "Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_kern_sum.py]... \n"
      "\n"
      " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n"
      "\n"
      "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\",\"StdDev "
      "(ns)\",\"Name\"\n"
      "\"75.0\",\"300\",\"3\",\"100.0\",\"100.0\",\"90\",\"110\",\"10.0\",\"void k<int>(int, float)\"\n"
      "\"25.0\",\"100\",\"1\",\"100.0\",\"100.0\",\"100\",\"100\",\"0.0\",\"j\"\n"
      "\n"
      " ** OS Runtime Summary (osrt_sum):\n"
      "\n"
      " Time (%)  Total Time (ns)  Num Calls  Avg (ns)   Med (ns)   Min (ns)  Max (ns)   StdDev (ns)   Name\n"
      " --------  ---------------  ---------  ---------  ---------  --------  ---------  -----------  ------\n"
      "    100.0        1,234,567          2  617,283.5  617,283.5     1,000  1,233,567    871,554.9  poll  \n";
  TC_CHECK(pl_format_detect(a, strlen(a)) == pl_format_find("nsys-stats"));
  pl_profile *p = tl_text(a, NULL);
  if (p) {
    const pl_table *k = tl_table(p, "kernel_summary");
    TC_EQ_INT(k ? k->nrows : 0, 2);
    TC_EQ_STR(tl_str(k, "short_name", 0), "k");
    TC_NEAR(tl_num(k, "calls", 0), 3, 0);
    TC_NEAR(tl_num(k, "stddev_ns", 0), 10, 0);
    TC_NEAR(tl_num(k, "line", 1), 7, 0);
    TC_NEAR(tl_sum(p, "osrt_sum", "total_ns"), 1234567, 0);
    TC_NEAR(tl_sum(p, "osrt_sum", "max_ns"), 1233567, 0);
    pl_profile_free(p);
  }
  const char *b =
      "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),GridXYZ,BlockXYZ,Name\n"
      "100.0,50,2,25.0,25.0,20,30,7.1,  64    2    1 ,  256    1    1 ,gemm\n";
  p = tl_text(b, NULL);
  if (p) {
    const pl_table *k = tl_table(p, "kernel_summary");
    TC_NEAR(tl_num(k, "grid_x", 0), 64, 0);
    TC_NEAR(tl_num(k, "grid_y", 0), 2, 0);
    TC_NEAR(tl_num(k, "block_x", 0), 256, 0);
    TC_NEAR(tl_num(k, "calls", 0), 2, 0);
    pl_profile_free(p);
  }
}

static void errors(void) {
  /* a truncated row: the line stops (column 27) before the Num Calls column */
  TL_ERR(" Time (%)  Total Time (ns)  Num Calls  Name\n"
         " --------  ---------------  ---------  ----------\n"
         "     50.0            1,000          2  cudaMalloc\n"
         "     50.0            1,000\n",
         "nsys-stats", "t:4:27: expected a value in column 'Num Calls', found end of file");
  /* a non-number in a numeric column */
  TL_ERR(" Time (%)  Total Time (ns)  Num Calls  Name\n"
         " --------  ---------------  ---------  ----------\n"
         "     50.0            1,0x0          2  cudaMalloc\n",
         "nsys-stats", "t:3:22: expected a number in column 'Total Time (ns)', found \"1,0x0\"");
  /* thousands groups must have three digits */
  TL_ERR(" Time (%)  Total Time (ns)  Num Calls  Name\n"
         " --------  ---------------  ---------  ----------\n"
         "     50.0            12,34          2  cudaMalloc\n",
         "nsys-stats", "t:3:22: expected a number in column 'Total Time (ns)', found \"12,34\"");
  /* CSV: an unterminated quote */
  TL_ERR("Time (%),Total Time (ns),Num Calls,Name\n"
         "50.0,1000,2,\"cudaMalloc\n",
         "nsys-stats", "t:2:24: expected a closing quote for the field opened at line 2 column 13, found end of file");
  /* CSV: a record with too few fields */
  TL_ERR("Time (%),Total Time (ns),Num Calls,Name\n"
         "50.0,1000,2\n",
         "nsys-stats", "t:2:12: expected 4 fields as in the header (line 1), found end of file");
  TL_ERR(
      "hello\n", "nsys-stats",
      "t:1:1: expected an nsys stats report table (a header over a dashes line, or a CSV header), found end of file");
}

/* Issue 22 class 11: nsys 2021 headings, one OS runtime block per process
** (tests/fixtures/nsys/nsys_2021_two_processes.txt, written by its .py;
** figures as written there).  Names come from the headings and never
** depend on which tables were asked for. */
static void two_processes_2021(void) {
  const char *path = "tests/fixtures/nsys/nsys_2021_two_processes.txt";
  pl_profile *p = fh_load(path, "nsys-stats");
  if (!p) return;
  static const char *names[] = {
    "cuda_api_sum",          "kernel_summary", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
    "cuda_gpu_mem_size_sum", "osrt_sum",       "osrt_sum_2"
  };
  TC_EQ_INT(p->ntables, 7);
  for (size_t i = 0; i < 7 && i < p->ntables; i++) TC_EQ_STR(p->tables[i]->name, names[i]);
  const pl_table *o2 = pl_profile_find(p, "osrt_sum_2"), *o1 = pl_profile_find(p, "osrt_sum");
  TC_EQ_STR(fh_str(o2, "name", 0), "pthread_cond_wait");
  TC_NEAR(fh_num(o2, "mean_ns", 0), 10e6, 0); /* "Average" of a 2021 time report: ns */
  TC_NEAR(fh_num(o1, "max_ns", 0), 100153187, 0);
  TC_NEAR(fh_sum(o1, "calls"), 30, 0);
  const pl_table *ms = pl_profile_find(p, "cuda_gpu_mem_size_sum");
  TC_NEAR(fh_num(ms, "total_bytes", 0), 32768.0 * 1024, 0);
  TC_NEAR(fh_num(ms, "mean_bytes", 0), 16384.0 * 1024, 0);
  const pl_table *k = pl_profile_find(p, "kernel_summary");
  TC_NEAR(fh_num(k, "calls", 0), 60, 0);
  TC_NEAR(fh_num(k, "min_ns", 1), 24000, 0);
  const pl_meta *m = pl_profile_meta_get(p, "report_names");
  TC_CHECK(m && m->text && strcmp(m->text, "2021-2022") == 0);
  pl_profile_free(p);
  /* one table asked for: the same name and rows as in the full load */
  static const char *want[] = { "osrt_sum_2", NULL };
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  o.tables = want;
  pl_err e;
  p = pl_load_file(path, NULL, &o, &e);
  TC_CHECK(p != NULL);
  if (!p) return;
  TC_EQ_INT(p->ntables, 1);
  o2 = pl_profile_find(p, "osrt_sum_2");
  TC_EQ_STR(fh_str(o2, "name", 0), "pthread_cond_wait");
  pl_profile_free(p);
}

int main(void) {
  v3_2023();
  two_processes_2021();
  alcf_2022();
  conv_2019();
  csv_2024();
  variants();
  errors();
  return tc_done();
}
