/*
** test_csv_typed.c -- pl_csv_table's fast path (typed in libcsv's field
** callback: a byte-wise number core, a per-column cache and a local map in
** front of the string pool, pages asked for ahead) against the line-tracking
** reader (pl_csv_table_lenient with a profile takes it) on the same inputs:
** the same column types, the same values bit for bit, the same string ids;
** and against values computed here for the number forms the fast core takes
** or hands on (pl_csv_number decides those).
*/
#include "tcheck.h"
#include "csvread.h"
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the same table, cell by cell (doubles compared as bits) */
static size_t table_diff(const pl_table *a, const pl_table *b) {
  if (a->ncols != b->ncols || a->nrows != b->nrows) return 1000000;
  size_t bad = 0;
  for (size_t c = 0; c < a->ncols; c++) {
    const pl_column *x = a->cols[c], *y = b->cols[c];
    if (x->type != y->type || strcmp(x->name, y->name) != 0) {
      bad++;
      continue;
    }
    for (size_t r = 0; r < a->nrows; r++) {
      switch (x->type) {
        case PL_NUM:
          if (memcmp(&x->v.num[r], &y->v.num[r], sizeof(double)) != 0) bad++;
          break;
        case PL_STR: {
          size_t l1, l2;
          const char *s1 = pl_cell_str(a, (int)c, r, &l1), *s2 = pl_cell_str(b, (int)c, r, &l2);
          if (x->v.str[r] != y->v.str[r]) bad++;
          if ((s1 == NULL) != (s2 == NULL) || (s1 && (l1 != l2 || memcmp(s1, s2, l1) != 0))) bad++;
          break;
        }
        default:
          if (x->v.i64[r] != y->v.i64[r]) bad++;
      }
    }
  }
  return bad;
}

static size_t fast_vs_slow(const char *s, size_t len, pl_table **out) {
  pl_err e;
  pl_csv_opts o = { ',', 1, NULL, NULL, NULL, 0, 0 };
  pl_table *f = pl_csv_table(s, len, "csv", &o, &e);
  pl_profile *p = pl_profile_new("csv", "test");
  pl_table *w = pl_csv_table_lenient(s, len, "csv", &o, p, &e);
  size_t bad = (f && w) ? table_diff(f, w) : 1000000;
  pl_profile_free(p);
  pl_table_free(w);
  if (out) *out = f;
  else pl_table_free(f);
  return bad;
}

/* one column per form: every cell of the column holds it (quoted or not) */
static const char *forms[] = {
  "0",
  "7",
  "-0",
  "+5",
  "-12",
  "123456789",
  "12345678901234567",
  "123456789012345678",
  "1234567890123456789",
  "9223372036854775807",
  "-9223372036854775808",
  "9223372036854775808",
  "99999999999999999999",
  "1.",
  ".5",
  "-.5",
  "0.05",
  "22.60",
  "1.00022e+06",
  "1e5",
  "1E-3",
  "2.5e+22",
  "1e23",
  "1e-22",
  "1e-23",
  "123456789012345.6",
  "1234567890123456.7",
  "0.1234567890123456789",
  "1e",
  "1e+",
  "12.5x",
  "0x10",
  "--1",
  "+",
  "-",
  ".",
  "1.2.3",
  "1e0999",
  "1e1000",
  "  7",
  "8  ",
  "nan",
  "inf",
  "1,5",
  "007",
  "-007.50",
};
#define NFORMS (sizeof forms / sizeof forms[0])

int main(void) {
  /* 1. every form in a column of its own, some rows quoted */
  {
    size_t cap = 1 << 20, n = 0;
    char *s = malloc(cap);
    for (size_t c = 0; c < NFORMS; c++) n += (size_t)sprintf(s + n, "%sc%zu", c ? "," : "", c);
    s[n++] = '\n';
    for (int r = 0; r < 40; r++) {
      for (size_t c = 0; c < NFORMS; c++) {
        const char *v = forms[c];
        int q = (r % 3 == 1) || strchr(v, ',') != NULL;
        n += (size_t)sprintf(s + n, "%s%s%s%s", c ? "," : "", q ? "\"" : "", v, q ? "\"" : "");
      }
      s[n++] = '\n';
    }
    pl_table *t = NULL;
    TC_EQ_INT(fast_vs_slow(s, n, &t), 0);
    TC_CHECK(t != NULL);
    if (t) {
      /* each column as pl_csv_number types and reads its one value */
      size_t bad = 0;
      for (size_t c = 0; c < NFORMS; c++) {
        const char *v = forms[c];
        /* libcsv trims blanks around unquoted fields; quoted rows keep them */
        int64_t iv;
        double dv;
        const char *vt = v;
        while (*vt == ' ') vt++;
        size_t vn = strlen(vt);
        while (vn && vt[vn - 1] == ' ') vn--;
        int got = pl_csv_number(vt, vn, &iv, &dv);
        int blanks = vt != v || vn != strlen(v);
        if (blanks) {
          if (t->cols[c]->type != PL_STR) bad++; /* " 7" quoted is text: the column is text */
          continue;
        }
        pl_type want = got == 1 ? PL_INT : got == 2 ? PL_NUM : PL_STR;
        if (t->cols[c]->type != want) {
          bad++;
          fprintf(stderr, "column %zu (%s): type %d, want %d\n", c, v, t->cols[c]->type, want);
          continue;
        }
        for (size_t r = 0; r < t->nrows; r++) {
          if (want == PL_INT && pl_cell_int(t, (int)c, r) != iv) bad++;
          if (want == PL_NUM && memcmp(&t->cols[c]->v.num[r], &dv, sizeof dv) != 0) bad++;
          if (want == PL_STR) {
            size_t ln;
            const char *got_s = pl_cell_str(t, (int)c, r, &ln);
            if (!got_s || ln != strlen(v) || memcmp(got_s, v, ln) != 0) bad++;
          }
        }
      }
      TC_EQ_INT(bad, 0);
      /* a few by hand */
      TC_EQ_INT(pl_cell_int(t, 3, 0), 5);
      TC_CHECK(pl_cell_num(t, 14, 0) == 0.5);
      TC_CHECK(pl_cell_num(t, 17, 0) == 22.6);
      TC_CHECK(pl_cell_num(t, 18, 0) == 1000220.0);
      TC_CHECK(pl_cell_num(t, 20, 0) == 0.001);
      TC_EQ_INT(pl_cell_int(t, 9, 0), INT64_MAX);
      pl_table_free(t);
    }
    free(s);
  }
  /* 2. mixed columns over many rows: kinds that change (int -> number ->
  ** text late), empty cells, text with many distinct values (the local map
  ** grows), long texts (compared through the pool), repeated texts */
  {
    size_t rows = 60000, cap = rows * 200 + 1024, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s + n, "a,b,c,d,e,f,g\n");
    for (size_t r = 0; r < rows; r++) {
      char b[64], d[64], g[32];
      if (r == 30000) snprintf(b, sizeof b, "2.5");
      else snprintf(b, sizeof b, "%zu", r * 37 % 1000);
      if (r == rows - 2) snprintf(d, sizeof d, "late%zu", r);
      else snprintf(d, sizeof d, "%.3f", (double)(r % 977) / 7.0);
      snprintf(g, sizeof g, "%s", r % 11 == 0 ? "" : r % 2 ? "-3" : "4.75");
      n +=
          (size_t)sprintf(s + n, "%zu,%s,\"(%zu, 1, 1)\",%s,\"kernel_%zu_with_a_rather_long_name<float, %zu>\",%s,%s\n",
                          r, b, r * 7919 % 50000, d, r % 300, r % 3, r % 5 == 0 ? "" : "x", g);
    }
    TC_EQ_INT(fast_vs_slow(s, n, NULL), 0);
    free(s);
  }
  /* 3. a file that ends without a line end, inside a number, and CRLF lines */
  {
    const char *s = "x,y\r\n1,2.5\r\n\r\n3,4\r\n5,6";
    TC_EQ_INT(fast_vs_slow(s, strlen(s), NULL), 0);
    pl_err e;
    pl_table *t = pl_csv_table(s, strlen(s), "csv", NULL, &e);
    TC_CHECK(t != NULL);
    if (t) {
      TC_EQ_INT(t->nrows, 3);
      TC_EQ_INT(pl_cell_int(t, 0, 2), 5);
      TC_CHECK(pl_cell_num(t, 1, 2) == 6.0);
      pl_table_free(t);
    }
  }
  /* 4. random numbers, one column per family (the SWAR core's forms and
  ** its edges: 1..19 digits, signs, a '.' anywhere, exponents of 0..4
  ** digits, forms it hands on), fast path against the line-tracking
  ** reader bit for bit, and every cell against pl_csv_number */
  {
    size_t rows = 20000, cap = rows * 8 * 40 + 1024, n = 0;
    char *s = malloc(cap);
    uint64_t st = 0x9E3779B97F4A7C15ull;
#define RND() (st ^= st << 13, st ^= st >> 7, st ^= st << 17, st)
    const int ncol = 8;
    char **vals = malloc(rows * (size_t)ncol * sizeof *vals);
    n += (size_t)sprintf(s + n, "i8,i19,d,de,e,mix,small,q\n");
    for (size_t r = 0; r < rows; r++) {
      for (int c = 0; c < ncol; c++) {
        char v[64];
        size_t k = 0;
        uint64_t x = RND();
        int sign = (int)(x % 5);
        if (c != 6) {
          if (sign == 1) v[k++] = '-';
          else if (sign == 2) v[k++] = '+';
        }
        int nd = c == 0   ? 1 + (int)(RND() % 8)
                 : c == 1 ? 1 + (int)(RND() % 19)
                 : c == 6 ? 1 + (int)(RND() % 3)
                          : 1 + (int)(RND() % 17);
        int dot = (c == 2 || c == 3 || (c == 5 && RND() % 2) || (c == 7 && RND() % 3 == 0))
                      ? (int)(RND() % (unsigned)(nd + 1))
                      : -1;
        for (int d = 0; d < nd; d++) {
          if (d == dot) v[k++] = '.';
          v[k++] = (char)('0' + RND() % 10);
        }
        if (dot == nd) v[k++] = '.';
        if (c == 3 || c == 4 || (c == 5 && RND() % 3 == 0) || (c == 7 && RND() % 2)) {
          v[k++] = RND() % 4 ? 'e' : 'E';
          int es = (int)(RND() % 3);
          if (es == 1) v[k++] = '-';
          else if (es == 2) v[k++] = '+';
          /* 1..3 digits; 0 or 4 (handed on, text or not) in the last column */
          int ed = c == 5 ? 1 + (int)(RND() % 2) : c == 7 ? (int)(RND() % 5) : 1 + (int)(RND() % 3);
          for (int d = 0; d < ed; d++) v[k++] = (char)('0' + RND() % (d ? 10 : 2));
        }
        v[k] = 0;
        vals[r * (size_t)ncol + (size_t)c] = strdup(v);
        int q = c == 7 || RND() % 4 == 0;
        n += (size_t)sprintf(s + n, "%s%s%s%s", c ? "," : "", q ? "\"" : "", v, q ? "\"" : "");
      }
      s[n++] = '\n';
    }
#undef RND
    pl_table *t = NULL;
    TC_EQ_INT(fast_vs_slow(s, n, &t), 0);
    TC_CHECK(t != NULL);
    if (t) {
      size_t bad = 0;
      for (int c = 0; c < ncol; c++) {
        pl_type ty = t->cols[c]->type;
        for (size_t r = 0; r < rows; r++) {
          const char *v = vals[r * (size_t)ncol + (size_t)c];
          int64_t iv = 0;
          double dv = 0;
          int got = pl_csv_number(v, strlen(v), &iv, &dv);
          if (ty == PL_INT) {
            if (got != 1 || t->cols[c]->v.i64[r] != iv) bad++;
          } else if (ty == PL_NUM) {
            double want = got == 1 ? (double)iv : dv;
            if (got == 0 || memcmp(&t->cols[c]->v.num[r], &want, sizeof want) != 0) {
              if (bad < 5) fprintf(stderr, "col %d row %zu '%s'\n", c, r, v);
              bad++;
            }
          }
        }
      }
      TC_EQ_INT(bad, 0);
      TC_EQ_INT(t->cols[0]->type, PL_INT);
      TC_EQ_INT(t->cols[2]->type, PL_NUM);
      TC_EQ_INT(t->cols[3]->type, PL_NUM);
      TC_EQ_INT(t->cols[4]->type, PL_NUM);
      TC_EQ_INT(t->cols[5]->type, PL_NUM);
      TC_EQ_INT(t->cols[6]->type, PL_INT);
      pl_table_free(t);
    }
    for (size_t i = 0; i < rows * (size_t)ncol; i++) free(vals[i]);
    free(vals);
    free(s);
  }
  /* 5. numbers of every length around the 8- and 16-byte edges, alone on
  ** the last line (the input's end) and in a long quoted field before them
  ** (libcsv's field buffer grows) */
  {
    char s[4096];
    for (int len = 1; len <= 24; len++) {
      size_t n = 0;
      n += (size_t)sprintf(s + n, "a,b\n\"%0300d\",", 0);
      for (int d = 0; d < len; d++) s[n++] = (char)('1' + d % 9);
      s[n++] = '\n';
      n += (size_t)sprintf(s + n, "x,");
      for (int d = 0; d < len; d++) s[n++] = d == len / 2 ? '.' : (char)('9' - d % 9);
      TC_EQ_INT(fast_vs_slow(s, n, NULL), 0);
    }
  }
  /* 5. --lenient never changes a column's type (issue 22): a skipped
  **    record of the wrong width (text where the kept rows hold numbers,
  **    before or after them) types nothing; the kept rows read as without it */
  {
    static const char *in[] = {
      "name,calls,total\na,2,600\nb,x,1,100\nc,1,400\n",
      "name,calls,total\nb,x,1,100\na,2,600\nc,1,400\n",
      "name,calls,total\na,2,600\nc,1,400\nb,1.5,y,z\n",
    };
    for (size_t k = 0; k < sizeof in / sizeof in[0]; k++) {
      pl_err e;
      pl_csv_opts o = { ',', 1, NULL, NULL, NULL, 0, 0 };
      pl_profile *p = pl_profile_new("csv", "test");
      pl_table *t = pl_csv_table_lenient(in[k], strlen(in[k]), "csv", &o, p, &e);
      TC_CHECK(t != NULL);
      if (!t) {
        pl_profile_free(p);
        continue;
      }
      TC_EQ_INT(t->nrows, 2);
      TC_EQ_INT(t->cols[1]->type, PL_INT);
      TC_EQ_INT(t->cols[2]->type, PL_INT);
      TC_EQ_INT(pl_cell_int(t, 1, 0) + pl_cell_int(t, 1, 1), 3);    /* 2 + 1 */
      TC_EQ_INT(pl_cell_int(t, 2, 0) + pl_cell_int(t, 2, 1), 1000); /* 600 + 400 */
      TC_EQ_INT(p->ndiags, 1);
      pl_table_free(t);
      pl_profile_free(p);
    }
  }
  return tc_done();
}
