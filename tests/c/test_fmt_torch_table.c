/* test_fmt_torch_table.c -- format torch-table on the corpus files (licence
** unknown: read from $PERFLAB_DATA/corpus at test time, a failure when absent)
** and on a synthetic fixture with memory and input-shape columns
** (tests/fixtures/torch_table_memory_synthetic.txt, written in PyTorch's
** layout: 55/12/35-wide right-aligned columns, two spaces between them).
**
** Corpus figures come from a python3 one-off independent of the parser: the
** body between the 2nd and 3rd dash lines split with re.split(r'\s{2,}'),
** times converted with us=1e3, ms=1e6, s=1e9 ns:
**   a100 cuda_graph: 48 rows, calls 15311, Self CPU 1853121000 ns,
**                    Self CUDA 1870385000 ns, 39 names ending in "...";
**   lcnn cuda:       10 rows, calls 18, Self CPU 1715981 ns, Self CUDA
**                    50103000 ns, CUDA total 66413000 ns, 1 cut name,
**                    4 program-output lines before the table;
**   leduc cpu-only:  30 rows, calls 34860, Self CPU 7266695000 ns,
**                    Self CPU % summing to 99.27.
** Footers read by eye (Self CPU time total: 1.853s, ...).
*/
#include "fmt_helpers.h"

typedef struct expect {
  const char *file;
  size_t rows;
  double calls, self_cpu, self_cuda, cuda_total, self_cpu_total, self_cuda_total;
  int truncated, ndiags;
  const char *first, *last;
} expect;

static void corpus_file(const expect *x) {
  char rel[256];
  snprintf(rel, sizeof rel, "corpus/torch_profiler_table/%s", x->file);
  const char *path = fh_shared(rel);
  FILE *f = fopen(path, "rb");
  if (!f) {
    tc_need(path);
    return;
  }
  fclose(f);
  pl_profile *p = fh_load(path, "torch-table");
  if (!p) return;
  const pl_table *t = pl_profile_find(p, "operators");
  TC_EQ_INT(fh_rows(p, "operators"), x->rows);
  TC_EQ_INT(fh_sum(t, "calls"), x->calls);
  TC_NEAR(fh_sum(t, "self_cpu_ns"), x->self_cpu, 1e-12);
  if (x->self_cuda >= 0) {
    TC_NEAR(fh_sum(t, "self_cuda_ns"), x->self_cuda, 1e-12);
    TC_NEAR(fh_sum(t, "cuda_total_ns"), x->cuda_total, 1e-12);
    const pl_meta *m = pl_profile_meta_get(p, "self_cuda_time_total_ns");
    TC_CHECK(m && fabs(m->num - x->self_cuda_total) < 1e-3);
  } else {
    TC_CHECK(pl_table_col(t, "self_cuda_ns") < 0);
    TC_CHECK(pl_profile_meta_get(p, "self_cuda_time_total_ns") == NULL);
  }
  const pl_meta *m = pl_profile_meta_get(p, "self_cpu_time_total_ns");
  TC_CHECK(m && fabs(m->num - x->self_cpu_total) < 1e-3);
  TC_EQ_INT(fh_sum(t, "truncated"), x->truncated);
  TC_EQ_STR(fh_str(t, "name", 0), x->first);
  TC_EQ_STR(fh_str(t, "name", x->rows - 1), x->last);
  TC_EQ_INT(p->ndiags, x->ndiags);
  TC_CHECK(pl_profile_find(p, "kernel_summary") == NULL); /* not derivable */
  pl_profile_free(p);
}

static void synthetic(void) {
  const char *path = "tests/fixtures/torch_table_memory_synthetic.txt";
  pl_profile *p = fh_load(path, "torch-table");
  if (!p) return;
  const pl_table *t = pl_profile_find(p, "operators");
  TC_EQ_INT(fh_rows(p, "operators"), 4); /* 3 rows + 1 row of a second table */
  TC_NEAR(fh_num(t, "cuda_mem_bytes", 0), 1.5 * 1024, 0);
  TC_NEAR(fh_num(t, "self_cuda_mem_bytes", 0), -4.0 * 1048576, 0);
  TC_NEAR(fh_num(t, "cpu_mem_bytes", 1), 512, 0);
  TC_NEAR(fh_num(t, "cuda_mem_bytes", 1), 2.0 * 1073741824.0, 0);
  TC_NEAR(fh_num(t, "self_cpu_mem_bytes", 2), -1.25 * 1048576, 0);
  TC_EQ_STR(fh_str(t, "input_shapes", 0), "[[1, 3, 224, 224], [64, 3, 7, 7]]");
  TC_NEAR(fh_num(t, "self_cpu_ns", 1), 500e3, 0);
  TC_NEAR(fh_num(t, "cpu_time_avg_ns", 0), 3e6, 0);
  TC_NEAR(fh_num(t, "self_cuda_pct", 0), 50, 0);
  TC_EQ_INT(fh_num(t, "truncated", 2), 1);
  TC_EQ_INT(fh_num(t, "table_index", 3), 2);
  TC_NEAR(fh_num(t, "self_cpu_ns", 3), 2e9, 0);
  TC_CHECK(pl_cell_missing(t, fh_col(t, "self_cuda_ns"), 3));
  const pl_meta *m = pl_profile_meta_get(p, "self_cpu_time_total_ns");
  TC_CHECK(m && m->num == 10e6);
  m = pl_profile_meta_get(p, "table2.self_cpu_time_total_ns");
  TC_CHECK(m && m->num == 2e9);
  TC_EQ_INT(p->ndiags, 1); /* "STAGE 1 done, loss 0.125" */
  pl_profile_free(p);

  /* errors: a table cut before its closing line, a cell without its unit */
  size_t n;
  char *buf = tc_slurp(path, &n);
  if (!buf) {
    TC_CHECK(0);
    return;
  }
  char *cut = strstr(buf, "aten::empty");
  cut = strchr(cut, '\n') + 1; /* keep the header and two rows */
  TC_EQ_STR(fh_error("cut.txt", buf, (size_t)(cut - buf), NULL),
            "cut.txt:7:1: expected a row or the closing '----' line of the key_averages table, found end of file");
  char *ms = strstr(buf, "500.000us");
  memcpy(ms, "500.000xx", 9); /* column 75: python3, line 6 .index("500.000us") + 1 */
  TC_EQ_STR(fh_error("unit.txt", buf, n, NULL),
            "unit.txt:6:75: expected a time with its unit (us, ms, s) in column 'Self CPU', found \"500.000xx\"");
  free(buf);
}

/* Issue 22 class 6: PyTorch >= 2.1 spells memory B/KB/MB/GB (1024 steps,
** as the older b/Kb/Mb/Gb); values may be negative (memory freed). */
static void memory_units_2x(void) {
  pl_profile *p = fh_load("tests/fixtures/torch-table/memory_units_2x.txt", "torch-table");
  if (!p) return;
  const pl_table *t = pl_profile_find(p, "operators");
  TC_EQ_INT(fh_rows(p, "operators"), 3);
  TC_NEAR(fh_num(t, "cpu_mem_bytes", 0), 0, 0);
  TC_NEAR(fh_num(t, "cuda_mem_bytes", 0), 1.5 * 1024, 0);
  TC_NEAR(fh_num(t, "self_cuda_mem_bytes", 0), -4.0 * 1048576, 0);
  TC_NEAR(fh_num(t, "cpu_mem_bytes", 1), 512, 0);
  TC_NEAR(fh_num(t, "cuda_mem_bytes", 1), 2.0 * 1073741824.0, 0);
  TC_NEAR(fh_num(t, "cpu_mem_bytes", 2), -1.25 * 1048576, 0);
  TC_NEAR(fh_num(t, "self_cpu_mem_bytes", 2), -16, 0);
  TC_NEAR(fh_num(t, "cuda_mem_bytes", 2), -3.5 * 1024, 0);
  TC_NEAR(fh_num(t, "self_cpu_ns", 1), 1e6, 0);
  TC_EQ_INT(p->ndiags, 0);
  pl_profile_free(p);
  /* a unit that is neither spelling stays an error */
  size_t n;
  char *buf = tc_slurp("tests/fixtures/torch-table/memory_units_2x.txt", &n);
  if (!buf) {
    TC_CHECK(0);
    return;
  }
  char *kb = strstr(buf, "1.50 KB");
  memcpy(kb, "1.50 TB", 7); /* column 217: python3, line 4 .index("1.50 KB") + 1 */
  TC_EQ_STR(fh_error("tb.txt", buf, n, NULL), "tb.txt:4:217: expected a memory size with its unit (B, KB, MB, GB or b, "
                                              "Kb, Mb, Gb) in column 'CUDA Mem', found \"1.50 TB\"");
  free(buf);
}

int main(void) {
  static const expect files[] = {
    { "unknownrepo_a100_key_averages_cuda_graph_table.txt", 48, 15311, 1853121000.0, 1870385000.0, 1870385000.0,
      1.853e9, 1.870e9, 39, 0, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_st...", "cudaDeviceSynchronize" },
    { "unknownrepo_lcnn_key_averages_cuda_table.txt", 10, 18, 1715981.0, 50103000.0, 66413000.0, 26.581e6, 38.076e6, 1,
      4, "LookupConv2d", "Conv2d" },
    { "unknownrepo_leduc_cfr_key_averages_cpu_only_table.txt", 30, 34860, 7266695000.0, -1, -1, 7.320e9, -1, 0, 0,
      "aten::mm", "aten::addcdiv_" },
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) corpus_file(&files[i]);
  synthetic();
  memory_units_2x();
  /* detection stays off other formats' files */
  size_t n;
  char *b = tc_slurp("tests/fixtures/seed004_paddle_summary.txt", &n);
  if (b) {
    const pl_format *f = pl_format_detect(b, n);
    TC_EQ_STR(f ? f->id : "none", "paddle-summary");
    free(b);
  }
  return tc_done();
}
