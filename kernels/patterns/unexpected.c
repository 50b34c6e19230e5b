/* Expected vs unexpected receive (the buffered path of Saphir 1994, measured directly): the
 * receive is posted before the message is sent (preposted), or only once MPI_Iprobe shows
 * the message has arrived (late: the MPI has had to keep it, and copies it out). Both
 * variants move one zero-byte control message and one message of `bytes` per iteration. */
#include <stdio.h>

#include "../payload.h"

#define TAG 11
#define TAG_CTL 12
enum { PREPOSTED, LATE };

static int unexpected_variants(int world_size) { return (void)world_size, 2; }

static void unexpected_name(int variant, int world_size, char *buf, size_t len)
{
    (void)world_size;
    snprintf(buf, len, "%s", variant == PREPOSTED ? "preposted" : "late");
}

static void unexpected_iterate(const struct mp_ctx *c, long iterations)
{
    MPI_Request r;
    int arrived;
    for (long i = 0; i < iterations; i++) {
        if (c->variant == PREPOSTED && c->me == 1) {
            MPI_Irecv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, &r);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_CTL, c->comm); /* "my receive is posted" */
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (c->variant == PREPOSTED) {
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_CTL, c->comm, MPI_STATUS_IGNORE);
            MPI_Send(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
        } else if (c->me == 1) {
            do
                MPI_Iprobe(0, TAG, c->comm, &arrived, MPI_STATUS_IGNORE);
            while (!arrived);
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_CTL, c->comm); /* "received" */
        } else {
            MPI_Send(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_CTL, c->comm, MPI_STATUS_IGNORE);
        }
    }
}

static long long unexpected_verify(const struct mp_ctx *c) { return c->me == 0 ? 0 : payload_verify_partner(c); }

const struct mp_pattern pattern_unexpected = {
    .name = "unexpected",
    .family = MP_FAMILY_BUFFERING, .modelled = 1,
    .timing = "one iteration = one message of `bytes` from the first rank to the second plus one zero-byte "
              "control message: preposted = the receiver posts MPI_Irecv and says so before the send; late = "
              "the sender sends first and the receiver calls MPI_Recv only after MPI_Iprobe has seen the message "
              "arrive, then acknowledges; reported = time per iteration",
    .metric = "per_iteration", .divisor = 1, .variants = unexpected_variants, .variant_name = unexpected_name,
    .iterate = unexpected_iterate, .prepare = payload_prepare, .verify = unexpected_verify,
};
