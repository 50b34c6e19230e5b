/* The step of a recursive-doubling allreduce as its implementations run it (MPICH's
 * MPIR_Allreduce_intra_recursive_doubling, Open MPI's ompi_coll_base_allreduce_intra_recursivedoubling):
 * both ranks MPI_Sendrecv `bytes` to each other, then MPI_Reduce_local (MPI_SUM over
 * MPI_UNSIGNED_CHAR, the collective patterns' operator and type) the received bytes into the buffer
 * they send next. Measured as one step because the parts do not add up: on the machine this was
 * written on (MPICH 5.0, shared memory), a sendrecv and a reduce-local of 32-64 KiB measured apart
 * summed to 0.37-0.9x the step, depending on the launch, and with a separate accumulator to about
 * 1x: sending bytes the reduction has just written costs more than sending clean ones
 * (bench/allreduce_parts.c, bench/RESULTS.md §19).
 *
 * The payload: after d iterations both ranks hold 2^(d-1) x (theirs + the partner's) modulo 256 in
 * the send buffer and 2^(d-2) x that sum in the receive buffer, which verify() checks byte by byte.
 * A symmetric sum doubles every iteration, so after the thousands of timed ones both buffers are
 * zeros, which a receive that never landed could leave too: verify() then runs two more exchanges
 * from fresh payloads, untimed, and checks those exactly. */
#include <stdio.h>
#include <stdlib.h>

#include "../buffers.h"
#include "../payload.h"

#define TAG 5

struct sendrecv_reduce_state {
    long done; /* iterations since prepare() */
};

static int sendrecv_reduce_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    c->state = calloc(1, sizeof(struct sendrecv_reduce_state));
    if (!c->state)
        snprintf(err, errlen, "sendrecv-reduce: out of memory for its state");
    return c->state ? 0 : -1;
}

static void sendrecv_reduce_teardown(struct mp_ctx *c)
{
    free(c->state);
    c->state = NULL;
}

static void sendrecv_reduce_prepare(const struct mp_ctx *c)
{
    payload_prepare(c);
    ((struct sendrecv_reduce_state *)c->state)->done = 0;
}

static void sendrecv_reduce_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me;
    for (long i = 0; i < iterations; i++) {
        MPI_Sendrecv(c->send, c->bytes, MPI_UNSIGNED_CHAR, other, TAG, c->recv, c->bytes, MPI_UNSIGNED_CHAR, other,
                     TAG, c->comm, MPI_STATUS_IGNORE);
        MPI_Reduce_local(c->recv, c->send, c->bytes, MPI_UNSIGNED_CHAR, MPI_SUM);
    }
    ((struct sendrecv_reduce_state *)c->state)->done += iterations;
}

/* 2^e modulo 256 (0 from e = 8 on). */
static unsigned pow2_mod256(long e) { return e >= 8 ? 0u : (1u << e) & 0xffu; }

/* 0 when the buffers hold what `done` >= 2 iterations from payload_prepare() leave; else the first
 * bad byte's index + 1 (1 when the check cannot be made). */
static long long check(const struct mp_ctx *c, long done)
{
    unsigned char *mine = malloc((size_t)c->bytes), *theirs = malloc((size_t)c->bytes);
    long long bad = 0;
    if (!mine || !theirs) {
        bad = 1; /* cannot check: say so rather than pass */
    } else {
        buffers_fill(mine, c->bytes, payload_seed(c->me));
        buffers_fill(theirs, c->bytes, payload_seed(1 - c->me));
        unsigned sent = pow2_mod256(done - 1), received = pow2_mod256(done - 2);
        for (int i = 0; i < c->bytes && !bad; i++) {
            unsigned sum = (unsigned)mine[i] + theirs[i];
            if (c->send[i] != (unsigned char)(sent * sum) || c->recv[i] != (unsigned char)(received * sum))
                bad = (long long)i + 1;
        }
    }
    free(mine);
    free(theirs);
    return bad;
}

static long long sendrecv_reduce_verify(const struct mp_ctx *c)
{
    struct sendrecv_reduce_state *s = c->state;
    if (c->bytes == 0)
        return 0;
    long long timed = s->done >= 2 ? check(c, s->done) : 0; /* the driver always runs more than two */
    /* Both ranks run the two fresh exchanges whatever their first check found: neither waits alone. */
    sendrecv_reduce_prepare(c);
    sendrecv_reduce_iterate(c, 2);
    long long fresh = check(c, 2);
    return timed ? timed : fresh;
}

const struct mp_pattern pattern_sendrecv_reduce = {
    .name = "sendrecv-reduce",
    /* with reduce-local and memcpy: a cost the collectives' predictions charge, not a bandwidth to
     * compare with the ping-pong's (its time holds a reduction) */
    .family = MP_FAMILY_HARDWARE, .modelled = 1,
    .timing = "one iteration = one MPI_Sendrecv of `bytes` on both ranks at once, then MPI_Reduce_local "
              "(MPI_SUM, MPI_UNSIGNED_CHAR) of the received bytes into the buffer sent next: a "
              "recursive-doubling allreduce's step; reported = time per iteration",
    .metric = "per_iteration", .divisor = 1, .flows = 2, .setup = sendrecv_reduce_setup,
    .teardown = sendrecv_reduce_teardown, .prepare = sendrecv_reduce_prepare, .iterate = sendrecv_reduce_iterate,
    .verify = sendrecv_reduce_verify,
};
