/*
** tsame.h -- are two profiles the same, exactly: every table (names,
** order, columns, types, every cell, string ids included), the metadata
** and the diagnostics.  Prints the first difference.  Shared by
** test_kineto_par.c, test_line_par.c and test_gzstream.c.
*/
#ifndef TSAME_H
#define TSAME_H
#include "tcheck.h"
#include "format.h"
#include "profile.h"

#include <dirent.h>
#include <sys/stat.h>

__attribute__((unused)) static int same_table(const pl_table *a, const pl_table *b, const char *what) {
  if (strcmp(a->name, b->name) != 0 || a->nrows != b->nrows || a->ncols != b->ncols) {
    fprintf(stderr, "%s: table %s (%zu rows, %zu cols) vs %s (%zu rows, %zu cols)\n", what, a->name, a->nrows, a->ncols,
            b->name, b->nrows, b->ncols);
    return 0;
  }
  if (pl_pool_count(a->pool) != pl_pool_count(b->pool)) {
    fprintf(stderr, "%s: table %s: %zu vs %zu pooled strings\n", what, a->name, pl_pool_count(a->pool),
            pl_pool_count(b->pool));
    return 0;
  }
  for (size_t c = 0; c < a->ncols; c++) {
    const pl_column *x = a->cols[c], *y = b->cols[c];
    if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->len != y->len || !x->doc != !y->doc ||
        (x->doc && strcmp(x->doc, y->doc) != 0)) {
      fprintf(stderr, "%s: %s column %zu: %s vs %s\n", what, a->name, c, x->name, y->name);
      return 0;
    }
    for (size_t r = 0; r < a->nrows; r++) {
      int same;
      if (x->type == PL_STR) {
        size_t la, lb;
        const char *sa = x->v.str[r] ? pl_pool_str(a->pool, x->v.str[r], &la) : "";
        const char *sb = y->v.str[r] ? pl_pool_str(b->pool, y->v.str[r], &lb) : "";
        if (!x->v.str[r]) la = 0;
        if (!y->v.str[r]) lb = 0;
        /* the same text, and the same id: interning order is the serial one */
        same = x->v.str[r] == y->v.str[r] && la == lb && memcmp(sa, sb, la) == 0;
      } else if (x->type == PL_BOOL) same = x->v.b[r] == y->v.b[r];
      else same = memcmp(&x->v.i64[r], &y->v.i64[r], 8) == 0; /* NaN bits too */
      if (!same) {
        fprintf(stderr, "%s: %s.%s row %zu differs\n", what, a->name, x->name, r + 1);
        return 0;
      }
    }
  }
  return 1;
}

__attribute__((unused)) static int same_profile(const pl_profile *a, const pl_profile *b, const char *what) {
  if (a->ntables != b->ntables || a->nmeta != b->nmeta || a->ndiags != b->ndiags ||
      a->ndiags_dropped != b->ndiags_dropped) {
    fprintf(stderr, "%s: %zu/%zu tables, %zu/%zu meta, %zu/%zu diagnostics\n", what, a->ntables, b->ntables, a->nmeta,
            b->nmeta, a->ndiags, b->ndiags);
    return 0;
  }
  if (pl_pool_count(a->tables[0]->pool) != pl_pool_count(b->tables[0]->pool)) {
    fprintf(stderr, "%s: %zu vs %zu pooled strings\n", what, pl_pool_count(a->tables[0]->pool),
            pl_pool_count(b->tables[0]->pool));
    return 0;
  }
  for (size_t i = 0; i < a->ntables; i++)
    if (!same_table(a->tables[i], b->tables[i], what)) return 0;
  for (size_t i = 0; i < a->nmeta; i++) {
    const pl_meta *x = &a->meta[i], *y = &b->meta[i];
    int same = strcmp(x->key, y->key) == 0 && !x->text == !y->text &&
               (x->text ? strcmp(x->text, y->text) == 0 : memcmp(&x->num, &y->num, sizeof x->num) == 0);
    if (!same) {
      fprintf(stderr, "%s: meta %s differs\n", what, x->key);
      return 0;
    }
  }
  for (size_t i = 0; i < a->ndiags; i++)
    if (a->diags[i].line != b->diags[i].line || strcmp(a->diags[i].msg, b->diags[i].msg) != 0) {
      fprintf(stderr, "%s: diagnostic %zu: %s vs %s\n", what, i + 1, a->diags[i].msg, b->diags[i].msg);
      return 0;
    }
  return 1;
}

/* data read as name in format fmt with jobs threads and pieces of chunk
** bytes (0: the default); NULL with the error in err on failure. */
__attribute__((unused)) static pl_profile *tsame_load(const char *fmt, const char *name, const char *data, size_t len,
                                                      int jobs, size_t chunk, int lenient, char *err, size_t errsz) {
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  o.jobs = jobs;
  o.chunk_bytes = chunk;
  o.lenient = lenient;
  pl_err e;
  pl_err_clear(&e);
  pl_profile *p = pl_load_buffer(name, data, len, fmt, &o, &e);
  err[0] = '\0';
  if (!p) pl_err_format(&e, err, errsz);
  return p;
}

/* Reads data (format fmt) with jobs 1, then with each (jobs[i], chunks[i]), i < nrun: 1
** when every read gives the same profile, or the same error. */
__attribute__((unused)) static int tsame_jobs(const char *fmt, const char *name, const char *data, size_t len,
                                              const int *jobs, const size_t *chunks, size_t nrun, int lenient) {
  char e1[2048], e2[2048], what[1200];
  pl_profile *ref = tsame_load(fmt, name, data, len, 1, 0, lenient, e1, sizeof e1);
  int ok = 1;
  for (size_t i = 0; i < nrun && ok; i++) {
    pl_profile *p = tsame_load(fmt, name, data, len, jobs[i], chunks[i], lenient, e2, sizeof e2);
    snprintf(what, sizeof what, "%s (jobs %d, pieces of %zu bytes%s)", name, jobs[i], chunks[i],
             lenient ? ", lenient" : "");
    if (!ref || !p) {
      ok = !ref && !p && strcmp(e1, e2) == 0;
      if (!ok) fprintf(stderr, "%s: error '%s' vs '%s'\n", what, e1, e2);
    } else ok = same_profile(ref, p, what);
    pl_profile_free(p);
  }
  pl_profile_free(ref);
  return ok;
}

/* Calls fn(path, data, len) for every file under dir (recursively) that
** pl_format_detect takes for format fmt_id (a .gz inflated by gzip(1):
** pl_load_buffer reads plain text).  Returns how many it called fn for. */
__attribute__((unused)) static size_t tsame_walk(const char *dir, const char *fmt_id,
                                                 void (*fn)(const char *path, const char *data, size_t len)) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *de;
  char **names = NULL;
  size_t n = 0, found = 0;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n++] = strdup(de->d_name);
  }
  closedir(d);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) found += tsame_walk(path, fmt_id, fn);
    else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      size_t len;
      char *data = strstr(path, ".gz") ? tc_gunzip(path, &len) : tc_slurp(path, &len);
      const pl_format *f = data ? pl_format_detect(data, len < 65536 ? len : 65536) : NULL;
      if (f && strcmp(f->id, fmt_id) == 0) {
        found++;
        fn(path, data, len);
      }
      free(data);
    }
    free(names[i]);
  }
  free(names);
  return found;
}

#endif
