/* The compute cost γ of a reduction, so that a collective's prediction can charge it: one
 * MPI_Reduce_local of `bytes` (MPI_SUM over MPI_UNSIGNED_CHAR, the operator and type of the
 * reducing collectives) from the send buffer into the receive buffer, on the first rank of --pair;
 * the second idles. No message: the MPI's own operator loop, which may be far slower than memcpy. */
#include <stdlib.h>

#include "../buffers.h"
#include "../payload.h"

struct reduce_local_state {
    long done; /* iterations since prepare(): the receive buffer holds stale + done x payload */
};

static int reduce_local_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    c->state = calloc(1, sizeof(struct reduce_local_state));
    return c->state ? 0 : -1;
}

static void reduce_local_teardown(struct mp_ctx *c)
{
    free(c->state);
    c->state = NULL;
}

static void reduce_local_prepare(const struct mp_ctx *c)
{
    struct reduce_local_state *s = c->state;
    payload_prepare(c);
    s->done = 0;
}

static void reduce_local_iterate(const struct mp_ctx *c, long iterations)
{
    struct reduce_local_state *s = c->state;
    if (c->me != 0)
        return;
    for (long i = 0; i < iterations; i++)
        MPI_Reduce_local(c->send, c->recv, c->bytes, MPI_UNSIGNED_CHAR, MPI_SUM);
    s->done += iterations;
}

/* Byte i must be stale(i) + done x payload(i), modulo 256. */
static long long reduce_local_verify(const struct mp_ctx *c)
{
    const struct reduce_local_state *s = c->state;
    if (c->me != 0 || c->bytes == 0)
        return 0;
    unsigned char *stale = malloc((size_t)c->bytes), *mine = malloc((size_t)c->bytes);
    long long bad = 0;
    if (!stale || !mine) {
        bad = 1; /* cannot check: say so rather than pass */
    } else {
        buffers_fill(stale, c->bytes, 0u);
        buffers_fill(mine, c->bytes, payload_seed(c->me));
        for (int i = 0; i < c->bytes && !bad; i++)
            if (c->recv[i] != (unsigned char)(stale[i] + (unsigned long)s->done * mine[i]))
                bad = (long long)i + 1;
    }
    free(stale);
    free(mine);
    return bad;
}

const struct mp_pattern pattern_reduce_local = {
    .name = "reduce-local",
    .family = MP_FAMILY_HARDWARE, .modelled = 1,
    .timing = "one iteration = one MPI_Reduce_local (MPI_SUM, MPI_UNSIGNED_CHAR) of `bytes` into the receive "
              "buffer on the first rank of --pair (the second idles); reported = time per call: the reducing "
              "collectives' compute cost gamma",
    .metric = "copy", .divisor = 1, .setup = reduce_local_setup, .teardown = reduce_local_teardown,
    .iterate = reduce_local_iterate, .prepare = reduce_local_prepare, .verify = reduce_local_verify,
};
