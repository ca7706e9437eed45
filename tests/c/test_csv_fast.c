/*
** test_csv_fast.c -- pl_csv_table's fast path (whole input to libcsv in
** 4 MiB pieces, typed in the field callback) against values the test
** writes itself, on an input larger than one piece, and its fall-back to
** the line-tracking reader for errors (same message, right line).
*/
#include "tcheck.h"
#include "csvread.h"
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 120000

/* the value of row r in each column, as written below */
static int64_t ival(size_t r) { return (int64_t)(r * 2654435761u % 100000000u) - (r % 7 == 0 ? 50000000 : 0); }
static double dval(size_t r) { return (double)(r % 10000) / 100.0; }                 /* written %.2f */
static double gval(size_t r) { return (double)(r * 7919u % 1000000007u) * 1.37e-3; } /* written %.6g */
/* two text columns that are mostly new values (the reader sends them to
** the string pool at once, interned at each record's end): a grid shape
** that repeats every 40000 rows, and a tag longer than the reader's
** pending copy (32 bytes) on every 7th row and the text of another
** column ("plain", from the name column) on every 11th */
static void grid(size_t r, char *out, size_t n) { snprintf(out, n, "(%zu, 1, 1)", r % 40000); }
static void tag(size_t r, char *out, size_t n) {
  if (r % 7 == 0) snprintf(out, n, "a-tag-longer-than-thirty-two-bytes-%zu", r);
  else if (r % 11 == 5) snprintf(out, n, "plain");
  else snprintf(out, n, "t%zu", r);
}

static char *make(size_t *len, int bad_row) {
  size_t cap = (size_t)ROWS * 240 + 1024, n = 0;
  char *s = malloc(cap);
  n += (size_t)sprintf(s + n, "id,i,d,g,name,late,opt,grid,tag\n");
  for (size_t r = 0; r < ROWS; r++) {
    /* a quoted name with a comma, and now and then a newline inside quotes */
    const char *nm = r % 3 == 0 ? "\"k,a\"" : r % 1000 == 1 ? "\"multi\nline\"" : "plain";
    /* column late: numbers, then text in the last row (re-read as text) */
    char late[32];
    if (r == ROWS - 1) snprintf(late, sizeof late, "x%zu", r);
    else snprintf(late, sizeof late, "%zu", r % 50);
    if ((int)r == bad_row) {
      n += (size_t)sprintf(s + n, "%zu,1,2\n", r);
      continue;
    }
    char gr[32], tg[64];
    grid(r, gr, sizeof gr);
    tag(r, tg, sizeof tg);
    n += (size_t)sprintf(s + n, "%zu,%lld,\"%.2f\",%.6g,%s,%s,%s,\"%s\",%s\n", r, (long long)ival(r), dval(r), gval(r),
                         nm, late,
                         r % 5 == 0   ? ""
                         : r % 5 == 1 ? "+7"
                         : r % 5 == 2 ? ".5"
                         : r % 5 == 3 ? "5."
                                      : "-0.25e1",
                         gr, tg);
  }
  *len = n;
  return s;
}

int main(void) {
  size_t len;
  char *s = make(&len, -1);
  TC_CHECK(len > (4u << 20)); /* more than one piece */
  pl_err e;
  pl_csv_opts o = { ',', 1, NULL, NULL, NULL, 0, 0 };
  pl_table *t = pl_csv_table(s, len, "csv", &o, &e);
  TC_CHECK(t != NULL);
  if (t) {
    TC_EQ_INT(t->nrows, ROWS);
    TC_EQ_INT(t->ncols, 9);
    TC_EQ_INT(t->cols[0]->type, PL_INT);
    TC_EQ_INT(t->cols[1]->type, PL_INT);
    TC_EQ_INT(t->cols[2]->type, PL_NUM);
    TC_EQ_INT(t->cols[3]->type, PL_NUM);
    TC_EQ_INT(t->cols[4]->type, PL_STR);
    TC_EQ_INT(t->cols[5]->type, PL_STR); /* text in the last row */
    TC_EQ_INT(t->cols[6]->type, PL_NUM);
    TC_EQ_INT(t->cols[7]->type, PL_STR);
    TC_EQ_INT(t->cols[8]->type, PL_STR);
    size_t bad = 0;
    for (size_t r = 0; r < ROWS; r++) {
      char want[64];
      if (pl_cell_int(t, 0, r) != (int64_t)r) bad++;
      if (pl_cell_int(t, 1, r) != ival(r)) bad++;
      snprintf(want, sizeof want, "%.2f", dval(r));
      if (pl_cell_num(t, 2, r) != strtod(want, NULL)) bad++; /* correctly rounded, as strtod */
      snprintf(want, sizeof want, "%.6g", gval(r));
      if (pl_cell_num(t, 3, r) != strtod(want, NULL)) bad++;
      size_t ln;
      const char *got = pl_cell_str(t, 4, r, &ln);
      const char *exp = r % 3 == 0 ? "k,a" : r % 1000 == 1 ? "multi\nline" : "plain";
      if (!got || strcmp(got, exp) != 0) bad++;
      if (r == ROWS - 1) snprintf(want, sizeof want, "x%zu", r);
      else snprintf(want, sizeof want, "%zu", r % 50);
      got = pl_cell_str(t, 5, r, &ln);
      if (!got || strcmp(got, want) != 0) bad++;
      double ov = pl_cell_num(t, 6, r), ow = r % 5 == 1 ? 7 : r % 5 == 2 ? 0.5 : r % 5 == 3 ? 5 : -2.5;
      if (r % 5 == 0 ? !pl_cell_missing(t, 6, r) : ov != ow) bad++;
      grid(r, want, sizeof want);
      got = pl_cell_str(t, 7, r, &ln);
      if (!got || strcmp(got, want) != 0) bad++;
      /* one text, one id: the repeat 40000 rows on has the first's */
      if (r >= 40000 && t->cols[7]->v.str[r] != t->cols[7]->v.str[r - 40000]) bad++;
      char tw[64];
      tag(r, tw, sizeof tw);
      got = pl_cell_str(t, 8, r, &ln);
      if (!got || strcmp(got, tw) != 0) bad++;
      /* one pool: the tag "plain" has the name column's id (row 2 is plain) */
      if (r % 11 == 5 && r % 7 != 0 && t->cols[8]->v.str[r] != t->cols[4]->v.str[2]) bad++;
    }
    TC_EQ_INT(bad, 0);
    pl_table_free(t);
  }
  free(s);
  /* a short record deep in the file: the error names its line.  Rows before
  ** it: 1 header line, br data rows, plus one extra line for each multi-line
  ** name before it (counted as make() writes them). */
  size_t br = 100001, line = 2 + br;
  for (size_t r = 0; r < br; r++)
    if (r % 3 != 0 && r % 1000 == 1) line++;
  s = make(&len, (int)br);
  t = pl_csv_table(s, len, "csv", &o, &e);
  TC_CHECK(t == NULL);
  char want[160];
  snprintf(want, sizeof want, "expected 9 fields as in the header (line 1), found 3: the record ends early");
  TC_EQ_STR(e.msg, want);
  TC_EQ_INT(e.line, line);
  pl_table_free(t);
  free(s);
  return tc_done();
}
