/* test_opargs.c -- the operator-argument parser (src/core/opargs.c) on the
** spellings Kineto writes, on bad text (every prefix of a valid field, and
** bytes flipped, must give 0 or -1, never read past the text: run under
** ASan in the Debug build), and pl_iv_enclosed against a brute force. */
#include "tcheck.h"
#include "opargs.h"
#include "intervals.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void items_and_ints(void) {
  const char *s = "[[768],[788,768],[768,768],[],[]]";
  pl_argspan it[8];
  size_t n, pos;
  char err[64];
  TC_EQ_INT(pl_args_items(s, strlen(s), it, 8, &n, &pos, err, sizeof err), 0);
  TC_EQ_INT(n, 5);
  int64_t v[8];
  size_t nv;
  int depth;
  TC_EQ_INT(pl_args_ints(s + it[1].off, it[1].len, v, 8, &nv, &depth), 0);
  TC_EQ_INT(nv, 2);
  TC_EQ_INT(v[0], 788);
  TC_EQ_INT(v[1], 768);
  TC_EQ_INT(depth, 1);
  TC_EQ_INT(pl_args_ints(s + it[3].off, it[3].len, v, 8, &nv, &depth), 0);
  TC_EQ_INT(nv, 0);
  TC_EQ_INT(depth, 1);
  /* a TensorList: nested */
  const char *t = "[[[2,3],[4,-5]]]";
  TC_EQ_INT(pl_args_items(t, strlen(t), it, 8, &n, &pos, err, sizeof err), 0);
  TC_EQ_INT(n, 1);
  TC_EQ_INT(pl_args_ints(t + it[0].off, it[0].len, v, 8, &nv, &depth), 0);
  TC_EQ_INT(nv, 4);
  TC_EQ_INT(v[3], -5);
  TC_EQ_INT(depth, 2);
  /* a float is not an int */
  TC_EQ_INT(pl_args_ints("[1.5]", 5, v, 8, &nv, &depth), -1);
  /* strings, escapes */
  const char *u = "[\"c10::BFloat16\",\"a\\\"b\",\"\"]";
  TC_EQ_INT(pl_args_items(u, strlen(u), it, 8, &n, &pos, err, sizeof err), 0);
  TC_EQ_INT(n, 3);
  char out[32];
  TC_EQ_INT(pl_args_str(u + it[0].off, it[0].len, out, sizeof out), 13);
  TC_EQ_STR(out, "c10::BFloat16");
  TC_EQ_INT(pl_args_str(u + it[1].off, it[1].len, out, sizeof out), 3);
  TC_EQ_STR(out, "a\"b");
  TC_EQ_INT(pl_args_str(u + it[2].off, it[2].len, out, sizeof out), 0);
  /* errors name the place */
  TC_EQ_INT(pl_args_items("[1,", 3, it, 8, &n, &pos, err, sizeof err), -1);
  TC_EQ_INT(pos, 3);
  TC_EQ_INT(pl_args_items("{}", 2, it, 8, &n, &pos, err, sizeof err), -1);
  TC_EQ_STR(err, "expected '[', found '{'");
  TC_EQ_INT(pl_args_items("[]", 2, it, 8, &n, &pos, err, sizeof err), 0);
  TC_EQ_INT(n, 0);
}

static void dtypes(void) {
  int b;
  TC_EQ_STR(pl_dtype_canon("c10::BFloat16", 13, &b), "bf16");
  TC_EQ_INT(b, 2);
  TC_EQ_STR(pl_dtype_canon("c10::Half", 9, &b), "fp16");
  TC_EQ_INT(b, 2);
  TC_EQ_STR(pl_dtype_canon("float", 5, &b), "fp32");
  TC_EQ_INT(b, 4);
  TC_EQ_STR(pl_dtype_canon("double", 6, &b), "fp64");
  TC_EQ_INT(b, 8);
  TC_EQ_STR(pl_dtype_canon("long int", 8, &b), "int64");
  TC_EQ_INT(b, 8);
  TC_EQ_STR(pl_dtype_canon("c10::Float8_e4m3fn", 18, &b), "fp8_e4m3");
  TC_EQ_INT(b, 1);
  TC_EQ_STR(pl_dtype_canon("Scalar", 6, &b), "scalar");
  TC_EQ_INT(b, 0);
  TC_EQ_STR(pl_dtype_canon("", 0, &b), "");
  TC_EQ_INT(b, 0);
  TC_CHECK(pl_dtype_canon("floaty", 6, &b) == NULL);
  TC_CHECK(pl_dtype_is_float("fp8_e5m2") && !pl_dtype_is_float("int64"));
}

/* every prefix and every one-byte change of a valid field: no crash, no
** read past the end (the copy is exactly n bytes, no NUL) */
static void hostile(void) {
  const char *s = "[[16,559,1024],[\"a\\u0041\",[1,[2]]],[],-3,[[1],[2,3]]]";
  size_t L = strlen(s);
  pl_argspan it[16];
  int64_t v[16];
  char out[8], err[64];
  int ok = 1;
  for (size_t n = 0; n <= L; n++) {
    for (int flip = -1; flip < (int)n; flip++) {
      char *c = malloc(n ? n : 1);
      memcpy(c, s, n);
      if (flip >= 0) c[flip] = (char)(c[flip] ^ 0x5b);
      size_t k, pos, nv;
      int depth;
      if (pl_args_items(c, n, it, 16, &k, &pos, err, sizeof err) == 0) {
        if (k > 16) k = 16;
        for (size_t i = 0; i < k; i++) {
          if (it[i].off + it[i].len > n) ok = 0;
          (void)pl_args_ints(c + it[i].off, it[i].len, v, 16, &nv, &depth);
          (void)pl_args_str(c + it[i].off, it[i].len, out, sizeof out);
        }
      } else if (pos > n) ok = 0;
      free(c);
    }
  }
  TC_CHECK(ok);
}

/* pl_iv_enclosed against a brute force: random ops and queries */
static void enclosed_vs_brute(void) {
  srand(7);
  enum { N = 60, M = 200 };
  int64_t os[N], oe[N], og[N], qp[M], qg[M], qs[M], qe[M], len[N], cnt[N];
  for (int r = 0; r < 20; r++) {
    for (int i = 0; i < N; i++) {
      os[i] = rand() % 1000;
      oe[i] = os[i] + rand() % 200;
      og[i] = rand() % 3;
    }
    for (int k = 0; k < M; k++) {
      qp[k] = rand() % 1200;
      qg[k] = rand() % 3;
      qs[k] = rand() % 5000;
      qe[k] = qs[k] + rand() % 300;
    }
    pl_iv_enclosed(os, oe, og, NULL, N, qp, qg, qs, qe, NULL, M, len, cnt);
    for (int i = 0; i < N; i++) {
      /* unit-time coverage of [0, 5300) by the enclosed queries */
      static unsigned char cov[5400];
      memset(cov, 0, sizeof cov);
      int c = 0;
      for (int k = 0; k < M; k++)
        if (qg[k] == og[i] && qp[k] >= os[i] && qp[k] <= oe[i]) {
          c++;
          for (int64_t t = qs[k]; t < qe[k]; t++) cov[t] = 1;
        }
      int64_t l = 0;
      for (int t = 0; t < 5400; t++) l += cov[t];
      TC_EQ_INT(cnt[i], c);
      TC_EQ_INT(len[i], l);
    }
  }
}

int main(void) {
  items_and_ints();
  dtypes();
  hostile();
  enclosed_vs_brute();
  return tc_done();
}
