/* A rank's message to itself inside a communicator of two: both ranks at once post MPI_Irecv and
 * MPI_Isend of `bytes` to themselves and MPI_Waitall, as MPICH's scattered alltoall does with a
 * rank's own block (MPIR_Alltoall_intra_scattered). MPICH ch4 sends it through its shared-memory
 * transport like any other message (its self path serves a communicator of one rank only), and it
 * is no memcpy: on the machine this was written on, 0.9-1.5 us at 8 B where memcpy took 0.01 us, and
 * 160 us at 1 MiB where memcpy took 28 us and the ping-pong's one-way time 100-117 us
 * (bench/self_message.c, bench/RESULTS.md §19). Timed, not assumed, because it is neither. */
#include "../payload.h"

#define TAG 7

static void self_message_iterate(const struct mp_ctx *c, long iterations)
{
    for (long i = 0; i < iterations; i++) {
        MPI_Request requests[2];
        MPI_Irecv(c->recv, c->bytes, MPI_BYTE, c->me, TAG, c->comm, &requests[0]);
        MPI_Isend(c->send, c->bytes, MPI_BYTE, c->me, TAG, c->comm, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
}

/* Each rank must hold its own payload: what it sent itself, and not the partner's. */
static long long self_message_verify(const struct mp_ctx *c) { return payload_verify_from(c, c->me); }

const struct mp_pattern pattern_self_message = {
    .name = "self-message",
    /* with memcpy: a cost the collectives' predictions charge (a rank's own block in MPICH's
     * scattered alltoall), not a bandwidth between ranks */
    .family = MP_FAMILY_HARDWARE, .modelled = 1,
    .timing = "one iteration = MPI_Irecv and MPI_Isend of `bytes` from each rank of --pair to itself, both "
              "ranks at once, then MPI_Waitall: the own block of MPICH's scattered alltoall; reported = time "
              "per iteration",
    .metric = "per_iteration", .divisor = 1, .iterate = self_message_iterate, .prepare = payload_prepare,
    .verify = self_message_verify,
};
