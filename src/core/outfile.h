/*
** outfile.h -- writing an output file without ever replacing a special file.
**
** pl_write_output(path, data, len) writes len bytes to path:
**   - a symbolic link is followed to its final target (the link is kept);
**   - a regular file, or a name that does not exist yet, is written
**     atomically: a temporary file beside the target, then rename() over it
**     (a reader never sees half a file); where the rename cannot be done
**     (EXDEV, EBUSY: the target is a mount point or on another filesystem
**     than its folder) the file is rewritten in place instead;
**   - a character or block device, a FIFO or a socket is opened and written
**     in place (as cp and sort -o do): it stays what it was.
** Returns 0, or -1 with errno set (nothing is left behind on failure).
*/
#ifndef PL_OUTFILE_H
#define PL_OUTFILE_H

#include <stddef.h>

int pl_write_output(const char *path, const void *data, size_t len);

#endif
