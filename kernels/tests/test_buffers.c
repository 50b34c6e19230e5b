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
    check(buffers_alloc(0) != NULL);
    buffers_free(a);
    buffers_free(b);
    return done("test_buffers");
}
