/* Blocking MPI_Send/MPI_Recv ping-pong between the two ranks of --pair (seeds/003). */
#include "../buffers.h"
#include "../pattern.h"

#define TAG 1
enum { SEED_PING = 1, SEED_PONG = 2, SEED_STALE = 3 };

static void pingpong_iterate(const struct mp_ctx *c, long iterations)
{
    if (c->me == 0) {
        for (long i = 0; i < iterations; i++) {
            MPI_Send(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, 1, TAG, c->comm, MPI_STATUS_IGNORE);
        }
    } else {
        for (long i = 0; i < iterations; i++) {
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, MPI_STATUS_IGNORE);
            MPI_Send(c->send, c->bytes, MPI_BYTE, 0, TAG, c->comm);
        }
    }
}

/* Separate buffers: each side sends its own pattern and must end up holding the other's.
 * In place: the first rank's pattern travels there and back through both buffers. */
static void pingpong_prepare(const struct mp_ctx *c)
{
    if (c->inplace) {
        buffers_fill(c->send, c->bytes, c->me == 0 ? SEED_PING : SEED_STALE);
        return;
    }
    buffers_fill(c->send, c->bytes, c->me == 0 ? SEED_PING : SEED_PONG);
    buffers_fill(c->recv, c->bytes, SEED_STALE);
}

static long long pingpong_verify(const struct mp_ctx *c)
{
    unsigned expect = (c->inplace || c->me == 1) ? SEED_PING : SEED_PONG;
    return buffers_check(c->recv, c->bytes, expect) + 1;
}

const struct mp_pattern pattern_pingpong = {
    .name = "pingpong",
    .timing = "one iteration = MPI_Send then MPI_Recv of the reply (a round trip); "
              "reported = one-way time, half the round trip",
    .metric = "one_way",
    .divisor = 2,
    .iterate = pingpong_iterate,
    .prepare = pingpong_prepare,
    .verify = pingpong_verify,
};
