/* test_schema.c -- the standard tables' schema (src/core/schema.c):
**   1. docs/standard-tables.md is what pl_schema_markdown prints (`test_schema print`
**      writes it: build/test_schema print > docs/standard-tables.md);
**   2. every format's standard tables conform: on every seed, corpus, fixture
**      and example file that loads, each standard column present has the
**      schema's type (kernels.duration_ns may be a number where the table has
**      no start_ns: ncu and kernel tables measure durations off a timeline);
**   3. pl_std_col and pl_table_declare give the schema's type and doc, and
**      pl_std_col -1 off the schema. */
#define _XOPEN_SOURCE 700
#include "tcheck.h"
#include "format.h"
#include "profile.h"
#include "schema.h"

#include <ftw.h>

static size_t loaded, tables_checked, cols_checked;
static size_t nonconforming(const pl_profile *p, const char *path);

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  if (type != FTW_F) return 0;
  size_t n = strlen(path);
  static const char *skip[] = { ".md", ".lua", ".c", ".py", ".sh", ".ipynb" };
  for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++) {
    size_t k = strlen(skip[i]);
    if (n >= k && strcmp(path + n - k, skip[i]) == 0) return 0;
  }
  pl_err err = { 0 };
  pl_profile *p = pl_load_file(path, NULL, NULL, &err);
  if (!p) return 0; /* bad-input fixtures: their errors are tested elsewhere */
  loaded++;
  size_t bad = nonconforming(p, path);
  if (bad == 0) tc_pass++;
  else tc_fail++;
  pl_profile_free(p);
  return 0;
}

/* The number of standard columns of p whose type is not the schema's
** (each named on stderr when `path` is not NULL). */
static size_t nonconforming(const pl_profile *p, const char *path) {
  size_t bad = 0;
  for (size_t t = 0; t < p->ntables; t++) {
    const pl_table *tb = p->tables[t];
    int timeline = pl_table_col(tb, "start_ns") >= 0, any = 0;
    for (size_t c = 0; c < tb->ncols; c++) {
      pl_std_column sc;
      if (!pl_schema_find(tb->name, tb->cols[c]->name, &sc)) continue;
      any = 1;
      cols_checked++;
      pl_type want = sc.type;
      if (!timeline && strcmp(tb->name, "kernels") == 0 && strcmp(sc.name, "duration_ns") == 0 &&
          tb->cols[c]->type == PL_NUM)
        want = PL_NUM;
      if (tb->cols[c]->type != want) {
        bad++;
        if (path)
          fprintf(stderr, "%s (%s): %s.%s is %s, the schema says %s\n", path, p->format, tb->name, sc.name,
                  pl_type_name(tb->cols[c]->type), pl_type_name(want));
      }
    }
    tables_checked += (size_t)any;
  }
  return bad;
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  pl_buf b;
  pl_buf_init(&b);
  char tmp[4096];
  size_t k;
  while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) pl_buf_add(&b, tmp, k);
  fclose(f);
  *n = b.len;
  return b.data;
}

int main(int argc, char **argv) {
  pl_buf md;
  pl_buf_init(&md);
  pl_schema_markdown(&md);
  if (argc > 1 && strcmp(argv[1], "print") == 0) {
    fwrite(md.data, 1, md.len, stdout);
    pl_buf_free(&md);
    return 0;
  }
  const char *src = getenv("PERFLAB_SRC"), *data = getenv("PERFLAB_DATA");
  TC_CHECK(src && data);
  if (!src || !data) return tc_done();

  /* 1. docs/standard-tables.md */
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/standard-tables.md", src);
  size_t n = 0;
  char *doc = tc_need(path) ? slurp(path, &n) : NULL;
  TC_CHECK(doc && n == md.len && memcmp(doc, md.data, n) == 0);
  if (doc && !(n == md.len && memcmp(doc, md.data, n) == 0))
    fprintf(stderr,
            "docs/standard-tables.md differs from the schema: build/test_schema print > docs/standard-tables.md\n");
  free(doc);
  /* the Markdown holds every column: count its table rows by hand */
  size_t rows = 0, ncols = 0;
  for (const char *s = md.data; (s = strstr(s, "\n| `")) != NULL; s++) rows++;
  pl_std_column sc;
  while (pl_schema_column(ncols, &sc)) ncols++;
  TC_EQ_INT(rows, ncols);
  pl_buf_free(&md);

  /* 3. pl_std_col */
  pl_table *k = pl_table_new("kernels");
  int c = pl_std_col(k, "start_ns", NULL);
  TC_CHECK(c >= 0 && k->cols[c]->type == PL_INT);
  TC_CHECK(c >= 0 && k->cols[c]->doc && strstr(k->cols[c]->doc, "ns"));
  c = pl_std_col(k, "device_name", "mine");
  TC_CHECK(c >= 0 && k->cols[c]->type == PL_STR && strcmp(k->cols[c]->doc, "mine") == 0);
  TC_EQ_INT(pl_std_col(k, "not_a_standard_column", NULL), -1);
  pl_table_free(k);
  pl_table *x = pl_table_new("not_standard");
  TC_EQ_INT(pl_std_col(x, "start_ns", NULL), -1);
  pl_table_free(x);
  /* pl_table_declare: the schema types a standard column whatever the list
  ** says; a format's own column keeps its type; an unwanted table is NULL */
  static const char *const only_k[] = { "kernels", NULL };
  pl_parse_opts o = { 0 };
  o.tables = only_k;
  static const pl_coldef defs[] = {
    { "start_ns", PL_NUM, "start" },
    { "device", PL_STR, NULL },
    { "my_metric", PL_NUM, "mine" },
  };
  int cols[3];
  pl_pool *pool = pl_pool_new();
  pl_table *d = pl_table_declare(&o, "kernels", pool, defs, 3, cols);
  TC_CHECK(d && d->pool == pool && d->ncols == 3);
  if (d) {
    TC_CHECK(d->cols[cols[0]]->type == PL_INT && strcmp(d->cols[cols[0]]->doc, "start") == 0);
    TC_CHECK(d->cols[cols[1]]->type == PL_INT && strstr(d->cols[cols[1]]->doc, "index") != NULL);
    TC_CHECK(d->cols[cols[2]]->type == PL_NUM && strcmp(d->cols[cols[2]]->name, "my_metric") == 0);
  }
  pl_table_free(d);
  TC_CHECK(pl_table_declare(&o, "memcpy", pool, defs, 3, cols) == NULL);
  pl_pool_release(pool);
  TC_CHECK(pl_schema_find("memcpy", "duration_ns", &sc) && sc.type == PL_INT);
  TC_CHECK(pl_schema_find("kernels", "device", &sc) && sc.type == PL_INT);

  /* the check itself: a hand-made profile with nvprof's old types (start_ns
  ** a double, device a name) has exactly those two columns flagged; a kernel
  ** table without start_ns may hold duration_ns as a number, one with it not */
  pl_profile *hp = pl_profile_new("hand", "hand");
  pl_table *hk = pl_table_new("kernels");
  pl_table_add_col(hk, "name", PL_STR);
  pl_table_add_col(hk, "start_ns", PL_NUM);
  pl_table_add_col(hk, "device", PL_STR);
  pl_table_add_col(hk, "registers", PL_NUM); /* not standard: not checked */
  pl_profile_add_table(hp, hk);
  TC_EQ_INT(nonconforming(hp, NULL), 2);
  pl_table_add_col(hk, "duration_ns", PL_NUM);
  TC_EQ_INT(nonconforming(hp, NULL), 3);
  pl_table_drop_col(hk, pl_table_col(hk, "start_ns"));
  TC_EQ_INT(nonconforming(hp, NULL), 1); /* device only */
  pl_profile_free(hp);
  cols_checked = tables_checked = 0;

  /* 2. every file that loads */
  static const char *dirs[] = { "seeds", "corpus" };
  for (size_t i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", data, dirs[i]);
    if (tc_need(path)) nftw(path, visit, 16, FTW_PHYS);
  }
  static const char *srcdirs[] = { "tests/fixtures", "examples" };
  for (size_t i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", src, srcdirs[i]);
    if (tc_need(path)) nftw(path, visit, 16, FTW_PHYS);
  }
  printf("%zu files loaded, %zu standard tables, %zu columns checked\n", loaded, tables_checked, cols_checked);
  TC_CHECK(loaded >= 100);
  TC_CHECK(cols_checked >= 1000);
  return tc_done();
}
