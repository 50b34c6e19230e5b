/* The table of every pattern: the only registry. */
#ifndef MP_PATTERNS_H
#define MP_PATTERNS_H

#include "pattern.h"

int patterns_count(void);
const struct mp_pattern *patterns_get(int index);
const struct mp_pattern *patterns_find(const char *name);

#endif
