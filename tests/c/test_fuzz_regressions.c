/* test_fuzz_regressions.c -- every input the fuzzers once crashed on
** (tests/fuzz/regressions/FORMAT/...) runs through the same harness code in
** the normal (and sanitizer) build: it must load or fail with a message. */
#include "tcheck.h"
#include <dirent.h>

#define LLVMFuzzerTestOneInput fuzz_writers_one
#include "../fuzz/fuzz_writers.c"
#undef LLVMFuzzerTestOneInput

int main(void) {
  const char *root = "tests/fuzz/regressions";
  DIR *d = opendir(root);
  if (!d) {
    printf("no regressions directory\n");
    return tc_done();
  }
  struct dirent *e;
  int files = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
    DIR *sd = opendir(dir);
    if (!sd) continue;
    struct dirent *f;
    while ((f = readdir(sd)) != NULL) {
      if (f->d_name[0] == '.') continue;
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
      size_t n;
      char *data = tc_slurp(path, &n);
      if (!data) continue;
      files++;
      if (strcmp(e->d_name, "writers") == 0) {
        TC_EQ_INT(fuzz_writers_one((const uint8_t *)data, n), 0);
      } else {
        pl_err err;
        pl_profile *p = pl_load_buffer(path, data, n, e->d_name, NULL, &err);
        TC_CHECK(p != NULL || err.msg[0] != '\0');
        pl_profile_free(p);
      }
      free(data);
    }
    closedir(sd);
  }
  closedir(d);
  printf("%d regression inputs\n", files);
  return tc_done();
}
