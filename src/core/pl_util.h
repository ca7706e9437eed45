/*
** pl_util.h -- small helpers shared by the whole C core: checked allocation,
** a growable byte buffer, and the error record every parser fills.
** The core never includes a Lua header and never prints or exits, save one
** place: an allocation that fails ends the process (pl_util.c, pl_oom).
*/
#ifndef PL_UTIL_H
#define PL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* Allocation: these abort only on true out-of-memory (malloc returning NULL),
** which the host turns into a clear message.  Everything else reports errors. */
/* The file being read on this thread, named by the out-of-memory message
** (set by the host around a load; NULL when none). */
extern _Thread_local const char *pl_oom_file;
void *pl_xmalloc(size_t n);
void *pl_xcalloc(size_t n, size_t sz);
void *pl_xrealloc(void *p, size_t n);
char *pl_xstrdup(const char *s);
char *pl_xstrndup(const char *s, size_t n);

/* Growable byte buffer, always NUL-terminated when len > 0 or after pl_buf_cstr. */
typedef struct pl_buf { char *data; size_t len, cap; } pl_buf;
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
** pl_err_format renders "FILE:LINE:COLUMN: MESSAGE". */
typedef struct pl_err {
  char file[512];
  size_t line, col;
  long long offset;         /* -1 when line/col are used */
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
int pl_err_expected(pl_err *e, size_t line, size_t col, const char *what,
                    const char *found, size_t n);
void pl_err_format(const pl_err *e, char *out, size_t outsz);

/* Shortest text that reads back as the same double ("%.15g" then "%.17g");
** NaN -> "nan", infinities -> "inf"/"-inf".  Returns the length. */
int pl_fmt_double(char *out, size_t outsz, double v);

#endif
