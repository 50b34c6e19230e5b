/* Ping-pongs with requests: non-blocking (Isend/Irecv/Wait), ready mode (MPI_Rsend into a
 * receive that is guaranteed to be posted) and persistent requests (MPI_Start). */
#include <stdio.h>
#include <stdlib.h>

#include "../payload.h"

#define TAG 2
#define TAG_READY 3

static void nb_iterate(const struct mp_ctx *c, long iterations)
{
    MPI_Request r[2];
    int other = 1 - c->me;
    for (long i = 0; i < iterations; i++) {
        if (c->me == 0) {
            MPI_Irecv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[0]);
            MPI_Isend(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else {
            MPI_Irecv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            MPI_Isend(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[1]);
            MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        }
    }
}

/* Each side posts its next receive before the send that provokes the message, so every
 * MPI_Rsend finds its receive posted; one zero-byte "ready" per call starts the chain. */
static void rsend_iterate(const struct mp_ctx *c, long iterations)
{
    MPI_Request r;
    if (c->me == 0) {
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, c->comm, MPI_STATUS_IGNORE);
        for (long i = 0; i < iterations; i++) {
            MPI_Irecv(c->recv, c->bytes, MPI_BYTE, 1, TAG, c->comm, &r);
            MPI_Rsend(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Irecv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, &r);
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, c->comm);
        for (long i = 0; i < iterations; i++) {
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (i + 1 < iterations)
                MPI_Irecv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, &r);
            MPI_Rsend(c->send, c->bytes, MPI_BYTE, 0, TAG, c->comm);
        }
    }
}

/* Persistent: [0] receives, [1] sends; made once per size, started every iteration. */
static int persistent_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    MPI_Request *r = malloc(2 * sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    MPI_Recv_init(c->recv, c->bytes, MPI_BYTE, 1 - c->me, TAG, c->comm, &r[0]);
    MPI_Send_init(c->send, c->bytes, MPI_BYTE, 1 - c->me, TAG, c->comm, &r[1]);
    c->state = r;
    return 0;
}

static void persistent_teardown(struct mp_ctx *c)
{
    MPI_Request *r = c->state;
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    free(r);
}

static void persistent_iterate(const struct mp_ctx *c, long iterations)
{
    MPI_Request *r = c->state;
    for (long i = 0; i < iterations; i++) {
        if (c->me == 0) {
            MPI_Startall(2, r);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else {
            MPI_Start(&r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            MPI_Start(&r[1]);
            MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        }
    }
}

#define ROUND_TRIP "; reported = one-way time, half the round trip"

const struct mp_pattern pattern_pingpong_nb = {
    .name = "pingpong-nb",
    .family = MP_FAMILY_PINGPONG, .modelled = 1,
    .timing = "one iteration = MPI_Irecv + MPI_Isend + MPI_Waitall at the first rank, MPI_Irecv/Wait then "
              "MPI_Isend/Wait at the second (a round trip)" ROUND_TRIP,
    .metric = "one_way", .divisor = 2, .iterate = nb_iterate, .prepare = payload_prepare,
    .verify = payload_verify_partner,
};
const struct mp_pattern pattern_pingpong_rsend = {
    .name = "pingpong-rsend",
    .family = MP_FAMILY_PINGPONG, .modelled = 1,
    .timing = "one iteration = MPI_Rsend into a receive posted beforehand, then the reply the same way (a round "
              "trip); each sample also holds one zero-byte 'ready' message that starts the chain" ROUND_TRIP,
    .metric = "one_way", .divisor = 2, .iterate = rsend_iterate, .prepare = payload_prepare,
    .verify = payload_verify_partner,
};
const struct mp_pattern pattern_pingpong_persistent = {
    .name = "pingpong-persistent",
    .family = MP_FAMILY_PINGPONG, .modelled = 1,
    .timing = "one iteration = MPI_Start of persistent receive and send requests (MPI_Recv_init/MPI_Send_init, "
              "made once per size) and their Wait, there and back (a round trip)" ROUND_TRIP,
    .metric = "one_way", .divisor = 2, .iterate = persistent_iterate, .prepare = payload_prepare,
    .verify = payload_verify_partner, .setup = persistent_setup, .teardown = persistent_teardown,
};
