/*
** outfile.c -- see outfile.h.
*/
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* every byte of data to fd (a FIFO or socket may take it in pieces) */
static int write_all(int fd, const char *p, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* the final target of path: symbolic links followed (relative ones against
** the folder of the link), up to 40 of them; a malloc'd string or NULL with
** errno set */
static char *resolve_links(const char *path) {
  char *cur = strdup(path);
  if (!cur) return NULL;
  for (int hops = 0; hops < 40; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur; /* absent or not a link */
    char buf[PATH_MAX];
    ssize_t n = readlink(cur, buf, sizeof buf - 1);
    if (n < 0) {
      int en = errno;
      free(cur);
      errno = en;
      return NULL;
    }
    buf[n] = 0;
    char *next;
    const char *slash = strrchr(cur, '/');
    if (buf[0] == '/' || !slash) next = strdup(buf);
    else {
      size_t dl = (size_t)(slash - cur) + 1;
      next = malloc(dl + (size_t)n + 1);
      if (next) {
        memcpy(next, cur, dl);
        memcpy(next + dl, buf, (size_t)n + 1);
      }
    }
    free(cur);
    if (!next) {
      errno = ENOMEM;
      return NULL;
    }
    cur = next;
  }
  free(cur);
  errno = ELOOP;
  return NULL;
}

/* a Unix-domain socket: connect and send */
static int write_socket(const char *path, const char *data, size_t len) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(a.sun_path, path);
  int types[2] = { SOCK_STREAM, SOCK_SEQPACKET };
  for (int k = 0; k < 2; k++) {
    int fd = socket(AF_UNIX, types[k], 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
      int r = write_all(fd, data, len);
      int en = errno;
      close(fd);
      errno = en;
      return r;
    }
    int en = errno;
    close(fd);
    errno = en;
    if (en != EPROTOTYPE) return -1;
  }
  return -1;
}

/* opened and written in place: O_TRUNC only for a regular file */
static int write_in_place(const char *path, const char *data, size_t len, int regular) {
  int fd = open(path, O_WRONLY | O_CLOEXEC | (regular ? O_TRUNC : 0));
  if (fd < 0) return -1;
  int r = write_all(fd, data, len);
  int en = errno;
  if (close(fd) != 0 && r == 0) {
    r = -1;
    en = errno;
  }
  errno = en;
  return r;
}

int pl_write_output(const char *path, const void *data, size_t len) {
  const char *d = data;
  char *target = resolve_links(path);
  if (!target) return -1;
  struct stat st;
  int exists = stat(target, &st) == 0;
  int r;
  if (exists && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    r = -1;
    goto out;
  }
  if (exists && S_ISSOCK(st.st_mode)) {
    r = write_socket(target, d, len);
    goto out;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    r = write_in_place(target, d, len, 0);
    goto out;
  }
  /* a regular file or a new name: a temporary file beside the target */
  size_t tl = strlen(target) + 32;
  char *tmp = malloc(tl);
  if (!tmp) {
    errno = ENOMEM;
    r = -1;
    goto out;
  }
  snprintf(tmp, tl, "%s.tmp~%ld", target, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST) { /* a stale one of an earlier run of this pid */
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL | O_CLOEXEC, 0666);
  }
  if (fd < 0) {
    /* the folder is not writable (or full): the file itself may be */
    int en = errno;
    free(tmp);
    if (exists) {
      r = write_in_place(target, d, len, 1);
      goto out;
    }
    errno = en;
    r = -1;
    goto out;
  }
  if (exists) (void)fchmod(fd, st.st_mode & 07777); /* keep the file's permissions */
  r = write_all(fd, d, len);
  int en = errno;
  if (close(fd) != 0 && r == 0) {
    r = -1;
    en = errno;
  }
  if (r == 0 && rename(tmp, target) != 0) {
    en = errno;
    unlink(tmp);
    if (en == EXDEV || en == EBUSY) r = write_in_place(target, d, len, 1); /* a mount point */
    else {
      r = -1;
      errno = en;
    }
    free(tmp);
    goto out;
  }
  if (r != 0) {
    unlink(tmp);
    errno = en;
  }
  free(tmp);
out : {
  int e2 = errno;
  free(target);
  errno = e2;
}
  return r;
}
