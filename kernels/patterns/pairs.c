/* Concurrent ping-pongs, bottom half of the ranks with the top half (the ping-pong exercise's contention
 * exercise), swept over 1, 2, 4, ... P/2 active pairs: each step is one record, with every
 * pair's own time. Inactive ranks sleep outside the communicator. */
#include <stdio.h>

#include "../payload.h"
#include "../record.h"
#include "../rounds.h"

#define TAG 9

static int pairs_variants(int world_size) { return rounds_active_steps(world_size); }

static int pairs_member(int rank, int world_size, int step)
{
    return rounds_active_member(world_size, rounds_active_pairs(world_size, step), rank);
}

/* In the communicator of the active ranks, rank i < a pairs with i + a (a = size / 2). */
static int partner(const struct mp_ctx *c) { return (c->me + c->nranks / 2) % c->nranks; }

static void pairs_iterate(const struct mp_ctx *c, long iterations)
{
    int other = partner(c);
    for (long i = 0; i < iterations; i++) {
        if (c->me < c->nranks / 2) {
            MPI_Send(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm);
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
            MPI_Send(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm);
        }
    }
}

static long long pairs_verify(const struct mp_ctx *c) { return payload_verify_from(c, partner(c)); }

static int pairs_pairs(const struct mp_ctx *c, int *pairs, int max_pairs)
{
    int a = c->nranks / 2;
    for (int i = 0; i < a && i < max_pairs; i++) {
        pairs[2 * i] = i;
        pairs[2 * i + 1] = i + a;
    }
    return a;
}

static void pairs_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    record_field_int(out, "active_pairs", c->nranks / 2);
}

const struct mp_pattern pattern_pairs = {
    .name = "pairs",
    .family = MP_FAMILY_MANY_RANKS, .modelled = 0, /* a contention sweep: steps, not one line over size */
    .timing = "one iteration = a ping-pong (MPI_Send/MPI_Recv round trip) in every active pair at once, rank i "
              "with rank i + P/2; reported = one-way time, half the round trip, max over all active ranks; "
              "pair_median_s: each pair's own median",
    .metric = "one_way", .divisor = 2, .participants = MP_ALL, .inplace_ok = 0, .even_ranks = 1,
    .variants = pairs_variants, .active_pairs = rounds_active_pairs, .member = pairs_member, .iterate = pairs_iterate, .prepare = payload_prepare,
    .verify = pairs_verify, .pairs = pairs_pairs, .fields = pairs_fields,
};
