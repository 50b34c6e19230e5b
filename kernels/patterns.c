#include "patterns.h"

#include <string.h>

extern const struct mp_pattern pattern_pingpong;

static const struct mp_pattern *const table[] = {
    &pattern_pingpong,
};

int patterns_count(void) { return (int)(sizeof table / sizeof table[0]); }

const struct mp_pattern *patterns_get(int index) { return table[index]; }

const struct mp_pattern *patterns_find(const char *name)
{
    for (int i = 0; i < patterns_count(); i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}
