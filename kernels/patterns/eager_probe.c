/* The eager limit, measured directly (Blaisdell's "network buffer size"): the largest size
 * for which a standard-mode send completes while no receive is posted, found by bisection,
 * and how many unexpected messages of the record's size are accepted before a sender
 * blocks. A probe: the first rank MPI_Isends and polls MPI_Test until it completes or a
 * deadline passes; only then does it tell the second rank (tag GO) to receive. */
#include <stdio.h>
#include <stdlib.h>

#include "../buffers.h"
#include "../clock.h"
#include "../payload.h"
#include "../record.h"

#define TAG 16
#define TAG_GO 17
#define TAG_ACK 18
#define DEADLINE_S 0.01
#define SEARCH_MAX (1 << 20)
#define CAPACITY_MAX 256

struct probe {
    unsigned char *buf;
    MPI_Request requests[CAPACITY_MAX];
    int eager, capacity;
    long long low, high; /* high < 0: none found up to SEARCH_MAX */
};

/* First rank: `count` sends of `bytes`; returns how many completed before the receiver was
 * told to receive (it stops posting at the first one that does not). */
static int probe_send(const struct mp_ctx *c, const void *buf, int bytes, int count)
{
    struct probe *p = c->state;
    int posted = 0, completed = 0;
    while (posted < count) {
        int done = 0;
        MPI_Isend(buf, bytes, MPI_BYTE, 1, TAG, c->comm, &p->requests[posted++]);
        int64_t end = clock_now_ns() + (int64_t)(DEADLINE_S * 1e9);
        while (!done && clock_now_ns() < end)
            MPI_Test(&p->requests[posted - 1], &done, MPI_STATUS_IGNORE);
        if (!done)
            break;
        completed++;
    }
    int go[2] = {posted, bytes};
    MPI_Send(go, 2, MPI_INT, 1, TAG_GO, c->comm);
    MPI_Waitall(posted, p->requests, MPI_STATUSES_IGNORE);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, c->comm, MPI_STATUS_IGNORE);
    return completed;
}

/* Second rank: one probe's worth of receives; 0 once the first rank says the probing is over. */
static int probe_serve(const struct mp_ctx *c, void *buf)
{
    int go[2];
    MPI_Recv(go, 2, MPI_INT, 0, TAG_GO, c->comm, MPI_STATUS_IGNORE);
    if (go[0] < 0)
        return 0;
    for (int i = 0; i < go[0]; i++)
        MPI_Recv(buf, go[1], MPI_BYTE, 0, TAG, c->comm, MPI_STATUS_IGNORE);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, c->comm);
    return 1;
}

static void search(const struct mp_ctx *c, struct probe *p)
{
    long long lo = 0, hi = SEARCH_MAX;
    if (probe_send(c, p->buf, (int)hi, 1)) {
        lo = hi;
        hi = -1;
    }
    while (hi > 0 && hi - lo > 1) {
        long long mid = lo + (hi - lo) / 2;
        if (probe_send(c, p->buf, (int)mid, 1))
            lo = mid;
        else
            hi = mid;
    }
    p->low = lo;
    p->high = hi;
    p->eager = probe_send(c, c->send, c->bytes, 1);
    p->capacity = p->eager ? probe_send(c, c->send, c->bytes, CAPACITY_MAX) : 0;
    int stop[2] = {-1, 0};
    MPI_Send(stop, 2, MPI_INT, 1, TAG_GO, c->comm);
}

static int eager_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    struct probe *p = calloc(1, sizeof *p);
    size_t size = c->bytes > SEARCH_MAX ? (size_t)c->bytes : SEARCH_MAX;
    if (!p || !(p->buf = buffers_alloc(size))) {
        free(p);
        snprintf(err, errlen, "out of memory for the eager probe's %zu B buffer", size);
        return -1;
    }
    c->state = p;
    if (c->me == 0)
        search(c, p);
    else
        while (probe_serve(c, p->buf))
            ;
    return 0;
}

static void eager_teardown(struct mp_ctx *c)
{
    struct probe *p = c->state;
    buffers_free(p->buf);
    free(p);
}

static void eager_iterate(const struct mp_ctx *c, long iterations)
{
    for (long i = 0; i < iterations; i++) {
        if (c->me == 0)
            probe_send(c, c->send, c->bytes, 1);
        else
            probe_serve(c, c->recv);
    }
}

static long long eager_verify(const struct mp_ctx *c) { return c->me == 0 ? 0 : payload_verify_partner(c); }

static void eager_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    const struct probe *p = c->state;
    (void)median;
    record_field_bool(out, "eager", p->eager);
    if (p->high == p->low + 1) /* exact only when the bisection closed to one byte */
        record_field_int(out, "eager_limit_bytes", p->low);
    else
        record_field_null(out, "eager_limit_bytes");
    record_field_int(out, "eager_limit_low_bytes", p->low);
    if (p->high > 0)
        record_field_int(out, "eager_limit_high_bytes", p->high);
    else
        record_field_null(out, "eager_limit_high_bytes");
    record_field_int(out, "unexpected_capacity", p->capacity);
    record_field_bool(out, "capacity_capped", p->capacity == CAPACITY_MAX);
    record_field_double(out, "probe_deadline_s", DEADLINE_S);
    record_field_int(out, "probe_max_bytes", SEARCH_MAX);
}

const struct mp_pattern pattern_eager_probe = {
    .name = "eager-probe",
    .family = MP_FAMILY_PROBE, .modelled = 0, /* a probe's time is ~10 ms when not eager: no line */
    .timing = "one iteration = one probe: MPI_Isend of `bytes` to a rank that has posted no receive, MPI_Test "
              "until it completes or 10 ms pass, then a GO message, the receive and a zero-byte acknowledgement "
              "(an iteration near 10 ms means the send waited for its receive: not eager); reported = time per "
              "probe. eager_limit_bytes comes from a bisection before timing",
    .metric = "probe", .divisor = 1, .setup = eager_setup, .teardown = eager_teardown,
    .iterate = eager_iterate, .prepare = payload_prepare, .verify = eager_verify, .fields = eager_fields,
};
