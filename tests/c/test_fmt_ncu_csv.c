/* test_fmt_ncu_csv.c -- format "ncu-csv" (ncu --csv details and raw pages).
**
** Expected figures come from the files themselves, read by eye and with
** awk -F'","' over the metric rows (e.g. the superbench B200 file: Grid Size
** column "(9, 32, 1)", Dynamic Shared Memory Per Block 205696 byte/block,
** 8 rule rows with "OPT" of which one "global" 50 and one "local" 81.25).
** The raw-page fixtures tests/fixtures/ncu/raw_page_*.csv are hand-written
** (no real raw-page file is in the corpus): their values were chosen to be
** consistent with the occupancy model of an RTX 3080 / A100 and are noted
** next to each assertion.
*/
#include "tcheck.h"
#include "format.h"
#include "fmt_helpers.h"

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

static pl_profile *load_buf(const char *name, const char *text, pl_err *e) {
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  return pl_load_buffer(name, text, strlen(text), NULL, &o, e);
}

static double num(const pl_table *t, const char *name, size_t row) {
  int c = pl_table_col(t, name);
  if (c < 0) {
    fprintf(stderr, "no column %s\n", name);
    return NAN;
  }
  return pl_cell_num(t, c, row);
}

static const char *str(const pl_table *t, const char *name, size_t row) {
  size_t n;
  int c = pl_table_col(t, name);
  if (c < 0) {
    fprintf(stderr, "no column %s\n", name);
    return NULL;
  }
  return pl_cell_str(t, c, row, &n);
}

static const char *meta_s(const pl_profile *p, const char *k) {
  const pl_meta *m = pl_profile_meta_get(p, k);
  return m && m->text ? m->text : "";
}

static void test_superbench(void) {
  pl_err e;
  pl_profile *p = load("tests/data/corpus/ncu_csv/superbench_b200_cc100_cublaslt_ncu_details.csv", &e);
  TC_CHECK(p != NULL);
  if (!p) return;
  TC_EQ_STR(p->format, "ncu-csv");
  pl_table *k = pl_profile_find(p, "kernels"), *r = pl_profile_find(p, "rules");
  pl_table *m = pl_profile_find(p, "metrics"), *po = pl_profile_find(p, "program_output");
  TC_EQ_INT(k->nrows, 1);
  TC_EQ_STR(str(k, "cc", 0), "10.0");
  TC_EQ_INT(num(k, "grid_x", 0), 9);
  TC_EQ_INT(num(k, "grid_y", 0), 32);
  TC_EQ_INT(num(k, "grid_z", 0), 1);
  TC_EQ_INT(num(k, "block_x", 0), 384);
  TC_EQ_INT(num(k, "grid_size", 0), 288);
  TC_EQ_INT(num(k, "block_size", 0), 384);
  TC_EQ_INT(num(k, "registers", 0), 168);
  TC_EQ_INT(num(k, "smem_dynamic_bytes", 0), 205696);
  TC_EQ_INT(num(k, "smem_driver_bytes", 0), 1024);
  TC_EQ_INT(num(k, "smem_config_bytes", 0), 233472);
  TC_EQ_INT(num(k, "block_limit_sm", 0), 32);
  TC_EQ_INT(num(k, "block_limit_registers", 0), 1);
  TC_EQ_INT(num(k, "block_limit_smem", 0), 1);
  TC_EQ_INT(num(k, "block_limit_warps", 0), 5);
  TC_EQ_INT(num(k, "block_limit_barriers", 0), 9);
  TC_NEAR(num(k, "theoretical_occupancy_pct", 0), 18.75, 1e-12);
  TC_NEAR(num(k, "duration_ns", 0), 406240, 0);                  /* unit "ns" */
  TC_NEAR(num(k, "dram_frequency_hz", 0), 3995313115.40, 1e-12); /* unit "hz" */
  TC_NEAR(num(k, "sm_count", 0), 152, 0);
  TC_EQ_INT(num(k, "sections", 0), 4);
  TC_EQ_INT(m->nrows, 50);
  TC_EQ_INT(r->nrows, 8);
  TC_EQ_STR(str(r, "rule", 0), "SOLBottleneck");
  TC_EQ_STR(str(r, "section", 0), "SpeedOfLight");
  TC_EQ_STR(str(r, "severity", 0), "OPT");
  TC_NEAR(num(r, "est_speedup_pct", 2), 50, 0);              /* "global","50" */
  TC_NEAR(num(r, "est_local_speedup_pct", 3), 81.25, 1e-12); /* "local","81.25" */
  TC_CHECK(isnan(num(r, "est_speedup_pct", 3)));
  TC_NEAR(num(r, "est_speedup_pct", 7), 14.55, 1e-12);
  TC_EQ_INT(po->nrows, 1); /* "2208    2048 ..." */
  TC_EQ_STR(meta_s(p, "executable"), "/opt/superbench/bin/cublaslt_gemm");
  TC_EQ_STR(meta_s(p, "page"), "details");
  pl_profile_free(p);
}

static void test_raw(void) {
  pl_err e;
  pl_profile *p = load("tests/fixtures/ncu/raw_page_units_auto.csv", &e);
  TC_CHECK(p != NULL);
  if (p) {
    pl_table *k = pl_profile_find(p, "kernels"), *m = pl_profile_find(p, "metrics"),
             *po = pl_profile_find(p, "program_output");
    TC_EQ_STR(meta_s(p, "page"), "raw");
    TC_EQ_STR(meta_s(p, "device"), "NVIDIA GeForce RTX 3080");
    TC_EQ_INT(k->nrows, 2);
    TC_EQ_STR(str(k, "name", 0), "void add<float, 2>(float *, const float *, int)"); /* commas inside quotes */
    TC_EQ_STR(str(k, "short_name", 0), "add");
    TC_NEAR(num(k, "duration_ns", 0), 12380, 1e-12);   /* 12.38 usecond */
    TC_NEAR(num(k, "duration_ns", 1), 1203550, 1e-12); /* "1,203.55" usecond */
    TC_EQ_INT(num(k, "grid_size", 0), 4096);           /* "4,096" */
    TC_EQ_INT(num(k, "threads", 0), 1048576);          /* "1,048,576" */
    TC_EQ_INT(num(k, "smem_config_bytes", 0), 102400); /* 102.40 Kbyte */
    TC_EQ_INT(num(k, "smem_driver_bytes", 0), 1024);   /* 1.02 Kbyte/block */
    TC_EQ_INT(num(k, "smem_static_bytes", 0), 4096);   /* 4.10 Kbyte/block */
    TC_EQ_INT(num(k, "smem_dynamic_bytes", 1), 2048);  /* "2,048" byte/block */
    TC_EQ_INT(num(k, "smem_config_bytes", 1), 16384);  /* 16.38 Kbyte */
    TC_EQ_INT(num(k, "block_x", 1), 128);
    TC_EQ_INT(num(k, "block_y", 1), 2);
    TC_EQ_INT(num(k, "grid_x", 1), 64);
    TC_EQ_INT(num(k, "grid_y", 1), 64);
    TC_EQ_INT(num(k, "block_limit_registers", 1), 5);
    TC_EQ_INT(num(k, "block_limit_smem", 0), 20);
    TC_NEAR(num(k, "theoretical_occupancy_pct", 1), 83.33, 1e-12);
    TC_NEAR(num(k, "achieved_occupancy_pct", 0), 85.12, 1e-12);
    TC_NEAR(num(k, "sm_frequency_hz", 0), 1.71e9, 1e-12); /* 1.71 cycle/nsecond */
    TC_EQ_STR(str(k, "cache_config", 0), "CachePreferNone");
    TC_NEAR(num(k, "sm_count", 0), 68, 0);
    TC_EQ_INT(m->nrows, 42); /* 21 metric columns x 2 launches */
    TC_EQ_STR(str(m, "metric", 2), "dram__bytes_read.sum");
    TC_EQ_STR(str(m, "unit", 2), "Mbyte");
    TC_NEAR(num(m, "value", 2), 8.39e6, 1e-12);
    TC_CHECK(str(m, "raw", 2) == NULL); /* a number: its text only with raw_text */
    TC_EQ_INT(fh_raw_rule("tests/fixtures/ncu/raw_page_units_auto.csv", p),
              38); /* 42 cells, 4 texts (device name, CachePreferNone) */
    pl_profile *q = fh_load_raw_text("tests/fixtures/ncu/raw_page_units_auto.csv", &e);
    TC_CHECK(q != NULL);
    if (q) {
      TC_EQ_STR(str(pl_profile_find(q, "metrics"), "raw", 2), "8.39");
      pl_profile_free(q);
    }
    TC_CHECK(str(m, "section", 2) == NULL);
    TC_EQ_INT(po->nrows, 2); /* "n=1048576 ok", "checksum ..." */
    TC_EQ_STR(str(po, "text", 1), "checksum 3.14159e+06");
    pl_profile_free(p);
  }
  p = load("tests/fixtures/ncu/raw_page_units_base.csv", &e);
  TC_CHECK(p != NULL);
  if (p) {
    pl_table *k = pl_profile_find(p, "kernels");
    TC_EQ_INT(k->nrows, 1);
    TC_NEAR(num(k, "duration_ns", 0), 1832960, 0);    /* base unit ns */
    TC_NEAR(num(k, "sm_frequency_hz", 0), 1.41e9, 0); /* hz */
    TC_EQ_INT(num(k, "smem_config_bytes", 0), 167936);
    TC_EQ_INT(num(k, "smem_static_bytes", 0), 33792);
    TC_EQ_INT(num(k, "registers", 0), 128);
    TC_EQ_INT(num(k, "grid_size", 0), 1024);
    TC_EQ_INT(num(k, "grid_y", 0), 32);
    TC_EQ_STR(str(k, "short_name", 0), "gemm_kernel");
    pl_profile_free(p);
  }
}

/* A raw page of many launches: every cell's metrics row has the cell's
** own text and number (value texts are interned after later cells are
** read, so each record's texts must be finished before its fields go). */
static void test_raw_many(void) {
  enum { L = 60, C = 30 };
  pl_buf b;
  pl_buf_init(&b);
  pl_buf_adds(&b, "\"ID\",\"Kernel Name\"");
  for (int j = 0; j < C; j++) pl_buf_printf(&b, ",\"m%d\"", j);
  pl_buf_adds(&b, "\n");
  char cell[L][C][32];
  for (int r = 0; r < L; r++) {
    pl_buf_printf(&b, "\"%d\",\"k%d\"", r, r % 3);
    for (int j = 0; j < C; j++) {
      if ((r * 7 + j) % 11 == 0) snprintf(cell[r][j], sizeof cell[r][j], "t%d_%d", r, j);   /* text */
      else if (j % 5 == 0) snprintf(cell[r][j], sizeof cell[r][j], "%d", j);                /* the same on every row */
      else snprintf(cell[r][j], sizeof cell[r][j], "%d.%02d", r * 1000 + j, (r + j) % 100); /* its own */
      pl_buf_printf(&b, ",\"%s\"", cell[r][j]);
    }
    pl_buf_adds(&b, "\n");
  }
  for (int rt = 1; rt >= 0; rt--) {
    /* with raw_text every cell's text; without, texts only (numbers: value) */
    pl_err e;
    pl_parse_opts o;
    memset(&o, 0, sizeof o);
    o.raw_text = rt;
    pl_profile *p = pl_load_buffer("many.csv", b.data, b.len, NULL, &o, &e);
    TC_CHECK(p != NULL);
    pl_table *m = p ? pl_profile_find(p, "metrics") : NULL;
    TC_CHECK(m != NULL);
    if (m) {
      TC_EQ_INT(m->nrows, L * C);
      int bad = 0;
      for (int r = 0; r < L && !bad; r++)
        for (int j = 0; j < C && !bad; j++) {
          size_t k = (size_t)(r * C + j);
          char mn[16];
          snprintf(mn, sizeof mn, "m%d", j);
          const char *raw = str(m, "raw", k), *name = str(m, "metric", k);
          double v = num(m, "value", k), want = cell[r][j][0] == 't' ? NAN : strtod(cell[r][j], NULL);
          int raw_ok = rt || isnan(want) ? raw && strcmp(raw, cell[r][j]) == 0 : raw == NULL;
          if (!raw_ok || !name || strcmp(name, mn) != 0 || (isnan(want) ? !isnan(v) : v != want) ||
              num(m, "kernel_id", k) != r) {
            fprintf(stderr, "launch %d column %d: raw '%s' metric '%s' value %g\n", r, j, raw ? raw : "(null)",
                    name ? name : "(null)", v);
            bad = 1;
          }
        }
      TC_CHECK(!bad);
    }
    if (p) pl_profile_free(p);
  }
  pl_buf_free(&b);
}

/* launches per file: distinct IDs (awk -F'","' '{print $1}' | sort -u) */
static const struct {
  const char *file;
  int launches;
  int rules;
} counts[] = {
  { "superbench_b200_cc100_cublaslt_ncu_details.csv", 1, 8 },
  { "xplacer_v100_aws_nsight_cfd_097K_first3kernels.log", 3, 0 },
  { "xplacer_v100_lassen_nsight_cfd_097K_first3kernels.log", 3, 0 },
  { "xplacer_v100_nsight_hotspot_1024.csvlog", 1, 0 },
  { "xplacer_v100_nsight_hotspot_64.csvlog", 1, 0 },
};

static void test_corpus(void) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/corpus/ncu_csv", shared_dir());
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
      pl_err_format(&e, b, sizeof b);
      fprintf(stderr, "corpus file failed: %s\n", b);
    }
    TC_CHECK(p != NULL);
    if (!p) continue;
    files++;
    TC_EQ_STR(p->format, "ncu-csv");
    dropped += fh_raw_rule(path, p);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
      if (strcmp(counts[i].file, de->d_name) != 0) continue;
      TC_EQ_INT(pl_profile_find(p, "kernels")->nrows, counts[i].launches);
      TC_EQ_INT(pl_profile_find(p, "rules")->nrows, counts[i].rules);
    }
    pl_table *k = pl_profile_find(p, "kernels");
    if (strcmp(de->d_name, "xplacer_v100_aws_nsight_cfd_097K_first3kernels.log") == 0) {
      /* "Kernel Time" is a timestamp; thousands separators in values */
      TC_EQ_STR(str(k, "name", 0), "cuda_compute_step_factor(int,float*,float*,float*)");
      TC_EQ_STR(str(k, "timestamp", 0), "2020-Apr-16 17:54:38");
      TC_NEAR(num(k, "dram_frequency_hz", 0), 795373665.48, 1e-12); /* "795,373,665.48" cycle/second */
      TC_NEAR(num(k, "duration_ns", 0), 8992, 0);                   /* "8,992" nsecond */
      TC_EQ_INT(num(k, "registers", 1), 60);
      TC_EQ_INT(num(k, "block_limit_registers", 1), 5);
      TC_NEAR(num(k, "theoretical_occupancy_pct", 1), 46.88, 1e-12);
      TC_NEAR(num(k, "dram_throughput_pct", 0), 43.86, 1e-12); /* SOL FB */
    }
    if (strcmp(de->d_name, "xplacer_v100_nsight_hotspot_1024.csvlog") == 0) {
      /* MANIFEST: Block Limit Shared Mem 32 with 3,072 B static and a 32,768 B configuration */
      TC_EQ_INT(num(k, "block_limit_smem", 0), 32);
      TC_EQ_INT(num(k, "smem_static_bytes", 0), 3072);
      TC_EQ_INT(num(k, "smem_config_bytes", 0), 32768);
      TC_EQ_INT(num(k, "block_size", 0), 256);
      TC_EQ_INT(num(k, "registers", 0), 40);
      TC_NEAR(num(k, "theoretical_occupancy_pct", 0), 75, 0);
    }
    pl_profile_free(p);
  }
  closedir(d);
  TC_CHECK(files >= 5);
  TC_CHECK(dropped > 100);
}

#define HDR                                                                                                            \
  "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Section "             \
  "Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"

static void test_errors(void) {
  pl_err e;
  char b[1200];
  /* libcsv strict mode: a quote inside an unquoted field */
  pl_profile *p =
      load_buf("strict.csv",
               HDR "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"Launch Statistics\",\"Block Size\",\"\",12\"8\"\n", &e);
  TC_CHECK(p == NULL);
  pl_err_format(&e, b, sizeof b);
  TC_EQ_STR(b, "strict.csv:2:67: expected well-formed CSV (libcsv strict mode: a quote only around a whole field), "
               "found \"\"8\"\"");
  /* a number required */
  p = load_buf("nonnum.csv",
               HDR "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"Launch Statistics\",\"Registers Per "
                   "Thread\",\"register/thread\",\"lots\"\n",
               &e);
  TC_CHECK(p == NULL);
  pl_err_format(&e, b, sizeof b);
  TC_EQ_STR(b,
            "nonnum.csv:2:90: expected a number for 'Registers Per Thread' (unit 'register/thread'), found \"lots\"");
  /* cut inside a quoted field */
  p = load_buf("cut.csv", HDR "\"0\",\"1\",\"a\",\"h\",\"k(int, \n", &e);
  TC_CHECK(p == NULL);
  pl_err_format(&e, b, sizeof b);
  TC_EQ_STR(b, "cut.csv:3:1: expected the closing quote of the last CSV field, found end of file");
  /* a row cut between fields */
  p = load_buf("short.csv", HDR "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"Launch Statistics\"\n", &e);
  TC_CHECK(p == NULL);
  pl_err_format(&e, b, sizeof b);
  TC_EQ_STR(b, "short.csv:2:48: expected 11 fields (up to \"Metric Value\"), found 8");
  /* an ID that is not a number */
  p = load_buf("id.csv", HDR "\"x\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"S\",\"M\",\"\",\"1\"\n", &e);
  TC_CHECK(p == NULL);
  pl_err_format(&e, b, sizeof b);
  TC_EQ_STR(b, "id.csv:2:1: expected a launch ID (an integer), found \"x\"");
  /* header only */
  p = load_buf("empty.csv", HDR, &e);
  TC_CHECK(p == NULL);
  /* well-formed: quoted name with commas, thousands separators, trailing comma, ==PROF== after the header */
  p = load_buf("ok.csv",
               "hello from the app\n==PROF== Disconnected from process 1\n" HDR
               "\"0\",\"1\",\"a\",\"h\",\"f(int, float)\",\"1\",\"7\",\"Launch "
               "Statistics\",\"Threads\",\"thread\",\"1,048,576\",\n"
               "==PROF== Report: ok\n"
               "\"0\",\"1\",\"a\",\"h\",\"f(int, float)\",\"1\",\"7\",\"GPU Speed Of "
               "Light\",\"Duration\",\"usecond\",\"2.50\"\n",
               &e);
  TC_CHECK(p != NULL);
  if (p) {
    pl_table *k = pl_profile_find(p, "kernels");
    TC_EQ_INT(k->nrows, 1);
    TC_EQ_STR(str(k, "name", 0), "f(int, float)");
    TC_NEAR(num(k, "threads", 0), 1048576, 0);
    TC_NEAR(num(k, "duration_ns", 0), 2500, 1e-12);
    TC_EQ_INT(num(k, "sections", 0), 2);
    TC_EQ_INT(pl_profile_find(p, "program_output")->nrows, 1);
    pl_profile_free(p);
  }
}

static void test_detect(void) {
  const pl_format *f = pl_format_find("ncu-csv");
  TC_CHECK(f != NULL);
  if (!f) return;
  const char *plain = "a,b,c\n1,2,3\n";
  TC_EQ_INT(f->detect(plain, strlen(plain)), 0);
  const char *txt = "    Section: Occupancy\n    ---- ---- ----\n";
  TC_EQ_INT(f->detect(txt, strlen(txt)), 0);
  const char *hdr = "==PROF== x\n" HDR;
  TC_EQ_INT(f->detect(hdr, strlen(hdr)), 95);
  size_t len;
  char *s = tc_slurp("tests/fixtures/ncu/raw_page_units_base.csv", &len);
  if (s) {
    const pl_format *d = pl_format_detect(s, len);
    TC_CHECK(d && strcmp(d->id, "ncu-csv") == 0);
    free(s);
  }
}

int main(void) {
  test_superbench();
  test_raw();
  test_raw_many();
  test_corpus();
  test_errors();
  test_detect();
  return tc_done();
}
