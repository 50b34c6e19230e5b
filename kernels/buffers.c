#include "buffers.h"

#include <stdlib.h>
#include <string.h>

#define ALIGNMENT 4096

void *buffers_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, ALIGNMENT, bytes ? bytes : 1) != 0)
        return NULL;
    return p;
}

void buffers_free(void *p) { free(p); }

static inline unsigned char pattern_byte(size_t i, unsigned seed)
{
    /* Varies within and across 256-byte blocks so shifted or stale data is caught. */
    return (unsigned char)(i * 131u + (i >> 8) * 7u + seed * 97u + 1u);
}

void buffers_fill(unsigned char *buf, size_t bytes, unsigned seed)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = pattern_byte(i, seed);
}

long long buffers_check(const unsigned char *buf, size_t bytes, unsigned seed)
{
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != pattern_byte(i, seed))
            return (long long)i;
    return -1;
}

long long buffers_check_sum(const unsigned char *buf, size_t bytes, const unsigned *seeds, int n)
{
    for (size_t i = 0; i < bytes; i++) {
        unsigned sum = 0;
        for (int r = 0; r < n; r++)
            sum += pattern_byte(i, seeds[r]);
        if (buf[i] != (unsigned char)sum)
            return (long long)i;
    }
    return -1;
}
