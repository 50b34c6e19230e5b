/* A one-way stream: the first rank of --pair calls MPI_Send back to back, the second MPI_Recv back
 * to back, so each message leaves as soon as the last one's send returned. This is what a binomial
 * bcast at 2 ranks does when its calls run back to back from one root (the kernels' default): the
 * time per call is the rate at which the root's sends complete, not the ping-pong's one-way time.
 * On the machine this was written on (2 ranks, shared memory) MPICH 5.0's binomial MPI_Bcast run back
 * to back took 1.00-1.12x this stream at 8 B - 1 MiB, where the one-way time gave 0.76-1.0x; Open
 * MPI 4.1's 0.91-1.30x, against 0.42-1.17x (bench/bcast_stream.c, bench/RESULTS.md §19). */
#include "../payload.h"

#define TAG 8

static void send_stream_iterate(const struct mp_ctx *c, long iterations)
{
    if (c->me == 0) {
        for (long i = 0; i < iterations; i++)
            MPI_Send(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
    } else {
        for (long i = 0; i < iterations; i++)
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, MPI_STATUS_IGNORE);
    }
}

/* The receiver holds the sender's payload; the sender's receive buffer was never written. */
static long long send_stream_verify(const struct mp_ctx *c)
{
    return c->me == 1 ? payload_verify_from(c, 0) : payload_verify_untouched(c);
}

const struct mp_pattern pattern_send_stream = {
    .name = "send-stream",
    /* with self-message: a cost the collectives' predictions charge (a binomial bcast's sends when its
     * calls run back to back) */
    .family = MP_FAMILY_HARDWARE, .modelled = 1,
    .timing = "one iteration = one MPI_Send of `bytes` from the first rank of --pair, received by MPI_Recv on "
              "the second, back to back (no reply): the sends of a binomial bcast whose calls run back to back; "
              "reported = time per message",
    .metric = "per_message", .divisor = 1, .iterate = send_stream_iterate, .prepare = payload_prepare,
    .verify = send_stream_verify,
};
