/* Message buffers: page-aligned allocation, a fill pattern, and the check that proves the
 * bytes really moved. */
#ifndef MP_BUFFERS_H
#define MP_BUFFERS_H

#include <stddef.h>

void *buffers_alloc(size_t bytes);
void buffers_free(void *p);
/* Fill with the pattern identified by seed (distinct seeds give distinct bytes). */
void buffers_fill(unsigned char *buf, size_t bytes, unsigned seed);
/* Index of the first byte that differs from the pattern of seed, or -1 when all match. */
long long buffers_check(const unsigned char *buf, size_t bytes, unsigned seed);

#endif
