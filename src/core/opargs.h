/*
** opargs.h -- the operator arguments a PyTorch (Kineto) trace records with
** record_shapes=True: 'Input Dims', 'Input type', 'Input Strides' and
** 'Concrete Inputs', kept by the Kineto reader as compact JSON text (one
** top-level array, one element per operator input).  No Lua here.
**
**   Input Dims      [[768],[788,768],[],[]]     a list of ints per input;
**                   a TensorList input is a list of lists; a scalar []
**   Input type      ["c10::BFloat16","Scalar",""]
**   Input Strides   [[1],[768,1],[],[]]
**   Concrete Inputs ["","","1","[768]"]         scalars as written
*/
#ifndef PL_OPARGS_H
#define PL_OPARGS_H
#include <stddef.h>
#include <stdint.h>

/* One element of a top-level array: text [off, off + len) of the input. */
typedef struct pl_argspan {
  size_t off, len;
} pl_argspan;

/* The elements of the JSON array s[0..n): at most cap spans into items,
** their count in *nitems (counted past cap).  Returns 0, or -1 on text that
** is not an array, with the byte offset of the fault in *errpos and a
** description ("expected ..., found ...") in err (errsz bytes). */
int pl_args_items(const char *s, size_t n, pl_argspan *items, size_t cap, size_t *nitems, size_t *errpos, char *err,
                  size_t errsz);

/* The integers of one element (a number, a list, or a list of lists,
** flattened in order): at most cap into v, the count in *nv.  *depth: 0 a
** number, 1 a list of numbers (a tensor's dims; [] too), 2 or more nested
** lists (a TensorList); -1 anything else (a string, null).  Returns 0, or
** -1 when the element holds a non-integer number. */
int pl_args_ints(const char *s, size_t n, int64_t *v, size_t cap, size_t *nv, int *depth);

/* The text of a JSON string element (escapes decoded, at most cap - 1
** bytes and a NUL into out); returns its length, or (size_t)-1 when the
** element is not a string (null gives -1 too). */
size_t pl_args_str(const char *s, size_t n, char *out, size_t cap);

/* The canonical name of a dtype as 'Input type' writes it, and its bytes
** per element (0 where it is not a tensor dtype):
**   c10::BFloat16 -> "bf16" 2, c10::Half -> "fp16" 2, float -> "fp32" 4,
**   double -> "fp64" 8, c10::Float8_e4m3fn(uz) -> "fp8_e4m3" 1,
**   c10::Float8_e5m2(fnuz) -> "fp8_e5m2" 1, long int / int64_t -> "int64" 8,
**   int -> "int32" 4, short int -> "int16" 2, signed char -> "int8" 1,
**   unsigned char -> "uint8" 1, bool -> "bool" 1, c10::complex<float> ->
**   "complex64" 8, c10::complex<double> -> "complex128" 16,
**   c10::Float4_e2m1fn_x2 -> "fp4" 1 (two values a byte);
**   Scalar -> "scalar" 0, ScalarList -> "scalarlist" 0, TensorList ->
**   "tensorlist" 0, "" -> "" 0 (no tensor); anything else -> NULL, 0. */
const char *pl_dtype_canon(const char *s, size_t n, int *bytes);

/* Whether a canonical dtype is a floating type (bf16, fp16, fp32, fp64,
** fp8_*, fp4). */
int pl_dtype_is_float(const char *canon);

#endif
