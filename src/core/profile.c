/*
** profile.c -- the profile container: metadata, named tables, diagnostics.
*/
#include "profile.h"

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
  for (size_t i = 0; i < p->nmeta; i++) { free(p->meta[i].key); free(p->meta[i].text); }
  for (size_t i = 0; i < p->ntables; i++) pl_table_free(p->tables[i]);
  for (size_t i = 0; i < p->ndiags; i++) free(p->diags[i].msg);
  free(p->meta); free(p->tables); free(p->diags);
  free(p->format); free(p->source);
  free(p);
}

static pl_meta *meta_slot(pl_profile *p, const char *key) {
  for (size_t i = 0; i < p->nmeta; i++)
    if (strcmp(p->meta[i].key, key) == 0) { free(p->meta[i].text); p->meta[i].text = NULL; return &p->meta[i]; }
  if (p->nmeta == p->capmeta) {
    p->capmeta = p->capmeta ? p->capmeta * 2 : 8;
    p->meta = pl_xrealloc(p->meta, p->capmeta * sizeof *p->meta);
  }
  pl_meta *m = &p->meta[p->nmeta++];
  m->key = pl_xstrdup(key); m->text = NULL; m->num = 0;
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
  for (size_t i = 0; i < p->nmeta; i++) if (strcmp(p->meta[i].key, key) == 0) return &p->meta[i];
  return NULL;
}

pl_table *pl_profile_find(const pl_profile *p, const char *name) {
  for (size_t i = 0; i < p->ntables; i++) if (strcmp(p->tables[i]->name, name) == 0) return p->tables[i];
  return NULL;
}

void pl_profile_add_table(pl_profile *p, pl_table *t) {
  for (size_t i = 0; i < p->ntables; i++)
    if (strcmp(p->tables[i]->name, t->name) == 0) { pl_table_free(p->tables[i]); p->tables[i] = t; return; }
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

void pl_profile_diag(pl_profile *p, size_t line, const char *fmt, ...) {
  if (p->ndiags >= PL_MAX_DIAGS) { p->ndiags_dropped++; return; }
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
