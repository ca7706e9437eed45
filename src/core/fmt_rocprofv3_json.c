/*
** fmt_rocprofv3_json.c -- format "rocprofv3-json": what `rocprofv3
** --output-format json` (rocprofiler-sdk's tool) writes:
**
**   { "rocprofiler-sdk-tool": [ {            one element per process
**       "metadata": {...}, "agents": [ {id:{handle}, type (1 CPU, 2 GPU),
**         product_name, name (gfx target), logical_node_type_id, ...} ],
**       "strings": { "buffer_records": [ {kind, operations: [names]} ], ... },
**       "kernel_symbols": [ {kernel_id, kernel_name, formatted_kernel_name,
**         arch_vgpr_count, accum_vgpr_count, sgpr_count, group_segment_size, ...} ],
**       "buffer_records": { "kernel_dispatch": [ {start_timestamp, end_timestamp,
**           thread_id, correlation_id:{internal}, dispatch_info:{agent_id:{handle},
**           queue_id:{handle}, kernel_id, dispatch_id, workgroup_size:{x,y,z},
**           grid_size:{x,y,z}, group_segment_size, private_segment_size}} ],
**         "hip_api": [ {kind, operation, start_timestamp, end_timestamp, thread_id,
**           correlation_id} ], "memory_copy": [ {operation, bytes, dst_agent_id,
**           src_agent_id, ...} ], ... } } ] }
**
** into the standard tables kernels (+ kernel_summary), runtime (HIP and HSA
** API calls; an operation's name is strings.buffer_records[kind]
** .operations[operation]), memcpy and devices, so that every timeline recipe
** runs on it.  The document is read by the pull tokenizer; each record (a
** small object) through the small DOM.  Sections may come in any order:
** names are resolved when the process element ends.
*/
#include "format.h"
#include "json.h"
#include "rocm.h"
#include "scan.h"

#include <stdlib.h>
#include <string.h>

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

typedef struct agent {
  int64_t handle, index;
  int gpu;
  uint32_t name, arch;
} agent;
typedef struct ksym {
  int64_t id;
  uint32_t name;
  int64_t vgpr, agpr, sgpr, lds, scratch;
} ksym;
typedef struct pend {
  int64_t kind, op;
  size_t row;
} pend; /* a runtime / memcpy row whose name comes later */

typedef struct rj {
  pl_json j;
  pl_jdoc d;
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  pl_pool *pool;
  pl_table *kn, *rt, *mc;
  agent *ag;
  size_t nag;
  ksym *ks;
  size_t nks;
  pend *prt;
  size_t nprt, cprt;
  pend *pmc;
  size_t npmc, cpmc;
  size_t cks;
  int64_t *kid;
  size_t nkid, ckid; /* kernel_id of each kernels row of this process */
  size_t kfirst;     /* first kernels row of this process */
  size_t kline;      /* byte offset + 1 of the first dispatch (for errors) */
  /* strings.buffer_records: names[kind][op] as pool ids */
  uint32_t **ops;
  size_t *nops;
  size_t nkinds;
  uint32_t *kindname;
  int seen_records, seen_symbols;
} rj;

/* grows *a (elements of sz bytes, *cap of them) to hold n + 1 */
static void *grow(void *a, size_t sz, size_t n, size_t *cap) {
  if (n < *cap) return a;
  *cap = *cap ? *cap * 2 : 256;
  return pl_xrealloc(a, *cap * sz);
}

static int64_t jint(const pl_jdoc *d, int o, const char *key) {
  int i = o >= 0 ? pl_jdoc_get(d, o, key) : -1;
  if (i < 0 || d->n[i].type != PL_JSON_NUM) return PL_INT_NA;
  if (d->n[i].isint) return d->n[i].ival;
  return pl_int_of(d->n[i].dval);
}
static int64_t jhandle(const pl_jdoc *d, int o, const char *key) {
  int i = o >= 0 ? pl_jdoc_get(d, o, key) : -1;
  if (i < 0) return PL_INT_NA;
  if (d->n[i].type == PL_JSON_OBJ) return jint(d, i, "handle");
  return jint(d, o, key);
}
static uint32_t jstr(rj *r, int o, const char *key) {
  int i = o >= 0 ? pl_jdoc_get(&r->d, o, key) : -1;
  size_t n;
  const char *s = i >= 0 && r->d.n[i].type == PL_JSON_STR ? pl_jdoc_str(&r->d, i, &n) : NULL;
  return s && n ? pl_pool_intern(r->pool, s, n) : 0;
}

static const agent *find_agent(const rj *r, int64_t h) {
  for (size_t i = 0; i < r->nag; i++)
    if (r->ag[i].handle == h) return &r->ag[i];
  return NULL;
}

/* Reads the array whose '[' was just returned, calling fn on each element
** (read into r->d, cleared per element). */
static int each(rj *r, int (*fn)(rj *, int, size_t)) {
  for (;;) {
    pl_json_type t = pl_json_next(&r->j);
    if (t == PL_JSON_ARR_END) return 0;
    if (t == PL_JSON_ERROR) return -1;
    size_t line = (size_t)(r->j.tok - r->j.base); /* a byte offset: lines are counted only for an error */
    pl_jdoc_clear(&r->d);
    int o = pl_jdoc_read(&r->d, &r->j);
    if (o < 0) return -1;
    if (r->d.n[o].type != PL_JSON_OBJ) return pl_json_fail(&r->j, r->j.tok, "an object (a record)");
    if (fn(r, o, line)) return -1;
  }
}

static int on_agent(rj *r, int o, size_t line) {
  (void)line;
  agent a;
  a.handle = jhandle(&r->d, o, "id");
  int64_t ty = jint(&r->d, o, "type");
  a.gpu = ty == 2;
  a.index = jint(&r->d, o, "logical_node_type_id");
  if (a.index == PL_INT_NA) {
    a.index = 0;
    for (size_t i = 0; i < r->nag; i++) a.index += r->ag[i].gpu == a.gpu;
  }
  a.name = jstr(r, o, "product_name");
  a.arch = jstr(r, o, "name");
  r->ag = pl_xrealloc(r->ag, (r->nag + 1) * sizeof *r->ag); /* a few agents */
  r->ag[r->nag++] = a;
  return 0;
}

static int on_symbol(rj *r, int o, size_t line) {
  (void)line;
  ksym k;
  k.id = jint(&r->d, o, "kernel_id");
  k.name = jstr(r, o, "formatted_kernel_name");
  uint32_t full = jstr(r, o, "demangled_kernel_name");
  if (!full) full = jstr(r, o, "kernel_name");
  if (full) k.name = full; /* the whole demangled name; short_name is worked out from it */
  k.vgpr = jint(&r->d, o, "arch_vgpr_count");
  k.agpr = jint(&r->d, o, "accum_vgpr_count");
  k.sgpr = jint(&r->d, o, "sgpr_count");
  k.lds = jint(&r->d, o, "group_segment_size");
  k.scratch = jint(&r->d, o, "private_segment_size");
  r->ks = grow(r->ks, sizeof *r->ks, r->nks, &r->cks);
  r->ks[r->nks++] = k;
  r->seen_symbols = 1;
  return 0;
}

static int on_dispatch(rj *r, int o, size_t line) {
  if (!r->kn) return 0;
  if (!r->kline) r->kline = line + 1;
  const pl_jdoc *d = &r->d;
  int di = pl_jdoc_get(d, o, "dispatch_info");
  if (di < 0) di = o; /* older layouts: the fields in the record itself */
  pl_cell v[AK_NCOLS];
  v[AK_NAME].s = v[AK_SHORT].s = v[AK_DEVNAME].s = 0;
  v[AK_START].i = jint(d, o, "start_timestamp");
  v[AK_END].i = jint(d, o, "end_timestamp");
  v[AK_LAUNCH].i = PL_INT_NA;
  const agent *a = find_agent(r, jhandle(d, di, "agent_id"));
  v[AK_DEV].i = a ? a->index : jhandle(d, di, "agent_id");
  if (a) v[AK_DEVNAME].s = a->name;
  v[AK_STREAM].i = jhandle(d, di, "queue_id");
  int ci = pl_jdoc_get(d, o, "correlation_id");
  v[AK_CORR].i = ci >= 0 && d->n[ci].type == PL_JSON_OBJ ? jint(d, ci, "internal") : jint(d, o, "correlation_id");
  v[AK_PID].i = PL_INT_NA;
  v[AK_TID].i = jint(d, o, "thread_id");
  int wg = pl_jdoc_get(d, di, "workgroup_size"), gs = pl_jdoc_get(d, di, "grid_size");
  static const char *const XYZ[] = { "x", "y", "z" };
  for (int i = 0; i < 3; i++) {
    v[AK_BX + i].i = jint(d, wg, XYZ[i]);
    v[AK_GIX + i].i = jint(d, gs, XYZ[i]);
  }
  v[AK_LDS].i = jint(d, di, "group_segment_size");
  v[AK_SCRATCH].i = jint(d, di, "private_segment_size");
  v[AK_DISPATCH].i = jint(d, di, "dispatch_id");
  v[AK_VGPR].i = v[AK_AGPR].i = v[AK_SGPR].i = PL_INT_NA;
  v[AK_WAVE].i = PL_INT_NA;
  pl_rocm_kernel_finish(v);
  pl_table_append(r->kn, v);
  r->kid = grow(r->kid, sizeof *r->kid, r->nkid, &r->ckid);
  r->kid[r->nkid++] = jint(d, di, "kernel_id");
  return 0;
}

static int on_api(rj *r, int o, size_t line) {
  (void)line;
  if (!r->rt) return 0;
  const pl_jdoc *d = &r->d;
  pl_cell v[AR_NCOLS];
  v[AR_NAME].s = v[AR_CAT].s = 0;
  v[AR_START].i = jint(d, o, "start_timestamp");
  v[AR_END].i = jint(d, o, "end_timestamp");
  int64_t a = v[AR_START].i, b = v[AR_END].i;
  v[AR_DUR].i = a != PL_INT_NA && b != PL_INT_NA && b >= a ? b - a : PL_INT_NA;
  int ci = pl_jdoc_get(d, o, "correlation_id");
  v[AR_CORR].i = ci >= 0 && d->n[ci].type == PL_JSON_OBJ ? jint(d, ci, "internal") : jint(d, o, "correlation_id");
  v[AR_PID].i = PL_INT_NA;
  v[AR_TID].i = jint(d, o, "thread_id");
  r->prt = grow(r->prt, sizeof *r->prt, r->nprt, &r->cprt);
  r->prt[r->nprt++] = (pend){ jint(d, o, "kind"), jint(d, o, "operation"), r->rt->nrows };
  pl_table_append(r->rt, v);
  return 0;
}

static int on_copy(rj *r, int o, size_t line) {
  (void)line;
  if (!r->mc) return 0;
  const pl_jdoc *d = &r->d;
  pl_cell v[AM_NCOLS];
  v[AM_NAME].s = v[AM_KIND].s = v[AM_SRC].s = v[AM_DST].s = 0;
  v[AM_START].i = jint(d, o, "start_timestamp");
  v[AM_END].i = jint(d, o, "end_timestamp");
  int64_t a = v[AM_START].i, b = v[AM_END].i;
  v[AM_DUR].i = a != PL_INT_NA && b != PL_INT_NA && b >= a ? b - a : PL_INT_NA;
  const agent *da = find_agent(r, jhandle(d, o, "dst_agent_id")), *sa = find_agent(r, jhandle(d, o, "src_agent_id"));
  v[AM_DEV].i = da && da->gpu ? da->index : sa && sa->gpu ? sa->index : PL_INT_NA;
  v[AM_DST].s = da ? pl_pool_intern(r->pool, da->gpu ? "GPU" : "CPU", 3) : 0;
  v[AM_SRC].s = sa ? pl_pool_intern(r->pool, sa->gpu ? "GPU" : "CPU", 3) : 0;
  v[AM_STREAM].i = PL_INT_NA;
  int ci = pl_jdoc_get(d, o, "correlation_id");
  v[AM_CORR].i = ci >= 0 && d->n[ci].type == PL_JSON_OBJ ? jint(d, ci, "internal") : jint(d, o, "correlation_id");
  v[AM_PID].i = PL_INT_NA;
  v[AM_BYTES].i = jint(d, o, "bytes");
  r->pmc = grow(r->pmc, sizeof *r->pmc, r->npmc, &r->cpmc);
  r->pmc[r->npmc++] = (pend){ jint(d, o, "kind"), jint(d, o, "operation"), r->mc->nrows };
  pl_table_append(r->mc, v);
  return 0;
}

static void free_ops(rj *r) {
  for (size_t k = 0; k < r->nkinds; k++) free(r->ops[k]);
  free(r->ops);
  free(r->nops);
  free(r->kindname);
  r->ops = NULL;
  r->nops = NULL;
  r->kindname = NULL;
  r->nkinds = 0;
}

/* strings: { "buffer_records": [ {kind, operations: [...]} ], ... } */
static int read_strings(rj *r) {
  pl_jdoc_clear(&r->d);
  int o = pl_jdoc_read(&r->d, &r->j);
  if (o < 0) return -1;
  int br = pl_jdoc_get(&r->d, o, "buffer_records");
  if (br < 0 || r->d.n[br].type != PL_JSON_ARR) return 0;
  free_ops(r);
  size_t nk = r->d.n[br].nchild;
  r->ops = pl_xcalloc(nk ? nk : 1, sizeof *r->ops);
  r->nops = pl_xcalloc(nk ? nk : 1, sizeof *r->nops);
  r->kindname = pl_xcalloc(nk ? nk : 1, sizeof *r->kindname);
  r->nkinds = nk;
  for (size_t k = 0; k < nk; k++) {
    int e = pl_jdoc_at(&r->d, br, k);
    r->kindname[k] = jstr(r, e, "kind");
    int ops = e >= 0 ? pl_jdoc_get(&r->d, e, "operations") : -1;
    if (ops < 0 || r->d.n[ops].type != PL_JSON_ARR) continue;
    size_t no = r->d.n[ops].nchild;
    r->ops[k] = pl_xcalloc(no ? no : 1, sizeof **r->ops);
    r->nops[k] = no;
    for (size_t i = 0; i < no; i++) {
      size_t n;
      const char *s = pl_jdoc_str(&r->d, pl_jdoc_at(&r->d, ops, i), &n);
      r->ops[k][i] = s && n ? pl_pool_intern(r->pool, s, n) : 0;
    }
  }
  return 0;
}

static int read_buffer_records(rj *r) {
  r->seen_records = 1;
  for (;;) {
    pl_json_type t = pl_json_next(&r->j);
    if (t == PL_JSON_OBJ_END) return 0;
    if (t != PL_JSON_KEY) return -1;
    int (*fn)(rj *, int, size_t) = NULL;
    if (pl_json_eq(&r->j, "kernel_dispatch")) fn = on_dispatch;
    else if (pl_json_eq(&r->j, "hip_api") || pl_json_eq(&r->j, "hsa_api")) fn = on_api;
    else if (pl_json_eq(&r->j, "memory_copy")) fn = on_copy;
    t = pl_json_next(&r->j);
    if (t == PL_JSON_ERROR) return -1;
    if (fn && t == PL_JSON_ARR) {
      if (each(r, fn)) return -1;
    } else if (pl_json_skip(&r->j)) return -1;
  }
}

static uint32_t op_name(const rj *r, int64_t kind, int64_t op, uint32_t *cat) {
  *cat = 0;
  if (kind == PL_INT_NA || kind < 0 || (uint64_t)kind >= r->nkinds) return 0;
  *cat = r->kindname[kind];
  if (op == PL_INT_NA || op < 0 || (uint64_t)op >= r->nops[kind]) return 0;
  return r->ops[kind][op];
}

static int ksym_cmp(const void *a, const void *b) {
  int64_t x = ((const ksym *)a)->id, y = ((const ksym *)b)->id;
  return (x > y) - (x < y);
}

/* the end of one process element: names from kernel_symbols and strings */
static int finish_process(rj *r, size_t line) {
  if (r->nks) qsort(r->ks, r->nks, sizeof *r->ks, ksym_cmp);
  if (!r->seen_records)
    return pl_err_set(
        r->err, line, 1,
        "expected a buffer_records section (the traced dispatches, API calls and copies) "
        "in the rocprofiler-sdk-tool element ending here, found none: the file is cut or not rocprofv3's JSON");
  size_t unnamed = 0;
  int cn = -1, cl = -1, cc[4] = { -1, -1, -1, -1 };
  if (r->kn) {
    static const char *const CC[4] = { "arch_vgpr", "accum_vgpr", "sgpr", "registers" };
    cn = pl_table_col(r->kn, "name");
    cl = pl_table_col(r->kn, "smem_static_bytes");
    for (int c = 0; c < 4; c++) cc[c] = pl_table_col(r->kn, CC[c]);
  }
  for (size_t i = 0; r->kn && i < r->nkid; i++) {
    size_t row = r->kfirst + i;
    ksym key;
    key.id = r->kid[i];
    const ksym *k = r->nks ? bsearch(&key, r->ks, r->nks, sizeof *r->ks, ksym_cmp) : NULL;
    if (!k) {
      unnamed++;
      continue;
    }
    r->kn->cols[cn]->v.str[row] = k->name;
    int64_t vals[4] = { k->vgpr, k->agpr, k->sgpr, k->vgpr };
    for (int c = 0; c < 4; c++) r->kn->cols[cc[c]]->v.i64[row] = vals[c];
    if (r->kn->cols[cl]->v.i64[row] == PL_INT_NA) r->kn->cols[cl]->v.i64[row] = k->lds;
  }
  size_t kl = 0, kc = 1;
  if (unnamed) pl_json_linecol(&r->j, r->j.base + r->kline - 1, &kl, &kc);
  if (unnamed)
    return pl_err_set(r->err, kl, kc,
                      "expected kernel_symbols naming every dispatched kernel_id, found %zu of %zu "
                      "dispatches%s without a symbol: the kernel_symbols section is %s",
                      unnamed, r->nkid, unnamed == 1 ? "" : "", r->seen_symbols ? "incomplete" : "missing");
  int rn = r->rt ? pl_table_col(r->rt, "name") : -1, rc_ = r->rt ? pl_table_col(r->rt, "cat") : -1;
  for (size_t i = 0; r->rt && i < r->nprt; i++) {
    uint32_t cat, nm = op_name(r, r->prt[i].kind, r->prt[i].op, &cat);
    r->rt->cols[rn]->v.str[r->prt[i].row] = nm;
    r->rt->cols[rc_]->v.str[r->prt[i].row] = cat;
  }
  for (size_t i = 0; r->mc && i < r->npmc; i++) {
    uint32_t cat, nm = op_name(r, r->pmc[i].kind, r->pmc[i].op, &cat);
    r->mc->cols[pl_table_col(r->mc, "name")]->v.str[r->pmc[i].row] = nm;
    size_t n = 0;
    const char *s = nm ? pl_pool_str(r->pool, nm, &n) : NULL;
    const char *kind = pl_rocm_copy_kind(s, n);
    r->mc->cols[pl_table_col(r->mc, "kind")]->v.str[r->pmc[i].row] =
        kind ? pl_pool_intern(r->pool, kind, strlen(kind)) : 0;
  }
  if ((r->rt && r->nprt && r->nkinds == 0) || (r->mc && r->npmc && r->nkinds == 0))
    pl_profile_diag(r->p, line, "no strings.buffer_records section: API call and copy names unknown");
  r->nkid = r->nprt = r->npmc = 0;
  r->kfirst = r->kn ? r->kn->nrows : 0;
  r->kline = 0;
  r->seen_records = r->seen_symbols = 0;
  return 0;
}

static int read_process(rj *r) {
  for (;;) {
    pl_json_type t = pl_json_next(&r->j);
    if (t == PL_JSON_OBJ_END) return finish_process(r, pl_json_line(&r->j));
    if (t != PL_JSON_KEY) return -1;
    int which = pl_json_eq(&r->j, "agents")           ? 1
                : pl_json_eq(&r->j, "kernel_symbols") ? 2
                : pl_json_eq(&r->j, "strings")        ? 3
                : pl_json_eq(&r->j, "buffer_records") ? 4
                                                      : 0;
    t = pl_json_next(&r->j);
    if (t == PL_JSON_ERROR) return -1;
    if (which == 1 && t == PL_JSON_ARR) {
      r->nag = 0;
      if (each(r, on_agent)) return -1;
    } else if (which == 2 && t == PL_JSON_ARR) {
      r->nks = 0;
      if (each(r, on_symbol)) return -1;
    } else if (which == 3 && t == PL_JSON_OBJ) {
      if (read_strings(r)) return -1;
    } else if (which == 4 && t == PL_JSON_OBJ) {
      if (read_buffer_records(r)) return -1;
    } else if (which == 4) return pl_json_fail(&r->j, r->j.tok, "buffer_records as an object of record arrays");
    else if (pl_json_skip(&r->j)) return -1;
  }
}

static const pl_coldef DV_COLS[] = {
  { "id", PL_INT, "GPU index (logical_node_type_id)" },
  { "name", PL_STR, NULL },
  { "arch", PL_STR, "GPU architecture (gfx target)" },
};

static int rj_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  rj *r = pl_xcalloc(1, sizeof *r);
  r->p = p;
  r->o = o;
  r->err = err;
  r->pool = pl_pool_new();
  pl_json_init(&r->j, in->data, in->len, err);
  pl_jdoc_init(&r->d);
  r->kn = pl_table_declare(o, "kernels", r->pool, pl_rocm_kernel_cols, AK_NCOLS, NULL);
  r->rt = pl_table_declare(o, "runtime", r->pool, pl_rocm_runtime_cols, AR_NCOLS, NULL);
  r->mc = pl_table_declare(o, "memcpy", r->pool, pl_rocm_memcpy_cols, AM_NCOLS, NULL);
  pl_table *dv = pl_table_declare(o, "devices", r->pool, DV_COLS, NCOLS(DV_COLS), NULL);
  int rc = -1, found = 0;
  size_t nproc = 0;
  if (pl_json_next(&r->j) != PL_JSON_OBJ) {
    if (r->j.type != PL_JSON_ERROR) pl_json_fail(&r->j, r->j.tok, "a JSON object");
    goto done;
  }
  for (;;) {
    pl_json_type t = pl_json_next(&r->j);
    if (t == PL_JSON_OBJ_END) break;
    if (t != PL_JSON_KEY) goto done;
    int tool = pl_json_eq(&r->j, "rocprofiler-sdk-tool");
    t = pl_json_next(&r->j);
    if (t == PL_JSON_ERROR) goto done;
    if (!tool) {
      if (pl_json_skip(&r->j)) goto done;
      continue;
    }
    found = 1;
    if (t != PL_JSON_ARR) {
      pl_json_fail(&r->j, r->j.tok, "an array of processes after \"rocprofiler-sdk-tool\"");
      goto done;
    }
    for (;;) {
      t = pl_json_next(&r->j);
      if (t == PL_JSON_ARR_END) break;
      if (t != PL_JSON_OBJ) {
        if (t != PL_JSON_ERROR) pl_json_fail(&r->j, r->j.tok, "a process object");
        goto done;
      }
      if (read_process(r)) goto done;
      nproc++;
      /* its GPU agents */
      for (size_t i = 0; dv && i < r->nag; i++) {
        if (!r->ag[i].gpu) continue;
        int dup = 0;
        for (size_t k = 0; k < dv->nrows && !dup; k++) dup = pl_cell_int(dv, 0, k) == r->ag[i].index;
        if (dup) continue;
        pl_row_put_int(dv, 0, r->ag[i].index);
        if (r->ag[i].name) pl_row_put_strid(dv, 1, r->ag[i].name);
        if (r->ag[i].arch) pl_row_put_strid(dv, 2, r->ag[i].arch);
        pl_row_end(dv);
      }
    }
  }
  if (pl_json_next(&r->j) != PL_JSON_EOF) {
    if (r->j.type != PL_JSON_ERROR) pl_json_fail(&r->j, r->j.tok, "the end of the document");
    goto done;
  }
  if (!found) {
    pl_err_set(err, 1, 1, "expected a \"rocprofiler-sdk-tool\" member (rocprofv3 --output-format json), found none");
    goto done;
  }
  if (nproc == 0) {
    pl_err_set(err, 1, 1, "expected at least one process in \"rocprofiler-sdk-tool\", found an empty array");
    goto done;
  }
  pl_profile_meta_str(p, "tool", "rocprofv3", 9);
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  if (dv && dv->nrows > 0) {
    int one = 1;
    for (size_t i = 1; i < dv->nrows; i++)
      if (dv->cols[1]->v.str[i] != dv->cols[1]->v.str[0]) one = 0;
    size_t n;
    const char *s;
    if (one && (s = pl_cell_str(dv, 1, 0, &n))) pl_profile_meta_str(p, "device", s, n);
    if (one && (s = pl_cell_str(dv, 2, 0, &n))) pl_profile_meta_str(p, "arch", s, n);
  }
  if (r->kn) {
    /* by start, as a timeline is read */
    int cs = pl_table_col(r->kn, "start_ns");
    pl_sortkey k = { cs, 0 };
    size_t *ord = pl_table_order(r->kn, &k, 1);
    pl_table *sorted = pl_table_take(r->kn, ord, r->kn->nrows);
    free(ord);
    pl_table_free(r->kn);
    r->kn = NULL;
    pl_rocm_add_kernels(p, o, sorted);
  }
  if (r->rt && r->rt->nrows) {
    pl_profile_add_table(p, r->rt);
    r->rt = NULL;
  }
  if (r->mc && r->mc->nrows) {
    pl_profile_add_table(p, r->mc);
    r->mc = NULL;
  }
  if (dv && dv->nrows) {
    pl_profile_add_table(p, dv);
    dv = NULL;
  }
  rc = 0;
done:
  if (rc && err->msg[0] == '\0') pl_err_set(err, pl_json_line(&r->j), 1, "could not read the rocprofv3 JSON");
  pl_table_free(r->kn);
  pl_table_free(r->rt);
  pl_table_free(r->mc);
  pl_table_free(dv);
  free(r->ag);
  free(r->ks);
  free(r->prt);
  free(r->pmc);
  free(r->kid);
  free_ops(r);
  pl_jdoc_free(&r->d);
  pl_json_free(&r->j);
  pl_pool_release(r->pool);
  if (rc == 0 && o && o->progress) o->progress(o->progress_ud, in->len, in->len);
  free(r);
  return rc;
}

static int rj_detect(const char *data, size_t len) {
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
  if (i >= len || data[i] != '{') return 0;
  return pl_find(data, len < 4096 ? len : 4096, "\"rocprofiler-sdk-tool\"") ? 100 : 0;
}

const pl_format pl_fmt_rocprofv3_json = {
  "rocprofv3-json",
  "AMD rocprofv3 --output-format json (rocprofiler-sdk-tool): kernel dispatches, HIP/HSA API calls, memory copies, "
  "agents",
  "kernels kernel_summary runtime memcpy devices",
  rj_detect,
  rj_parse,
};
