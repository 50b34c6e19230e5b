/* The pattern catalog: what each pattern is, as JSON, for a given number of ranks. Python reads
 * it (msgperf-kernels --list-patterns, and the run record's "catalog") instead of restating
 * pattern facts (docs/record-format.md). */
#ifndef MP_CATALOG_H
#define MP_CATALOG_H

#include <stdio.h>

#include "pattern.h"

/* The family's name ("pingpong", "bidirectional", ...); NULL for MP_FAMILY_NONE or an unknown value. */
const char *catalog_family_name(enum mp_family family);

/* Writes a JSON array with one object per pattern, its variants counted for world_size ranks.
 * Returns 0, or -1 when a pattern has no family (a table error, named in err) or the write failed. */
int catalog_write(FILE *f, const struct mp_pattern *const *patterns, int npatterns, int world_size, char *err,
                  size_t errlen);

#endif
