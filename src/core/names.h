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
** without the dots.  A generic launch wrapper names its kernel by its
** first template argument: "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_
** 128x128_32x3_nn_align4>(...)" -> "cutlass_80_tensorop_s1688gemm_128x128_32x3_
** nn_align4", "cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<...>>"
** -> "GemmUniversal" (the wrapper's own name, "Kernel", would put every
** CUTLASS kernel of a run in one group).
** The AMD code-object suffix (".kd", " [clone .kd]", " (.kd)") is dropped
** first (pl_name_strip_kd), so every reader of a ROCm tool gives one kernel
** one short name. */
size_t pl_short_name(const char *s, size_t n, char *out, size_t outsz);
/* Length of s[0..n) without an AMD code-object descriptor suffix. */
size_t pl_name_strip_kd(const char *s, size_t n);
/* 1 when the name ends with "..." or "\u2026" (cut by the tool). */
int pl_name_truncated(const char *s, size_t n);

#endif
