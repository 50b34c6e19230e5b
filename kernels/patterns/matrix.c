/* Every ordered rank pair, in 2(P - 1) rounds of disjoint pairs (rounds.c): each round is one
 * record with its pairs' own times; together they make the P x P table (topology, slow
 * links, heterogeneous cores as in the ping-pong exercise's laptop). */
#include <stdio.h>

#include "../payload.h"
#include "../record.h"
#include "../rounds.h"

#define TAG 10

static int matrix_variants(int world_size) { return rounds_matrix_count(world_size); }

static void matrix_name(int round, int world_size, char *buf, size_t len)
{
    (void)world_size;
    snprintf(buf, len, "round %d", round);
}

static int matrix_member(int rank, int world_size, int round)
{
    int starts;
    return rounds_matrix_partner(world_size, round, rank, &starts) >= 0;
}

/* This rank's partner as a comm rank; *starts when this rank sends first. */
static int partner(const struct mp_ctx *c, int *starts)
{
    int w = rounds_matrix_partner(c->world_size, c->variant, c->world[c->me], starts);
    for (int i = 0; i < c->nranks; i++)
        if (c->world[i] == w)
            return i;
    return -1;
}

static void matrix_iterate(const struct mp_ctx *c, long iterations)
{
    int starts, other = partner(c, &starts);
    for (long i = 0; i < iterations; i++) {
        if (starts) {
            MPI_Send(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm);
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
            MPI_Send(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm);
        }
    }
}

static long long matrix_verify(const struct mp_ctx *c)
{
    int starts;
    return payload_verify_from(c, partner(c, &starts));
}

static int matrix_pairs(const struct mp_ctx *c, int *pairs, int max_pairs)
{
    int n = 0, starts;
    for (int i = 0; i < c->nranks && n < max_pairs; i++) {
        int w = rounds_matrix_partner(c->world_size, c->variant, c->world[i], &starts);
        for (int j = 0; j < c->nranks && starts; j++)
            if (c->world[j] == w) {
                pairs[2 * n] = i;
                pairs[2 * n + 1] = j;
                n++;
            }
    }
    return n;
}

static void matrix_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    record_field_int(out, "round", c->variant);
    record_field_int(out, "rounds", rounds_matrix_count(c->world_size));
}

const struct mp_pattern pattern_matrix = {
    .name = "matrix",
    .family = MP_FAMILY_MANY_RANKS, .modelled = 0, /* each round is other pairs: no one line over size */
    .timing = "one iteration = a ping-pong (MPI_Send/MPI_Recv round trip) in every pair of the round at once, "
              "started by the pair's first rank; reported = one-way time, half the round trip, max over the "
              "round; pair_median_s: each ordered pair's own median",
    .metric = "one_way", .divisor = 2, .participants = MP_ALL,
    .variants = matrix_variants, .variant_name = matrix_name, .member = matrix_member,
    .iterate = matrix_iterate, .prepare = payload_prepare, .verify = matrix_verify, .pairs = matrix_pairs,
    .fields = matrix_fields,
};
