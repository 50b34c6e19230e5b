/* The exchange of Saphir 1994 §3.1 in the form Saphir recommends: every receive is posted before
 * its send can arrive, guaranteed by a barrier between the MPI_Irecv and the MPI_Isend, so no
 * message is ever unexpected (buffered by the MPI and copied out later). Compare with the
 * unsynchronised `exchange` (kernels/patterns/bidir.c): the difference of the medians is what
 * the barrier costs. */
#include "../payload.h"
#include "../record.h"

#define TAG 5

static void exchange_sync_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me;
    MPI_Request r[2];
    for (long i = 0; i < iterations; i++) {
        MPI_Irecv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[0]);
        MPI_Barrier(c->comm); /* both receives are posted before either send starts */
        MPI_Isend(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

static void exchange_sync_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)c, (void)median;
    record_field_bool(out, "synchronised", 1);
    record_field_bool(out, "barrier", 1);
    record_field_string(out, "compare_with", "exchange");
}

const struct mp_pattern pattern_exchange_sync = {
    .name = "exchange-sync",
    .family = MP_FAMILY_BIDIRECTIONAL, .modelled = 1,
    .timing = "one iteration = MPI_Irecv, MPI_Barrier, MPI_Isend, MPI_Waitall on both ranks at once (Saphir 1994 "
              "§3.1: the barrier guarantees every receive is posted before its send, so no message is buffered "
              "as unexpected); the barrier is inside the timed iteration; reported = time per iteration; "
              "bandwidth counts both directions",
    .metric = "per_iteration", .divisor = 1, .flows = 2, .prepare = payload_prepare,
    .iterate = exchange_sync_iterate, .verify = payload_verify_partner, .fields = exchange_sync_fields,
};
