/*
** fmt_mem_timeline.c -- format "memory-timeline": PyTorch's raw memory
** timeline, torch.profiler.profile.export_memory_timeline(path) with a
** ".raw.json" name (torch/profiler/_memory_profiler.py,
** export_memory_timeline_raw), plain or gzip: a JSON array of
** [t_ns, action, bytes, category] rows.  HTA's MemoryAnalysis reads it.
**
**   action    1 PREEXISTING, 2 CREATE, 3 INCREMENT_VERSION, 4 DESTROY
**   bytes     signed: what the row adds to its category (a DESTROY, and
**             the old version of an INCREMENT_VERSION, are negative)
**   category  0 parameter, 1 optimizer state, 2 input, 3 temporary,
**             4 activation, 5 gradient, 6 autograd detail, 7 unknown
**
** Pre-existing tensors have t = -1: they are placed at the smallest
** timestamp of the file (as HTA does), and a diagnostic says so.
** Table memory_events: ts_ns, bytes, action, category, category_index.
*/
#include "format.h"
#include "schema.h"
#include "json.h"
#include "scan.h"

#include <string.h>

static const char *const ACTIONS[] = { NULL, "preexisting", "create", "increment_version", "destroy" };
static const char *const CATS[] = { "parameter",  "optimizer state", "input",           "temporary",
                                    "activation", "gradient",        "autograd detail", "unknown" };

static const pl_coldef COLS[] = {
  { "ts_ns", PL_INT, "time, ns (t = -1, a tensor that existed before profiling: the smallest time of the file)" },
  { "bytes", PL_INT, "bytes added to (> 0) or taken from (< 0) the category" },
  { "action", PL_STR, "preexisting, create, increment_version or destroy" },
  { "category", PL_STR,
    "parameter, optimizer state, input, temporary, activation, gradient, autograd detail, unknown" },
  { "category_index", PL_INT, "the category as written (0-7)" },
};
enum { C_TS, C_BYTES, C_ACTION, C_CAT, C_CATIX };

static int num_int(pl_json *j, int64_t *out) {
  if (j->type != PL_JSON_NUM) return -1;
  if (j->isint) {
    *out = j->ival;
    return 0;
  }
  return pl_json_scaled(j, 0, out);
}

static int mt_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  int cols[5];
  pl_table *t = pl_table_declare(o, "memory_events", NULL, COLS, 5, cols);
  pl_json j;
  pl_json_init(&j, in->data, in->len, err);
  int rc = -1;
  size_t npre = 0;
  int64_t tmin = INT64_MAX;
  if (pl_json_next(&j) != PL_JSON_ARR) {
    if (j.type != PL_JSON_ERROR) pl_json_fail(&j, j.tok, "'[' of [t, action, bytes, category] rows");
    goto done;
  }
  for (;;) {
    pl_json_type ty = pl_json_next(&j);
    if (ty == PL_JSON_ARR_END) break;
    if (ty != PL_JSON_ARR) {
      if (ty != PL_JSON_ERROR) pl_json_fail(&j, j.tok, "a row [t, action, bytes, category]");
      goto done;
    }
    int64_t v[4];
    for (int k = 0; k < 4; k++) {
      ty = pl_json_next(&j);
      if (ty == PL_JSON_ERROR) goto done;
      if (num_int(&j, &v[k]) != 0) {
        static const char *const what[] = { "the time t (integer ns)", "the action (1-4)", "the bytes (integer)",
                                            "the category (0-7)" };
        pl_json_fail(&j, j.tok, what[k]);
        goto done;
      }
    }
    if (v[1] < 1 || v[1] > 4) {
      pl_json_fail(&j, j.tok, "an action 1-4");
      goto done;
    }
    ty = pl_json_next(&j);
    if (ty != PL_JSON_ARR_END) {
      if (ty != PL_JSON_ERROR) pl_json_fail(&j, j.tok, "']' after four values");
      goto done;
    }
    if (v[0] >= 0 && v[0] < tmin) tmin = v[0];
    if (v[0] < 0) npre++;
    if (t) {
      pl_row_put_int(t, cols[C_TS], v[0]);
      pl_row_put_int(t, cols[C_BYTES], v[2]);
      pl_row_put_str(t, cols[C_ACTION], ACTIONS[v[1]], strlen(ACTIONS[v[1]]));
      const char *c = v[3] >= 0 && v[3] < 8 ? CATS[v[3]] : "unknown";
      pl_row_put_str(t, cols[C_CAT], c, strlen(c));
      pl_row_put_int(t, cols[C_CATIX], v[3]);
      pl_row_end(t);
    }
  }
  if (pl_json_next(&j) != PL_JSON_EOF) {
    if (j.type != PL_JSON_ERROR) pl_json_fail(&j, j.tok, "the end of the input");
    goto done;
  }
  if (t && npre) {
    int64_t *ts = t->cols[cols[C_TS]]->v.i64;
    for (size_t i = 0; i < t->nrows; i++)
      if (ts[i] < 0) ts[i] = tmin == INT64_MAX ? 0 : tmin;
    pl_profile_diag(p, 0, "%zu pre-existing tensors (t = -1) placed at the first timestamp", npre);
  }
  pl_profile_meta_str(p, "tool", "PyTorch memory profiler (export_memory_timeline raw)",
                      strlen("PyTorch memory profiler (export_memory_timeline raw)"));
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  if (t) {
    pl_profile_add_table(p, t);
    t = NULL;
  }
  rc = 0;
done:
  if (t) pl_table_free(t);
  pl_json_free(&j);
  return rc;
}

/* "[[" then a number: an array of arrays of numbers (a Kineto array of
** events starts "[{"). */
static int mt_detect(const char *data, size_t len) {
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
  if (i >= len || data[i] != '[') return 0;
  i++;
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
  if (i >= len || data[i] != '[') return 0;
  i++;
  while (i < len && data[i] == ' ') i++;
  if (i < len && (data[i] == '-' || (data[i] >= '0' && data[i] <= '9'))) return 70;
  return 0;
}

const pl_format pl_fmt_mem_timeline = {
  "memory-timeline",
  "PyTorch's raw memory timeline (export_memory_timeline to .raw.json; HTA MemoryAnalysis input): [t, action, bytes, "
  "category] rows",
  "memory_events",
  mt_detect,
  mt_parse,
};
