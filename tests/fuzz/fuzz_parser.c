/*
** fuzz_parser.c -- libFuzzer harness for one parser of the C core.  Built
** once per format id (FUZZ_FORMAT) by tools/fuzz.sh; with FUZZ_FORMAT
** "auto" it goes through content detection like the CLI does.
** Every input must end in a profile or an error with a message; both paths
** must free everything (LeakSanitizer checks).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT "auto"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pl_err err;
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  pl_profile *p = pl_load_buffer("fuzz", (const char *)data, size, FUZZ_FORMAT, &o, &err);
  if (p) {
    /* touch every table: writers must cope with whatever the parser made */
    for (size_t i = 0; i < p->ntables; i++) {
      pl_buf b;
      pl_buf_init(&b);
      pl_table_write_csv(p->tables[i], &b);
      pl_table_write_json(p->tables[i], &b);
      pl_buf_free(&b);
    }
    pl_profile_free(p);
  } else if (err.msg[0] == '\0') {
    abort(); /* a failure must always say why */
  }
  return 0;
}
