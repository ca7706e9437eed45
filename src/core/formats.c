/*
** formats.c -- the one list of input formats, content detection, and the
** file loader (memory map for plain files, zlib inflate for gzip).
*/
#include "format.h"
#include "textenc.h"
#include "kernsum.h"
#include "gzstream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Each parser file defines one of these. */
extern const pl_format pl_fmt_kernel_table;
extern const pl_format pl_fmt_ncu_text;
extern const pl_format pl_fmt_ncu_csv;
extern const pl_format pl_fmt_kineto;
extern const pl_format pl_fmt_tb_profiler;
extern const pl_format pl_fmt_nsys_stats;
extern const pl_format pl_fmt_nvprof;
extern const pl_format pl_fmt_rocprof;
extern const pl_format pl_fmt_csv;
extern const pl_format pl_fmt_paddle_summary;
extern const pl_format pl_fmt_comparison_report;
extern const pl_format pl_fmt_torch_table;
extern const pl_format pl_fmt_markdown;
extern const pl_format pl_fmt_nsys_sqlite;
extern const pl_format pl_fmt_mem_timeline;
extern const pl_format pl_fmt_rocpd;
extern const pl_format pl_fmt_rocprofv3_json;

/* The formats that also read a .gz while it is inflated (load_gz_stream):
** those whose files are big.  The others get the text inflated whole. */
extern int pl_kin_parse_stream(pl_gzs *s, pl_profile *p, const pl_parse_opts *o, pl_err *err);
static pl_parse_stream_fn stream_parser(const pl_format *f) { return f == &pl_fmt_kineto ? pl_kin_parse_stream : NULL; }

static const pl_format *const registry[] = {
  &pl_fmt_kernel_table,   &pl_fmt_ncu_text,          &pl_fmt_ncu_csv,
  &pl_fmt_kineto,         &pl_fmt_tb_profiler,       &pl_fmt_nsys_stats,
  &pl_fmt_nvprof,         &pl_fmt_rocprof,           &pl_fmt_csv,
  &pl_fmt_paddle_summary, &pl_fmt_comparison_report, &pl_fmt_torch_table,
  &pl_fmt_markdown,       &pl_fmt_nsys_sqlite,       &pl_fmt_mem_timeline,
  &pl_fmt_rocpd,          &pl_fmt_rocprofv3_json,
};

const pl_format *const *pl_formats(size_t *n) {
  *n = sizeof registry / sizeof registry[0];
  return registry;
}

const pl_format *pl_format_find(const char *id) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (strcmp(registry[i]->id, id) == 0) return registry[i];
  return NULL;
}

const pl_format *pl_format_detect(const char *data, size_t len) {
  /* the first 64 KiB, or more: up to 64 KiB past the end of the first
  ** non-blank line, so that a header longer than the window (a CSV of
  ** thousands of counter columns) is seen whole, with rows after it */
  if (len > 65536) {
    size_t i = 0;
    while (i < len && (data[i] == '\n' || data[i] == '\r' || data[i] == ' ' || data[i] == '\t')) i++;
    const char *nl = memchr(data + i, '\n', len - i);
    size_t want = nl ? (size_t)(nl - data) + 1 + 65536 : len;
    if (want < 65536) want = 65536;
    if (want < len) len = want;
  }
  const pl_format *best = NULL;
  int bestscore = 0;
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    int s = registry[i]->detect ? registry[i]->detect(data, len) : 0;
    if (s > bestscore) {
      bestscore = s;
      best = registry[i];
    }
  }
  return best;
}

int pl_want_table(const pl_parse_opts *o, const char *name) {
  if (o == NULL || o->tables == NULL) return 1;
  for (const char *const *t = o->tables; *t; t++)
    if (strcmp(*t, name) == 0) return 1;
  return 0;
}

int pl_lenient_skip(const pl_parse_opts *o, pl_profile *p, pl_err *err) {
  if (o == NULL || !o->lenient || p == NULL || err == NULL || err->msg[0] == '\0') return 0;
  if (err->line > 0 && err->col > 1) pl_profile_diag(p, err->line, "skipped: %s (column %zu)", err->msg, err->col);
  else if (err->line == 0 && err->offset >= 0) pl_profile_diag(p, 0, "skipped: %s (byte %lld)", err->msg, err->offset);
  else pl_profile_diag(p, err->line, "skipped: %s", err->msg);
  char file[sizeof err->file];
  memcpy(file, err->file, sizeof file);
  pl_err_clear(err);
  memcpy(err->file, file, sizeof file);
  return 1;
}

/* Where detection looks: past a leading run of ncu's own lines (==PROF==
** progress, ==WARNING== / ==ERROR==) and blank lines, which a long ncu run
** prints by the thousand before its first result.  *nprof: how many
** ==PROF== lines were skipped. */
static size_t sniff_start(const char *data, size_t len, size_t *nprof) {
  size_t i = 0, start = 0;
  *nprof = 0;
  while (i < len) {
    const char *nl = memchr(data + i, '\n', len - i);
    size_t e = nl ? (size_t)(nl - data) : len, k = i;
    while (k < e && (data[k] == ' ' || data[k] == '\t' || data[k] == '\r')) k++;
    if (k < e) {
      if (e - k >= 8 && memcmp(data + k, "==PROF==", 8) == 0) (*nprof)++;
      else if (!(e - k >= 9 && (memcmp(data + k, "==WARNING", 9) == 0 || memcmp(data + k, "==ERROR==", 9) == 0))) break;
    }
    i = nl ? e + 1 : len;
    start = i;
  }
  return start;
}

static const pl_format *detect_input(const char *data, size_t len) {
  const pl_format *f = pl_format_detect(data, len);
  if (len <= 65536) return f;
  size_t nprof, st = sniff_start(data, len, &nprof);
  if (nprof == 0 || st == 0) return f;
  /* a long run: what follows the progress lines says which page it is */
  const pl_format *g = pl_format_detect(data + st, len - st);
  return g ? g : f;
}

static pl_profile *load_utf8(const char *name, const char *data, size_t len, const char *format_id,
                             const pl_parse_opts *o, pl_err *err);

/* Files that a profiler writes in a form perflab does not read, named by
** their extension, with what to run instead (checked when detection finds
** no format sure of the content). */
static const struct {
  const char *ext, *advice;
} UNREAD[] = {
  { ".nsys-rep", "expected an Nsight Systems SQLite export, found an .nsys-rep report (its own binary format): "
                 "run `nsys export --type sqlite FILE.nsys-rep` and pass the .sqlite it writes" },
  { ".qdrep", "expected an Nsight Systems SQLite export, found a .qdrep report (its own binary format): "
              "run `nsys export --type sqlite FILE.qdrep` and pass the .sqlite it writes" },
};

static const char *unread_advice(const char *name) {
  size_t n = name ? strlen(name) : 0;
  for (size_t i = 0; i < sizeof UNREAD / sizeof UNREAD[0]; i++) {
    size_t e = strlen(UNREAD[i].ext);
    if (n >= e && strcasecmp(name + n - e, UNREAD[i].ext) == 0) return UNREAD[i].advice;
  }
  return NULL;
}

/* Binary reports that profilers write in their own formats, named by their
** first bytes (not their extension: a copy may have lost it), with the
** command that exports what perflab reads. */
static const char ADVICE_NCU_REP[] =
    "expected a profile perflab reads, found an Nsight Compute report (.ncu-rep, its own binary format, magic NVR\\0): "
    "run `ncu --import FILE --page details --csv > FILE.csv` (or `--page raw --csv`, or without --csv for the text "
    "page) and pass what it writes";
static const char ADVICE_NSYS_REP[] =
    "expected a profile perflab reads, found an Nsight Systems report (.nsys-rep/.qdrep, its own binary format): "
    "run `nsys export --type sqlite FILE` (or `nsys stats FILE`) and pass what it writes";
static const char ADVICE_XPLANE[] =
    "expected a profile perflab reads, found an XPlane protobuf (*.xplane.pb, the TensorFlow/JAX profiler's XSpace), "
    "which perflab does not read: open it with TensorBoard's profile plugin or XProf (`xprof --logdir DIR`), "
    "whose trace viewer shows its timeline";

/* a protobuf varint at *i (at most 10 bytes); 0 when cut or too long */
static int pb_varint(const unsigned char *d, size_t len, size_t *i, unsigned long long *v) {
  *v = 0;
  for (int k = 0; k < 10 && *i < len; k++) {
    unsigned char b = d[(*i)++];
    *v |= (unsigned long long)(b & 0x7f) << (7 * k);
    if (!(b & 0x80)) return 1;
  }
  return 0;
}

/* an XSpace: field 1 (planes, length-delimited) whose XPlane starts with
** its id (field 1, varint) and/or its name (field 2) "/host:..." or
** "/device:..." -- the planes every XSpace that the profilers write has */
static int is_xplane(const unsigned char *d, size_t len) {
  size_t i = 0;
  unsigned long long v;
  if (len < 8 || d[i++] != 0x0a || !pb_varint(d, len, &i, &v) || v < 4) return 0;
  if (i < len && d[i] == 0x08) {
    i++;
    if (!pb_varint(d, len, &i, &v)) return 0;
  }
  if (i >= len || d[i++] != 0x12 || !pb_varint(d, len, &i, &v) || v < 6 || v > 4096 || i + 6 > len) return 0;
  return memcmp(d + i, "/host:", 6) == 0 || (i + 8 <= len && memcmp(d + i, "/device:", 8) == 0);
}

/* A PyTorch execution trace (ExecutionTraceObserver, Chakra's input): a
** JSON object that opens with "schema" and holds "nodes" -- operators and
** their dependencies, no GPU timings.  Returns the 1-based line and column
** of its "nodes" key, or 0 when the text is not one. */
static const char ADVICE_PYTORCH_ET[] =
    "expected a profile perflab reads, found a PyTorch execution trace (ExecutionTraceObserver / Chakra JSON: "
    "\"schema\" and \"nodes\", the operators and their dependencies, no GPU timings), which perflab does not "
    "read: pass the Kineto trace that torch.profiler records beside it (export_chrome_trace or "
    "tensorboard_trace_handler)";

static int is_pytorch_et(const char *d, size_t len, size_t *line, size_t *col) {
  size_t i = 0, lim = len < 65536 ? len : 65536;
  while (i < lim && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t')) i++;
  if (i >= lim || d[i++] != '{') return 0;
  while (i < lim && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t')) i++;
  if (i + 8 > lim || memcmp(d + i, "\"schema\"", 8) != 0) return 0;
  for (size_t k = i; k + 7 <= lim; k++)
    if (memcmp(d + k, "\"nodes\"", 7) == 0) {
      size_t ln = 1, c = 1;
      for (size_t j = 0; j < k; j++) {
        if (d[j] == '\n') {
          ln++;
          c = 1;
        } else c++;
      }
      *line = ln;
      *col = c;
      return 1;
    }
  return 0;
}

static const char *binary_report_advice(const char *data, size_t len) {
  const unsigned char *d = (const unsigned char *)data;
  if (len >= 4 && memcmp(d, "NVR\0", 4) == 0) return ADVICE_NCU_REP;
  if (len >= 28 && memcmp(d, "NVIDIA Tegra Profiler Report", 28) == 0) return ADVICE_NSYS_REP;
  if (is_xplane(d, len)) return ADVICE_XPLANE;
  return NULL;
}

pl_profile *pl_load_buffer(const char *name, const char *data, size_t len, const char *format_id,
                           const pl_parse_opts *o, pl_err *err) {
  if (!format_id || !*format_id || strcmp(format_id, "auto") == 0) {
    const char *advice = binary_report_advice(data, len);
    if (advice) {
      pl_err_clear(err);
      snprintf(err->file, sizeof err->file, "%s", name);
      pl_err_set(err, 0, 0, "%s", advice);
      err->offset = 0;
      return NULL;
    }
  }
  /* UTF-16 and a UTF-8 BOM are made plain UTF-8 before anything looks */
  pl_encoding e = pl_text_encoding(data, len);
  if (e == PL_ENC_UTF8) return load_utf8(name, data, len, format_id, o, err);
  char *owned;
  size_t n;
  const char *u = pl_text_utf8(data, len, e, &n, &owned);
  pl_parse_opts wo;
  if (o) wo = *o;
  else memset(&wo, 0, sizeof wo);
  if (owned) {
    wo.progress = NULL;
    wo.progress_ud = NULL;
  } /* progress offsets are the copy's */
  pl_profile *p = load_utf8(name, u, n, format_id, &wo, err);
  if (p) {
    const char *en = pl_encoding_name(e);
    pl_profile_meta_str(p, "encoding", en, strlen(en));
  }
  free(owned);
  return p;
}

static pl_profile *load_utf8(const char *name, const char *data, size_t len, const char *format_id,
                             const pl_parse_opts *o, pl_err *err) {
  pl_err_clear(err);
  snprintf(err->file, sizeof err->file, "%s", name);
  const pl_format *f = NULL;
  if (format_id && *format_id && strcmp(format_id, "auto") != 0) {
    f = pl_format_find(format_id);
    if (f == NULL) {
      pl_err_set(err, 0, 0, "unknown format '%s'", format_id);
      err->kind = PL_ERR_FORMAT_UNKNOWN;
      return NULL;
    }
  } else {
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
    if (i == len) {
      pl_err_set(err, 1, 1, "expected a profile, found %s", len ? "only blank lines" : "an empty file");
      return NULL;
    }
    f = detect_input(data, len);
    const char *advice = f == NULL || f->detect(data, len) < 100 ? unread_advice(name) : NULL;
    if (advice) {
      pl_err_set(err, 0, 0, "%s", advice);
      err->offset = 0;
      return NULL;
    }
    size_t etl, etc;
    if (f == NULL && is_pytorch_et(data, len, &etl, &etc)) {
      pl_err_set(err, etl, etc, "%s", ADVICE_PYTORCH_ET);
      return NULL;
    }
    if (f == NULL) {
      /* binary input (a NUL byte in the first 64 KiB) is named by byte offset */
      size_t k = len > 65536 ? 65536 : len;
      if (memchr(data, '\0', k) != NULL) {
        pl_err_set(err, 0, 0, "cannot tell which profiler wrote this file (binary data)");
        err->offset = (long long)((const char *)memchr(data, '\0', k) - data);
      } else {
        pl_err_set(err, 1, 1, "cannot tell which profiler wrote this file");
      }
      err->kind = PL_ERR_UNDETECTED;
      return NULL;
    }
  }
  pl_profile *p = pl_profile_new(f->id, name);
  pl_input in = { name, data, len };
  if (f->parse(&in, p, o, err) != 0) {
    pl_profile_free(p);
    if (err->msg[0] == '\0') pl_err_set(err, 0, 0, "could not read the input as %s", f->id);
    return NULL;
  }
  pl_split_pseudo_kernels(p);
  pl_profile_drop_empty(p);
  return p;
}

/* Inflates a gzip buffer; -1 with err set on a damaged or cut stream. */
static int inflate_all(const char *name, const unsigned char *src, size_t n, char **out, size_t *outlen, pl_err *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) {
    pl_err_set(err, 0, 0, "zlib initialisation failed");
    return -1;
  }
  size_t cap = n * 4 + 4096, len = 0;
  char *buf = pl_xmalloc(cap);
  z.next_in = (unsigned char *)src;
  int rc = Z_OK;
  size_t fed = 0;
  for (;;) {
    if (z.avail_in == 0 && fed < n) {
      size_t chunk = n - fed > (1u << 30) ? (1u << 30) : n - fed;
      z.next_in = (unsigned char *)src + fed;
      z.avail_in = (uInt)chunk;
      fed += chunk;
    }
    if (cap - len < 65536) {
      cap *= 2;
      buf = pl_xrealloc(buf, cap);
    }
    size_t room = cap - len - 1;
    if (room > (1u << 30)) room = 1u << 30;
    z.next_out = (unsigned char *)buf + len;
    z.avail_out = (uInt)room;
    rc = inflate(&z, Z_NO_FLUSH);
    len = (size_t)((char *)z.next_out - buf);
    if (rc == Z_STREAM_END) {
      /* concatenated gzip members continue */
      if (z.avail_in == 0 && fed >= n) break;
      if (inflateReset(&z) != Z_OK) break;
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed >= n) {
      long long at = (long long)n;
      inflateEnd(&z);
      free(buf);
      pl_err_set(err, 0, 0, "gzip stream ends early (cut short after %lld compressed bytes)", at);
      err->offset = at;
      (void)name;
      return -1;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      long long at = (long long)(fed - z.avail_in);
      inflateEnd(&z);
      free(buf);
      pl_err_set(err, 0, 0, "damaged gzip stream (%s)", z.msg ? z.msg : "inflate failed");
      err->offset = at;
      return -1;
    }
  }
  inflateEnd(&z);
  buf[len] = '\0';
  *out = buf;
  *outlen = len;
  return 0;
}

/* A .gz of a format that reads a stream (stream_parser: kineto) is parsed
** while a thread inflates it (gzstream.h), never held whole: 1 done (*out
** the profile, or NULL and err), 0 not this way (the caller inflates it
** whole: another format, another encoding, a damaged stream, which the
** whole inflate reports).  The format is found as pl_load_buffer finds it,
** on the first inflated bytes: those detection looks at (the first line
** and 64 KiB past it), or at least the first 4 MiB where Kineto is sure of
** them (a one-line trace). */
static size_t n_streamed;
size_t pl_gz_streamed(void) { return __atomic_load_n(&n_streamed, __ATOMIC_RELAXED); }

static int load_gz_stream(const char *path, const unsigned char *src, size_t n, int mapped, const char *format_id,
                          const pl_parse_opts *o, pl_err *err, pl_profile **out) {
  const pl_format *f = NULL;
  if (format_id && *format_id && strcmp(format_id, "auto") != 0) {
    f = pl_format_find(format_id);
    if (!f || !stream_parser(f)) return 0;
  }
  size_t plen;
  int eof;
  char *peek = pl_gz_peek(src, n, 256u << 10, 4u << 20, &plen, &eof);
  if (!peek) return 0;
  int ok = pl_text_encoding(peek, plen) == PL_ENC_UTF8;
  if (ok && !f) {
    size_t i = 0;
    while (i < plen && (peek[i] == ' ' || peek[i] == '\n' || peek[i] == '\r' || peek[i] == '\t')) i++;
    const char *nl = i < plen ? memchr(peek + i, '\n', plen - i) : NULL;
    int window = eof || (nl && plen - (size_t)(nl - peek) > 65536);
    ok = i < plen && binary_report_advice(peek, plen) == NULL;
    if (ok) f = detect_input(peek, plen);
    int score = f ? f->detect(peek, plen) : 0;
    ok = ok && f && stream_parser(f) && (window || score >= 90) && !(score < 100 && unread_advice(path));
  }
  free(peek);
  if (!ok) return 0;
  __atomic_add_fetch(&n_streamed, 1, __ATOMIC_RELAXED);
  int slots;
  size_t seg = pl_gzs_seg_default(o ? o->jobs : 0, o ? o->chunk_bytes : 0, &slots);
  pl_gzs *gs = pl_gzs_open_n(src, n, seg, slots, mapped);
  pl_profile *p = pl_profile_new(f->id, path);
  pl_err_clear(err);
  snprintf(err->file, sizeof err->file, "%s", path);
  int rc = stream_parser(f)(gs, p, o, err);
  pl_gzs_close(gs);
  if (rc != 0) {
    pl_profile_free(p);
    if (err->msg[0] == '\0') pl_err_set(err, 0, 0, "could not read the input as %s", f->id);
    *out = NULL;
    return 1;
  }
  pl_split_pseudo_kernels(p);
  pl_profile_drop_empty(p);
  *out = p;
  return 1;
}

/* Streaming a mapped file: as the parser reports progress, the pages of the
** input it has passed (less a margin) are released from this process's
** memory.  The mapping is private and read-only, so a parser that looks
** back (an error's line number, a second pass) faults them in again from
** the page cache: nothing changes but the resident set, which stays at the
** tables plus a window of the input instead of tables plus the whole file. */
typedef struct loadwrap {
  const pl_parse_opts *o;
  char *base;
  size_t len, dropped, page;
} loadwrap;

static void load_progress(void *ud, size_t done, size_t total) {
  loadwrap *w = ud;
  const size_t margin = 2u << 20, step = 4u << 20;
  /* at the end (done == len: the parser has read it all, what follows is
  ** its work on the tables) every page goes */
  if (done <= w->len && (done > w->dropped + margin + step || (done == w->len && done > w->dropped))) {
    size_t upto = (done == w->len ? done : done - margin) & ~(w->page - 1);
    if (upto > w->dropped) {
      madvise(w->base + w->dropped, upto - w->dropped, MADV_DONTNEED);
      w->dropped = upto;
    }
  }
  if (w->o && w->o->progress) w->o->progress(w->o->progress_ud, done, total);
}

pl_profile *pl_load_file(const char *path, const char *format_id, const pl_parse_opts *o, pl_err *err) {
  pl_err_clear(err);
  snprintf(err->file, sizeof err->file, "%s", path);
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    pl_err_set(err, 0, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    pl_err_set(err, 0, 0, "cannot stat: %s", strerror(errno));
    close(fd);
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    pl_err_set(err, 0, 0, "is a directory, expected a profile file");
    close(fd);
    return NULL;
  }
  size_t len = (size_t)st.st_size;
  char *data = NULL;
  int mapped = 0;
  if (S_ISREG(st.st_mode) && len > 0) {
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      data = m;
      mapped = 1;
      madvise(m, len, MADV_SEQUENTIAL);
    } else if (errno == ENOMEM) {
      /* reading it instead would need the same memory: say so now */
      pl_err_set(err, 0, 0, "the file (%.0f MB) does not fit in the memory allowed", (double)len / 1e6);
      err->kind = PL_ERR_TOO_BIG;
      close(fd);
      return NULL;
    }
  }
  if (!mapped) { /* pipes, /dev/stdin, empty files */
    size_t cap = 65536;
    len = 0;
    data = pl_xmalloc(cap);
    for (;;) {
      if (cap - len < 65536) {
        cap *= 2;
        data = pl_xrealloc(data, cap);
      }
      ssize_t r = read(fd, data + len, cap - len - 1);
      if (r < 0) {
        if (errno == EINTR) continue;
        pl_err_set(err, 0, 0, "read error: %s", strerror(errno));
        free(data);
        close(fd);
        return NULL;
      }
      if (r == 0) break;
      len += (size_t)r;
    }
  }
  close(fd);
  pl_profile *p = NULL;
  if (len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
    if (load_gz_stream(path, (const unsigned char *)data, len, mapped, format_id, o, err, &p)) {
      if (mapped) munmap(data, len);
      else free(data);
      if (!p) snprintf(err->file, sizeof err->file, "%s", path);
      return p;
    }
    char *raw;
    size_t rawlen;
    if (inflate_all(path, (const unsigned char *)data, len, &raw, &rawlen, err) == 0) {
      if (mapped) munmap(data, len);
      else free(data);
      mapped = 0;
      data = raw;
      len = rawlen;
    } else {
      if (mapped) munmap(data, len);
      else free(data);
      snprintf(err->file, sizeof err->file, "%s", path);
      return NULL;
    }
  }
  if (mapped) {
    loadwrap w = { o, data, len, 0, (size_t)sysconf(_SC_PAGESIZE) };
    pl_parse_opts wo;
    if (o) wo = *o;
    else memset(&wo, 0, sizeof wo);
    wo.progress = load_progress;
    wo.progress_ud = &w;
    wo.path = path;
    p = pl_load_buffer(path, data, len, format_id, &wo, err);
    munmap(data, len);
  } else {
    p = pl_load_buffer(path, data, len, format_id, o, err);
    free(data);
  }
  return p;
}
