/*
** profile.h -- what loading one input file produces: the format id, the
** source name, metadata (key -> text or number), named tables and
** diagnostics (what the parser skipped, with line numbers).
*/
#ifndef PL_PROFILE_H
#define PL_PROFILE_H

#include "table.h"

typedef struct pl_meta {
  char *key;
  char *text; /* NULL when the value is a number */
  double num;
} pl_meta;

typedef struct pl_diag {
  size_t line; /* 1-based; 0 when not line-oriented */
  char *msg;
} pl_diag;

typedef struct pl_profile {
  char *format;
  char *source;
  pl_meta *meta;
  size_t nmeta, capmeta;
  uint32_t *metaidx;
  size_t nmetaidx; /* key hash -> meta index + 1 (built past a few keys) */
  pl_table **tables;
  size_t ntables, captables;
  pl_diag *diags;
  size_t ndiags, capdiags;
  size_t ndiags_dropped; /* diagnostics past the cap are only counted */
} pl_profile;

pl_profile *pl_profile_new(const char *format, const char *source);
void pl_profile_free(pl_profile *p);
/* Sets (replaces) a metadata entry. */
void pl_profile_meta_str(pl_profile *p, const char *key, const char *s, size_t n);
void pl_profile_meta_num(pl_profile *p, const char *key, double v);
const pl_meta *pl_profile_meta_get(const pl_profile *p, const char *key);
/* Returns the table of that name, creating an empty one if absent. */
pl_table *pl_profile_table(pl_profile *p, const char *name);
pl_table *pl_profile_find(const pl_profile *p, const char *name);
/* Adds a table that the profile then owns (replacing one of the same name). */
void pl_profile_add_table(pl_profile *p, pl_table *t);
/* Removes and frees tables with no rows and no columns. */
void pl_profile_drop_empty(pl_profile *p);
/* Drops the diagnostics from the n-th on (a parser that starts over). */
void pl_profile_diags_truncate(pl_profile *p, size_t n);
void pl_profile_diag(pl_profile *p, size_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
