/* test_json.c -- the pull JSON tokenizer and the small DOM: tokens, escapes
** (\uXXXX, surrogate pairs), numbers (int64 boundaries, overflow to double,
** exact decimal scaling), tolerated control characters, deep nesting and
** truncated input errors with line:column.  Expected values are by hand. */
#include "tcheck.h"
#include "json.h"

#include <stdint.h>

/* Tokenizes s fully; returns the token count or -1 on error. */
static int count_tokens(const char *s, pl_err *e) {
  pl_json j;
  pl_json_init(&j, s, strlen(s), e);
  int n = 0;
  for (;;) {
    pl_json_type t = pl_json_next(&j);
    if (t == PL_JSON_ERROR) {
      pl_json_free(&j);
      return -1;
    }
    if (t == PL_JSON_EOF) break;
    n++;
  }
  pl_json_free(&j);
  return n;
}

/* The first scalar token of s (after skipping containers/keys). */
static pl_json_type first_scalar(pl_json *j, const char *s) {
  pl_json_init(j, s, strlen(s), NULL);
  for (;;) {
    pl_json_type t = pl_json_next(j);
    if (t != PL_JSON_OBJ && t != PL_JSON_ARR && t != PL_JSON_KEY) return t;
  }
}

int main(void) {
  pl_err e;
  pl_json j;

  /* token stream of a small document */
  {
    const char *s = " {\"a\": [1, -2.5e3, true, false, null], \"b\": {}, \"c\": \"x\"} ";
    pl_json_init(&j, s, strlen(s), &e);
    pl_json_type want[] = { PL_JSON_OBJ,   PL_JSON_KEY,  PL_JSON_ARR,     PL_JSON_NUM, PL_JSON_NUM, PL_JSON_TRUE,
                            PL_JSON_FALSE, PL_JSON_NULL, PL_JSON_ARR_END, PL_JSON_KEY, PL_JSON_OBJ, PL_JSON_OBJ_END,
                            PL_JSON_KEY,   PL_JSON_STR,  PL_JSON_OBJ_END, PL_JSON_EOF };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      pl_json_type t = pl_json_next(&j);
      TC_EQ_INT(t, want[i]);
      if (i == 1) TC_CHECK(pl_json_eq(&j, "a"));
      if (i == 3) {
        TC_CHECK(j.isint);
        TC_EQ_INT(j.ival, 1);
      }
      if (i == 4) {
        TC_CHECK(!j.isint);
        TC_NEAR(pl_json_num(&j), -2500.0, 0);
      }
      if (i == 13) TC_EQ_STR(pl_json_str(&j, NULL), "x");
    }
    pl_json_free(&j);
  }

  /* escapes: \n \" \\ \/ \t, \u00e9 (2-byte UTF-8), \u20ac (3 bytes),
  ** a surrogate pair for U+1F600 (4 bytes), a lone surrogate -> U+FFFD */
  {
    TC_EQ_INT(first_scalar(&j, "[\"a\\nb\\\"c\\\\d\\/e\\tf\"]"), PL_JSON_STR);
    TC_CHECK(j.esc);
    TC_EQ_STR(pl_json_str(&j, NULL), "a\nb\"c\\d/e\tf");
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "\"caf\\u00e9 \\u20ac\""), PL_JSON_STR);
    TC_EQ_STR(pl_json_str(&j, NULL), "caf\xc3\xa9 \xe2\x82\xac");
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "\"\\ud83d\\ude00!\""), PL_JSON_STR);
    TC_EQ_STR(pl_json_str(&j, NULL), "\xf0\x9f\x98\x80!");
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "\"x\\ud83dy\""), PL_JSON_STR);
    TC_EQ_STR(pl_json_str(&j, NULL), "x\xef\xbf\xbdy");
    pl_json_free(&j);
    /* a key with an escape compares unescaped */
    pl_json_init(&j, "{\"na\\u006de\": 1}", 16, NULL);
    pl_json_next(&j);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_KEY);
    TC_CHECK(pl_json_eq(&j, "name"));
    pl_json_free(&j);
  }

  /* raw control characters inside strings are kept (traces contain them) */
  {
    const char s[] = "{\"name\": \"a\tb\x01"
                     "c\"}";
    pl_json_init(&j, s, strlen(s), &e);
    pl_json_next(&j);
    pl_json_next(&j);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_STR);
    TC_EQ_STR(pl_json_str(&j, NULL), "a\tb\x01"
                                     "c");
    TC_EQ_INT(pl_json_next(&j), PL_JSON_OBJ_END);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_EOF);
    pl_json_free(&j);
  }

  /* int64 boundaries: max and min stay exact integers; one past either
  ** end is no longer an integer (double) */
  {
    TC_EQ_INT(first_scalar(&j, "9223372036854775807"), PL_JSON_NUM);
    TC_CHECK(j.isint);
    TC_CHECK(j.ival == INT64_MAX);
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "-9223372036854775808"), PL_JSON_NUM);
    TC_CHECK(j.isint);
    TC_CHECK(j.ival == INT64_MIN);
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "9223372036854775808"), PL_JSON_NUM);
    TC_CHECK(!j.isint);
    TC_NEAR(pl_json_num(&j), 9223372036854775808.0, 0);
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "-9223372036854775809"), PL_JSON_NUM);
    TC_CHECK(!j.isint);
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "123456789012345678901234567890"), PL_JSON_NUM);
    TC_CHECK(!j.isint);
    TC_NEAR(pl_json_num(&j), 1.2345678901234568e29, 1e-15);
    pl_json_free(&j);
    /* exponent and the specials Python writes */
    TC_EQ_INT(first_scalar(&j, "[1E+2]"), PL_JSON_NUM);
    TC_NEAR(pl_json_num(&j), 100.0, 0);
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "[NaN]"), PL_JSON_NUM);
    TC_CHECK(isnan(pl_json_num(&j)));
    pl_json_free(&j);
    TC_EQ_INT(first_scalar(&j, "[-Infinity]"), PL_JSON_NUM);
    TC_CHECK(isinf(pl_json_num(&j)) && pl_json_num(&j) < 0);
    pl_json_free(&j);
  }

  /* exact decimal scaling: microseconds text -> int64 ns without a double
  ** (a double holds only ~15.9 digits: 1712195495505582988 would be lost) */
  {
    int64_t v = 0;
    TC_EQ_INT(first_scalar(&j, "1712195495505582.988"), PL_JSON_NUM);
    TC_EQ_INT(pl_json_scaled(&j, 3, &v), 0);
    TC_CHECK(v == 1712195495505582988LL);
    pl_json_free(&j);
    TC_EQ_INT(pl_json_text_scaled("2413669096090.1", 15, 3, &v), 0);
    TC_CHECK(v == 2413669096090100LL);
    TC_EQ_INT(pl_json_text_scaled("68.0", 4, 3, &v), 0);
    TC_CHECK(v == 68000);
    TC_EQ_INT(pl_json_text_scaled("1.5e3", 5, 3, &v), 0);
    TC_CHECK(v == 1500000);
    TC_EQ_INT(pl_json_text_scaled("0.0004", 6, 3, &v), 0);
    TC_CHECK(v == 0); /* 0.4 ns rounds down */
    TC_EQ_INT(pl_json_text_scaled("0.0005", 6, 3, &v), 0);
    TC_CHECK(v == 1); /* 0.5 ns rounds up */
    TC_EQ_INT(pl_json_text_scaled("-1.2345", 7, 3, &v), 0);
    TC_CHECK(v == -1235); /* half away from zero */
    TC_EQ_INT(pl_json_text_scaled("9223372036854775.807", 20, 3, &v), 0);
    TC_CHECK(v == INT64_MAX);
    TC_EQ_INT(pl_json_text_scaled("9223372036854775.808", 20, 3, &v), -1); /* overflow */
    TC_EQ_INT(pl_json_text_scaled("12a", 3, 3, &v), -1);
    TC_EQ_INT(pl_json_text_scaled("", 0, 3, &v), -1);
  }

  /* syntax errors with line:column */
  {
    TC_EQ_INT(count_tokens("{\"a\": 1,\n \"b\": }", &e), -1);
    TC_EQ_INT(e.line, 2);
    TC_EQ_INT(e.col, 7);
    TC_CHECK(strstr(e.msg, "expected a JSON value") != NULL);
    TC_EQ_INT(count_tokens("[1, 2,]", &e), -1); /* trailing comma */
    TC_EQ_INT(e.line, 1);
    TC_EQ_INT(e.col, 7);
    TC_EQ_INT(count_tokens("[01]", &e), -1); /* leading zero */
    TC_EQ_INT(count_tokens("[1.]", &e), -1);
    TC_EQ_INT(count_tokens("{\"a\" 1}", &e), -1);
    TC_CHECK(strstr(e.msg, "':'") != NULL);
    TC_EQ_INT(count_tokens("\"bad \\q escape\"", &e), -1);
    TC_EQ_INT(e.col, 6);
    TC_EQ_INT(count_tokens("[1] x", &e), -1);
    TC_CHECK(strstr(e.msg, "end of input") != NULL);
    TC_EQ_INT(count_tokens("[tru]", &e), -1);
  }

  /* truncated input: the error names the place where the text stops */
  {
    const char *s = "{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"ker";
    TC_EQ_INT(count_tokens(s, &e), -1);
    TC_EQ_INT(e.line, 2);
    TC_EQ_INT(e.col, 27); /* just past the last byte (26 on the line) */
    TC_CHECK(strstr(e.msg, "closing the string") != NULL);
    TC_CHECK(strstr(e.msg, "end of file") != NULL);
    TC_EQ_INT(count_tokens("{\"a\": [1, 2", &e), -1);
    TC_EQ_INT(e.line, 1);
    TC_EQ_INT(e.col, 12);
    TC_EQ_INT(count_tokens("", &e), -1);
  }

  /* nesting: 512 levels are fine, 513 and 100,000 are errors (no recursion
  ** in the tokenizer, so no stack overflow either way) */
  {
    size_t n = 100000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    TC_EQ_INT(count_tokens(deep, &e), -1);
    TC_EQ_INT(e.line, 1);
    TC_EQ_INT(e.col, 513);
    TC_CHECK(strstr(e.msg, "512 levels") != NULL);
    /* exactly 512 */
    char *ok = malloc(1025);
    memset(ok, '[', 512);
    memset(ok + 512, ']', 512);
    ok[1024] = '\0';
    TC_EQ_INT(count_tokens(ok, &e), 1024);
    /* the DOM reader is bounded by the same limit */
    pl_jdoc d;
    pl_jdoc_init(&d);
    pl_json_init(&j, deep, 2 * n, &e);
    pl_json_next(&j);
    TC_EQ_INT(pl_jdoc_read(&d, &j), -1);
    pl_json_free(&j);
    pl_jdoc_free(&d);
    free(deep);
    free(ok);
  }

  /* skip: jumps over a whole nested value */
  {
    const char *s = "{\"skip\": {\"a\": [1, {\"b\": \"]}\"}]}, \"keep\": 7}";
    pl_json_init(&j, s, strlen(s), &e);
    pl_json_next(&j);
    pl_json_next(&j);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_OBJ);
    TC_EQ_INT(pl_json_skip(&j), 0);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_KEY);
    TC_CHECK(pl_json_eq(&j, "keep"));
    TC_EQ_INT(pl_json_next(&j), PL_JSON_NUM);
    TC_EQ_INT(j.ival, 7);
    pl_json_free(&j);
  }

  /* one document per line: reset over a line range; the error's line is
  ** counted from the buffer start and a cut line says "end of line" */
  {
    const char *s = "{\"a\": 1}\n{\"b\": [2, 3\n{\"c\": 4}\n";
    pl_json_init(&j, s, strlen(s), &e);
    pl_json_reset(&j, 0, 8);
    TC_EQ_INT(count_tokens("{\"a\": 1}", NULL), 4);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_OBJ);
    pl_json_next(&j);
    pl_json_next(&j);
    pl_json_next(&j);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_EOF);
    pl_json_reset(&j, 9, 20);
    pl_json_type t;
    while ((t = pl_json_next(&j)) != PL_JSON_ERROR && t != PL_JSON_EOF) {}
    TC_EQ_INT(t, PL_JSON_ERROR);
    TC_EQ_INT(e.line, 2);
    TC_EQ_INT(e.col, 12);
    TC_CHECK(strstr(e.msg, "end of line") != NULL);
    pl_json_free(&j);
  }

  /* DOM */
  {
    const char *s = "{\"rows\": [[\"n\\u00e9\", 12, 1.5]], \"t\": true, \"x\": null}";
    pl_jdoc d;
    pl_jdoc_init(&d);
    pl_json_init(&j, s, strlen(s), &e);
    pl_json_next(&j);
    int root = pl_jdoc_read(&d, &j);
    TC_CHECK(root >= 0);
    TC_EQ_INT(pl_json_next(&j), PL_JSON_EOF);
    int rows = pl_jdoc_get(&d, root, "rows");
    TC_EQ_INT(d.n[rows].nchild, 1);
    int r0 = pl_jdoc_at(&d, rows, 0);
    size_t n;
    TC_EQ_STR(pl_jdoc_str(&d, pl_jdoc_at(&d, r0, 0), &n), "n\xc3\xa9");
    TC_EQ_INT(n, 3);
    TC_EQ_INT(d.n[pl_jdoc_at(&d, r0, 1)].ival, 12);
    TC_NEAR(pl_jdoc_num(&d, pl_jdoc_at(&d, r0, 2)), 1.5, 0);
    TC_EQ_INT(d.n[pl_jdoc_get(&d, root, "t")].type, PL_JSON_TRUE);
    TC_EQ_INT(d.n[pl_jdoc_get(&d, root, "x")].type, PL_JSON_NULL);
    TC_EQ_INT(pl_jdoc_get(&d, root, "missing"), -1);
    TC_EQ_INT(pl_jdoc_at(&d, rows, 5), -1);
    pl_json_free(&j);
    pl_jdoc_free(&d);
  }
  return tc_done();
}
