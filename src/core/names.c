/*
** names.c -- short kernel names (see names.h).
*/
#include "names.h"

#include <string.h>

int pl_name_truncated(const char *s, size_t n) {
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  /* "..." or "\u2026" (nsys), both three bytes */
  return n >= 3 && (memcmp(s + n - 3, "...", 3) == 0 || memcmp(s + n - 3, "\xe2\x80\xa6", 3) == 0);
}

size_t pl_name_strip_kd(const char *s, size_t n) {
  /* AMD code-object descriptor suffixes: rocprof "k.kd", "k(int) [clone .kd]",
  ** rocprof-compute "k(int) (.kd)" */
  static const char *const SUF[] = { " [clone .kd]", " (.kd)", ".kd" };
  for (size_t i = 0; i < sizeof SUF / sizeof SUF[0]; i++) {
    size_t k = strlen(SUF[i]);
    if (n > k && memcmp(s + n - k, SUF[i], k) == 0) {
      n -= k;
      while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
      return n;
    }
  }
  return n;
}

/* kernels that only launch the class named by their first template argument */
static const char *const WRAPPERS[] = { "cutlass::Kernel", "cutlass::Kernel2", "cutlass::device_kernel" };

size_t pl_short_name(const char *s, size_t n, char *out, size_t outsz) {
  while (n > 0 && (*s == ' ' || *s == '\t')) {
    s++;
    n--;
  }
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  if (pl_name_truncated(s, n)) n -= 3;
  n = pl_name_strip_kd(s, n);
  /* 1. cut the argument list: the first '(' at template depth 0 that is not
  **    part of "(anonymous namespace)" / "(int)" casts inside templates. */
  int depth = 0;
  size_t end = n;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '<') depth++;
    else if (c == '>' && depth > 0) depth--;
    else if (c == '(' && depth == 0) {
      if (n - i >= 21 && memcmp(s + i, "(anonymous namespace)", 21) == 0) {
        i += 20;
        continue;
      }
      end = i;
      break;
    }
  }
  /* 1b. a launch wrapper (WRAPPERS): the short name of its first template
  **     argument, up to the ',' or '>' that ends it (or the cut) */
  for (size_t i = 0; i < end; i++) {
    if (s[i] == '(' || s[i] == '>') break;
    if (s[i] != '<') continue;
    size_t q = i; /* the qualified name before '<' */
    while (q > 0 && s[q - 1] != ' ') q--;
    for (size_t w = 0; w < sizeof WRAPPERS / sizeof WRAPPERS[0]; w++) {
      size_t wl = strlen(WRAPPERS[w]);
      if (i - q != wl || memcmp(s + q, WRAPPERS[w], wl) != 0) continue;
      size_t a = i + 1, e = a;
      int d = 0;
      for (; e < end; e++) {
        if (s[e] == '<') d++;
        else if (s[e] == '>') {
          if (d == 0) break;
          d--;
        } else if (s[e] == ',' && d == 0) break;
      }
      size_t got = pl_short_name(s + a, e - a, out, outsz);
      if (got > 0) return got;
    }
    break;
  }
  /* 2. copy without template arguments (depth > 0 parts) */
  char tmp[1024];
  size_t k = 0;
  depth = 0;
  for (size_t i = 0; i < end && k + 1 < sizeof tmp; i++) {
    char c = s[i];
    if (c == '<') {
      depth++;
      continue;
    }
    if (c == '>') {
      if (depth > 0) depth--;
      continue;
    }
    if (depth == 0) tmp[k++] = c;
  }
  while (k > 0 && (tmp[k - 1] == ' ')) k--;
  /* 3. drop the return type: keep what follows the last space */
  size_t start = 0;
  for (size_t i = 0; i < k; i++)
    if (tmp[i] == ' ') start = i + 1;
  /* 4. drop namespaces: keep what follows the last "::" */
  for (size_t i = start; i + 1 < k; i++)
    if (tmp[i] == ':' && tmp[i + 1] == ':') start = i + 2;
  size_t len = k - start;
  if (len == 0) { /* nothing left (odd input): fall back to the trimmed text */
    start = 0;
    len = end < sizeof tmp ? end : sizeof tmp - 1;
    memcpy(tmp, s, len);
  }
  if (len >= outsz) len = outsz - 1;
  memmove(out, tmp + start, len);
  out[len] = '\0';
  return len;
}
