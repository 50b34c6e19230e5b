/* Blocking ping-pongs between the two ranks of --pair (the ping-pong exercise (Marcotte, Durham)): MPI_Send/MPI_Recv, and the
 * same loop with the synchronous and buffered send modes; osu_latency and IMB PingPong time
 * exactly this loop too (their methodology differs only in how they summarise). */
#include <stdio.h>
#include <stdlib.h>

#include "../buffers.h"
#include "../payload.h"
#include "../record.h"

#define TAG 1
enum { SEED_PING = 1, SEED_PONG = 2, SEED_STALE = 3 };

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);

static void pingpong_with(const struct mp_ctx *c, long iterations, send_fn send)
{
    if (c->me == 0) {
        for (long i = 0; i < iterations; i++) {
            send(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, 1, TAG, c->comm, MPI_STATUS_IGNORE);
        }
    } else {
        for (long i = 0; i < iterations; i++) {
            MPI_Recv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, MPI_STATUS_IGNORE);
            send(c->send, c->bytes, MPI_BYTE, 0, TAG, c->comm);
        }
    }
}

static void pingpong_iterate(const struct mp_ctx *c, long n) { pingpong_with(c, n, MPI_Send); }
static void pingpong_ssend_iterate(const struct mp_ctx *c, long n) { pingpong_with(c, n, MPI_Ssend); }
static void pingpong_bsend_iterate(const struct mp_ctx *c, long n) { pingpong_with(c, n, MPI_Bsend); }

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

/* MPI_Bsend needs an attached buffer for one message in flight plus MPI's bookkeeping. */
static int bsend_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    int size = c->bytes + MPI_BSEND_OVERHEAD;
    c->state = malloc(size);
    if (!c->state) {
        snprintf(err, errlen, "out of memory for a %d B MPI_Bsend buffer; use smaller sizes", size);
        return -1;
    }
    MPI_Buffer_attach(c->state, size);
    return 0;
}

static void bsend_teardown(struct mp_ctx *c)
{
    void *buffer;
    int size;
    MPI_Buffer_detach(&buffer, &size);
    free(c->state);
}

static void bsend_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    record_field_int(out, "bsend_buffer_bytes", c->bytes + MPI_BSEND_OVERHEAD);
}

#define PINGPONG(NAME, FAMILY, WORDS, ITERATE, INPLACE)                                                              \
    .name = NAME, .family = FAMILY, .modelled = 1, .timing = WORDS "; reported = one-way time, half the round trip", .metric = "one_way",    \
    .divisor = 2, .inplace_ok = INPLACE, .iterate = ITERATE, .prepare = pingpong_prepare, .verify = pingpong_verify

const struct mp_pattern pattern_pingpong = {
    PINGPONG("pingpong", MP_FAMILY_PINGPONG, "one iteration = MPI_Send then MPI_Recv of the reply (a round trip)", pingpong_iterate, 1),
};
const struct mp_pattern pattern_pingpong_ssend = {
    PINGPONG("pingpong-ssend", MP_FAMILY_PINGPONG, "one iteration = MPI_Ssend (synchronous: returns once the receive has started) "
             "then MPI_Recv of the reply (a round trip)", pingpong_ssend_iterate, 1),
};
const struct mp_pattern pattern_pingpong_bsend = {
    PINGPONG("pingpong-bsend", MP_FAMILY_PINGPONG, "one iteration = MPI_Bsend (copied into an attached buffer of bytes + "
             "MPI_BSEND_OVERHEAD) then MPI_Recv of the reply (a round trip)", pingpong_bsend_iterate, 1),
    .setup = bsend_setup, .teardown = bsend_teardown, .fields = bsend_fields,
};
static void osu_fields(const struct mp_ctx *c, double m, struct mp_fields *out)
{
    (void)c, (void)m;
    record_field_string(out, "compat", "osu_latency");
}
static void imb_fields(const struct mp_ctx *c, double m, struct mp_fields *out)
{
    (void)c, (void)m;
    record_field_string(out, "compat", "IMB-MPI1 PingPong");
}
const struct mp_pattern pattern_osu_latency = {
    PINGPONG("osu-latency", MP_FAMILY_COMPAT, "osu_latency: one iteration = MPI_Send then MPI_Recv of the reply (a round trip), "
             "separate buffers; OSU prints the mean", pingpong_iterate, 0),
    .fields = osu_fields,
};
const struct mp_pattern pattern_imb_pingpong = {
    PINGPONG("imb-pingpong", MP_FAMILY_COMPAT, "IMB PingPong: one iteration = MPI_Send then MPI_Recv of the reply (a round trip); "
             "IMB prints the mean t[usec] and bytes/t", pingpong_iterate, 0),
    .fields = imb_fields,
};
