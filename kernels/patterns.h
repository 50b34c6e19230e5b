/* The table of every pattern: the only registry. */
#ifndef MP_PATTERNS_H
#define MP_PATTERNS_H

#include "pattern.h"

int patterns_count(void);
const struct mp_pattern *patterns_get(int index);
/* The whole table, patterns_count() entries, in the order --help and the catalog list them. */
const struct mp_pattern *const *patterns_all(void);
const struct mp_pattern *patterns_find(const char *name);

#endif
