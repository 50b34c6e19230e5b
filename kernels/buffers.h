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
/* Index of the first byte that differs from the byte-wise sum (mod 256) of the patterns of the
 * n seeds (what an MPI_SUM over MPI_UNSIGNED_CHAR of buffers filled with them gives), or -1. */
long long buffers_check_sum(const unsigned char *buf, size_t bytes, const unsigned *seeds, int n);

#endif
