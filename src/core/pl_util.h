/*
** pl_util.h -- small helpers shared by the whole C core: checked allocation,
** a growable byte buffer, and the error record every parser fills.
** The core never includes a Lua header and never prints or exits: errors
** are returned in a pl_err, and an allocation that fails goes to the
** handler the host installed (pl_set_oom_handler), else abort().
*/
#ifndef PL_UTIL_H
#define PL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* Allocation: these return only with memory; on true out-of-memory (malloc
** returning NULL) they call the out-of-memory handler, which must not
** return, and abort() if it does or none is set.  Everything else reports
** errors. */
/* The file being read on this thread, for the out-of-memory handler to
** name (set by the loader around a load; NULL when none). */
extern _Thread_local const char *pl_oom_file;
void *pl_xmalloc(size_t n);
void *pl_xcalloc(size_t n, size_t sz);
void *pl_xrealloc(void *p, size_t n);
char *pl_xstrdup(const char *s);
char *pl_xstrndup(const char *s, size_t n);

/* From here on, blocks of 64 KiB and more on transparent huge pages
** (pl_util.c says why and how: it sets malloc's thresholds for the whole
** process).  The command line switches it on after its first load; a
** no-op off Linux/glibc, and after the first call. */
void pl_mem_bigpages(void);
/* Whether pl_mem_bigpages() is in force, and the same advice for a block
** that another allocator (bigmem.c) took from malloc itself. */
int pl_mem_bigpages_on(void);
void pl_mem_advised(void *p, size_t n);

/* The out-of-memory handler: called with the size asked for; it must not
** return (the core cannot go on without the memory).  The host decides what
** the user sees: perflab's command line prints the --max-memory advice and
** exits 2 (main.c); the default is abort(), silently. */
typedef void (*pl_oom_handler)(size_t n);
void pl_set_oom_handler(pl_oom_handler h);
/* An allocation of n bytes failed: the handler, then abort(); never returns
** (for allocators besides these, bigmem.c's checked forms). */
void pl_oom_fail(size_t n);

/* Growable byte buffer, always NUL-terminated when len > 0 or after pl_buf_cstr. */
typedef struct pl_buf {
  char *data;
  size_t len, cap;
} pl_buf;
void pl_buf_init(pl_buf *b);
void pl_buf_free(pl_buf *b);
void pl_buf_reserve(pl_buf *b, size_t extra);
void pl_buf_add(pl_buf *b, const char *s, size_t n);
void pl_buf_adds(pl_buf *b, const char *s);
void pl_buf_addc(pl_buf *b, char c);
void pl_buf_printf(pl_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
const char *pl_buf_cstr(pl_buf *b);

/* The error record.  line and col are 1-based; 0 means "not applicable"
** (then offset, a byte offset, is meaningful for binary input).
** pl_err_format renders "FILE:LINE:COLUMN: MESSAGE".  kind says what
** happened where a caller may want to act on it or add its own advice
** (the core's messages name no command-line flag; perflab's host adds
** "--input-format", "--max-memory" by kind): set by the loader, reset to
** PL_ERR_DATA by pl_err_set. */
typedef enum pl_err_kind {
  PL_ERR_DATA = 0,       /* the input is not what its format says */
  PL_ERR_FORMAT_UNKNOWN, /* no format of the id asked for */
  PL_ERR_UNDETECTED,     /* no format recognises the input */
  PL_ERR_TOO_BIG         /* the input does not fit in the address space allowed */
} pl_err_kind;

typedef struct pl_err {
  char file[512];
  size_t line, col;
  long long offset; /* -1 when line/col are used */
  pl_err_kind kind;
  char msg[1024];
} pl_err;

void pl_err_clear(pl_err *e);
/* Sets the error; always returns -1 so parsers can `return pl_err_set(...)`. */
int pl_err_set(pl_err *e, size_t line, size_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "expected WHAT, found FOUND" where FOUND is a quoted excerpt of text (cut at
** end of line and at 40 bytes) or "end of file" when n == 0. */
int pl_err_expected(pl_err *e, size_t line, size_t col, const char *what, const char *found, size_t n);
void pl_err_format(const pl_err *e, char *out, size_t outsz);

/* Shortest text that reads back as the same double (the first of "%.15g",
** "%.16g", "%.17g" that does; perflab.json.number gives the same text);
** NaN -> "nan", infinities -> "inf"/"-inf".  Returns the length. */
int pl_fmt_double(char *out, size_t outsz, double v);

/* 32-bit FNV-1a of n bytes (offset basis 2166136261, prime 16777619):
** stable ids from text (the charts' element ids). */
uint32_t pl_fnv1a32(const void *data, size_t n);

#endif
