/*
** profile.c -- the profile container: metadata, named tables, diagnostics.
*/
#include "profile.h"
#include "schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_MAX_DIAGS 1000

pl_profile *pl_profile_new(const char *format, const char *source) {
  pl_profile *p = pl_xcalloc(1, sizeof *p);
  p->format = pl_xstrdup(format ? format : "");
  p->source = pl_xstrdup(source ? source : "");
  return p;
}

void pl_profile_free(pl_profile *p) {
  if (p == NULL) return;
  for (size_t i = 0; i < p->nmeta; i++) {
    free(p->meta[i].key);
    free(p->meta[i].text);
  }
  for (size_t i = 0; i < p->ntables; i++) pl_table_free(p->tables[i]);
  for (size_t i = 0; i < p->ndiags; i++) free(p->diags[i].msg);
  free(p->meta);
  free(p->metaidx);
  free(p->tables);
  free(p->diags);
  free(p->format);
  free(p->source);
  free(p);
}

/* Meta keys are found through a hash index once there are more than a
** few (a torch-table file with hundreds of tables sets thousands of
** "tableN." keys; a scan per key would grow as the square). */
#define META_SCAN 16

static uint32_t meta_hash(const char *k) {
  uint32_t h = 2166136261u;
  for (; *k; k++) h = (h ^ (unsigned char)*k) * 16777619u;
  return h;
}

static void meta_index_put(pl_profile *p, size_t i) {
  size_t mask = p->nmetaidx - 1, j = meta_hash(p->meta[i].key) & mask;
  while (p->metaidx[j]) j = (j + 1) & mask;
  p->metaidx[j] = (uint32_t)(i + 1);
}

static long meta_find(const pl_profile *p, const char *key) {
  if (p->metaidx == NULL) {
    for (size_t i = 0; i < p->nmeta; i++)
      if (strcmp(p->meta[i].key, key) == 0) return (long)i;
    return -1;
  }
  size_t mask = p->nmetaidx - 1;
  for (size_t j = meta_hash(key) & mask; p->metaidx[j]; j = (j + 1) & mask)
    if (strcmp(p->meta[p->metaidx[j] - 1].key, key) == 0) return (long)(p->metaidx[j] - 1);
  return -1;
}

static pl_meta *meta_slot(pl_profile *p, const char *key) {
  long f = meta_find(p, key);
  if (f >= 0) {
    pl_meta *m = &p->meta[f];
    free(m->text);
    m->text = NULL;
    return m;
  }
  if (p->nmeta == p->capmeta) {
    p->capmeta = p->capmeta ? p->capmeta * 2 : 8;
    p->meta = pl_xrealloc(p->meta, p->capmeta * sizeof *p->meta);
  }
  size_t i = p->nmeta++;
  pl_meta *m = &p->meta[i];
  m->key = pl_xstrdup(key);
  m->text = NULL;
  m->num = 0;
  if (p->nmeta > META_SCAN && p->nmeta * 2 > p->nmetaidx) {
    /* (re)build at twice the keys' load factor */
    free(p->metaidx);
    p->nmetaidx = 64;
    while (p->nmetaidx < p->nmeta * 4) p->nmetaidx *= 2;
    p->metaidx = pl_xcalloc(p->nmetaidx, sizeof *p->metaidx);
    for (size_t k = 0; k < p->nmeta; k++) meta_index_put(p, k);
  } else if (p->metaidx) {
    meta_index_put(p, i);
  }
  return m;
}

void pl_profile_meta_str(pl_profile *p, const char *key, const char *s, size_t n) {
  pl_meta *m = meta_slot(p, key);
  m->text = pl_xstrndup(s, n);
}

void pl_profile_meta_num(pl_profile *p, const char *key, double v) {
  pl_meta *m = meta_slot(p, key);
  m->num = v;
}

const pl_meta *pl_profile_meta_get(const pl_profile *p, const char *key) {
  long f = meta_find(p, key);
  return f >= 0 ? &p->meta[f] : NULL;
}

pl_table *pl_profile_find(const pl_profile *p, const char *name) {
  for (size_t i = 0; i < p->ntables; i++)
    if (strcmp(p->tables[i]->name, name) == 0) return p->tables[i];
  return NULL;
}

void pl_profile_add_table(pl_profile *p, pl_table *t) {
  /* a standard column the parser gave no description has the schema's */
  pl_std_column std;
  for (size_t c = 0; c < t->ncols; c++)
    if (!t->cols[c]->doc && pl_schema_find(t->name, t->cols[c]->name, &std)) pl_table_set_doc(t, (int)c, std.doc);
  for (size_t i = 0; i < p->ntables; i++)
    if (strcmp(p->tables[i]->name, t->name) == 0) {
      pl_table_free(p->tables[i]);
      p->tables[i] = t;
      return;
    }
  if (p->ntables == p->captables) {
    p->captables = p->captables ? p->captables * 2 : 8;
    p->tables = pl_xrealloc(p->tables, p->captables * sizeof *p->tables);
  }
  p->tables[p->ntables++] = t;
}

pl_table *pl_profile_table(pl_profile *p, const char *name) {
  pl_table *t = pl_profile_find(p, name);
  if (t) return t;
  t = pl_table_new(name);
  pl_profile_add_table(p, t);
  return t;
}

void pl_profile_drop_empty(pl_profile *p) {
  size_t k = 0;
  for (size_t i = 0; i < p->ntables; i++) {
    if (p->tables[i]->nrows == 0 && p->tables[i]->ncols == 0) pl_table_free(p->tables[i]);
    else p->tables[k++] = p->tables[i];
  }
  p->ntables = k;
}

void pl_profile_diags_truncate(pl_profile *p, size_t n) {
  while (p->ndiags > n) free(p->diags[--p->ndiags].msg);
  if (n == 0 || p->ndiags < PL_MAX_DIAGS) p->ndiags_dropped = 0;
}

void pl_profile_diag(pl_profile *p, size_t line, const char *fmt, ...) {
  if (p->ndiags >= PL_MAX_DIAGS) {
    p->ndiags_dropped++;
    return;
  }
  if (p->ndiags == p->capdiags) {
    p->capdiags = p->capdiags ? p->capdiags * 2 : 16;
    p->diags = pl_xrealloc(p->diags, p->capdiags * sizeof *p->diags);
  }
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p->diags[p->ndiags].line = line;
  p->diags[p->ndiags].msg = pl_xstrdup(msg);
  p->ndiags++;
}
