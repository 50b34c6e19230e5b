#include "../buffers.h"
#include "test.h"

int main(void)
{
    unsigned char *a = buffers_alloc(100000);
    check(a != NULL && ((unsigned long)a % 4096) == 0);
    buffers_fill(a, 100000, 1);
    check(buffers_check(a, 100000, 1) == -1);
    check(buffers_check(a, 100000, 2) == 0);
    a[77777] ^= 1;
    check(buffers_check(a, 100000, 1) == 77777);
    /* Patterns of different seeds differ in every 256-byte block. */
    unsigned char *b = buffers_alloc(4096);
    buffers_fill(b, 4096, 2);
    int differing_blocks = 0;
    for (int block = 0; block < 16; block++)
        differing_blocks += buffers_check(b + 256 * block, 256, 1) != -1;
    check(differing_blocks == 16);
    /* The byte-wise sum, modulo 256, of several ranks' patterns (an MPI_SUM over MPI_UNSIGNED_CHAR). */
    unsigned char *x = buffers_alloc(1000), *y = buffers_alloc(1000), *sum = buffers_alloc(1000);
    unsigned seeds[3] = {1, 2, 3};
    buffers_fill(x, 1000, 1);
    buffers_fill(y, 1000, 2);
    buffers_fill(sum, 1000, 3);
    for (int i = 0; i < 1000; i++)
        sum[i] = (unsigned char)(sum[i] + x[i] + y[i]);
    check(buffers_check_sum(sum, 1000, seeds, 3) == -1);
    check(buffers_check_sum(sum, 1000, seeds, 2) == 0); /* a rank left out of the sum */
    sum[500] ^= 0x5a;
    check(buffers_check_sum(sum, 1000, seeds, 3) == 500);
    buffers_free(x);
    buffers_free(y);
    buffers_free(sum);
    check(buffers_alloc(0) != NULL);
    buffers_free(a);
    buffers_free(b);
    return done("test_buffers");
}
