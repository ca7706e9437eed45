/*
** textenc.h -- the text encodings a profile arrives in, made UTF-8 before
** detection: a UTF-8 byte-order mark is skipped; UTF-16 (LE or BE, with a
** BOM, or without one when the first characters are ASCII with a zero byte
** beside each, as a PowerShell redirect on Windows writes) is transcoded.
** Line ends are left alone (CRLF is every parser's business).
*/
#ifndef PL_TEXTENC_H
#define PL_TEXTENC_H

#include <stddef.h>

typedef enum { PL_ENC_UTF8 = 0, PL_ENC_UTF8_BOM, PL_ENC_UTF16LE, PL_ENC_UTF16BE } pl_encoding;

/* The encoding of data[0..len), from its first bytes. */
pl_encoding pl_text_encoding(const char *data, size_t len);
/* Its name: "UTF-8", "UTF-8 with BOM", "UTF-16LE", "UTF-16BE". */
const char *pl_encoding_name(pl_encoding e);
/* data as UTF-8: for UTF-8, data itself (past a BOM) and *owned = NULL;
** for UTF-16, a new NUL-terminated buffer in *owned (the caller frees it).
** Unpaired surrogates and a final odd byte become U+FFFD. */
const char *pl_text_utf8(const char *data, size_t len, pl_encoding e, size_t *outlen, char **owned);

#endif
