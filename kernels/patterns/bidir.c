/* Both ranks send and receive at once: MPI_Sendrecv (IMB Sendrecv, the Cisco blog 'Why MPI is Good for You' (2013)), ping-ping
 * (Isend, then the receive is posted) and the exchange of Saphir 1994 §3.1 in the form that
 * cannot hang (receive posted first, Isend, Waitall). One iteration = one bidirectional
 * exchange; the bandwidth counts both directions. */
#include "../buffers.h"
#include "../payload.h"
#include "../record.h"

#define TAG 4

static void sendrecv_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me;
    for (long i = 0; i < iterations; i++) {
        if (c->inplace)
            MPI_Sendrecv_replace(c->send, c->bytes, MPI_BYTE, other, TAG, other, TAG, c->comm, MPI_STATUS_IGNORE);
        else
            MPI_Sendrecv(c->send, c->bytes, MPI_BYTE, other, TAG, c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm,
                         MPI_STATUS_IGNORE);
    }
}

/* In place the two payloads swap on every call: either one, whole, is right. */
static long long sendrecv_verify(const struct mp_ctx *c)
{
    if (c->inplace && buffers_check(c->recv, c->bytes, payload_seed(c->me)) < 0)
        return 0;
    return payload_verify_partner(c);
}

static void pingping_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me;
    MPI_Request r;
    for (long i = 0; i < iterations; i++) {
        MPI_Isend(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &r);
        MPI_Recv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
}

static void exchange_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me;
    MPI_Request r[2];
    for (long i = 0; i < iterations; i++) {
        MPI_Irecv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[0]);
        MPI_Isend(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

/* The exchange as Open MPI's linear alltoall posts it (ompi_coll_base_alltoall_intra_basic_linear):
 * persistent requests made, started, waited for and freed on every call. On the machine this was
 * written on (Open MPI 4.1, shared memory) that took 0.52 us at 8 B where MPI_Irecv, MPI_Isend and
 * MPI_Waitall took 0.30 us, and the alltoall 0.56 us. */
static void exchange_init_iterate(const struct mp_ctx *c, long iterations)
{
    int other = 1 - c->me;
    MPI_Request r[2];
    for (long i = 0; i < iterations; i++) {
        MPI_Recv_init(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[0]);
        MPI_Send_init(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[1]);
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    }
}

/* IMB Sendrecv: a periodic chain over every rank, send right, receive from the left. */
static void chain_iterate(const struct mp_ctx *c, long iterations)
{
    int right = (c->me + 1) % c->nranks, left = (c->me + c->nranks - 1) % c->nranks;
    for (long i = 0; i < iterations; i++)
        MPI_Sendrecv(c->send, c->bytes, MPI_BYTE, right, TAG, c->recv, c->bytes, MPI_BYTE, left, TAG, c->comm,
                     MPI_STATUS_IGNORE);
}

static long long chain_verify(const struct mp_ctx *c)
{
    return payload_verify_from(c, (c->me + c->nranks - 1) % c->nranks);
}

static void imb_fields(const struct mp_ctx *c, double m, struct mp_fields *out)
{
    (void)c, (void)m;
    record_field_string(out, "compat", "IMB-MPI1 Sendrecv");
}

#define BIDIR(FAMILY) .family = FAMILY, .modelled = 1, .metric = "per_iteration", .divisor = 1, .flows = 2, .prepare = payload_prepare

const struct mp_pattern pattern_sendrecv = {
    .name = "sendrecv",
    .timing = "one iteration = one MPI_Sendrecv on both ranks at once (MPI_Sendrecv_replace in place); "
              "reported = time per iteration; bandwidth counts both directions (2 x bytes)",
    BIDIR(MP_FAMILY_BIDIRECTIONAL), .inplace_ok = 1, .iterate = sendrecv_iterate, .verify = sendrecv_verify,
};
const struct mp_pattern pattern_pingping = {
    .name = "pingping",
    .timing = "one iteration = MPI_Isend, then MPI_Recv, then MPI_Wait, on both ranks at once (the receive is "
              "posted after the send); reported = time per iteration; bandwidth counts both directions",
    BIDIR(MP_FAMILY_BIDIRECTIONAL), .iterate = pingping_iterate, .verify = payload_verify_partner,
};
const struct mp_pattern pattern_exchange = {
    .name = "exchange",
    .timing = "one iteration = MPI_Irecv, MPI_Isend, MPI_Waitall on both ranks at once (Saphir's exchange in "
              "the form that cannot deadlock; blocking send-then-receive is never run); reported = time per "
              "iteration; bandwidth counts both directions",
    BIDIR(MP_FAMILY_BIDIRECTIONAL), .iterate = exchange_iterate, .verify = payload_verify_partner,
};
const struct mp_pattern pattern_exchange_init = {
    .name = "exchange-init",
    .timing = "one iteration = MPI_Recv_init, MPI_Send_init, MPI_Startall, MPI_Waitall, MPI_Request_free of both "
              "on both ranks at once (the exchange of Open MPI's linear alltoall, its requests made every call); "
              "reported = time per iteration; bandwidth counts both directions",
    BIDIR(MP_FAMILY_BIDIRECTIONAL), .iterate = exchange_init_iterate, .verify = payload_verify_partner,
};
const struct mp_pattern pattern_imb_sendrecv = {
    .name = "imb-sendrecv",
    .timing = "IMB Sendrecv: one iteration = MPI_Sendrecv on every rank of a periodic chain (send right, receive "
              "from the left); reported = time per iteration (max over ranks); bandwidth = 2 x bytes / time",
    BIDIR(MP_FAMILY_COMPAT), .participants = MP_ALL, .iterate = chain_iterate, .verify = chain_verify, .fields = imb_fields,
};
