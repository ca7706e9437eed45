/*
** textenc.c -- UTF-8 BOM and UTF-16 input made plain UTF-8 (textenc.h).
*/
#include "textenc.h"
#include "pl_util.h"

#include <string.h>

/* ASCII text in UTF-16 without a BOM: in the first 64 code units, every
** unit one byte zero and the other a printable ASCII or a line end. */
static int utf16_ascii(const unsigned char *d, size_t len, int be) {
  size_t n = len / 2 > 64 ? 64 : len / 2;
  if (n < 2) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char hi = be ? d[2 * i] : d[2 * i + 1], lo = be ? d[2 * i + 1] : d[2 * i];
    if (hi != 0) return 0;
    if (!((lo >= 0x20 && lo < 0x7f) || lo == '\n' || lo == '\r' || lo == '\t')) return 0;
  }
  return 1;
}

pl_encoding pl_text_encoding(const char *data, size_t len) {
  const unsigned char *d = (const unsigned char *)data;
  if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) return PL_ENC_UTF8_BOM;
  if (len >= 2 && d[0] == 0xFF && d[1] == 0xFE) return PL_ENC_UTF16LE;
  if (len >= 2 && d[0] == 0xFE && d[1] == 0xFF) return PL_ENC_UTF16BE;
  if (utf16_ascii(d, len, 0)) return PL_ENC_UTF16LE;
  if (utf16_ascii(d, len, 1)) return PL_ENC_UTF16BE;
  return PL_ENC_UTF8;
}

const char *pl_encoding_name(pl_encoding e) {
  switch (e) {
    case PL_ENC_UTF8_BOM: return "UTF-8 with BOM";
    case PL_ENC_UTF16LE: return "UTF-16LE";
    case PL_ENC_UTF16BE: return "UTF-16BE";
    default: return "UTF-8";
  }
}

static size_t put_utf8(char *o, unsigned long c) {
  if (c < 0x80) {
    o[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    o[0] = (char)(0xC0 | (c >> 6));
    o[1] = (char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    o[0] = (char)(0xE0 | (c >> 12));
    o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (c >> 18));
  o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
  o[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

const char *pl_text_utf8(const char *data, size_t len, pl_encoding e, size_t *outlen, char **owned) {
  *owned = NULL;
  if (e == PL_ENC_UTF8) {
    *outlen = len;
    return data;
  }
  if (e == PL_ENC_UTF8_BOM) {
    *outlen = len - 3;
    return data + 3;
  }
  const unsigned char *d = (const unsigned char *)data;
  int be = e == PL_ENC_UTF16BE;
  size_t i = (len >= 2 && ((be && d[0] == 0xFE && d[1] == 0xFF) || (!be && d[0] == 0xFF && d[1] == 0xFE))) ? 2 : 0;
  /* each code unit gives at most 3 bytes (a pair of them 4) */
  char *out = pl_xmalloc((len / 2) * 3 + 4), *o = out;
  while (i + 1 < len) {
    unsigned long u = be ? ((unsigned long)d[i] << 8 | d[i + 1]) : ((unsigned long)d[i + 1] << 8 | d[i]);
    i += 2;
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < len) {
      unsigned long v = be ? ((unsigned long)d[i] << 8 | d[i + 1]) : ((unsigned long)d[i + 1] << 8 | d[i]);
      if (v >= 0xDC00 && v <= 0xDFFF) {
        i += 2;
        o += put_utf8(o, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
        continue;
      }
    }
    if (u >= 0xD800 && u <= 0xDFFF) u = 0xFFFD;
    o += put_utf8(o, u);
  }
  if (i < len) o += put_utf8(o, 0xFFFD);
  *o = '\0';
  *outlen = (size_t)(o - out);
  *owned = out;
  return out;
}
