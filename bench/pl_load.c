/* pl_load.c -- a small driver over libperflab_core for benchmarks and manual
** checks while the host binary is elsewhere:
**   pl_load FILE [--format ID] [--table NAME]... [--show NAME] [--rows N] [--quiet]
** Loads FILE, prints tables (rows x columns), meta and diagnostics, and the
** first rows of --show tables.  Errors: FILE:LINE:COLUMN: ... and exit 2. */
#include "format.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *file = NULL, *fmt = NULL, *show[16];
  const char *tables[32];
  size_t nt = 0, ns = 0, rows = 10;
  int quiet = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) fmt = argv[++i];
    else if (strcmp(argv[i], "--table") == 0 && i + 1 < argc && nt < 31) tables[nt++] = argv[++i];
    else if (strcmp(argv[i], "--show") == 0 && i + 1 < argc && ns < 16) show[ns++] = argv[++i];
    else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = (size_t)atol(argv[++i]);
    else if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
    else file = argv[i];
  }
  if (!file) {
    fprintf(stderr, "usage: pl_load FILE [--format ID] [--table NAME]... [--show NAME] [--rows N] [--quiet]\n");
    return 2;
  }
  tables[nt] = NULL;
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  if (nt) o.tables = tables;
  pl_err err;
  pl_profile *p = pl_load_file(file, fmt, &o, &err);
  if (!p) {
    char msg[2048];
    pl_err_format(&err, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return 2;
  }
  if (!quiet) {
    printf("format %s\n", p->format);
    for (size_t i = 0; i < p->nmeta; i++) {
      if (p->meta[i].text) printf("meta %s = %s\n", p->meta[i].key, p->meta[i].text);
      else printf("meta %s = %.17g\n", p->meta[i].key, p->meta[i].num);
    }
    for (size_t i = 0; i < p->ntables; i++)
      printf("table %s: %zu rows x %zu columns\n", p->tables[i]->name, p->tables[i]->nrows, p->tables[i]->ncols);
    for (size_t i = 0; i < p->ndiags; i++) printf("diag %zu: %s\n", p->diags[i].line, p->diags[i].msg);
    for (size_t s = 0; s < ns; s++) {
      pl_table *t = pl_profile_find(p, show[s]);
      if (!t) {
        printf("(no table %s)\n", show[s]);
        continue;
      }
      pl_fmtopts fo = { 0, rows, 40, 6 };
      pl_buf b;
      pl_buf_init(&b);
      pl_table_format(t, &fo, &b);
      printf("== %s\n%s\n", show[s], pl_buf_cstr(&b));
      pl_buf_free(&b);
    }
  }
  pl_profile_free(p);
  return 0;
}
