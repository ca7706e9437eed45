/*
** gzstream.c -- gzip inflated on a producer thread into a ring of chunks,
** consumed through a sliding window (see gzstream.h).
*/
#include "gzstream.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#ifdef PERFLAB_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define GZS_CHUNK_DEFAULT (1u << 20)
#define GZS_SEG_DEFAULT   (256u << 10)
#define GZS_SLOTS         8
#define GZS_OVERLAP_MAX   (64u << 10)

/* A slot: FREE (the producer may fill it), FILLING, FULL (seq inflated). */
enum { SLOT_FREE, SLOT_FILLING, SLOT_FULL };

typedef struct slot {
  char *buf;     /* the carry (the stream's last bytes before it), then the fresh text */
  size_t len;    /* bytes in buf */
  size_t base;   /* the stream offset of buf[0] */
  size_t seq;    /* the segment it holds */
  size_t in_end; /* the compressed bytes inflated once it was filled */
  int state;
  int refs;   /* segment readers holding it (pl_gzs_seg) */
  int passed; /* the window has moved past it */
} slot;

struct pl_gzs {
  const unsigned char *src;
  size_t n, chunk, overlap;
  int mapped, nslots;
  slot *ring;
  /* shared, under mu */
  pthread_mutex_t mu;
  pthread_cond_t cv_full, cv_free;
  size_t widx; /* the producer's next segment (slot widx % nslots) */
  int done;    /* the producer has finished: end of stream, or error */
  int failed;  /* ... with an error */
  int abort;   /* the consumer is closing */
  char errmsg[200];
  long long erroff;
  /* the producer's */
  char *carry; /* the last overlap bytes inflated */
  size_t ncarry, produced;
  /* the consumer's */
  pthread_t th;
  int started;
  size_t ridx; /* the next segment to take */
  int held;    /* the slot the window lies in, or -1 */
  const char *wdata;
  size_t wlen, woff;
  size_t out_done, in_done; /* the inflated bytes the window has taken, and the compressed bytes they came from */
  pl_buf side;              /* the window when it is not in a slot */
};

static int env_chunk(size_t *out) {
  const char *e = getenv("PERFLAB_GZ_CHUNK");
  if (!e || !*e) return 0;
  char *end;
  unsigned long long v = strtoull(e, &end, 10);
  if (*end || v == 0) return 0;
  *out = (size_t)v;
  return 1;
}

/* The producer's inflater: ISA-L's (about 2.5x zlib's speed) for gzip
** where perflab is built with it (libisal-dev), else zlib's.  Either
** reads concatenated members one after the other.  A stream ISA-L finds
** damaged is inflated again by zlib from the start, for zlib's message
** and offset: the errors stay those of the whole-file inflate (zlib).
** $PERFLAB_GZ_ZLIB set: zlib's always (tests, measurements). */
typedef struct infl {
  z_stream z;
  size_t fed; /* compressed bytes handed to the inflater */
#ifdef PERFLAB_HAVE_ISAL
  struct inflate_state *is; /* NULL: zlib */
#endif
} infl;

static void set_err(pl_gzs *s, long long off, const char *what) {
  pthread_mutex_lock(&s->mu);
  snprintf(s->errmsg, sizeof s->errmsg, "damaged gzip stream (%s)", what);
  s->erroff = off;
  pthread_mutex_unlock(&s->mu);
}

static void cut_short(pl_gzs *s) {
  pthread_mutex_lock(&s->mu);
  snprintf(s->errmsg, sizeof s->errmsg, "gzip stream ends early (cut short after %lld compressed bytes)",
           (long long)s->n);
  s->erroff = (long long)s->n;
  pthread_mutex_unlock(&s->mu);
}

/* zlib: inflates up to room bytes at out; 1 at the end of the stream, -1
** on error (set), 0 more to come; *gotp: the bytes written. */
static int fill_zlib(pl_gzs *s, infl *f, unsigned char *out, size_t room, size_t *gotp) {
  z_stream *z = &f->z;
  size_t got = 0;
  int end = 0;
  while (got < room) {
    if (z->avail_in == 0 && f->fed < s->n) {
      size_t c = s->n - f->fed > (1u << 30) ? (1u << 30) : s->n - f->fed;
      z->next_in = (unsigned char *)s->src + f->fed;
      z->avail_in = (uInt)c;
      f->fed += c;
    }
    size_t r = room - got > (1u << 30) ? (1u << 30) : room - got;
    z->next_out = out + got;
    z->avail_out = (uInt)r;
    int rc = inflate(z, Z_NO_FLUSH);
    got = (size_t)(z->next_out - out);
    if (rc == Z_STREAM_END) {
      /* concatenated gzip members continue */
      if (z->avail_in == 0 && f->fed >= s->n) {
        end = 1;
        break;
      }
      if (inflateReset(z) != Z_OK) {
        end = 1;
        break;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && z->avail_in == 0 && f->fed >= s->n) {
      cut_short(s);
      return -1;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      set_err(s, (long long)(f->fed - z->avail_in), z->msg ? z->msg : "inflate failed");
      return -1;
    }
  }
  *gotp = got;
  return end;
}

#ifdef PERFLAB_HAVE_ISAL
/* A stream ISA-L finds damaged: zlib's message, inflating from the start. */
static void isal_error(pl_gzs *s) {
  infl f;
  memset(&f, 0, sizeof f);
  if (inflateInit2(&f.z, 15 + 32) != Z_OK) {
    set_err(s, 0, "inflate failed");
    return;
  }
  unsigned char *buf = pl_xmalloc(1u << 16);
  size_t got;
  int rc;
  while ((rc = fill_zlib(s, &f, buf, 1u << 16, &got)) == 0) {}
  if (rc > 0) set_err(s, 0, "ISA-L's inflate failed"); /* zlib reads it whole */
  free(buf);
  inflateEnd(&f.z);
}

static int fill_isal(pl_gzs *s, infl *f, unsigned char *out, size_t room, size_t *gotp) {
  struct inflate_state *st = f->is;
  size_t got = 0;
  while (got < room) {
    if (st->avail_in == 0 && f->fed < s->n) {
      size_t c = s->n - f->fed > (1u << 30) ? (1u << 30) : s->n - f->fed;
      st->next_in = (uint8_t *)(uintptr_t)(s->src + f->fed);
      st->avail_in = (uint32_t)c;
      f->fed += c;
    }
    size_t r = room - got > (1u << 30) ? (1u << 30) : room - got;
    st->next_out = out + got;
    st->avail_out = (uint32_t)r;
    int rc = isal_inflate(st);
    size_t made = (size_t)(st->next_out - (out + got));
    got += made;
    if (rc != ISAL_DECOMP_OK) {
      isal_error(s);
      return -1;
    }
    if (st->block_state == ISAL_BLOCK_FINISH) {
      /* concatenated gzip members continue */
      if (st->avail_in == 0 && f->fed >= s->n) {
        *gotp = got;
        return 1;
      }
      uint8_t *in = st->next_in;
      uint32_t left = st->avail_in;
      isal_inflate_reset(st);
      st->crc_flag = ISAL_GZIP;
      st->next_in = in;
      st->avail_in = left;
      continue;
    }
    if (st->avail_in == 0 && f->fed >= s->n && made == 0) {
      /* ISA-L's reading of a cut stream; zlib's message, as for damage */
      isal_error(s);
      return -1;
    }
  }
  *gotp = got;
  return 0;
}
#endif

/* Inflates up to s->chunk bytes at out: 1 at the end of the stream, -1
** on error (set), 0 more to come; *gotp: the bytes written.  Called
** without mu held; f is the producer's alone. */
static int fill(pl_gzs *s, infl *f, unsigned char *out, size_t *gotp) {
#ifdef PERFLAB_HAVE_ISAL
  if (f->is) return fill_isal(s, f, out, s->chunk, gotp);
#endif
  return fill_zlib(s, f, out, s->chunk, gotp);
}

static size_t in_done(const infl *f) {
#ifdef PERFLAB_HAVE_ISAL
  if (f->is) return f->fed - f->is->avail_in;
#endif
  return f->fed - f->z.avail_in;
}

static void *producer(void *arg) {
  pl_gzs *s = arg;
  infl f;
  memset(&f, 0, sizeof f);
  size_t dropped = 0;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  int rc = 0;
#ifdef PERFLAB_HAVE_ISAL
  /* gzip: ISA-L's; a zlib stream: zlib's */
  if (s->n >= 2 && s->src[0] == 0x1f && s->src[1] == 0x8b && !getenv("PERFLAB_GZ_ZLIB")) {
    f.is = pl_xmalloc(sizeof *f.is);
    isal_inflate_init(f.is);
    f.is->crc_flag = ISAL_GZIP;
  }
  if (!f.is)
#endif
    if (inflateInit2(&f.z, 15 + 32) != Z_OK) {
      pthread_mutex_lock(&s->mu);
      snprintf(s->errmsg, sizeof s->errmsg, "zlib initialisation failed");
      s->failed = s->done = 1;
      pthread_cond_broadcast(&s->cv_full);
      pthread_mutex_unlock(&s->mu);
      return NULL;
    }
  for (;;) {
    pthread_mutex_lock(&s->mu);
    slot *sl = &s->ring[s->widx % (size_t)s->nslots];
    while (!s->abort && sl->state != SLOT_FREE) pthread_cond_wait(&s->cv_free, &s->mu);
    int stop = s->abort;
    if (!stop) {
      sl->state = SLOT_FILLING;
      sl->seq = s->widx;
      sl->passed = 0;
    }
    pthread_mutex_unlock(&s->mu);
    if (stop) break;
    /* the carry first: a reader of this segment alone sees the bytes
    ** before it, and the window moves into it without a copy */
    memcpy(sl->buf, s->carry, s->ncarry);
    size_t got = 0;
    rc = fill(s, &f, (unsigned char *)sl->buf + s->ncarry, &got);
    sl->len = s->ncarry + got;
    sl->base = s->produced - s->ncarry;
    s->produced += got;
    size_t c = sl->len < s->overlap ? sl->len : s->overlap;
    memcpy(s->carry, sl->buf + sl->len - c, c);
    s->ncarry = c;
    size_t at = in_done(&f);
    /* the compressed pages inflated (less a margin) leave the resident set */
    if (s->mapped && at > dropped + (2u << 20)) {
      size_t upto = (at - (1u << 20)) & ~(page - 1);
      if (upto > dropped) {
        madvise((void *)(uintptr_t)(s->src + dropped), upto - dropped, MADV_DONTNEED);
        dropped = upto;
      }
    }
    sl->in_end = at;
    pthread_mutex_lock(&s->mu);
    if (rc >= 0 && (got > 0 || rc == 0)) {
      sl->state = SLOT_FULL;
      s->widx++;
    } else sl->state = SLOT_FREE;
    if (rc != 0) {
      s->done = 1;
      s->failed = rc < 0;
    }
    pthread_cond_broadcast(&s->cv_full);
    pthread_mutex_unlock(&s->mu);
    if (rc != 0) break;
  }
#ifdef PERFLAB_HAVE_ISAL
  if (f.is) free(f.is);
  else
#endif
    inflateEnd(&f.z);
  return NULL;
}

size_t pl_gzs_seg_default(int jobs, size_t chunk_bytes, int *slots) {
  size_t c;
  if (jobs <= 0) {
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    jobs = nc < 1 ? 1 : (int)nc;
  }
  if (jobs < 2) {
    *slots = GZS_SLOTS;
    return env_chunk(&c) ? c : GZS_CHUNK_DEFAULT;
  }
  /* the window of pieces read ahead (kineto_par.c: 2 a thread), the
  ** main thread's, and one being inflated */
  *slots = 2 * jobs + 3;
  if (chunk_bytes) return chunk_bytes;
  return env_chunk(&c) ? c : GZS_SEG_DEFAULT;
}

pl_gzs *pl_gzs_open_n(const unsigned char *src, size_t n, size_t chunk, int slots, int mapped) {
  pl_gzs *s = pl_xcalloc(1, sizeof *s);
  s->src = src;
  s->n = n;
  s->mapped = mapped;
  if (chunk == 0 && !env_chunk(&chunk)) chunk = GZS_CHUNK_DEFAULT;
  s->chunk = chunk;
  s->overlap = chunk < GZS_OVERLAP_MAX ? chunk : GZS_OVERLAP_MAX;
  s->nslots = slots < 3 ? 3 : slots;
  s->ring = pl_xcalloc((size_t)s->nslots, sizeof *s->ring);
  for (int i = 0; i < s->nslots; i++) s->ring[i].buf = pl_xmalloc(s->overlap + s->chunk);
  s->carry = pl_xmalloc(s->overlap);
  s->held = -1;
  pl_buf_init(&s->side);
  pl_buf_reserve(&s->side, 1);
  s->wdata = s->side.data;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv_full, NULL);
  pthread_cond_init(&s->cv_free, NULL);
  if (pthread_create(&s->th, NULL, producer, s) == 0) s->started = 1;
  else {
    snprintf(s->errmsg, sizeof s->errmsg, "cannot start the inflating thread");
    s->done = s->failed = 1;
  }
  return s;
}

pl_gzs *pl_gzs_open(const unsigned char *src, size_t n, size_t chunk, int mapped) {
  return pl_gzs_open_n(src, n, chunk, GZS_SLOTS, mapped);
}

void pl_gzs_close(pl_gzs *s) {
  if (!s) return;
  pthread_mutex_lock(&s->mu);
  s->abort = 1;
  pthread_cond_broadcast(&s->cv_free);
  pthread_mutex_unlock(&s->mu);
  if (s->started) pthread_join(s->th, NULL);
  for (int i = 0; i < s->nslots; i++) free(s->ring[i].buf);
  free(s->ring);
  free(s->carry);
  pl_buf_free(&s->side);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv_full);
  pthread_cond_destroy(&s->cv_free);
  free(s);
}

const char *pl_gzs_data(const pl_gzs *s, size_t *len, size_t *off) {
  *len = s->wlen;
  if (off) *off = s->woff;
  return s->wdata;
}

void pl_gzs_progress(const pl_gzs *s, size_t *in_done, size_t *in_total, size_t *out_done) {
  *in_done = s->in_done;
  *in_total = s->n;
  *out_done = s->out_done;
}

void pl_gzs_geometry(const pl_gzs *s, size_t *seg, size_t *overlap, int *slots) {
  *seg = s->chunk;
  *overlap = s->overlap;
  *slots = s->nslots;
}

/* A slot is free once the window has passed it and no reader holds it
** (mu held). */
static void unhold(pl_gzs *s, slot *sl, int window) {
  if (window) sl->passed = 1;
  else sl->refs--;
  if (sl->passed && sl->refs == 0) {
    sl->state = SLOT_FREE;
    pthread_cond_broadcast(&s->cv_free);
  }
}

/* The window gives slot i back (mu not held). */
static void release(pl_gzs *s, int i) {
  pthread_mutex_lock(&s->mu);
  unhold(s, &s->ring[i], 1);
  pthread_mutex_unlock(&s->mu);
}

int pl_gzs_more(pl_gzs *s, size_t keep, pl_err *err) {
  if (keep > s->wlen) keep = s->wlen;
  int idx = (int)(s->ridx % (size_t)s->nslots);
  slot *sl = &s->ring[idx];
  pthread_mutex_lock(&s->mu);
  while (!(sl->state == SLOT_FULL && sl->seq == s->ridx) && !(s->done && s->ridx == s->widx))
    pthread_cond_wait(&s->cv_full, &s->mu);
  if (!(sl->state == SLOT_FULL && sl->seq == s->ridx)) {
    int failed = s->failed;
    pthread_mutex_unlock(&s->mu);
    if (!failed) return 0;
    pl_err_set(err, 0, 0, "%s", s->errmsg);
    err->offset = s->erroff;
    return -1;
  }
  pthread_mutex_unlock(&s->mu);
  s->ridx++;
  size_t from = s->woff + keep; /* the new window's start (a stream offset) */
  size_t fresh = sl->len - (s->woff + s->wlen - sl->base);
  s->out_done += fresh;
  s->in_done = sl->in_end;
  if (from >= sl->base) {
    /* zero-copy: the kept bytes are in the slot's carry */
    if (s->held >= 0) release(s, s->held);
    s->held = idx;
    s->wdata = sl->buf + (from - sl->base);
    s->wlen = sl->base + sl->len - from;
    s->woff = from;
    return 1;
  }
  /* more kept than the carry: the window moves to the side buffer */
  size_t left = s->wlen - keep;
  const char *kp = s->wdata + keep;
  if (s->wdata == s->side.data) {
    memmove(s->side.data, kp, left);
  } else {
    s->side.len = 0;
    pl_buf_reserve(&s->side, left + fresh + 1);
    memcpy(s->side.data, kp, left);
  }
  s->side.len = left;
  if (s->held >= 0) release(s, s->held);
  s->held = -1;
  pl_buf_reserve(&s->side, fresh + 1);
  memcpy(s->side.data + left, sl->buf + sl->len - fresh, fresh);
  s->side.len = left + fresh;
  release(s, idx);
  s->wdata = s->side.data;
  s->wlen = s->side.len;
  s->woff = from;
  return 1;
}

int pl_gzs_seek(pl_gzs *s, size_t off, pl_err *err) {
  while (off > s->woff + s->wlen) {
    int r = pl_gzs_more(s, s->wlen, err);
    if (r <= 0) return r;
  }
  size_t d = off - s->woff;
  s->wdata += d;
  s->wlen -= d;
  s->woff = off;
  return 1;
}

int pl_gzs_seg(pl_gzs *s, size_t seq, const char **data, size_t *len, size_t *base) {
  slot *sl = &s->ring[seq % (size_t)s->nslots];
  int ok = 0;
  pthread_mutex_lock(&s->mu);
  while (s->widx <= seq && !s->done && !s->abort) pthread_cond_wait(&s->cv_full, &s->mu);
  if (sl->seq == seq && sl->state == SLOT_FULL) {
    sl->refs++;
    *data = sl->buf;
    *len = sl->len;
    *base = sl->base;
    ok = 1;
  }
  pthread_mutex_unlock(&s->mu);
  return ok;
}

void pl_gzs_seg_done(pl_gzs *s, size_t seq) {
  pthread_mutex_lock(&s->mu);
  unhold(s, &s->ring[seq % (size_t)s->nslots], 0);
  pthread_mutex_unlock(&s->mu);
}

char *pl_gz_peek(const unsigned char *src, size_t n, size_t want, size_t cap, size_t *len, int *eof) {
  pl_gzs *s = pl_gzs_open(src, n, want < (1u << 20) ? want : (1u << 20), 0);
  pl_err e;
  pl_err_clear(&e);
  *eof = 0;
  for (;;) {
    size_t wl;
    const char *d = pl_gzs_data(s, &wl, NULL);
    if (wl >= want) {
      const char *nl = memchr(d, '\n', wl);
      if (wl >= cap || (nl && wl - (size_t)(nl - d) > 65536)) break;
    }
    int r = pl_gzs_more(s, 0, &e);
    if (r < 0) {
      pl_gzs_close(s);
      return NULL;
    }
    if (r == 0) {
      *eof = 1;
      break;
    }
  }
  size_t wl;
  const char *d = pl_gzs_data(s, &wl, NULL);
  char *out = pl_xmalloc(wl + 1);
  memcpy(out, d, wl);
  out[wl] = '\0';
  *len = wl;
  pl_gzs_close(s);
  return out;
}
