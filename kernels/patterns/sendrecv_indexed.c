/* The step of Bruck's alltoall as its implementations run it (MPICH's MPIR_Alltoall_intra_brucks,
 * Open MPI's ompi_coll_base_alltoall_intra_bruck): a derived datatype for the blocks the step
 * exchanges is built, committed, the blocks packed, exchanged with the partner, whose blocks come
 * in through the same datatype, and the datatype freed, every step of every call. At 2 ranks the
 * step moves one block of `bytes`, so the pattern builds MPI_Type_create_indexed_block(1, bytes,
 * {0}, MPI_BYTE) over the first of the receive buffer's two blocks, packs through it with MPI_Pack
 * into the send buffer and MPI_Sendrecv's that into the receive buffer through the type. Measured
 * as one step because the parts do not add up: on the machine this was written on, the datatype's
 * life and the packing cost 0.5-0.9 us beyond an MPI_Sendrecv of 8 B on MPICH 5.0 (1.3-1.8 us) and
 * 0.26-0.5 us on Open MPI 4.1 (0.21-0.27 us), and a memcpy of the block does not stand for the pack
 * (bench/alltoall_bruck_parts.c, bench/RESULTS.md §19).
 *
 * The payload: the block swaps sides each iteration, so after d iterations it is this rank's own
 * payload (d even) or the partner's (d odd); the second block of the receive buffer, outside the
 * datatype, must still hold the stale bytes prepare() left, and the send buffer starts stale so
 * that only the pack can fill it. Were a receive never to land, an even d would leave the right
 * bytes, so verify() also runs one fresh untimed step and checks that the partner's block came
 * in. */
#include <stdio.h>
#include <stdlib.h>

#include "../buffers.h"
#include "../payload.h"

#define TAG 6

struct sendrecv_indexed_state {
    long done; /* iterations since prepare() */
};

static int sendrecv_indexed_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    c->state = calloc(1, sizeof(struct sendrecv_indexed_state));
    if (!c->state)
        snprintf(err, errlen, "sendrecv-indexed: out of memory for its state");
    return c->state ? 0 : -1;
}

static void sendrecv_indexed_teardown(struct mp_ctx *c)
{
    free(c->state);
    c->state = NULL;
}

#define STALE 0u /* payload.c's stale seed: no rank's payload */

/* The block the datatype does not cover: the second of the receive buffer's two (per_rank_blocks). */
static unsigned char *outside(const struct mp_ctx *c) { return c->recv + c->bytes; }

static void sendrecv_indexed_prepare(const struct mp_ctx *c)
{
    buffers_fill(c->recv, (size_t)c->bytes, payload_seed(c->me));
    buffers_fill(outside(c), (size_t)c->bytes, STALE);
    buffers_fill(c->send, (size_t)c->bytes, STALE);
    ((struct sendrecv_indexed_state *)c->state)->done = 0;
}

static void sendrecv_indexed_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me, displacement = 0;
    for (long i = 0; i < iterations; i++) {
        MPI_Datatype type;
        int position = 0;
        MPI_Type_create_indexed_block(1, c->bytes, &displacement, MPI_BYTE, &type);
        MPI_Type_commit(&type);
        MPI_Pack(c->recv, 1, type, c->send, c->bytes, &position, c->comm);
        MPI_Sendrecv(c->send, c->bytes, MPI_BYTE, other, TAG, c->recv, 1, type, other, TAG, c->comm,
                     MPI_STATUS_IGNORE);
        MPI_Type_free(&type);
    }
    ((struct sendrecv_indexed_state *)c->state)->done += iterations;
}

/* 0 when the block holds `from`'s payload and the bytes after it the stale ones; else the first
 * bad byte's index + 1. */
static long long check(const struct mp_ctx *c, int from)
{
    long long at = buffers_check(c->recv, (size_t)c->bytes, payload_seed(from));
    if (at >= 0)
        return at + 1;
    at = buffers_check(outside(c), (size_t)c->bytes, STALE);
    return at < 0 ? 0 : c->bytes + at + 1;
}

static long long sendrecv_indexed_verify(const struct mp_ctx *c)
{
    struct sendrecv_indexed_state *s = c->state;
    if (c->bytes == 0)
        return 0;
    long long timed = check(c, s->done % 2 ? 1 - c->me : c->me);
    /* Both ranks run the fresh step whatever their first check found: neither waits alone. */
    sendrecv_indexed_prepare(c);
    sendrecv_indexed_iterate(c, 1);
    long long fresh = check(c, 1 - c->me);
    return timed ? timed : fresh;
}

const struct mp_pattern pattern_sendrecv_indexed = {
    .name = "sendrecv-indexed",
    /* with memcpy and sendrecv-reduce: a cost the collectives' predictions charge, not a bandwidth
     * to compare with the ping-pong's (its time holds a datatype's life and a pack) */
    .family = MP_FAMILY_HARDWARE, .modelled = 1,
    .timing = "one iteration = MPI_Type_create_indexed_block of one block of `bytes`, MPI_Type_commit, "
              "MPI_Pack of the block, one MPI_Sendrecv of `bytes` on both ranks at once into the "
              "datatype, MPI_Type_free: a step of Bruck's alltoall; reported = time per iteration",
    .metric = "per_iteration", .divisor = 1, .flows = 2, .per_rank_blocks = 1,
    .setup = sendrecv_indexed_setup, .teardown = sendrecv_indexed_teardown,
    .prepare = sendrecv_indexed_prepare, .iterate = sendrecv_indexed_iterate, .verify = sendrecv_indexed_verify,
};
