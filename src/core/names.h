/*
** names.h -- kernel-name normalisation shared by every parser, so that the
** same kernel lines up across tools: the short name drops the return type,
** namespaces, template arguments, the argument list and a "..." cut.
*/
#ifndef PL_NAMES_H
#define PL_NAMES_H
#include <stddef.h>

/* Writes the short name of s[0..n) into out (NUL-terminated) and returns its
** length.  "void at::native::vectorized_elementwise_kernel<4, F>(int, F)"
** -> "vectorized_elementwise_kernel"; "sm80_xmma_fprop_..." keeps its text
** without the dots. */
size_t pl_short_name(const char *s, size_t n, char *out, size_t outsz);
/* 1 when the name ends with "..." (cut by the tool). */
int pl_name_truncated(const char *s, size_t n);

#endif
