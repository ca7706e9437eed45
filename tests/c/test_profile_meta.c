/* test_profile_meta.c -- profile metadata: set, replace, get and order,
** below and above the size where the key index is built (16 keys), checked
** against a plain list kept by the test itself. */
#include "profile.h"
#include "tcheck.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  pl_profile *p = pl_profile_new("x", "y");
  TC_CHECK(pl_profile_meta_get(p, "a") == NULL);
  char key[32];
  /* 3000 keys, each set as a number; every third replaced by text */
  for (int i = 0; i < 3000; i++) {
    snprintf(key, sizeof key, "table%d.self_cpu", i);
    pl_profile_meta_num(p, key, i * 0.5);
    if (i % 3 == 0) pl_profile_meta_str(p, key, "t", 1);
    /* a key set again must not add an entry */
    if (i % 7 == 0) pl_profile_meta_num(p, key, i * 0.5);
  }
  TC_EQ_INT((long long)p->nmeta, 3000);
  int order = 1, vals = 1;
  for (int i = 0; i < 3000; i++) {
    snprintf(key, sizeof key, "table%d.self_cpu", i);
    if (strcmp(p->meta[i].key, key) != 0) order = 0;
    const pl_meta *m = pl_profile_meta_get(p, key);
    if (m != &p->meta[i]) {
      vals = 0;
      continue;
    }
    int text = i % 3 == 0 && i % 7 != 0;
    if (text ? (m->text == NULL || strcmp(m->text, "t") != 0) : (m->text != NULL || m->num != i * 0.5)) vals = 0;
  }
  TC_CHECK(order);
  TC_CHECK(vals);
  TC_CHECK(pl_profile_meta_get(p, "table3000.self_cpu") == NULL);
  TC_CHECK(pl_profile_meta_get(p, "") == NULL);
  pl_profile_free(p);
  return tc_done();
}
