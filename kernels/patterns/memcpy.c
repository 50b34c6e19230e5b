/* Memory copy bandwidth b_c for each size (Saphir 1994), so buffering costs can be computed:
 * the first rank copies its send buffer into its receive buffer; the second rank idles. */
#include <string.h>

#include "../payload.h"

static void memcpy_iterate(const struct mp_ctx *c, long iterations)
{
    if (c->me != 0)
        return;
    for (long i = 0; i < iterations; i++) {
        memcpy(c->recv, c->send, c->bytes);
        __asm__ __volatile__("" ::: "memory"); /* every copy happens: the compiler may not merge them */
    }
}

static long long memcpy_verify(const struct mp_ctx *c) { return c->me == 0 ? payload_verify_from(c, 0) : 0; }

const struct mp_pattern pattern_memcpy = {
    .name = "memcpy",
    .family = MP_FAMILY_HARDWARE, .modelled = 1,
    .timing = "one iteration = one memcpy of `bytes` from the send to the receive buffer on the first rank of "
              "--pair (the second idles); reported = time per copy; bandwidth = b_c",
    .metric = "copy", .divisor = 1, .iterate = memcpy_iterate, .prepare = payload_prepare,
    .verify = memcpy_verify,
};
