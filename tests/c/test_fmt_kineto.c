/* test_fmt_kineto.c -- format "kineto" on every Kineto trace of the corpus.
**
** The expected figures were computed independently with /usr/bin/python3
** (json + gzip, numbers parsed with parse_float=Decimal so that ns are exact):
**   events  = events whose ph is not "M"
**   kernels = ph X with cat.lower() == "kernel";  ksum = sum of round(dur*1000)
**   steps   = ph X named ProfilerStep#N, cat != gpu_user_annotation
**   occ     = kernels whose args carry "est. achieved occupancy %"
**   cpu     = ph X, cat cpu_op/Operator, not ProfilerStep#
**   rt      = ph X, cat cuda_runtime/cuda_driver/Runtime
**   mc/ms   = ph X, cat gpu_memcpy|Memcpy / gpu_memset|Memset; mcb = sum of memcpy args.bytes
**   tsmax   = max ts*1000 over non-M events
**   dev     = len(deviceProperties or computeProperties)
**   ctr     = number of args of ph C events + of cuda_profiler_range events
**   regs    = sum of kernel args "registers per thread"; gridx = sum of grid[0]
** (the script: for each file, json.loads(raw, parse_float=Decimal) and the
** comprehensions above; AMD grid from the runtime call of the same correlation).
** Small files are in tests/fixtures/kineto (MIT / BSD); the three large ones
** are read from $PERFLAB_DATA/corpus and the test fails when one is absent. */
#include "tcheck.h"
#include "format.h"
#include "table.h"

#include <stdint.h>
#include <string.h>

typedef struct fig {
  const char *file;
  long events, kernels;
  long long ksum;
  long steps, occ, cpu, rt, mc, ms;
  long long mcb, tsmax;
  long dev, ctr;
  long long regs, gridx;
} fig;

static const fig FIGS[] = {
  { "hta_a100_alexnet_trace.json.gz", 1370, 79, 10692000LL, 0, 79, 359, 361, 16, 3, 244403360LL, 1695835585940062000LL,
    8, 0, 4653LL, 902680LL },
  { "hta_a100_cupti_profiler_counters_trace.json.gz", 4189, 0, 0LL, 0, 0, 375, 1862, 0, 0, 0LL, 1679055463390908000LL,
    8, 693, 0LL, 0LL },
  { "hta_a100_et_simple_add_trace.json.gz", 77, 4, 16000LL, 0, 4, 28, 15, 0, 0, 0LL, 1689360808308238000LL, 8, 0, 134LL,
    768LL },
  { "hta_a100_simple_add_trace.json.gz", 1310, 79, 10728000LL, 0, 79, 359, 331, 16, 3, 244403360LL,
    1694040010536061000LL, 8, 0, 4653LL, 902680LL },
  { "hta_a100_sxm4_80gb_rank0.json.gz", 108890, 6080, 401445000LL, 5, 6080, 25185, 33924, 1390, 277, 16890869512LL,
    1683564902805798000LL, 8, 0, 189623LL, 7951717LL },
  { "hta_a100_triton_example.json.gz", 13, 1, 1760LL, 1, 1, 3, 2, 0, 0, 0LL, 2413669097927433LL, 8, 0, 16LL, 1LL },
  { "hta_call_stack_backward_thread.json", 7, 1, 45000LL, 1, 1, 3, 1, 0, 0, 0LL, 1666149715428509000LL, 0, 0, 240LL,
    32LL },
  { "hta_cpu_only_rank-34.pt.trace.json.gz", 18, 0, 0LL, 1, 0, 4, 0, 0, 0, 0LL, 1212076832503044LL, 0, 0, 0LL, 0LL },
  { "hta_mi250_rocm6_2_minitoy_kineto.json.gz", 160, 14, 110881LL, 2, 0, 70, 21, 2, 0, 0LL, 4203669613175703LL, 4, 0,
    0LL, 1056LL },
  { "hta_sampled_rank-0.json.gz", 4811, 1154, 606519000LL, 2, 1154, 2329, 1204, 40, 10, 214067131LL,
    1682725899305073000LL, 0, 0, 85940LL, 7817749LL },
  { "hta_v100_ns_resolution_rank-0.pt.trace.json.gz", 68656, 4350, 468153602LL, 5, 4350, 23910, 15329, 1600, 145,
    512205160LL, 1712195496004644183LL, 8, 0, 188245LL, 11847260LL },
  { "kineto_tb_plugin_sample_resnet50_v100_worker0.1623143089861.pt.trace.json.gz", 75698, 8772, 591532000LL, 6, 8772,
    23640, 11923, 12, 312, 115607040LL, 1623142624633484000LL, 4, 0, 278136LL, 30310248LL },
  { "kineto_tb_plugin_test_gpu_metrics_input_v100.json", 320, 30, 48000LL, 1, 0, 178, 42, 2, 0, 768LL,
    1621401187237108000LL, 4, 0, 841LL, 30LL },
  { "../torch_tb_profiler/kineto_tb_plugin_test_gpu_metrics_expected.json", 398, 30, 48000LL, 1, 0, 178, 42, 2, 0,
    768LL, 1621401187237108000LL, 4, 78, 841LL, 30LL },
};

static char g_path[4096];

/* fixture copy first, then the corpus copy in tests/data; NULL (and a
** failure naming the file) when neither exists */
static const char *find_file(const char *name) {
  const char *shared = getenv("PERFLAB_DATA");
  if (!shared) shared = "tests/data";
  const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
  snprintf(g_path, sizeof g_path, "tests/fixtures/%s/%s",
           strncmp(name, "../torch_tb", 11) == 0 ? "tb_profiler" : "kineto", base);
  FILE *f = fopen(g_path, "rb");
  if (f) {
    fclose(f);
    return g_path;
  }
  snprintf(g_path, sizeof g_path, "%s/corpus/kineto_trace/%s", shared, name);
  f = fopen(g_path, "rb");
  if (f) {
    fclose(f);
    return g_path;
  }
  tc_need(g_path);
  return NULL;
}

static long long sum_int(const pl_table *t, const char *col) {
  int c = pl_table_col(t, col);
  if (c < 0) return -1;
  long long s = 0;
  for (size_t r = 0; r < t->nrows; r++) {
    int64_t v = pl_cell_int(t, c, r);
    if (v != PL_INT_NA) s += v;
  }
  return s;
}

static long long max_int(const pl_table *t, const char *col) {
  int c = pl_table_col(t, col);
  long long m = INT64_MIN;
  for (size_t r = 0; r < t->nrows; r++) {
    int64_t v = pl_cell_int(t, c, r);
    if (v != PL_INT_NA && v > m) m = v;
  }
  return m;
}

static long present(const pl_table *t, const char *col) {
  int c = pl_table_col(t, col);
  if (c < 0) return 0;
  long n = 0;
  for (size_t r = 0; r < t->nrows; r++) n += !pl_cell_missing(t, c, r);
  return n;
}

static size_t rows(const pl_profile *p, const char *name) {
  const pl_table *t = pl_profile_find(p, name);
  return t ? t->nrows : (size_t)-1;
}

/* ---- the event fast path against the tokenizer ---------------------------
** fmt_kineto.c reads most events straight from the bytes and hands anything
** it is unsure of to the tokenizer.  A member "zz": NaN sends an event to the
** tokenizer (NaN is never taken by the fast path) and changes nothing else,
** so each event below is read both ways and every table must match cell by
** cell.  The input buffers are exactly as long as the text (no NUL after
** it), so ASan sees any read past the end. */
static pl_profile *load_exact(const char *name, const char *text, size_t n, pl_err *err) {
  char *b = malloc(n ? n : 1);
  memcpy(b, text, n);
  pl_profile *p = pl_load_buffer(name, b, n, "kineto", NULL, err);
  free(b);
  return p;
}

static int same_profile(const pl_profile *a, const pl_profile *b) {
  if (a->ntables != b->ntables || a->ndiags != b->ndiags) return 0;
  for (size_t i = 0; i < a->ndiags; i++)
    if (strcmp(a->diags[i].msg, b->diags[i].msg) != 0) return 0;
  for (size_t i = 0; i < a->ntables; i++) {
    const pl_table *x = a->tables[i], *y = pl_profile_find(b, x->name);
    if (!y || x->nrows != y->nrows || x->ncols != y->ncols) return 0;
    for (size_t c = 0; c < x->ncols; c++) {
      if (x->cols[c]->type != y->cols[c]->type || strcmp(x->cols[c]->name, y->cols[c]->name) != 0) return 0;
      for (size_t r = 0; r < x->nrows; r++) {
        int mx = pl_cell_missing(x, (int)c, r), my = pl_cell_missing(y, (int)c, r);
        if (mx != my) return 0;
        if (mx) continue;
        if (x->cols[c]->type == PL_STR) {
          size_t lx, ly;
          const char *sx = pl_cell_str(x, (int)c, r, &lx), *sy = pl_cell_str(y, (int)c, r, &ly);
          if (lx != ly || memcmp(sx, sy, lx) != 0) return 0;
        } else if (x->cols[c]->type == PL_NUM) {
          double dx = pl_cell_num(x, (int)c, r), dy = pl_cell_num(y, (int)c, r);
          if (!(dx == dy || (isnan(dx) && isnan(dy))) || signbit(dx) != signbit(dy)) return 0;
        } else if (pl_cell_int(x, (int)c, r) != pl_cell_int(y, (int)c, r)) return 0;
      }
    }
  }
  return 1;
}

#define R10(x) x x x x x x x x x x
static const char *FAST_EVENTS[] = {
  /* Input Dims / Input type compacted while skipped, and past the 1024
  ** bytes that pass writes (then compact_copy) */
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cat\", \"ts\": 1, \"dur\": 1, \"args\": {\"Input Dims\": "
  "[" R10(R10("[1000, 2000, 3000], ")) "[]], \"Input type\": [" R10(R10("\"fl oat\", ")) "\"x\\\"y\"]}",
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cat\", \"ts\": 1, \"dur\": 1, \"args\": {\"Input Dims\": "
  "[" R10("[1000, 2000, 3000], ") "[]], \"Input type\": [ \"a\" , { \"k\" :\t[ 1 , null , true , -2.5e3 ] } , "
                                  "\"\\u0041 \" ]}",
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cat\", \"ts\": 1, \"dur\": 1, \"args\": {\"Input Dims\": [[1, "
  "2], [3,]], \"b\": 1}",
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cat\", \"ts\": 1, \"dur\": 1, \"args\": {\"Input type\": "
  "[\"a\" \"b\"], \"b\": 1}",
  /* the usual shapes */
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void k<4>(int)\", \"pid\": 0, \"tid\": 7,\n    \"ts\": "
  "1712195495000080.349, \"dur\": 521.001,\n"
  "    \"args\": {\n      \"External id\": 2,      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": 7, "
  "\"correlation\": 1001,"
  "      \"registers per thread\": 128,      \"shared memory\": 16384,      \"blocks per SM\": 4.740741,      \"warps "
  "per SM\": 18.962963,"
  "      \"grid\": [32, 16, 1],      \"block\": [32, 4, 1],      \"est. achieved occupancy %\": 29\n    }\n  ",
  "\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add_\",\"pid\":4037,\"tid\":23695,\"ts\":1712195495000039.303,"
  "\"dur\":58.054,"
  "\"args\":{\"External id\":2,\"Record function id\":0,\"Ev Idx\":1,\"Input Dims\":[[64, 1024], [64, 1024], "
  "[]],\"Input type\":[\"float\", \"fl\\\"oat\", \"Scalar\"]}",
  "\t\"ph\" :\r\n\"X\" ,\n\"cat\"\t: \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": \"4037\", \"tid\": "
  "\"stream 7\", \"ts\": 1, \"dur\": 3.04, \"args\": {\"cbid\": 211, \"correlation\": 1001, \"External id\": 2}",
  "\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"ts\": 5, \"dur\": 0.5, "
  "\"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096, \"memory bandwidth (GB/s)\": 1.25}",
  "\"ph\": \"C\", \"name\": \"GPU 0 Utilization\", \"pid\": 0, \"ts\": 7.5, \"args\": {\"GPU Utilization\": 0.5, "
  "\"other\": 3, \"neg\": -12, \"big\": 123456789012345678901234, \"e\": 1.5e-3, \"\\u0041b\": 7, \"str\": \"x\", "
  "\"arr\": [1, {\"a\": null}]}",
  "\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#12\", \"pid\": 1, \"tid\": 1, \"ts\": 0.001, "
  "\"dur\": 8282.419",
  "\"ph\": \"s\", \"id\": 1001, \"pid\": 4037, \"tid\": 23695, \"ts\": 1712195495000044.438, \"cat\": \"ac2g\", "
  "\"name\": \"ac2g\"",
  "\"ph\": \"f\", \"id\": 12.5, \"ts\": 3, \"bp\": \"e\", \"cat\": \"ac2g\", \"name\": \"ac2g\"",
  /* timestamps: each form of the number */
  "\"ph\": \"i\", \"ts\": 1712195495000039.3035", /* 303.5 ns -> 304 */
  "\"ph\": \"i\", \"ts\": 1712195495000039.3025, \"dur\": 9.9995",
  "\"ph\": \"i\", \"ts\": -1712195495000039.303, \"dur\": -0",
  "\"ph\": \"i\", \"ts\": 12345678901234567.8, \"dur\": 1234567890123456.7", /* 17 and 16 integer digits */
  "\"ph\": \"i\", \"ts\": 9223372036854775.807, \"dur\": 0.0005",
  "\"ph\": \"i\", \"ts\": 1712195495000039, \"dur\": 1e3",
  "\"ph\": \"i\", \"ts\": 1.5E+2, \"dur\": 0.12345678901234567890",
  "\"ph\": \"i\", \"ts\": null, \"dur\": 12345678",
  "\"ph\": \"i\", \"ts\": 123456781234567, \"dur\": 12345678.123",
  /* numbers read inline (fval_num) and their edges: 0-led, 8 / 15 / 16 /
  ** 17 digits, 1-3 / 4-7 / 8+ fraction digits, exponents, at the buffer end */
  "\"ph\": \"i\", \"ts\": 0.5, \"dur\": 0, \"id\": 0.25, \"args\": {\"a\": 0, \"b\": 0.0001, \"d\": 1, \"e\": 0e1, "
  "\"f\": 0.5E3}",
  "\"ph\": \"X\", \"ts\": 1234567812345678, \"dur\": 123456781234567.1234567, \"args\": {\"x\": 12345678, \"y\": "
  "123456789, \"z\": 1234567.1234567, \"w\": 1234567.12345678, \"v\": 12.5e2, \"u\": 12.5E-2, \"t\": 12345678.5, "
  "\"s\": 7.25}",
  "\"ph\": \"i\", \"ts\": 8999999999999999.999, \"dur\": 9000000000000000.001, \"args\": {\"a\": 12345678901234567, "
  "\"b\": 1234567890123456, \"c\": 9999999999999999.5, \"d\": 999999999999999.5}",
  "\"ph\": \"i\", \"ts\": 123456789012345.12, \"dur\": 1.1, \"args\": {\"External id\": 1234567, \"correlation\": "
  "12345678.0, \"blocks per SM\": 4.740741}",
  "\"ph\": \"i\", \"dur\": 1, \"ts\": 1234567",
  "\"ph\": \"i\", \"dur\": 1, \"ts\": 12345678",
  "\"ph\": \"i\", \"dur\": 1, \"ts\": 123.45",
  "\"ph\": \"i\", \"dur\": 1, \"ts\": 1234.5678",
  "\"ph\": \"X\", \"ts\": 00, \"dur\": 1, \"args\": {\"a\": 1}",
  "\"ph\": \"X\", \"ts\": 0123, \"dur\": 1, \"args\": {\"a\": 1}",
  "\"ph\": \"X\", \"ts\": 12345678., \"dur\": 1, \"args\": {\"a\": 1}",
  "\"ph\": \"X\", \"ts\": 1.e5, \"dur\": 1, \"args\": {\"a\": 1}",
  "\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"args\": {\"a\": 1.5e, \"b\": 1}",
  "\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"args\": {\"a\": 1234567.5x, \"b\": 1}",
  /* names and strings */
  "\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"a\\\"b\\u00e9\\ud800x\\\\\", \"ts\": 1, \"dur\": 1",
  "\"ph\": \"X\", \"cat\": \"\\u006bernel\", \"name\": 12.5, \"ts\": 1, \"dur\": 1, \"\\u0070h\": \"Y\"",
  "\"ph\": \"X\", \"cat\": [\"kernel\"], \"name\": null, \"pid\": {\"a\": [1, 2]}, \"tid\": true, \"ts\": 1, \"dur\": "
  "1",
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"xxxxxxxxxxxxxxxxxxxxxxx\", \"ts\": 1, \"dur\": 1, \"args\": "
  "{\"kind\": \"Dispatch Kernel\"}",
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"yyyyyyyyyyyyyyyyyyyyyyyy\", \"ts\": 1, \"dur\": 1, \"args\": "
  "{\"kind\": [\"x\"]}",
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"zzzzzzzzzzzzzzzzzzzzzzzzz\", \"ts\": 1, \"dur\": 1, \"args\": "
  "{\"kind\": {\"y\": 2}}",
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4, "
  "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
  "at::detail::Array<char*, 3>)\", \"ts\": 1, \"dur\": 1",
  /* args of odd shapes */
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"grid\": [1, \"2\", [3]], "
  "\"block\": [1.5, 2, 3, 4]}",
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"grid\": {\"a\": 1}, "
  "\"block\": 5, \"grid\": []}",
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"cbid\": \"12\", "
  "\"stream\": \" 3.5 \", \"device\": 2.5, \"context\": true, \"correlation\": -9223372036854775808, \"External id\": "
  "9223372036854775808}",
  "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"shared memory\": \"inf\", "
  "\"blocks per SM\": \"1.5\", \"warps per SM\": null, \"est. achieved occupancy %\": 1e400, \"theoretical occupancy "
  "%\": -0.0}",
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 1, \"args\": {\"Input Dims\": 5, "
  "\"Input type\": \"x \\\" y\", \"Sequence number\": 3, \"Fwd thread id\": 4, \"flops\": 1e9}",
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 1, \"args\": {\"Input Dims\": [ [ 1 "
  ",\t2 ] , { \"k\" : \"a b\" } ], \"Input type\": null}",
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 1, \"args\": {}",
  "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 1, \"args\": []",
  "\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\": \"r\", \"ts\": 1, \"dur\": 1, \"args\": {\"m1\": 1, "
  "\"m2\": 2.5, \"m1\": -3}",
  "\"ph\": \"M\", \"name\": \"process_name\", \"args\": {\"name\": \"python\"}",
  "\"name\": \"no phase\", \"ts\": 1",
  "\"ph\": \"X\", \"deep\": "
  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], "
  "\"ts\": 2",
  /* errors: both ways must fail */
  "\"ph\": 5, \"ts\": 1",
  "\"ph\": \"X\", \"ts\": \"soon\"",
  "\"ph\": \"X\", \"ts\": [1]",
  "\"ph\": \"X\", \"ts\": 01",
  "\"ph\": \"X\", \"ts\": 1.",
  "\"ph\": \"X\", \"ts\": 1e",
  "\"ph\": \"X\", \"ts\": -",
  "\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": [1,]}",
  "\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": 1,}",
  "\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\" 1}",
  "\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": tru}",
  "\"ph\": \"X\", \"ts\": 1, \"name\": \"bad \\x escape\"",
  "\"ph\": \"X\", \"ts\": 1, \"name\": \"bad \\u12G4\"",
  "\"ph\": \"X\", \"ts\": 1, \"args\": {[1]: 2}",
  "\"ph\": \"X\", \"ts\": 1,",
};

static void check_fast_path(void) {
  pl_err err;
  pl_buf all_fast, all_slow, a, b;
  pl_buf_init(&all_fast);
  pl_buf_init(&all_slow);
  pl_buf_init(&a);
  pl_buf_init(&b);
  size_t nev = sizeof FAST_EVENTS / sizeof FAST_EVENTS[0];
  for (size_t i = 0; i < nev; i++) {
    a.len = b.len = 0;
    pl_buf_printf(&a, "{\"traceEvents\": [{%s}]}", FAST_EVENTS[i]);
    pl_buf_printf(&b, "{\"traceEvents\": [{\"zz\": NaN, %s}]}", FAST_EVENTS[i]);
    pl_profile *pa = load_exact("fast.json", a.data, a.len, &err);
    char ma[2048] = "";
    if (!pa) pl_err_format(&err, ma, sizeof ma);
    pl_profile *pb = load_exact("slow.json", b.data, b.len, &err);
    TC_CHECK((pa == NULL) == (pb == NULL));
    if (pa && pb) {
      int same = same_profile(pa, pb);
      TC_CHECK(same);
      if (!same) fprintf(stderr, "fast path differs on event %zu: %s\n", i, FAST_EVENTS[i]);
    } else if (pa || pb) fprintf(stderr, "fast path: event %zu read one way only (%s)\n", i, ma);
    if (pa && pb) {
      if (all_fast.len) {
        pl_buf_addc(&all_fast, ',');
        pl_buf_addc(&all_slow, ',');
      }
      pl_buf_printf(&all_fast, "{%s}", FAST_EVENTS[i]);
      pl_buf_printf(&all_slow, "{\"zz\": NaN, %s}", FAST_EVENTS[i]);
    }
    pl_profile_free(pa);
    pl_profile_free(pb);
  }
  /* all the good ones in one trace, bare array form, ending at the buffer end */
  a.len = b.len = 0;
  pl_buf_printf(&a, "[%s]", all_fast.data);
  pl_buf_printf(&b, "[%s]", all_slow.data);
  pl_profile *pa = load_exact("fast.json", a.data, a.len, &err), *pb = load_exact("slow.json", b.data, b.len, &err);
  TC_CHECK(pa != NULL && pb != NULL);
  if (pa && pb) TC_CHECK(same_profile(pa, pb));
  if (pa) {
    /* hand-computed: the ts of the timestamp events (ph "i" -> events table only) */
    const pl_table *ev = pl_profile_find(pa, "events");
    int cts = pl_table_col(ev, "ts_ns"), cdur = pl_table_col(ev, "dur_ns");
    size_t hits = 0;
    for (size_t r = 0; r < ev->nrows; r++) {
      int64_t ts = pl_cell_int(ev, cts, r), dur = pl_cell_int(ev, cdur, r);
      if (ts == 1712195495000039304LL) hits++;                 /* .3035 us */
      if (ts == 1712195495000039303LL && dur == 10000) hits++; /* 302.5 ns -> 303; 9999.5 ns -> 10000 */
      if (ts == -1712195495000039303LL && dur == 0) hits++;
      if (ts == 9223372036854775807LL && dur == 1) hits++; /* 0.0005 us = 0.5 ns -> 1 */
      if (ts == 1712195495000039000LL && dur == 1000000) hits++;
      if (ts == 150000 && dur == 123) hits++; /* 0.1234567.. us -> 123 ns */
      if (pl_cell_missing(ev, cts, r) && dur == 12345678000LL) hits++;
      if (ts == 123456781234567000LL && dur == 12345678123LL) hits++;
    }
    TC_EQ_INT(hits, 8);
  }
  pl_profile_free(pa);
  pl_profile_free(pb);
  /* every prefix of a small trace: an error each time (never a read past the end) */
  a.len = 0;
  pl_buf_printf(&a, "[{%s},{%s}]", FAST_EVENTS[0], FAST_EVENTS[1]);
  size_t fails = 0;
  for (size_t n = 0; n < a.len; n++) {
    pl_profile *p = load_exact("cut.json", a.data, n, &err);
    if (p == NULL) fails++;
    pl_profile_free(p);
  }
  TC_EQ_INT(fails, a.len);
  pl_buf_free(&all_fast);
  pl_buf_free(&all_slow);
  pl_buf_free(&a);
  pl_buf_free(&b);
}

/* Issue 22 class 13: rocprof's Chrome trace (--hip-trace) read as kernels,
** HIP API calls and copies (tests/fixtures/rocprof/hip_trace_results.json,
** figures as written there: BeginNs/EndNs exact); and HIP's gfx version in
** deviceProperties (tests/fixtures/kineto/tc_mi300x_bf16.json, 9.4). */
static void rocprof_hip_trace(void) {
  pl_err err;
  pl_profile *p = pl_load_file("tests/fixtures/rocprof/hip_trace_results.json", NULL, NULL, &err);
  TC_CHECK(p != NULL);
  if (p) {
    const pl_table *kn = pl_profile_find(p, "kernels"), *mc = pl_profile_find(p, "memcpy"),
                   *rt = pl_profile_find(p, "runtime");
    TC_EQ_INT(rows(p, "kernels"), 2);
    TC_EQ_INT(sum_int(kn, "duration_ns"), 55555 + 44445);
    TC_EQ_INT(sum_int(kn, "start_ns"), 1000720100LL + 1000815000LL);
    TC_EQ_INT(sum_int(kn, "device"), 0);
    TC_EQ_INT(present(kn, "device"), 2);
    TC_EQ_INT(rows(p, "runtime"), 5);
    TC_EQ_INT(sum_int(rt, "duration_ns"), 150000 + 420500 + 12345 + 10000 + 300000);
    TC_EQ_INT(rows(p, "memcpy"), 2);
    TC_EQ_INT(sum_int(mc, "duration_ns"), 400125 + 280000);
    const pl_meta *m = pl_profile_meta_get(p, "vendor");
    TC_CHECK(m && m->text && strcmp(m->text, "AMD") == 0);
    m = pl_profile_meta_get(p, "tool");
    TC_CHECK(m && m->text && strcmp(m->text, "rocprof --hip-trace (Chrome trace)") == 0);
    pl_profile_free(p);
  }
  p = pl_load_file("tests/fixtures/kineto/tc_mi300x_bf16.json", NULL, NULL, &err);
  TC_CHECK(p != NULL);
  if (p) {
    TC_CHECK(pl_profile_meta_get(p, "cc") == NULL);
    const pl_meta *m = pl_profile_meta_get(p, "arch");
    TC_CHECK(m && m->text && strcmp(m->text, "gfx942") == 0);
    m = pl_profile_meta_get(p, "tool");
    TC_CHECK(m && m->text && strcmp(m->text, "PyTorch Profiler (Kineto)") == 0);
    pl_profile_free(p);
  }
}

int main(void) {
  rocprof_hip_trace();
  pl_err err;
  for (size_t i = 0; i < sizeof FIGS / sizeof FIGS[0]; i++) {
    const fig *f = &FIGS[i];
    const char *path = find_file(f->file);
    if (!path) continue;
    pl_profile *p = pl_load_file(path, NULL, NULL, &err); /* detection by content */
    TC_CHECK(p != NULL);
    if (!p) {
      char m[2048];
      pl_err_format(&err, m, sizeof m);
      fprintf(stderr, "%s\n", m);
      continue;
    }
    fprintf(stderr, "-- %s\n", f->file);
    TC_EQ_STR(p->format, "kineto");
    const pl_table *ev = pl_profile_find(p, "events"), *kn = pl_profile_find(p, "kernels");
    TC_EQ_INT(rows(p, "events"), f->events);
    TC_EQ_INT(rows(p, "kernels"), f->kernels);
    TC_EQ_INT(sum_int(kn, "duration_ns"), f->ksum);
    TC_EQ_INT(rows(p, "steps"), f->steps);
    TC_EQ_INT(present(kn, "est_achieved_occupancy_pct"), f->occ);
    TC_EQ_INT(rows(p, "cpu_ops"), f->cpu);
    TC_EQ_INT(rows(p, "runtime"), f->rt);
    TC_EQ_INT(rows(p, "memcpy"), f->mc);
    TC_EQ_INT(rows(p, "memset"), f->ms);
    TC_EQ_INT(sum_int(pl_profile_find(p, "memcpy"), "bytes"), f->mcb);
    TC_EQ_INT(max_int(ev, "ts_ns"), f->tsmax);
    TC_EQ_INT(rows(p, "devices"), f->dev);
    TC_EQ_INT(rows(p, "counters"), f->ctr);
    TC_EQ_INT(sum_int(kn, "registers"), f->regs);
    TC_EQ_INT(sum_int(kn, "grid_x"), f->gridx);
    pl_profile_free(p);
  }

  /* details of single files */
  const char *path;
  if ((path = find_file("hta_v100_ns_resolution_rank-0.pt.trace.json.gz"))) {
    /* ns resolution: first kernel "ts": 1712195495505582.988, "dur": 4.928 */
    pl_profile *p = pl_load_file(path, NULL, NULL, &err);
    const pl_table *kn = pl_profile_find(p, "kernels");
    TC_CHECK(pl_cell_int(kn, pl_table_col(kn, "start_ns"), 0) == 1712195495505582988LL);
    TC_EQ_INT(pl_cell_int(kn, pl_table_col(kn, "duration_ns"), 0), 4928);
    TC_EQ_STR(pl_profile_meta_get(p, "display_time_unit")->text, "ns");
    TC_EQ_STR(pl_profile_meta_get(p, "device")->text, "Tesla V100-SXM2-32GB");
    TC_EQ_STR(pl_profile_meta_get(p, "cc")->text, "7.0");
    TC_NEAR(pl_profile_meta_get(p, "sm_count")->num, 80, 0);
    pl_profile_free(p);
  }

  if ((path = find_file("kineto_tb_plugin_sample_resnet50_v100_worker0.1623143089861.pt.trace.json.gz"))) {
    /* 2021 schema: "cat": "Kernel", "tid": "stream 7", "external id" lower-case.
    ** Kernel time 591532000 ns is also the tb plugin's kernel table total of
    ** run 1 of tb_profiler/kineto_tb_plugin_test_result_check_file.txt (591532 us). */
    pl_profile *p = pl_load_file(path, NULL, NULL, &err);
    const pl_table *kn = pl_profile_find(p, "kernels");
    size_t n;
    TC_EQ_STR(pl_cell_str(kn, pl_table_col(kn, "cat"), 0, &n), "Kernel");
    TC_EQ_STR(pl_cell_str(kn, pl_table_col(kn, "short_name"), 0, &n), "computeOffsetsKernel");
    TC_EQ_INT(pl_cell_int(kn, pl_table_col(kn, "correlation"), 0), 34441);
    TC_EQ_INT(pl_cell_int(kn, pl_table_col(kn, "external_id"), 0), 544);
    TC_EQ_INT(pl_cell_int(kn, pl_table_col(kn, "stream"), 0), 7);
    TC_EQ_INT(pl_cell_int(kn, pl_table_col(kn, "registers"), 0), 38);
    TC_NEAR(pl_cell_num(kn, pl_table_col(kn, "blocks_per_sm"), 0), 0.625, 0);
    const pl_table *ev = pl_profile_find(p, "events");
    int ctid = pl_table_col(ev, "tid");
    size_t streams = 0;
    for (size_t r = 0; r < ev->nrows; r++) {
      const char *s = pl_cell_str(ev, ctid, r, &n);
      if (s && strcmp(s, "stream 7") == 0) streams++;
    }
    /* python: sum(1 for e in ev if e.get('tid') == 'stream 7' and e['ph'] != 'M') */
    TC_EQ_INT(streams, 18192);
    const pl_table *st = pl_profile_find(p, "steps");
    TC_EQ_INT(pl_cell_int(st, pl_table_col(st, "step"), 0), 5);
    pl_profile_free(p);
  }

  if ((path = find_file("hta_mi250_rocm6_2_minitoy_kineto.json.gz"))) {
    /* AMD: no grid/occupancy on the kernel; grid/block come from the
    ** hipLaunchKernel call with the same correlation (python: grid[0] 1056, block[0] 3232) */
    pl_profile *p = pl_load_file(path, NULL, NULL, &err);
    const pl_table *kn = pl_profile_find(p, "kernels");
    size_t n;
    TC_EQ_STR(pl_cell_str(kn, pl_table_col(kn, "kind"), 0, &n), "Dispatch Kernel");
    TC_EQ_INT(sum_int(kn, "block_x"), 3232);
    TC_EQ_INT(present(kn, "est_achieved_occupancy_pct"), 0);
    TC_EQ_STR(pl_profile_meta_get(p, "device")->text, "AMD Radeon Graphics");
    pl_profile_free(p);
  }

  if ((path = find_file("kineto_tb_plugin_test_gpu_metrics_input_v100.json"))) {
    /* computeProperties (major/minor/multiProcessorCount) */
    pl_profile *p = pl_load_file(path, NULL, NULL, &err);
    const pl_table *dv = pl_profile_find(p, "devices");
    size_t n;
    TC_EQ_STR(pl_cell_str(dv, pl_table_col(dv, "cc"), 0, &n), "7.0");
    TC_EQ_INT(pl_cell_int(dv, pl_table_col(dv, "sm_count"), 0), 80);
    TC_EQ_INT(pl_cell_int(dv, pl_table_col(dv, "max_warps_per_sm"), 0), 64);
    const pl_table *kn = pl_profile_find(p, "kernels");
    TC_EQ_INT(present(kn, "theoretical_occupancy_pct"), 30);
    pl_profile_free(p);
  }

  /* --table kernels builds only that table */
  if ((path = find_file("hta_a100_alexnet_trace.json.gz"))) {
    const char *want[] = { "kernels", NULL };
    pl_parse_opts o;
    memset(&o, 0, sizeof o);
    o.tables = want;
    pl_profile *p = pl_load_file(path, NULL, &o, &err);
    TC_EQ_INT(p->ntables, 1);
    TC_EQ_INT(rows(p, "kernels"), 79);
    TC_CHECK(pl_profile_find(p, "events") == NULL);
    pl_profile_free(p);
  }

  /* malformed input: FILE:LINE:COLUMN and -1 */
  {
    const char *cut = "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": "
                      "2},\n{\"ph\": \"X\", \"ts\": 1";
    pl_profile *p = pl_load_buffer("cut.json", cut, strlen(cut), NULL, NULL, &err);
    TC_CHECK(p == NULL);
    TC_EQ_INT(err.line, 3);
    TC_EQ_INT(err.col, 20); /* just past "1" at the cut */
    char m[2048];
    pl_err_format(&err, m, sizeof m);
    TC_CHECK(strncmp(m, "cut.json:3:20: expected ", 24) == 0);
    const pl_format *f = pl_format_find("kineto");
    pl_profile *q = pl_profile_new("kineto", "x");
    pl_input in = { "x", cut, strlen(cut) };
    TC_EQ_INT(f->parse(&in, q, NULL, &err), -1);
    TC_EQ_INT(q->ntables, 0); /* nothing partial left behind */
    pl_profile_free(q);
    const char *badts = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": \"soon\"}]}";
    p = pl_load_buffer("t.json", badts, strlen(badts), "kineto", NULL, &err);
    TC_CHECK(p == NULL);
    TC_EQ_INT(err.col, 36); /* the opening quote of "soon" */
    TC_CHECK(strstr(err.msg, "timestamp") != NULL);
    /* 100,000 nested arrays inside an event: an error, not a crash */
    size_t n = 100000;
    char *deep = malloc(2 * n + 64);
    strcpy(deep, "{\"traceEvents\": [{\"args\": ");
    size_t l = strlen(deep);
    memset(deep + l, '[', n);
    memset(deep + l + n, ']', n);
    strcpy(deep + l + 2 * n, "}]}");
    p = pl_load_buffer("deep.json", deep, strlen(deep), "kineto", NULL, &err);
    TC_CHECK(p == NULL);
    TC_CHECK(strstr(err.msg, "512 levels") != NULL);
    free(deep);
    /* the bare array form and exact fractional timestamps */
    const char *bare = "[{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"void k<1>(int)\", \"ts\": "
                       "12345678901234.5678, \"dur\": 0.001,"
                       " \"pid\": 0, \"tid\": \"stream 7\", \"args\": {\"grid\": [2, 1, 1], \"block\": [64, 1, 1], "
                       "\"shared memory\": 1024}}]";
    p = pl_load_buffer("bare.json", bare, strlen(bare), NULL, NULL, &err);
    TC_CHECK(p != NULL);
    if (p) {
      const pl_table *kn = pl_profile_find(p, "kernels");
      TC_CHECK(pl_cell_int(kn, pl_table_col(kn, "start_ns"), 0) ==
               12345678901234568LL); /* .5678 us -> 567.8 ns -> 568 */
      TC_EQ_INT(pl_cell_int(kn, pl_table_col(kn, "duration_ns"), 0), 1);
      TC_EQ_INT(pl_cell_int(kn, pl_table_col(kn, "smem_bytes"), 0), 1024);
      TC_CHECK(pl_cell_missing(kn, pl_table_col(kn, "smem_static_bytes"), 0));
      size_t sl;
      TC_EQ_STR(pl_cell_str(kn, pl_table_col(kn, "short_name"), 0, &sl), "k");
      pl_profile_free(p);
    }
  }
  check_fast_path();
  return tc_done();
}
