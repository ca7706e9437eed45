/*
** occupancy.c -- the CUDA occupancy calculator (occupancy.h), step by step
** as gpu-facts.md section 1.4 states it and lua/perflab/cuda_occupancy.lua
** computes it (the two are checked against each other on every corpus
** shape and on a grid of shapes: tests/lua/test_occupancy_columns.lua).
*/
#include "occupancy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NOLIMIT INT64_MAX

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
/* floor division (the Lua // of the single-shape form) */
static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* the smallest supported capacity >= bytes; -1 when none */
static int64_t carveout_at_least(const pl_occ_arch *a, double bytes) {
  for (int i = 0; i < a->ncarveouts; i++)
    if ((double)a->carveouts[i] >= bytes) return a->carveouts[i];
  return -1;
}

void pl_occ_compute(const pl_occ_arch *a, const pl_occ_shape *s, pl_occ_result *r) {
  memset(r, 0, sizeof *r);
  int64_t T = s->threads, R = s->registers;
  int64_t s_res = s->smem_driver >= 0 ? s->smem_driver : a->smem_reserved_per_block;
  int64_t nbar = s->barriers >= 1 ? s->barriers : 1;
  /* step 0: warps per block (no rounding to 4) */
  int64_t W = ceil_div(T, a->warp_size);
  r->warps_per_block = W;
  /* step 1 */
  int64_t L_sm = a->max_blocks_per_sm;
  /* step 2 */
  int64_t L_warps = T > a->max_threads_per_block ? 0 : floordiv(a->max_warps_per_sm, W);
  /* step 3: registers, allocated per warp in units of reg_alloc_unit */
  int64_t L_regs = NOLIMIT;
  r->regs_per_warp = -1;
  if (R > 0) {
    int64_t rw = ceil_div(R * a->warp_size, a->reg_alloc_unit) * a->reg_alloc_unit;
    int64_t g = a->warp_alloc_granularity;
    r->regs_per_warp = rw;
    if (R > a->max_regs_per_thread + 1 || rw * W > a->max_regs_per_block || rw * ceil_div(W, g) * g > a->regs_per_sm)
      L_regs = 0;
    else L_regs = floordiv(floordiv(a->regs_per_sub_partition, rw) * a->sub_partitions, W);
  }
  /* step 4: shared memory */
  int64_t unit = a->smem_alloc_unit;
  int64_t A = ceil_div(s->smem_static + s->smem_dynamic + s_res, unit) * unit;
  r->smem_allocated = A;
  int64_t max_block = s->optin ? a->max_smem_per_block_optin : a->max_smem_per_block_default;
  r->max_smem_per_block = max_block;
  int64_t C = s->smem_config;
  if (C < 0) {
    double want =
        isnan(s->carveout_pct) ? (double)a->smem_per_sm : ceil(s->carveout_pct * (double)a->smem_per_sm / 100);
    C = carveout_at_least(a, want);
    if (C < 0) C = a->smem_per_sm;
    if (C < A) {
      int64_t c2 = carveout_at_least(a, (double)A);
      if (c2 >= 0) C = c2;
    }
    r->assumed = 1;
  }
  r->smem_config_used = C;
  int64_t L_smem;
  if (A > max_block + s_res) {
    L_smem = 0;
    r->invalid = PL_OCC_SMEM_ABOVE_MAX;
  } else if (A == 0) L_smem = NOLIMIT;
  else L_smem = floordiv(C, A);
  /* step 5: barriers (CC >= 9.0) */
  int64_t L_bar = NOLIMIT;
  r->limit_barriers = -1;
  if (a->barrier_factor > 0) {
    L_bar = floordiv(a->barrier_factor * L_sm, nbar);
    r->limit_barriers = L_bar;
  }
  /* step 7 */
  int64_t B = min64(min64(min64(L_sm, L_warps), min64(L_regs, L_smem)), L_bar);
  r->limit_sm = L_sm;
  r->limit_warps = L_warps;
  r->limit_regs = L_regs == NOLIMIT ? L_sm : L_regs;
  r->limit_smem = L_smem == NOLIMIT ? L_sm : L_smem;
  r->active_blocks = B;
  r->theoretical_warps = B * W;
  r->occupancy_pct = (double)(100 * B * W) / (double)a->max_warps_per_sm;
  if (B == 0 && r->invalid == PL_OCC_VALID)
    r->invalid = L_warps == 0 ? PL_OCC_BLOCK_ABOVE_MAX : L_regs == 0 ? PL_OCC_REGS_ABOVE_MAX : PL_OCC_NO_FIT;
  r->limiter = (L_sm == B ? PL_OCC_LIM_SM : 0) | (L_warps == B ? PL_OCC_LIM_WARPS : 0) |
               (L_regs == B ? PL_OCC_LIM_REGS : 0) | (L_smem == B ? PL_OCC_LIM_SMEM : 0) |
               (L_bar == B ? PL_OCC_LIM_BARRIERS : 0);
}

/* x rounded to IEEE single precision, kept as a double (Kineto's float) */
static double f32(double x) {
  volatile float f = (float)x;
  return (double)f;
}

int64_t pl_occ_est_pct(const pl_occ_arch *a, int64_t threads, int64_t registers, int64_t smem, int64_t grid,
                       int64_t sm_count, int64_t max_threads_per_sm) {
  if (sm_count <= 0) return -1;
  pl_occ_shape s = { threads, registers, smem, 0, -1, -1, 1, NAN, 0 };
  pl_occ_result o;
  pl_occ_compute(a, &s, &o);
  double maxthr = (double)(max_threads_per_sm > 0 ? max_threads_per_sm : a->max_threads_per_sm);
  double bps = f32((double)grid / (double)sm_count);
  double b = (double)o.active_blocks <= bps ? (double)o.active_blocks : bps;
  double occ = f32(f32(f32(b) * (double)threads) / maxthr);
  return (int64_t)floor(occ * 100 + 0.5);
}

void pl_occ_what_if(const pl_occ_arch *a, const pl_occ_shape *s, const pl_occ_result *r, pl_occ_whatif out[3]) {
  memset(out, 0, 3 * sizeof *out);
  pl_occ_shape base = *s;
  base.smem_config = a->smem_per_sm; /* the driver may raise the carveout */
  double cur = r->occupancy_pct;
  int64_t B = r->active_blocks, W = r->warps_per_block;
  if (B * W >= a->max_warps_per_sm) return;
  pl_occ_result o;
  /* registers: the largest count below the current that raises it */
  if (s->registers > 0) {
    for (int64_t r2 = s->registers - 1; r2 >= 1; r2--) {
      pl_occ_shape t = base;
      t.registers = r2;
      pl_occ_compute(a, &t, &o);
      if (o.occupancy_pct > cur) {
        out[PL_OCC_WI_REGS] = (pl_occ_whatif){ 1, r2, o.active_blocks, o.occupancy_pct };
        break;
      }
      if (r2 <= 8) break; /* the allocation is at its minimum */
    }
  }
  /* shared memory (static + dynamic per block): the next block count's share */
  int64_t S = s->smem_static + s->smem_dynamic;
  if (S > 0) {
    int64_t res_b = s->smem_driver >= 0 ? s->smem_driver : a->smem_reserved_per_block;
    int64_t unit = a->smem_alloc_unit, C = a->smem_per_sm;
    for (int64_t target = B + 1; target <= a->max_blocks_per_sm; target++) {
      int64_t S2 = floordiv(floordiv(C, target), unit) * unit - res_b;
      if (S2 < 0) break;
      if (S2 >= S) continue;
      pl_occ_shape t = base;
      t.smem_static = S2;
      t.smem_dynamic = 0;
      pl_occ_compute(a, &t, &o);
      if (o.occupancy_pct > cur) out[PL_OCC_WI_SMEM] = (pl_occ_whatif){ 1, S2, o.active_blocks, o.occupancy_pct };
      break;
    }
  }
  /* block size: the nearest multiple of 32 with a higher occupancy */
  int64_t best_d = -1;
  for (int64_t bs = 32; bs <= a->max_threads_per_block; bs += 32) {
    if (bs == s->threads) continue;
    pl_occ_shape t = base;
    t.threads = bs;
    pl_occ_compute(a, &t, &o);
    if (o.occupancy_pct > cur + 1e-9) {
      int64_t d = bs > s->threads ? bs - s->threads : s->threads - bs;
      if (best_d < 0 || d < best_d) {
        best_d = d;
        out[PL_OCC_WI_BLOCK] = (pl_occ_whatif){ 1, bs, o.active_blocks, o.occupancy_pct };
      }
    }
  }
}

int pl_occ_limiter_text(int limiter, const char *sep, char *out, int outsz) {
  static const char *const names[] = { "blocks", "warps", "registers", "shared memory", "barriers" };
  int n = 0;
  out[0] = '\0';
  for (int i = 0; i < 5; i++) {
    if (!(limiter & (1 << i))) continue;
    int w = snprintf(out + n, (size_t)(outsz - n), "%s%s", n ? sep : "", names[i]);
    if (w < 0 || w >= outsz - n) break;
    n += w;
  }
  return n;
}

int pl_occ_kb(int64_t n, char *out, int outsz) {
  if (n % 1024 == 0) return snprintf(out, (size_t)outsz, "%lld KB", (long long)(n / 1024));
  return snprintf(out, (size_t)outsz, "%.1f KB", (double)n / 1024);
}

int pl_occ_invalid_text(const pl_occ_result *r, char *out, int outsz) {
  switch (r->invalid) {
    case PL_OCC_SMEM_ABOVE_MAX: {
      char kb[32];
      pl_occ_kb(r->max_smem_per_block, kb, sizeof kb);
      return snprintf(out, (size_t)outsz, "%lld B of shared memory per block exceeds the %s per-block maximum",
                      (long long)r->smem_allocated, kb);
    }
    case PL_OCC_BLOCK_ABOVE_MAX: return snprintf(out, (size_t)outsz, "block size above the 1024-thread maximum");
    case PL_OCC_REGS_ABOVE_MAX: return snprintf(out, (size_t)outsz, "too many registers per block");
    case PL_OCC_NO_FIT: return snprintf(out, (size_t)outsz, "launch cannot fit on an SM");
    default: out[0] = '\0'; return 0;
  }
}

/* ---- whole columns of shapes -------------------------------------------- */

static pl_column *newcol(pl_table *r, const char *name, pl_type ty, size_t n) {
  int k = pl_table_add_col(r, name, ty); /* may move r->cols: index after the call */
  pl_column *c = r->cols[k];
  pl_column_reserve(c, n ? n : 1);
  c->len = n;
  return c;
}

/* The columns of the result, in their order. */
typedef struct occ_cols {
  pl_column *w, *sm, *wa, *re, *sh, *ba, *ab, *tw, *pc, *li, *in, *al, *cu, *rw, *as, *es;
  pl_column *wi[9];
} occ_cols;

static void occ_missing_row(occ_cols *c, size_t i) {
  pl_column *ints[] = { c->w, c->sm, c->wa, c->re, c->sh, c->ba, c->ab, c->tw, c->al, c->cu, c->rw };
  for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) ints[k]->v.i64[i] = PL_INT_NA;
  c->pc->v.num[i] = NAN;
  c->li->v.str[i] = 0;
  c->in->v.str[i] = 0;
  c->as->v.b[i] = PL_BOOL_NA;
  if (c->es) c->es->v.i64[i] = PL_INT_NA;
  for (int k = 0; c->wi[0] && k < 9; k++) {
    if (k % 3 == 2) c->wi[k]->v.num[i] = NAN;
    else c->wi[k]->v.i64[i] = PL_INT_NA;
  }
}

pl_table *pl_occ_columns(const pl_occ_rows *in) {
  size_t n = in->n;
  pl_table *r = pl_table_new("occupancy");
  occ_cols c = { 0 };
  c.w = newcol(r, "warps_per_block", PL_INT, n);
  c.sm = newcol(r, "block_limit_sm", PL_INT, n);
  c.wa = newcol(r, "block_limit_warps", PL_INT, n);
  c.re = newcol(r, "block_limit_registers", PL_INT, n);
  c.sh = newcol(r, "block_limit_smem", PL_INT, n);
  c.ba = newcol(r, "block_limit_barriers", PL_INT, n);
  c.ab = newcol(r, "active_blocks", PL_INT, n);
  c.tw = newcol(r, "theoretical_warps", PL_INT, n);
  c.pc = newcol(r, "theoretical_occupancy_pct", PL_NUM, n);
  c.li = newcol(r, "limiter", PL_STR, n);
  c.in = newcol(r, "invalid", PL_STR, n);
  c.al = newcol(r, "smem_per_block_allocated", PL_INT, n);
  c.cu = newcol(r, "smem_config_used", PL_INT, n);
  c.rw = newcol(r, "regs_per_warp_allocated", PL_INT, n);
  c.as = newcol(r, "assumed", PL_BOOL, n);
  c.es = in->est ? newcol(r, "est_achieved_occupancy_pct", PL_INT, n) : NULL;
  static const char *const WI[9] = { "what_if_registers",  "what_if_registers_blocks",  "what_if_registers_pct",
                                     "what_if_smem_bytes", "what_if_smem_blocks",       "what_if_smem_pct",
                                     "what_if_block_size", "what_if_block_size_blocks", "what_if_block_size_pct" };
  if (in->what_if)
    for (int k = 0; k < 9; k++) c.wi[k] = newcol(r, WI[k], k % 3 == 2 ? PL_NUM : PL_INT, n);
  uint32_t lim_ids[32] = { 0 };
  char text[256];
  for (size_t i = 0; i < n; i++) {
    const int64_t *v = &in->vals[i * PL_OCC_NIN];
    const unsigned char *h = &in->has[i * PL_OCC_NIN];
    if (!h[PL_OCC_IN_ARCH] || !h[PL_OCC_IN_THREADS]) {
      occ_missing_row(&c, i);
      continue;
    }
    const pl_occ_arch *a = &in->archs[v[PL_OCC_IN_ARCH] - 1];
    pl_occ_shape s = { v[PL_OCC_IN_THREADS],
                       h[PL_OCC_IN_REGS] ? v[PL_OCC_IN_REGS] : 0,
                       h[PL_OCC_IN_SSTATIC] ? v[PL_OCC_IN_SSTATIC] : 0,
                       h[PL_OCC_IN_SDYN] ? v[PL_OCC_IN_SDYN] : 0,
                       h[PL_OCC_IN_SCONFIG] ? v[PL_OCC_IN_SCONFIG] : -1,
                       h[PL_OCC_IN_SDRIVER] ? v[PL_OCC_IN_SDRIVER] : -1,
                       h[PL_OCC_IN_BARRIERS] ? v[PL_OCC_IN_BARRIERS] : 1,
                       in->carveout_pct,
                       in->optin };
    pl_occ_result o;
    pl_occ_compute(a, &s, &o);
    c.w->v.i64[i] = o.warps_per_block;
    c.sm->v.i64[i] = o.limit_sm;
    c.wa->v.i64[i] = o.limit_warps;
    c.re->v.i64[i] = o.limit_regs;
    c.sh->v.i64[i] = o.limit_smem;
    c.ba->v.i64[i] = o.limit_barriers >= 0 ? o.limit_barriers : PL_INT_NA;
    c.ab->v.i64[i] = o.active_blocks;
    c.tw->v.i64[i] = o.theoretical_warps;
    c.pc->v.num[i] = o.occupancy_pct;
    if (!lim_ids[o.limiter & 31]) {
      int ln = pl_occ_limiter_text(o.limiter, ", ", text, sizeof text);
      lim_ids[o.limiter & 31] = ln ? pl_pool_intern(r->pool, text, (size_t)ln) : 0;
    }
    c.li->v.str[i] = lim_ids[o.limiter & 31];
    if (o.invalid) {
      int ln = pl_occ_invalid_text(&o, text, sizeof text);
      c.in->v.str[i] = pl_pool_intern(r->pool, text, (size_t)(ln < (int)sizeof text ? ln : (int)sizeof text - 1));
    } else c.in->v.str[i] = 0;
    c.al->v.i64[i] = o.smem_allocated;
    c.cu->v.i64[i] = o.smem_config_used;
    c.rw->v.i64[i] = o.regs_per_warp >= 0 ? o.regs_per_warp : PL_INT_NA;
    c.as->v.b[i] = (uint8_t)o.assumed;
    if (c.es) {
      int64_t e = -1;
      if (h[PL_OCC_IN_GRID] && h[PL_OCC_IN_SMS])
        e = pl_occ_est_pct(a, s.threads, s.registers, s.smem_static + s.smem_dynamic, v[PL_OCC_IN_GRID],
                           v[PL_OCC_IN_SMS], h[PL_OCC_IN_MAXTHR] ? v[PL_OCC_IN_MAXTHR] : 0);
      c.es->v.i64[i] = e >= 0 ? e : PL_INT_NA;
    }
    if (c.wi[0]) {
      pl_occ_whatif w[3];
      pl_occ_what_if(a, &s, &o, w);
      for (int k = 0; k < 3; k++) {
        c.wi[3 * k]->v.i64[i] = w[k].found ? w[k].value : PL_INT_NA;
        c.wi[3 * k + 1]->v.i64[i] = w[k].found ? w[k].active_blocks : PL_INT_NA;
        c.wi[3 * k + 2]->v.num[i] = w[k].found ? w[k].occupancy_pct : NAN;
      }
    }
  }
  r->nrows = n;
  return r;
}
