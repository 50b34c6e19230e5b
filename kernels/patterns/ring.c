/* A token passed around every rank (Saphir's benchmark): rank 0 posts its receive from
 * the last rank, then sends; every other rank receives from its left and forwards the token
 * it received to its right. Receives are always posted before the message can arrive. */
#include "../payload.h"

#define TAG 8

static void ring_iterate(const struct mp_ctx *c, long iterations)
{
    int right = (c->me + 1) % c->nranks, left = (c->me + c->nranks - 1) % c->nranks;
    MPI_Request r;
    for (long i = 0; i < iterations; i++) {
        if (c->me == 0) {
            MPI_Irecv(c->recv, c->bytes, MPI_BYTE, left, TAG, c->comm, &r);
            MPI_Send(c->send, c->bytes, MPI_BYTE, right, TAG, c->comm);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, left, TAG, c->comm, MPI_STATUS_IGNORE);
            MPI_Send(c->recv, c->bytes, MPI_BYTE, right, TAG, c->comm);
        }
    }
}

/* Every rank ends up holding rank 0's token, the one that went round. */
static long long ring_verify(const struct mp_ctx *c) { return payload_verify_from(c, 0); }

const struct mp_pattern pattern_ring = {
    .name = "ring",
    .family = MP_FAMILY_MANY_RANKS, .modelled = 1,
    .timing = "one iteration = the token once around all P ranks (P messages, each receive posted first); "
              "reported = time per hop, sample / (k x P), max over ranks",
    .metric = "per_hop", .divisor = 0, .participants = MP_ALL,
    .iterate = ring_iterate, .prepare = payload_prepare, .verify = ring_verify,
};
