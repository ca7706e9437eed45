/*
** names.c -- short kernel names (see names.h).
*/
#include "names.h"

#include <string.h>

int pl_name_truncated(const char *s, size_t n) {
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  return n >= 3 && memcmp(s + n - 3, "...", 3) == 0;
}

size_t pl_short_name(const char *s, size_t n, char *out, size_t outsz) {
  while (n > 0 && (*s == ' ' || *s == '\t')) { s++; n--; }
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  if (pl_name_truncated(s, n)) n -= 3;
  /* 1. cut the argument list: the first '(' at template depth 0 that is not
  **    part of "(anonymous namespace)" / "(int)" casts inside templates. */
  int depth = 0;
  size_t end = n;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '<') depth++;
    else if (c == '>' && depth > 0) depth--;
    else if (c == '(' && depth == 0) {
      if (n - i >= 21 && memcmp(s + i, "(anonymous namespace)", 21) == 0) { i += 20; continue; }
      end = i; break;
    }
  }
  /* 2. copy without template arguments (depth > 0 parts) */
  char tmp[1024];
  size_t k = 0;
  depth = 0;
  for (size_t i = 0; i < end && k + 1 < sizeof tmp; i++) {
    char c = s[i];
    if (c == '<') { depth++; continue; }
    if (c == '>') { if (depth > 0) depth--; continue; }
    if (depth == 0) tmp[k++] = c;
  }
  while (k > 0 && (tmp[k - 1] == ' ')) k--;
  /* 3. drop the return type: keep what follows the last space */
  size_t start = 0;
  for (size_t i = 0; i < k; i++) if (tmp[i] == ' ') start = i + 1;
  /* 4. drop namespaces: keep what follows the last "::" */
  for (size_t i = start; i + 1 < k; i++) if (tmp[i] == ':' && tmp[i + 1] == ':') start = i + 2;
  size_t len = k - start;
  if (len == 0) { /* nothing left (odd input): fall back to the trimmed text */
    start = 0; len = end < sizeof tmp ? end : sizeof tmp - 1;
    memcpy(tmp, s, len);
  }
  if (len >= outsz) len = outsz - 1;
  memmove(out, tmp + start, len);
  out[len] = '\0';
  return len;
}
