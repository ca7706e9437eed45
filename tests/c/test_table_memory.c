/* test_table_memory.c -- pl_tables_memory: what a set of tables uses,
** each shared buffer and string pool counted once, worked out by hand
** from the parts (values in use, pool strings, records). */
#include "tcheck.h"
#include "table.h"

#include <string.h>

/* the records of one table with no columns: the table, its column array
** and its name */
static size_t records(const pl_table *t) { return sizeof *t + t->capcols * sizeof *t->cols + strlen(t->name) + 1; }

int main(void) {
  pl_table *t = pl_table_new("k");
  int ci = pl_table_add_col(t, "n", PL_INT);
  int cs = pl_table_add_col(t, "s", PL_STR);
  for (int i = 0; i < 1000; i++) {
    pl_row_put_int(t, ci, i);
    pl_row_put_str(t, cs, i % 2 ? "odd" : "even", i % 2 ? 3 : 4);
    pl_row_end(t);
  }
  const pl_table *one[1] = { t };
  size_t cols = 2 * sizeof(pl_column) + 2 * 2; /* "n" and "s" with their NULs */
  size_t want = records(t) + cols + 1000 * 8 + 1000 * 4 + pl_pool_memory(t->pool);
  TC_EQ_INT(pl_tables_memory(one, 1), want);
  /* the pool holds "odd" and "even": 3+1 + 4+1 bytes of strings, each
  ** behind its 4-byte length, plus its fixed parts */
  size_t pool_fixed = pl_pool_memory(t->pool) - (4 + 3 + 1) - (4 + 4 + 1);
  TC_CHECK(pool_fixed > 0);

  /* the same table twice counts once for its buffers and pool, twice for
  ** its records (the caller asked for it twice) */
  const pl_table *twice[2] = { t, t };
  TC_EQ_INT(pl_tables_memory(twice, 2), want + records(t) + cols);

  /* an alias shares the values: only its record is added */
  pl_table_add_alias(t, "n2", ci, 2);
  size_t with_alias = pl_tables_memory(one, 1);
  TC_EQ_INT(with_alias, records(t) + cols + sizeof(pl_column) + 3 + 1000 * 8 + 1000 * 4 + pl_pool_memory(t->pool));

  /* a derived table shares the pool: the pool once for both */
  pl_table *d = pl_table_new_like("d", t);
  int dc = pl_table_add_col(d, "s", PL_STR);
  pl_row_put_str(d, dc, "odd", 3); /* already in the pool: no new string */
  pl_row_end(d);
  const pl_table *both[2] = { t, d };
  size_t dmem = records(d) + sizeof(pl_column) + 2 + 4;
  TC_EQ_INT(pl_tables_memory(both, 2), with_alias + dmem);

  /* spare capacity is not charged: a reserve past len leaves it unchanged */
  TC_CHECK(t->cols[ci]->cap >= t->cols[ci]->len);

  pl_table_free(d);
  pl_table_free(t);
  TC_EQ_INT(pl_tables_memory(NULL, 0), 0);
  return tc_done();
}
