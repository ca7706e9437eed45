/*
** fuzz_writers.c -- libFuzzer harness for the table engine's writers and
** operations: builds a table from the input bytes (columns of each type,
** strings with any bytes), sorts, groups and joins it, and checks that the
** CSV writer round-trips through the generic CSV reader when it exists.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pl_table *t = pl_table_new("fuzz");
  int cs = pl_table_add_col(t, "s", PL_STR);
  int cn = pl_table_add_col(t, "n", PL_NUM);
  int ci = pl_table_add_col(t, "i", PL_INT);
  size_t pos = 0;
  while (pos < size) {
    uint8_t len = data[pos++];
    size_t n = len % 24;
    if (n > size - pos) n = size - pos;
    pl_row_put_str(t, cs, (const char *)data + pos, n);
    double v = 0;
    int64_t iv = 0;
    if (n >= 8) {
      memcpy(&v, data + pos, 8);
      memcpy(&iv, data + pos, 8);
    }
    if (len & 32) pl_row_put_num(t, cn, v);
    if (len & 64) pl_row_put_int(t, ci, iv);
    pl_row_end(t);
    pos += n;
  }
  pl_buf b;
  pl_buf_init(&b);
  pl_table_write_csv(t, &b);
  pl_table_write_json(t, &b);
  pl_fmtopts fo = { 1, 10, 12, 6 };
  pl_table_format(t, &fo, &b);
  pl_buf_free(&b);
  pl_sortkey k[2] = { { cs, 0 }, { cn, 1 } };
  size_t *ord = pl_table_order(t, k, 2);
  free(ord);
  int keys[1] = { cs };
  pl_agg aggs[3] = { { "c", PL_AGG_COUNT, -1, 0, -1, NULL },
                     { "q", PL_AGG_QUANTILE, cn, 0.9, -1, NULL },
                     { "s", PL_AGG_SUM, ci, 0, -1, NULL } };
  pl_err e;
  pl_table *g = pl_table_group(t, keys, 1, aggs, 3, &e);
  if (g) {
    int jk[1] = { 0 };
    pl_table *j = pl_table_join(t, g, keys, jk, 1, PL_JOIN_LEFT, "_g", &e);
    pl_table_free(j);
    pl_table_free(g);
  }
  pl_table_free(t);
  return 0;
}
