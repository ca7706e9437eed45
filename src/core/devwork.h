/*
** devwork.h -- device work a timeline reader did not read.
**
** A Chrome trace from an accelerator perflab has no reader for (a vendor
** category such as "npu_dma_events" on a device's process) would otherwise
** leave a silently partial result: kernels missing, a step that looks
** host-bound.  The reader tallies each complete event of a category it did
** not classify by (category, process), notes the processes that are a
** device's, and at the end reports the tallies that sit on a device: one
** diagnostic per category, and the profile meta `unread_device_events`
** (count) and `unread_device_categories` (text) that perflab.recipes reads
** to refuse or qualify the device-side recipes.
*/
#ifndef PL_DEVWORK_H
#define PL_DEVWORK_H

#include <stddef.h>
#include <stdint.h>
#include "profile.h"

typedef struct pl_devwork pl_devwork;

pl_devwork *pl_devwork_new(void);
void pl_devwork_free(pl_devwork *w);
/* A complete event of a category the reader did not read (cat, pid:
** interned ids of its pool; devarg: the event carries a device arg). */
void pl_devwork_other(pl_devwork *w, uint32_t cat, uint32_t pid, int64_t dur_ns, int devarg);
/* The process holds device work the reader did read (kernels, copies). */
void pl_devwork_device_pid(pl_devwork *w, uint32_t pid);
/* A process_name: a device's when it reads "<Word> <n>" (GPU 0, MTIA 17),
** the word not CPU. */
void pl_devwork_process_name(pl_devwork *w, uint32_t pid, const char *name, size_t n);
/* Adds src's tallies and device processes to dst, as if dst's reader had
** read src's events after its own: map takes src's pool ids to dst's.
** Returns 0 when src cannot be added exactly (it dropped events past its
** own cap of pairs): the caller reads those events itself. */
int pl_devwork_merge(pl_devwork *dst, const pl_devwork *src, const uint32_t *map);
/* Events dropped past the cap of (category, process) pairs. */
size_t pl_devwork_dropped(const pl_devwork *w);
/* Diagnostics and meta for the tallies on a device's process; returns
** the number of device events not read. */
size_t pl_devwork_report(pl_devwork *w, const pl_pool *pool, pl_profile *p);

#endif
