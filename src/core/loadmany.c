/*
** loadmany.c -- parse several files on N threads (see loadmany.h).
*/
#include "loadmany.h"
#include "par.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
  pl_profile *p;
  pl_err err;
  int done, taken;
} slot;

struct pl_many {
  char **paths; /* copies: the caller's strings may go before
                            ** the threads are joined (an error unwinding) */
  size_t n, next;
  char *format;
  char **tables; /* a copy of o.tables (NULL-terminated), or NULL */
  pl_parse_opts o;
  int stop;                /* no more files handed out */
  volatile int *interrupt; /* the caller's interrupt flag (SIGINT, --timeout) */
  slot *s;
  pthread_t *th;
  int nth;
  pthread_mutex_t mu;
  pthread_cond_t cv;
};


static void *worker(void *arg) {
  pl_many *m = arg;
  for (;;) {
    pthread_mutex_lock(&m->mu);
    if (m->stop || m->next >= m->n) {
      pthread_mutex_unlock(&m->mu);
      break;
    }
    size_t i = m->next++;
    pthread_mutex_unlock(&m->mu);
    pl_err e;
    pl_oom_file = m->paths[i];
    pl_profile *p = pl_load_file(m->paths[i], m->format, &m->o, &e);
    pl_oom_file = NULL;
    pthread_mutex_lock(&m->mu);
    m->s[i].p = p;
    if (!p) m->s[i].err = e;
    m->s[i].done = 1;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
  }
  return NULL;
}

pl_many *pl_many_start(const char *const *paths, size_t n, const char *format, const pl_parse_opts *o, int jobs) {
  pl_many *m = pl_xcalloc(1, sizeof *m);
  m->paths = pl_xcalloc(n ? n : 1, sizeof *m->paths);
  for (size_t i = 0; i < n; i++) m->paths[i] = pl_xstrdup(paths[i]);
  m->format = format ? pl_xstrdup(format) : NULL;
  m->n = n;
  if (o) m->o = *o;
  m->o.progress = NULL;
  m->o.progress_ud = NULL;
  if (o && o->tables) { /* o.tables too may live on the caller's stack */
    size_t k = 0;
    while (o->tables[k]) k++;
    m->tables = pl_xcalloc(k + 1, sizeof *m->tables);
    for (size_t j = 0; j < k; j++) m->tables[j] = pl_xstrdup(o->tables[j]);
    m->o.tables = (const char *const *)m->tables;
  }
  m->interrupt = m->o.interrupt;
  m->s = pl_xcalloc(n ? n : 1, sizeof *m->s);
  pthread_mutex_init(&m->mu, NULL);
  pthread_cond_init(&m->cv, NULL);
  if (jobs < 1) jobs = pl_par_cores();
  /* the threads left over when there are fewer files than threads go to
  ** each file's own parse (formats that split their input) */
  if (m->o.jobs == 0) m->o.jobs = n > 0 && (size_t)jobs > n ? jobs / (int)n : 1;
  if ((size_t)jobs > n) jobs = (int)n;
  m->th = pl_xcalloc(jobs > 0 ? (size_t)jobs : 1, sizeof *m->th);
  for (int t = 0; t < jobs; t++) {
    if (pthread_create(&m->th[m->nth], NULL, worker, m) != 0) break;
    m->nth++;
  }
  if (m->nth == 0 && n > 0) worker(m); /* no thread could start: parse here */
  return m;
}

pl_profile *pl_many_take(pl_many *m, size_t i, pl_err *err) {
  pthread_mutex_lock(&m->mu);
  while (!m->s[i].done) pthread_cond_wait(&m->cv, &m->mu);
  slot *s = &m->s[i];
  pl_profile *p = s->p;
  s->p = NULL;
  s->taken = 1;
  if (!p && err) *err = s->err;
  pthread_mutex_unlock(&m->mu);
  return p;
}

void pl_many_finish(pl_many *m) {
  pthread_mutex_lock(&m->mu);
  int pending = 0;
  for (size_t i = 0; i < m->n; i++)
    if (!m->s[i].taken && (m->s[i].done || i < m->next)) pending = 1;
  int unstarted = m->next < m->n;
  m->stop = 1;
  pthread_mutex_unlock(&m->mu);
  /* results nobody will take: cut the parses still running short */
  if ((pending || unstarted) && m->interrupt)
    __atomic_store_n(m->interrupt, 1, __ATOMIC_RELAXED); /* read by the parses */
  for (int t = 0; t < m->nth; t++) pthread_join(m->th[t], NULL);
  for (size_t i = 0; i < m->n; i++)
    if (m->s[i].p) pl_profile_free(m->s[i].p);
  pthread_mutex_destroy(&m->mu);
  pthread_cond_destroy(&m->cv);
  for (size_t i = 0; i < m->n; i++) free(m->paths[i]);
  free(m->paths);
  free(m->format);
  for (size_t j = 0; m->tables && m->tables[j]; j++) free(m->tables[j]);
  free(m->tables);
  free(m->th);
  free(m->s);
  free(m);
}
