/*
** l_occupancy.c -- Lua module 'perflab.occupancy_calc': the CUDA occupancy
** calculator of src/core/occupancy.c over whole columns of launch shapes,
** one call per table.  Internal: perflab.cuda_occupancy.columns (Lua)
** resolves compute capabilities to the architecture tables of perflab.gpus
** and calls columns() here.
*/
#include "lbind.h"
#include "occupancy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The inputs a spec may hold (a column, a number, or nil), in the order
** of pl_occ_rows. */
enum {
  IN_ARCH = PL_OCC_IN_ARCH,
  IN_THREADS = PL_OCC_IN_THREADS,
  IN_BARRIERS = PL_OCC_IN_BARRIERS,
  IN_GRID = PL_OCC_IN_GRID,
  NIN = PL_OCC_NIN
};
static const char *const IN_NAMES[NIN] = { "arch",         "block_size",  "registers",         "smem_static",
                                           "smem_dynamic", "smem_config", "smem_driver",       "barriers",
                                           "grid_size",    "sm_count",    "max_threads_per_sm" };
static const char *const SPEC_KEYS[] = {
  "arch",         "block_size", "registers", "smem_static", "smem_dynamic",       "smem_config",
  "smem_driver",  "barriers",   "grid_size", "sm_count",    "max_threads_per_sm", "optin",
  "carveout_pct", "what_if",    NULL
};

static int64_t archfield(lua_State *L, int idx, const char *k, int i, int required) {
  lua_getfield(L, idx, k);
  int isnum;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  if (!isnum) {
    if (!required && lua_isnil(L, -1)) {
      lua_pop(L, 1);
      return 0;
    }
    return luaL_error(L, "occupancy: architecture %d: field '%s' must be an integer", i, k);
  }
  lua_pop(L, 1);
  return (int64_t)v;
}

/* archs[i] (a perflab.gpus.arch table) -> a */
static void read_arch(lua_State *L, int idx, int i, pl_occ_arch *a) {
  memset(a, 0, sizeof *a);
  a->warp_size = archfield(L, idx, "warp_size", i, 1);
  a->max_threads_per_block = archfield(L, idx, "max_threads_per_block", i, 1);
  a->max_warps_per_sm = archfield(L, idx, "max_warps_per_sm", i, 1);
  a->max_blocks_per_sm = archfield(L, idx, "max_blocks_per_sm", i, 1);
  a->regs_per_sm = archfield(L, idx, "regs_per_sm", i, 1);
  a->sub_partitions = archfield(L, idx, "sub_partitions", i, 1);
  a->regs_per_sub_partition = archfield(L, idx, "regs_per_sub_partition", i, 1);
  a->max_regs_per_block = archfield(L, idx, "max_regs_per_block", i, 1);
  a->max_regs_per_thread = archfield(L, idx, "max_regs_per_thread", i, 1);
  a->reg_alloc_unit = archfield(L, idx, "reg_alloc_unit", i, 1);
  a->warp_alloc_granularity = archfield(L, idx, "warp_alloc_granularity", i, 1);
  a->smem_per_sm = archfield(L, idx, "smem_per_sm", i, 1);
  a->max_smem_per_block_optin = archfield(L, idx, "max_smem_per_block_optin", i, 1);
  a->max_smem_per_block_default = archfield(L, idx, "max_smem_per_block_default", i, 1);
  a->smem_alloc_unit = archfield(L, idx, "smem_alloc_unit", i, 1);
  a->smem_reserved_per_block = archfield(L, idx, "smem_reserved_per_block", i, 1);
  a->max_threads_per_sm = archfield(L, idx, "max_threads_per_sm", i, 1);
  a->barrier_factor = archfield(L, idx, "barrier_factor", i, 0);
  if (a->warp_size <= 0 || a->max_warps_per_sm <= 0 || a->reg_alloc_unit <= 0 || a->smem_alloc_unit <= 0 ||
      a->warp_alloc_granularity <= 0)
    luaL_error(L, "occupancy: architecture %d: warp_size, max_warps_per_sm and the allocation units must be > 0", i);
  lua_getfield(L, idx, "smem_carveouts_kb");
  if (lua_istable(L, -1)) {
    lua_Integer nc = luaL_len(L, -1);
    if (nc > PL_OCC_MAX_CARVEOUTS)
      luaL_error(L, "occupancy: architecture %d: more than %d carveouts", i, PL_OCC_MAX_CARVEOUTS);
    for (lua_Integer j = 1; j <= nc; j++) {
      lua_geti(L, -1, j);
      int isnum;
      lua_Integer kb = lua_tointegerx(L, -1, &isnum);
      if (!isnum) luaL_error(L, "occupancy: architecture %d: carveouts must be integers (KB)", i);
      a->carveouts[a->ncarveouts++] = (int64_t)kb * 1024;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
}

typedef struct input {
  const pl_table *t;
  int col;
  int present;
  int64_t k;
} input;

/* spec[name]: a column (of n rows), a number, or nil.  Sets *n from the
** first column seen. */
static void read_input(lua_State *L, int spec, const char *name, input *in, size_t *n, int *have_n) {
  memset(in, 0, sizeof *in);
  lua_getfield(L, spec, name);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, -1, PL_COLUMN_T);
  if (c) {
    /* a string column counts as missing values (a map that gave nothing) */
    if (*have_n && c->t->nrows != *n)
      luaL_error(L, "occupancy: %s: %d rows, expected %d", name, (int)c->t->nrows, (int)*n);
    *n = c->t->nrows;
    *have_n = 1;
    in->t = c->t;
    in->col = c->col;
    in->present = 2;
    lua_pop(L, 1); /* the spec table keeps the column alive */
    return;
  }
  int isnum;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  if (!isnum) luaL_error(L, "occupancy: %s: expected a column or an integer, found %s", name, luaL_typename(L, -1));
  in->present = 1;
  in->k = (int64_t)v;
  lua_pop(L, 1);
}

/* The value of an input at row i: 1 and *v, or 0 when missing/absent. */
static int value(lua_State *L, const input *in, size_t i, const char *name, int64_t *v) {
  if (in->present == 1) {
    *v = in->k;
    return 1;
  }
  if (in->present != 2) return 0;
  const pl_column *c = in->t->cols[in->col];
  if (c->type == PL_INT) {
    if (c->v.i64[i] == PL_INT_NA) return 0;
    *v = c->v.i64[i];
    return 1;
  }
  double d = pl_cell_num(in->t, in->col, i);
  if (isnan(d)) return 0;
  if (d != floor(d) || fabs(d) > 9007199254740992.0)
    luaL_error(L, "occupancy: %s: row %d: expected an integer, found %f", name, (int)i + 1, d);
  *v = (int64_t)d;
  return 1;
}

/* occupancy_calc.columns(archs, spec) -> table of the results, one row per
** shape.  [archs spec] -> [archs spec ... T] */
static int occ_columns(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  pl_l_checkoptions(L, 2, SPEC_KEYS);
  lua_settop(L, 2);
  int narch = (int)luaL_len(L, 1);
  pl_occ_arch *archs = lua_newuserdatauv(L, (size_t)(narch > 0 ? narch : 1) * sizeof *archs, 0); /* 3 */
  for (int i = 1; i <= narch; i++) {
    lua_geti(L, 1, i);
    if (!lua_istable(L, -1)) return luaL_error(L, "occupancy: architecture %d is not a table", i);
    read_arch(L, lua_gettop(L), i, &archs[i - 1]);
    lua_pop(L, 1);
  }
  input in[NIN];
  size_t n = 1;
  int have_n = 0;
  for (int k = 0; k < NIN; k++) read_input(L, 2, IN_NAMES[k], &in[k], &n, &have_n);
  lua_getfield(L, 2, "optin");
  int optin = lua_isnil(L, -1) ? 1 : lua_toboolean(L, -1);
  lua_getfield(L, 2, "what_if");
  int what_if = lua_toboolean(L, -1);
  lua_getfield(L, 2, "carveout_pct");
  double carve = lua_isnil(L, -1) ? NAN : luaL_checknumber(L, -1);
  lua_pop(L, 3);
  int est = in[IN_GRID].present != 0;
  /* every input read and checked first (errors raise before the table is made) */
  int64_t *vals = lua_newuserdatauv(L, (n ? n : 1) * NIN * sizeof *vals, 0);
  unsigned char *has = lua_newuserdatauv(L, (n ? n : 1) * NIN, 0);
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < NIN; k++)
      has[i * NIN + k] = (unsigned char)value(L, &in[k], i, IN_NAMES[k], &vals[i * NIN + k]);
    const int64_t *v = &vals[i * NIN];
    if (has[i * NIN + IN_ARCH] && (v[IN_ARCH] < 1 || v[IN_ARCH] > narch))
      return luaL_error(L, "occupancy: arch: row %d: %d is not an architecture (1 to %d)", (int)i + 1, (int)v[IN_ARCH],
                        narch);
    if (has[i * NIN + IN_THREADS] && v[IN_THREADS] <= 0)
      return luaL_error(L, "occupancy: block_size must be > 0 (row %d)", (int)i + 1);
    if (has[i * NIN + IN_BARRIERS] && v[IN_BARRIERS] < 1)
      return luaL_error(L, "occupancy: barriers must be >= 1 (row %d)", (int)i + 1);
  }
  if (in[IN_ARCH].present == 0)
    return luaL_error(L, "occupancy: arch needed (a column or an index into the architectures)");
  pl_occ_rows rows = { n, vals, has, archs, narch, carve, optin, est, what_if };
  pl_l_pushtable(L, pl_occ_columns(&rows));
  return 1;
}

static const luaL_Reg fns[] = { { "columns", occ_columns }, { NULL, NULL } };

int luaopen_perflab_occupancy_calc(lua_State *L) {
  luaL_newlib(L, fns);
  return 1;
}
