/*
** ncu.h -- what the Nsight Compute readers (ncu-text, ncu-csv, the
** summary form) share (ncu_metrics.c, ncu_builder.c): the one canonical mapping from (section, metric name) to kernel
** columns across ncu versions, number and unit handling, and a builder that
** fills the standard tables
**
**   kernels         one row per profiled launch
**   metrics         long form: one row per (launch, metric)
**   rules           the tool's rule messages (WRN / INF / OPT / ERR)
**   program_output  the profiled program's own output lines
**
** so that every ncu recipe runs on either format.  See docs/formats-ncu.md.
*/
#ifndef PL_NCU_H
#define PL_NCU_H

#include <stddef.h>
#include <stdint.h>
#include "format.h"
#include "units.h"

/* Section classes whose metrics also become kernel columns. */
enum { NCU_SEC_OTHER = 0, NCU_SEC_SOL = 1, NCU_SEC_LAUNCH = 2, NCU_SEC_OCC = 3, NCU_SEC_RAW = 4, NCU_NSEC = 5 };
int pl_ncu_section_class(const char *s, size_t n);

/* The canonical kernel column of a metric, or NULL: *numeric says whether
** the value must be a number.  `cls` is a section class (NCU_SEC_RAW for
** raw-page metric names like launch__registers_per_thread). */
const char *pl_ncu_canonical(int cls, const char *metric, size_t n, int *numeric);
/* Entry i of the canonical mapping (i = 0, 1, ...; NULL past the end): its
** kernel column, whether it is a number, and its doc (NULL where the
** column is made elsewhere or shared with an earlier entry). */
const char *pl_ncu_canon_column(size_t i, int *numeric, const char **doc);

/* Parses a printed ncu number: plain, with ',' thousands separators, or
** locale-formatted ("23 982 976", "866,86").  *locale is sticky: once a
** value could only be read as a locale number, ambiguous values ("1,024")
** are read the locale way too.  Returns 0 on success. */
int pl_ncu_parse_value(const char *s, size_t n, int *locale, double *out);

typedef struct ncu_builder {
  pl_profile *p;
  const pl_parse_opts *o;
  pl_table *k, *m, *r, *po; /* kernels, metrics, rules, program_output */
  int want_k, want_m, want_r, want_po;
  /* fixed kernel columns */
  int k_id, k_name, k_short, k_gx, k_gy, k_gz, k_bx, k_by, k_bz, k_grid, k_block, k_dev, k_cc, k_ctx, k_stream, k_ts,
      k_proc, k_pid, k_range, k_nsec, k_line, k_ncu_id, k_nmiss, k_err;
  /* fixed metrics / rules / program_output columns */
  int m_kid, m_sec, m_metric, m_unit, m_base, m_value, m_raw;
  int r_kid, r_sec, r_name, r_sev, r_msg, r_est, r_estl, r_line;
  int po_line, po_text;
  /* metric name -> kernel column, per section class (by id in `names`) */
  pl_pool *names;
  int *colmap[NCU_NSEC];
  size_t ncolmap[NCU_NSEC];
  /* the launch being built */
  int open;
  int64_t nkernels;
  int nsections;
  int64_t nmissing; /* '(!) nan' / '(!) n/a' values of the open launch */
  int locale;
  /* device facts seen */
  double sm_count;
  const char *sm_count_source;
  double sm_count_waves; /* inferred from waves, 0 when not */
  char cc[16];
  char process[128];
  int64_t pid;
  int seen_process;       /* pl_ncu_b_process was called ... */
  int64_t before_process; /* ... when this many launches had begun */
  char *range;
  size_t nrange; /* pending NVTX range name (text layout) */
  pl_buf tmp;
  /* unit lookups, cached by spelling (units repeat on every launch) */
  struct {
    char s[24];
    uint8_t n, known;
    pl_unit u;
    uint32_t unit_id, base_id;
  } ucache[64];
  /* metric name id in `names` -> its id in the metrics table's pool (0: not yet) */
  uint32_t *mid;
  size_t nmid;
  /* value texts of up to 8 bytes -> their id in the metrics pool, direct
  ** mapped (NCU_RAWC entries, allocated on first use): most values repeat.
  ** 2^16 entries (1 MB, within L2).  Rows sent to the pool (misses, and
  ** texts over 8 bytes): 50 MB slice of the bench report, 136,000 of
  ** 432,000 with 2^14 entries, 93,000 with 2^16; on the whole 500 MB report
  ** 2^16 misses 459,000 of 4.3 M rows (plus 238,000 longer texts), 4-way
  ** sets of 2 MB 151,000.  Time: 2^16 took 8 % less than 2^14 (5 alternated
  ** rounds); 2^17 entries and the 4-way sets changed nothing measurable */
  struct ncu_rawc {
    uint64_t key;
    uint32_t n, id;
  } * rawc;
  size_t m_room; /* rows every metrics column has room for */
  size_t m_faulted;
  int m_nofault; /* metrics rows whose pages are populated (m_prefault) */
  /* the value texts of the last rows, resolved in a pipeline while the
  ** next rows are read: on arrival their cache entry loads; NCU_PEND / 2
  ** rows later a cache miss is hashed and its pool slot loads; NCU_PEND
  ** rows later (or before anything else goes into the metrics pool) it
  ** is interned, in row order */
  struct ncu_praw {
    const char *s;
    size_t n, row;
    int stage; /* 0: cache not looked at, 1: pool hashed, 2: id known */
    uint32_t id;
    uint32_t tag;
    uint64_t key; /* the pool hash (stage 1) */
    struct ncu_rawc *e;
    uint64_t rk; /* the cache entry (NULL: too long) and key there */
  } pend[8];
  unsigned phead, npend;
  int raw_all;   /* metrics.raw for numbers too (pl_parse_opts.raw_text) */
  int defer_raw; /* set by a parser whose value texts outlive the next rows
                                  ** (or that calls pl_ncu_b_flush before reusing them) */
  /* kernel names seen (direct mapped) -> ids of name and short name in the kernels pool */
  struct ncu_kname {
    char *name;
    size_t n;
    uint32_t name_id, short_id;
  } kname[16];
} ncu_builder;
#define NCU_RAWC_BITS 16
#define NCU_RAWC      (1u << NCU_RAWC_BITS)
#define NCU_PEND      8u
#define NCU_KNAMES    16

void pl_ncu_b_init(ncu_builder *b, pl_profile *p, const pl_parse_opts *o);
/* Frees everything not yet handed to the profile (on error). */
void pl_ncu_b_free(ncu_builder *b);
void pl_ncu_b_begin(ncu_builder *b, size_t line);
/* Kernel header fields; any pointer may be NULL. dims: grid x,y,z, block x,y,z. */
void pl_ncu_b_header(ncu_builder *b, const char *name, size_t nn, const int64_t *dims, int64_t context, int64_t stream,
                     int64_t device, const char *cc, size_t ncc, const char *ts, size_t nts);
void pl_ncu_b_process(ncu_builder *b, const char *name, size_t n, int64_t pid);
void pl_ncu_b_range(ncu_builder *b, const char *s, size_t n);
/* One metric of the open launch.  Returns 0, or -1 with err set (a number
** was required and the value is not one) at (line, vcol). */
int pl_ncu_b_metric(ncu_builder *b, const char *sec, size_t nsec, int cls, const char *metric, size_t nm,
                    const char *unit, size_t nu, const char *val, size_t nv, size_t line, size_t vcol, pl_err *err);

/* What a (section class, metric name, unit) resolves to, for a parser that
** sees the same metric rows again on every launch and caches them: start
** it zeroed (pl_ncu_mkey_init), pass it again with the same section class,
** name and unit, and pl_ncu_b_metric_k skips the lookups it holds.  *sec_id
** caches the section's id in the metrics pool the same way (0: not yet;
** NULL: no cache). */
typedef struct ncu_mkey {
  int ready;              /* nid, known, u hold */
  int kc;                 /* kernel column: -2 not looked up, -1 none */
  int must, bytes, is_sm; /* kernel column facts, when kc >= 0 */
  int known;
  pl_unit u;
  uint32_t nid, mid, unit_id, base_id; /* mid, unit_id: 0 until the first metrics row */
  /* pl_ncu_b_metric_fast: set once a number went through pl_ncu_b_metric_k
  ** with every id above known; fkc: the kernel column (-1: none), fsid:
  ** the section's id in the metrics pool */
  int fast, fkc;
  uint32_t fsid;
} ncu_mkey;
void pl_ncu_mkey_init(ncu_mkey *k);
int pl_ncu_b_metric_k(ncu_builder *b, ncu_mkey *k, const char *sec, size_t nsec, uint32_t *sec_id, int cls,
                      const char *metric, size_t nm, const char *unit, size_t nu, const char *val, size_t nv,
                      size_t line, size_t vcol, pl_err *err);
/* pl_ncu_b_metric_k's common case for a key that has been through it (a
** number value, every id known): returns 1 when the row was added, 0 when
** it does not apply (nothing was done; call pl_ncu_b_metric_k). */
int pl_ncu_b_metric_fast(ncu_builder *b, const ncu_mkey *k, const char *val, size_t nv);
/* With defer_raw set, the value texts of the last rows are read again
** later: this finishes them, for a parser about to reuse their memory. */
void pl_ncu_b_flush(ncu_builder *b);
void pl_ncu_b_rule(ncu_builder *b, const char *sec, size_t nsec, const char *name, size_t nname, const char *sev,
                   size_t nsev, const char *msg, size_t nmsg, double est, double est_local, size_t line);
/* Parses "Est. Speedup: 8.362%" / "Est. Local Speedup: 87.5%" / "Estimated
** Speedup: 50%" / "Est. Global Speedup: ..." at the start of s; returns the
** number of bytes consumed (0 when none). */
size_t pl_ncu_speedup_prefix(const char *s, size_t n, double *est, double *est_local);
/* Looks for "GPU's N multiprocessors" in a rule message (device SM count). */
void pl_ncu_b_scan_rule_text(ncu_builder *b, const char *msg, size_t n);
void pl_ncu_b_end(ncu_builder *b);
/* ncu's text for a value it could not collect: "(!) nan", "(!) n/a" (a
** launch that failed, a counter the device lacks).  Read as missing. */
int pl_ncu_not_collected(const char *s, size_t n);
/* An unsigned decimal at s[*i] (at most 2^50), *i advanced past it; 0
** when there is none. */
int pl_ncu_read_uint(const char *s, size_t n, size_t *i, int64_t *v);
/* "(a, b, c)" at s[*i] (spaces around the numbers); *i advanced past ')'. */
int pl_ncu_read_dim3(const char *s, size_t n, size_t *i, int64_t out[3]);
/* The `ncu --print-summary per-kernel` layout (ncu_summary.c): is this
** trimmed line one of its kernel lines ("NAME ..., Device 0, CC 8.6,
** Invocations 14" or "NAME, Block Size 256, Grid Size 32, Device 0, 1
** invocations"), and the reader of the whole input in that layout
** (tables kernel_summary, metrics with min/max/avg, program_output). */
int pl_ncu_summary_head(const char *t, size_t n);
int pl_ncu_summary_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err);
/* The ==ERROR== text ncu printed for the open launch (LaunchFailed, ...). */
void pl_ncu_b_launch_error(ncu_builder *b, const char *msg, size_t n);
void pl_ncu_b_output(ncu_builder *b, size_t line, const char *s, size_t n);
/* Hands the tables and meta to the profile. */
void pl_ncu_b_finish(ncu_builder *b);

/* One input read on several threads (fmt_ncu_text.c, fmt_ncu_csv.c): w is
** the builder of a piece that a worker read from a launch's first line,
** with a builder fresh but for what the readers set alike, ended (no open
** launch, pl_ncu_b_flush done); b, the main thread's, stands at that
** line.  Can w be appended as if b had read the piece: no locale number
** format seen by b (w read without it), b's process (when w's first
** launches had none) already in b's kernels pool, the tables' columns of
** the same types?  pl_ncu_b_merge then ends b's open launch and appends
** w's rows: launch ids after b's, line numbers moved by line_off,
** strings re-interned in the order w met them, b's process filled in
** where w had none; the device facts and the state carried from launch
** to launch as if b had read the rows (not the meta and diagnostics:
** par.h).  w is left to pl_ncu_b_free. */
int pl_ncu_b_merge_fits(const ncu_builder *b, const ncu_builder *w);
void pl_ncu_b_merge(ncu_builder *b, ncu_builder *w, size_t line_off);

#endif
