/* A pattern's extra series (pattern.h: series, series_call), timed by the driver after the
 * samples: tests of a few calls each, the whole test and the single calls timed here, so that a
 * pattern never holds a clock. loggp's PRTT(n,d,s) tests are the first user. */
#ifndef MP_SERIES_H
#define MP_SERIES_H

#include <stddef.h>

#include "pattern.h"

/* Collective over ctx->comm: runs p->series until it asks for no more. 0, or -1 when out of
 * memory (with a message in err). */
int series_run(const struct mp_pattern *p, const struct mp_ctx *ctx, char *err, size_t errlen);

#endif
