/*
** fmt_markdown.c -- format "markdown": any Markdown document's pipe tables,
** each as a generic table named after the heading above it (snake_case;
** "table" before any heading; "_2", "_3" ... when a name repeats).  Columns
** are typed by content (numbers with thousands separators and '%' read as
** numbers, "-" as missing).  It scores low so that formats with their own
** markers (comparison-report, ...) win on their files.
*/
#include "format.h"
#include "mdtable.h"
#include "scan.h"

#include <stdio.h>
#include <string.h>

static int md_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  while (pl_lines_next(&c, &l)) {
    if (pl_md_table_starts(&c, l.s, l.n)) return 20;
  }
  return 0;
}

static int md_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, in->data, in->len);
  char heading[96] = "table";
  int ntables = 0, skipped = 0;
  size_t first_skip = 0;
  while (pl_lines_next(&c, &l)) {
    if (o && o->interrupt && *o->interrupt) return pl_err_set(err, c.lineno, 1, "interrupted");
    const char *s = l.s;
    size_t n = l.n;
    pl_trim(&s, &n);
    if (n == 0) continue;
    if (s[0] == '#') {
      while (n > 0 && *s == '#') {
        s++;
        n--;
      }
      if (pl_md_snake(s, n, heading, sizeof heading - 8) == 0) snprintf(heading, sizeof heading, "table");
      continue;
    }
    if (pl_md_table_starts(&c, l.s, l.n)) {
      char name[112];
      snprintf(name, sizeof name, "%s", heading);
      for (int k = 2; pl_profile_find(p, name); k++) snprintf(name, sizeof name, "%s_%d", heading, k);
      pl_table *t = pl_md_read_table_lenient(&c, &l, name, NULL, NULL, o, p, err);
      if (!t) return -1;
      ntables++;
      if (pl_want_table(o, name)) pl_profile_add_table(p, t);
      else pl_table_free(t);
      continue;
    }
    if (!skipped++) first_skip = c.lineno;
  }
  if (ntables == 0)
    return pl_err_expected(err, 1, 1, "a Markdown pipe table (a '| ... |' header row and a '|---|' delimiter row)",
                           in->data, in->len);
  if (skipped) pl_profile_diag(p, first_skip, "skipped %d line(s) of text outside the tables", skipped);
  pl_profile_meta_num(p, "tables", ntables);
  return 0;
}

const pl_format pl_fmt_markdown = {
  "markdown",
  "any Markdown pipe tables, each as a generic table named after its heading",
  "(one table per Markdown table, named after its heading)",
  md_detect,
  md_parse,
};
