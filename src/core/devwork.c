/*
** devwork.c -- device work a timeline reader did not read (devwork.h).
*/
#include "devwork.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pl_util.h"

#define MAX_TALLIES 256 /* (category, process) pairs kept; past them only counted */

typedef struct tally {
  uint32_t cat, pid;
  size_t n;
  int64_t dur;
  int devarg;
} tally;

struct pl_devwork {
  tally *t;
  size_t n, cap;
  size_t last;    /* the tally hit last (events come in runs) */
  size_t dropped; /* events of pairs past MAX_TALLIES */
  uint32_t *dev;
  size_t ndev, capdev; /* device processes */
  uint32_t lastdev;
};

pl_devwork *pl_devwork_new(void) { return pl_xcalloc(1, sizeof(pl_devwork)); }

void pl_devwork_free(pl_devwork *w) {
  if (!w) return;
  free(w->t);
  free(w->dev);
  free(w);
}

/* Categories that are never device work even on a device's process:
** synchronisation records, annotations, host-side kinds. */
static int not_work(const char *s, size_t n) {
  static const char *const host[] = { "cpu_op",   "user_annotation",      "python_function", "cpu_instant_event",
                                      "overhead", "external_correlation", "Trace",           "ac2g",
                                      NULL };
  for (size_t i = 0; host[i]; i++)
    if (strlen(host[i]) == n && memcmp(host[i], s, n) == 0) return 1;
  if (n > 5 && memcmp(s + n - 5, "_sync", 5) == 0) return 1; /* cuda_sync */
  if (n > 11 && memcmp(s + n - 11, "_annotation", 11) == 0) return 1;
  return 0;
}

void pl_devwork_other(pl_devwork *w, uint32_t cat, uint32_t pid, int64_t dur_ns, int devarg) {
  tally *t = NULL;
  if (w->last < w->n && w->t[w->last].cat == cat && w->t[w->last].pid == pid) t = &w->t[w->last];
  else {
    for (size_t i = 0; i < w->n; i++)
      if (w->t[i].cat == cat && w->t[i].pid == pid) {
        t = &w->t[i];
        w->last = i;
        break;
      }
    if (!t) {
      if (w->n == MAX_TALLIES) {
        w->dropped++;
        return;
      }
      if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 16;
        w->t = pl_xrealloc(w->t, w->cap * sizeof *w->t);
      }
      w->last = w->n;
      t = &w->t[w->n++];
      memset(t, 0, sizeof *t);
      t->cat = cat;
      t->pid = pid;
    }
  }
  t->n++;
  if (dur_ns > 0) t->dur += dur_ns;
  if (devarg) t->devarg = 1;
}

void pl_devwork_device_pid(pl_devwork *w, uint32_t pid) {
  if (pid == 0 || pid == w->lastdev) return;
  w->lastdev = pid;
  for (size_t i = 0; i < w->ndev; i++)
    if (w->dev[i] == pid) return;
  if (w->ndev == w->capdev) {
    w->capdev = w->capdev ? w->capdev * 2 : 8;
    w->dev = pl_xrealloc(w->dev, w->capdev * sizeof *w->dev);
  }
  w->dev[w->ndev++] = pid;
}

void pl_devwork_process_name(pl_devwork *w, uint32_t pid, const char *s, size_t n) {
  size_t p = 0;
  while (p < n && ((s[p] >= 'A' && s[p] <= 'Z') || (s[p] >= 'a' && s[p] <= 'z'))) p++;
  if (p == 0 || p + 1 >= n || s[p] != ' ') return;
  if (p == 3 && strncasecmp(s, "CPU", 3) == 0) return;
  for (size_t i = p + 1; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return;
  pl_devwork_device_pid(w, pid);
  w->lastdev = 0;
}

size_t pl_devwork_dropped(const pl_devwork *w) { return w ? w->dropped : 0; }

int pl_devwork_merge(pl_devwork *dst, const pl_devwork *src, const uint32_t *map) {
  if (src->dropped) return 0;
  for (size_t i = 0; i < src->n; i++) {
    const tally *a = &src->t[i];
    for (size_t k = 0; k < a->n; k++) {
      /* one call per event keeps the cap's count exact; the tally is found
      ** on the first call and hit through w->last after it */
      pl_devwork_other(dst, map[a->cat], map[a->pid], k == 0 ? a->dur : 0, a->devarg);
    }
  }
  for (size_t i = 0; i < src->ndev; i++) pl_devwork_device_pid(dst, map[src->dev[i]]);
  dst->lastdev = 0;
  return 1;
}

static int is_dev(const pl_devwork *w, uint32_t pid) {
  for (size_t i = 0; i < w->ndev; i++)
    if (w->dev[i] == pid) return 1;
  return 0;
}

size_t pl_devwork_report(pl_devwork *w, const pl_pool *pool, pl_profile *p) {
  size_t total = 0;
  pl_buf cats;
  pl_buf_init(&cats);
  /* per category (a category may sit on several device processes) */
  for (size_t i = 0; i < w->n; i++) {
    tally *a = &w->t[i];
    size_t cn;
    const char *c = pl_pool_str(pool, a->cat, &cn);
    if (a->n == 0 || not_work(c, cn) || !(a->devarg || is_dev(w, a->pid))) continue;
    size_t n = 0, nproc = 0;
    int64_t dur = 0;
    for (size_t j = i; j < w->n; j++) {
      tally *b = &w->t[j];
      if (b->cat != a->cat || b->n == 0 || !(b->devarg || is_dev(w, b->pid))) continue;
      n += b->n;
      dur += b->dur;
      nproc++;
      if (j != i) b->n = 0;
    }
    size_t pn;
    const char *pid = pl_pool_str(pool, a->pid, &pn);
    pl_profile_diag(p, 0,
                    "device work not read: %zu event%s (%.3f ms) of category \"%.*s\" on device process %.*s%s: "
                    "perflab reads device work from the categories kernel, gpu_memcpy, gpu_memset, VENDOR_kernel and "
                    "VENDOR_ccp_events; the device-side recipes refuse this input or leave these events out",
                    n, n == 1 ? "" : "s", (double)dur / 1e6, (int)(cn > 60 ? 60 : cn), c, (int)(pn > 30 ? 30 : pn), pid,
                    nproc > 1 ? " and others" : "");
    pl_buf_printf(&cats, "%s%.*s (%zu event%s)", cats.len ? ", " : "", (int)(cn > 60 ? 60 : cn), c, n,
                  n == 1 ? "" : "s");
    total += n;
  }
  if (total) {
    pl_profile_meta_num(p, "unread_device_events", (double)total);
    pl_profile_meta_str(p, "unread_device_categories", cats.data, cats.len);
  }
  if (w->dropped)
    pl_profile_diag(p, 0,
                    "%zu events of more than %d (category, process) pairs not read and not checked for device work",
                    w->dropped, MAX_TALLIES);
  pl_buf_free(&cats);
  return total;
}
