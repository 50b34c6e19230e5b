/* Checks made before anything runs or is written: what the options ask must be possible with
 * this many ranks and this much memory. Each returns 0, or -1 with one line (problem and fix). */
#ifndef MP_PREFLIGHT_H
#define MP_PREFLIGHT_H

#include <stddef.h>

#include "options.h"

/* At least 2 ranks, --pair within them, --active among the sweep's steps, an even count for
 * the patterns that need one. The same answer on every rank. */
int preflight_ranks(const struct mp_options *o, int nranks, char *err, size_t errlen);
/* The bytes of each message buffer: the largest size, times nranks when a chosen pattern keeps one
 * block per rank (allgather, alltoall). */
long long preflight_buffer_bytes(const struct mp_options *o, int nranks);
/* Two buffers of preflight_buffer_bytes() for each of the ranks_here ranks on this node must fit in
 * the free memory, checked before allocating. */
int preflight_memory(const struct mp_options *o, int nranks, int ranks_here, char *err, size_t errlen);

#endif
