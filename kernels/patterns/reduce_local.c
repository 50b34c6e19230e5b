/* The compute cost γ of a reduction, so that a collective's prediction can charge it: one
 * MPI_Reduce_local of `bytes` from the send buffer into the receive buffer, on the first rank of
 * --pair; the second idles. No message: the MPI's own operator loop, which may be far slower than
 * memcpy. Two variants: MPI_SUM over MPI_UNSIGNED_CHAR (no name: the operator and type of the
 * reducing collective patterns), and over MPI_DOUBLE ("double": what applications reduce;
 * bytes/8 of them, rounded down: below 8 B the call combines nothing, its time is the call's). MPICH 5.0's byte loop ran at 2.6 GB/s where its double loop ran at 20 GB/s on the
 * machine this was written on, so one γ cannot stand for both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../buffers.h"
#include "../payload.h"

enum { BYTES, DOUBLES };

struct reduce_local_state {
    long done; /* iterations since prepare(): the receive buffer holds stale + done x payload */
};

static int reduce_local_variants(int world_size) { return (void)world_size, 2; }

static void reduce_local_name(int variant, int world_size, char *buf, size_t len)
{
    (void)world_size;
    snprintf(buf, len, "%s", variant == DOUBLES ? "double" : "");
}

/* The doubles' payload: small whole numbers, so that done x payload stays exact (below 2^53) and
 * no byte pattern makes a NaN; the receive buffer starts at 0. */
static double double_payload(long i, int me) { return (double)((i + (long)me) % 13 + 1); }

static int reduce_local_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    c->state = calloc(1, sizeof(struct reduce_local_state));
    if (!c->state)
        snprintf(err, errlen, "reduce-local: out of memory for its state");
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
    if (c->variant == DOUBLES) /* memcpy: the buffers need not be aligned for a double */
        for (long i = 0; i < c->bytes / (long)sizeof(double); i++) {
            double x = double_payload(i, c->me), zero = 0.0;
            memcpy(c->send + i * (long)sizeof x, &x, sizeof x);
            memcpy(c->recv + i * (long)sizeof x, &zero, sizeof x);
        }
}

static void reduce_local_iterate(const struct mp_ctx *c, long iterations)
{
    struct reduce_local_state *s = c->state;
    if (c->me != 0)
        return;
    if (c->variant == DOUBLES)
        for (long i = 0; i < iterations; i++)
            MPI_Reduce_local(c->send, c->recv, c->bytes / (int)sizeof(double), MPI_DOUBLE, MPI_SUM);
    else
        for (long i = 0; i < iterations; i++)
            MPI_Reduce_local(c->send, c->recv, c->bytes, MPI_UNSIGNED_CHAR, MPI_SUM);
    s->done += iterations;
}

/* Double i must be done x its payload, exactly; the first byte of a wrong one is reported. */
static long long verify_doubles(const struct mp_ctx *c, long done)
{
    for (long i = 0; i < c->bytes / (long)sizeof(double); i++) {
        double got;
        memcpy(&got, c->recv + i * (long)sizeof got, sizeof got);
        if (got != (double)done * double_payload(i, c->me))
            return (long long)(i * (long)sizeof got) + 1;
    }
    return 0;
}

/* Byte i must be stale(i) + done x payload(i), modulo 256. */
static long long reduce_local_verify(const struct mp_ctx *c)
{
    const struct reduce_local_state *s = c->state;
    if (c->me != 0 || c->bytes == 0)
        return 0;
    if (c->variant == DOUBLES)
        return verify_doubles(c, s->done);
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
    .timing = "one iteration = one MPI_Reduce_local (MPI_SUM, MPI_UNSIGNED_CHAR; variant double: MPI_DOUBLE, "
              "bytes/8 of them) of `bytes` into the receive buffer on the first rank of --pair (the second "
              "idles); reported = time per call: the reducing collectives' compute cost gamma",
    .metric = "per_call", .divisor = 1, .setup = reduce_local_setup, .teardown = reduce_local_teardown,
    .variants = reduce_local_variants, .variant_name = reduce_local_name,
    .iterate = reduce_local_iterate, .prepare = reduce_local_prepare, .verify = reduce_local_verify,
};
