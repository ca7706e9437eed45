/*
** json.h -- a pull (SAX-style) JSON tokenizer over a memory buffer, and a
** small DOM for small sub-documents.
**
** The tokenizer never builds a tree of the whole input: pl_json_next()
** returns one token at a time and the caller keeps what it needs.  It is
** strict RFC 8259 JSON with three tolerances that real profiler output
** needs: raw control characters inside strings are kept as they are,
** NaN / Infinity / -Infinity are read as numbers (Python's json writes
** them), and lone UTF-16 surrogates in \u escapes become U+FFFD.
**
**  - integers are kept exact (int64) next to their text; pl_json_scaled()
**    turns a decimal such as 1712195495505582.988 (microseconds) into an
**    exact int64 of nanoseconds without going through a double;
**  - doubles come from pl_parse_double (locale-free);
**  - strings are unescaped only when asked (pl_json_str), into a reused
**    buffer; tokens without escapes point into the input;
**  - nesting is limited to PL_JSON_MAXDEPTH: deeper input is an error, not
**    a stack overflow;
**  - errors carry line and column (1-based, bytes) through pl_err.
*/
#ifndef PL_JSON_H
#define PL_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "pl_util.h"

#define PL_JSON_MAXDEPTH 512

typedef enum pl_json_type {
  PL_JSON_ERROR = -1,
  PL_JSON_EOF = 0, /* the top-level value is complete and only whitespace follows */
  PL_JSON_OBJ,     /* '{' */
  PL_JSON_OBJ_END, /* '}' */
  PL_JSON_ARR,     /* '[' */
  PL_JSON_ARR_END, /* ']' */
  PL_JSON_KEY,     /* an object member name (the ':' is consumed) */
  PL_JSON_STR,
  PL_JSON_NUM,
  PL_JSON_TRUE,
  PL_JSON_FALSE,
  PL_JSON_NULL
} pl_json_type;

typedef struct pl_json {
  const char *base;    /* start of the whole buffer (line numbers count from here) */
  const char *p, *end; /* unread part */
  const char *limit;   /* end of the whole buffer (end may stop earlier: one line) */
  pl_err *err;
  int depth;
  int state;
  int multi; /* 1: stop after one top-level value (pl_json_next returns EOF) */
  unsigned char stack[PL_JSON_MAXDEPTH + 1];
  /* the current token */
  pl_json_type type;
  const char *tok; /* STR/KEY: raw bytes between the quotes; NUM: the number text */
  size_t toklen;
  int esc;      /* STR/KEY: contains backslash escapes */
  int isint;    /* NUM: an integer literal that fits int64 */
  int64_t ival; /* NUM: its value when isint */
  int special;  /* NUM: 1 NaN, 2 Infinity, 3 -Infinity */
  size_t line0; /* lines before base that a stream reader dropped (pl_json_drop) */
  size_t col0;  /* bytes between the last of them and base */
  pl_buf sbuf;  /* unescaped string of the current token */
} pl_json;

/* Starts reading data[0..len); err receives errors (may be NULL). */
void pl_json_init(pl_json *j, const char *data, size_t len, pl_err *err);
/* Restarts at data[start..stop) of the same buffer (for one document per
** line): line numbers still count from the buffer start. */
void pl_json_reset(pl_json *j, size_t start, size_t stop);
void pl_json_free(pl_json *j);
/* For a reader of a stream through a sliding window (gzstream.h): the
** bytes before keep (at or before p) are gone, line numbers still count
** them; then pl_json_move: the window now starts at nb with what was at
** keep, nlen bytes in all.  Only between tokens (tok is not kept). */
void pl_json_drop(pl_json *j, const char *keep);
void pl_json_move(pl_json *j, const char *nb, size_t nlen);

/* The next token; PL_JSON_ERROR with err filled on malformed input. */
pl_json_type pl_json_next(pl_json *j);
/* Skips the value whose first token was just returned (an OBJ/ARR is read
** to its matching end; a scalar needs nothing).  0, or -1 on error. */
int pl_json_skip(pl_json *j);

/* For a caller that read the rest of the innermost open object or array
** itself (a fast path over input it has checked is valid JSON): p is just
** past its closing '}' or ']'; the tokenizer goes on from there as if it
** had returned that OBJ_END / ARR_END. */
void pl_json_close_at(pl_json *j, const char *p);

/* String of the current STR/KEY token, unescaped (NUL-terminated). */
const char *pl_json_str(pl_json *j, size_t *n);
/* 1 when the current STR/KEY token equals s (compares the unescaped text). */
int pl_json_eq(pl_json *j, const char *s);

/* Value of the current NUM token as a double (NaN/inf for the specials). */
double pl_json_num(const pl_json *j);
/* Exact value times 10^scale as int64 (scale 0..18), rounding half away
** from zero past the last kept digit.  Accepts the NUM token, or a STR
** token holding a plain number.  0, or -1 (not a number, out of range). */
int pl_json_scaled(const pl_json *j, int scale, int64_t *out);
/* The same for a NUM token given by its parts (text, isint, ival as
** pl_json_next sets them; not NaN/Infinity). */
int pl_json_num_scaled(const char *tok, size_t toklen, int isint, int64_t ival, int scale, int64_t *out);
/* Same on any number text. */
int pl_json_text_scaled(const char *s, size_t n, int scale, int64_t *out);

/* Byte offset -> line and column (1-based). */
void pl_json_linecol(const pl_json *j, const char *at, size_t *line, size_t *col);
/* Sets an "expected WHAT, found ..." error at position at (NULL: the
** current read position); returns -1. */
int pl_json_fail(pl_json *j, const char *at, const char *what);
/* Position of the current token (for diagnostics). */
size_t pl_json_line(const pl_json *j);

/* Unescapes JSON string contents s[0..n) (no quotes) into out. */
void pl_json_unescape(const char *s, size_t n, pl_buf *out);

/* ---- a small DOM for small documents (a tb-profiler line, an args object) */
typedef struct pl_jnode {
  int type; /* pl_json_type: OBJ, ARR, STR, NUM, TRUE, FALSE, NULL */
  int isint;
  int64_t ival;
  double dval;         /* NUM (NaN for others) */
  size_t str, len;     /* STR: offset/length of the unescaped text in doc->text; NUM: the number text */
  size_t key, keylen;  /* member name when the parent is an object */
  int32_t first, next; /* first child, next sibling (-1: none) */
  uint32_t nchild;
  size_t at; /* byte offset in the input (for line numbers) */
} pl_jnode;

typedef struct pl_jdoc {
  pl_jnode *n;
  size_t nn, capn;
  pl_buf text;
} pl_jdoc;

void pl_jdoc_init(pl_jdoc *d);
void pl_jdoc_clear(pl_jdoc *d);
void pl_jdoc_free(pl_jdoc *d);
/* Reads the value whose first token pl_json_next just returned into d
** (appending nodes); returns the node index, or -1 on error. */
int pl_jdoc_read(pl_jdoc *d, pl_json *j);
/* Member of object node o named key; -1 when absent or o is not an object. */
int pl_jdoc_get(const pl_jdoc *d, int o, const char *key);
/* The i-th child (0-based) of an array/object; -1 when out of range. */
int pl_jdoc_at(const pl_jdoc *d, int a, size_t i);
/* Text of a STR node (or the number text of a NUM node); NULL otherwise. */
const char *pl_jdoc_str(const pl_jdoc *d, int i, size_t *n);
const char *pl_jdoc_key(const pl_jdoc *d, int i, size_t *n);
/* Number of a NUM node; NaN otherwise. */
double pl_jdoc_num(const pl_jdoc *d, int i);

/* The end of a string body that starts at p (just after the opening
** quote): the closing quote, or NULL with *bad at the offending byte and
** *what naming what was expected there.  *esc = 1 when the body has
** escapes (each checked: \" \\ \/ \b \f \n \r \t \uXXXX).  Reads nothing
** at or past end.  Inline: the tokenizer and the Kineto fast path call it
** for every string. */
static inline const char *pl_json_str_end(const char *p, const char *end, int *esc, const char **bad,
                                          const char **what) {
#define PL_JSON_HEX(c) (((c) >= '0' && (c) <= '9') || ((c) >= 'a' && (c) <= 'f') || ((c) >= 'A' && (c) <= 'F'))
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  *esc = 0;
  for (;;) {
#if defined(__SSE2__)
    {
      const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\');
      while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, vq), _mm_cmpeq_epi8(x, vb)));
        if (m) {
          p += __builtin_ctz(m);
          goto found;
        }
        p += 16;
      }
    }
#endif
    while (end - p >= 8) {
      uint64_t w, a, b;
      memcpy(&w, p, 8);
      a = w ^ (ones * '"');
      b = w ^ (ones * '\\');
      uint64_t m = ((a - ones) & ~a & highs) | ((b - ones) & ~b & highs);
      if (m) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        p += __builtin_ctzll(m) >> 3; /* the lowest flagged byte is exact */
#else
        while (*p != '"' && *p != '\\') p++;
#endif
        goto found;
      }
      p += 8;
    }
    while (p < end && *p != '"' && *p != '\\') p++;
  found:
    if (p >= end) {
      *bad = end;
      *what = "'\"' closing the string";
      return NULL;
    }
    if (*p == '"') return p;
    *esc = 1;
    if (end - p < 2) {
      *bad = end;
      *what = "an escape after '\\'";
      return NULL;
    }
    char c = p[1];
    if (c == 'u') {
      if (end - p < 6 || !PL_JSON_HEX(p[2]) || !PL_JSON_HEX(p[3]) || !PL_JSON_HEX(p[4]) || !PL_JSON_HEX(p[5])) {
        *bad = p;
        *what = "four hex digits after '\\u'";
        return NULL;
      }
      p += 6;
    } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
      p += 2;
    } else {
      *bad = p;
      *what = "a JSON escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)";
      return NULL;
    }
  }
#undef PL_JSON_HEX
}

#endif
