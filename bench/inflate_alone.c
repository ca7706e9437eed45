/*
** bench/inflate_alone.c FILE.gz zlib|libdeflate|isal -- inflates a gzip file and
** throws the text away: the inflaters perflab could use, measured alone
** (make bench: bench/kineto.sh, bench/scale.sh).  A bench-only program.
**
**   zlib        what perflab uses: inflate() streaming into a 1 MiB buffer
**               (the memory is the buffer), members one after the other
**   libdeflate  libdeflate_gzip_decompress_ex: whole members only, so the
**               output buffer holds the whole inflated text (built when
**               libdeflate-dev is installed: -DHAVE_LIBDEFLATE -ldeflate)
**   isal        Intel ISA-L's isal_inflate, streaming into a 1 MiB buffer as
**               zlib does, gzip CRC checked (built when libisal-dev is
**               installed: -DHAVE_ISAL -lisal)
**
** Prints the inflated bytes.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

static size_t with_zlib(const unsigned char *src, size_t n) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) return 0;
  static unsigned char out[1 << 20];
  size_t total = 0;
  z.next_in = (unsigned char *)src;
  z.avail_in = (uInt)n;
  for (;;) {
    z.next_out = out;
    z.avail_out = sizeof out;
    int rc = inflate(&z, Z_NO_FLUSH);
    total += sizeof out - z.avail_out;
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 || inflateReset(&z) != Z_OK) break;
    } else if (rc != Z_OK) {
      fprintf(stderr, "inflate: %s\n", z.msg ? z.msg : "error");
      exit(1);
    }
  }
  inflateEnd(&z);
  return total;
}

#ifdef HAVE_LIBDEFLATE
static size_t with_libdeflate(const unsigned char *src, size_t n) {
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  /* the last member's size (mod 4 GiB) is in the trailer; grow on demand */
  size_t cap =
      n >= 4 ? (size_t)src[n - 4] | (size_t)src[n - 3] << 8 | (size_t)src[n - 2] << 16 | (size_t)src[n - 1] << 24 : 0;
  if (cap < 4 * n) cap = 4 * n;
  unsigned char *out = malloc(cap);
  size_t total = 0, at = 0;
  while (at < n) {
    size_t in_used, got;
    enum libdeflate_result r;
    while ((r = libdeflate_gzip_decompress_ex(d, src + at, n - at, out, cap, &in_used, &got)) ==
           LIBDEFLATE_INSUFFICIENT_SPACE) {
      cap *= 2;
      out = realloc(out, cap);
    }
    if (r != LIBDEFLATE_SUCCESS) {
      fprintf(stderr, "libdeflate: error %d\n", (int)r);
      exit(1);
    }
    total += got;
    at += in_used;
  }
  free(out);
  libdeflate_free_decompressor(d);
  return total;
}
#endif

#ifdef HAVE_ISAL
static size_t with_isal(const unsigned char *src, size_t n) {
  static struct inflate_state st;
  static unsigned char out[1 << 20];
  isal_inflate_init(&st);
  st.crc_flag = ISAL_GZIP;
  st.next_in = (unsigned char *)src;
  st.avail_in = (uint32_t)n;
  size_t total = 0;
  for (;;) {
    st.next_out = out;
    st.avail_out = sizeof out;
    int rc = isal_inflate(&st);
    total += sizeof out - st.avail_out;
    if (rc != ISAL_DECOMP_OK) {
      fprintf(stderr, "isal_inflate: error %d\n", rc);
      exit(1);
    }
    if (st.block_state == ISAL_BLOCK_FINISH) {
      if (st.avail_in == 0) break;
      /* the next member */
      unsigned char *in = st.next_in;
      uint32_t left = st.avail_in;
      isal_inflate_reset(&st);
      st.crc_flag = ISAL_GZIP;
      st.next_in = in;
      st.avail_in = left;
    } else if (st.avail_in == 0 && st.avail_out > 0) {
      fprintf(stderr, "isal_inflate: the stream ends early\n");
      exit(1);
    }
  }
  return total;
}
#endif

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: inflate_alone FILE.gz zlib|libdeflate|isal\n");
    return 2;
  }
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
    perror(argv[1]);
    return 2;
  }
  size_t n = (size_t)st.st_size;
  const unsigned char *src = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  if (src == MAP_FAILED) return 2;
  size_t total;
  if (strcmp(argv[2], "zlib") == 0) total = with_zlib(src, n);
#ifdef HAVE_LIBDEFLATE
  else if (strcmp(argv[2], "libdeflate") == 0) total = with_libdeflate(src, n);
#endif
#ifdef HAVE_ISAL
  else if (strcmp(argv[2], "isal") == 0) total = with_isal(src, n);
#endif
  else {
    fprintf(stderr, "inflate_alone: no inflater '%s' in this build\n", argv[2]);
    return 2;
  }
  printf("%zu\n", total);
  return 0;
}
