/* Windowed bandwidth as osu_bw/osu_bibw (window 64) and IMB Uniband/Biband (window 256) time
 * it: a window of non-blocking messages from one buffer, MPI_Waitall, and for the one-way
 * tests a 1-byte acknowledgement. Reported = time per message of the window. */
#include <stdio.h>
#include <stdlib.h>

#include "../payload.h"
#include "../record.h"

#define TAG 5
#define TAG_ACK 6

struct window {
    MPI_Request *requests;
};

static int window_setup(struct mp_ctx *c, int window, char *err, size_t errlen)
{
    struct window *w = calloc(1, sizeof *w);
    MPI_Request *r = malloc(2 * window * sizeof *r);
    if (!w || !r) {
        free(w);
        free(r);
        snprintf(err, errlen, "out of memory for %d requests", 2 * window);
        return -1;
    }
    w->requests = r;
    c->state = w;
    return 0;
}

static void window_teardown(struct mp_ctx *c)
{
    struct window *w = c->state;
    free(w->requests);
    free(w);
}

static void uni(const struct mp_ctx *c, long iterations, int window)
{
    struct window *w = c->state;
    char ack = 0;
    for (long i = 0; i < iterations; i++) {
        if (c->me == 0) {
            for (int j = 0; j < window; j++)
                MPI_Isend(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm, &w->requests[j]);
            MPI_Waitall(window, w->requests, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, TAG_ACK, c->comm, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < window; j++)
                MPI_Irecv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, &w->requests[j]);
            MPI_Waitall(window, w->requests, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, 0, TAG_ACK, c->comm);
        }
    }
}

static void bi(const struct mp_ctx *c, long iterations, int window)
{
    struct window *w = c->state;
    int other = 1 - c->me;
    for (long i = 0; i < iterations; i++) {
        for (int j = 0; j < window; j++)
            MPI_Irecv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, &w->requests[j]);
        for (int j = 0; j < window; j++)
            MPI_Isend(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &w->requests[window + j]);
        MPI_Waitall(2 * window, w->requests, MPI_STATUSES_IGNORE);
    }
}

/* The sender of a one-way test keeps its own payload; the receiver must hold the sender's. */
static long long uni_verify(const struct mp_ctx *c) { return c->me == 0 ? 0 : payload_verify_partner(c); }

#define WINDOW_PATTERN(ID, NAME, COMPAT, WINDOW, KIND, FLOWS, VERIFY, WORDS)                                    \
    static int ID##_setup(struct mp_ctx *c, char *err, size_t len) { return window_setup(c, WINDOW, err, len); } \
    static void ID##_iterate(const struct mp_ctx *c, long n) { KIND(c, n, WINDOW); }                           \
    static void ID##_fields(const struct mp_ctx *c, double m, struct mp_fields *out)                          \
    {                                                                                                          \
        (void)c, (void)m;                                                                                      \
        record_field_int(out, "window", WINDOW);                                                               \
        record_field_int(out, "messages_per_iteration", (FLOWS) * (WINDOW));                                   \
        record_field_string(out, "compat", COMPAT);                                                            \
    }                                                                                                          \
    const struct mp_pattern pattern_##ID = {                                                                   \
        .name = NAME, .family = MP_FAMILY_COMPAT, .modelled = 1, .timing = WORDS, .metric = "per_message", .divisor = WINDOW, .flows = FLOWS,             \
        .iterate = ID##_iterate, .prepare = payload_prepare, .verify = VERIFY, .setup = ID##_setup,            \
        .teardown = window_teardown, .fields = ID##_fields,                                                    \
    }

WINDOW_PATTERN(osu_bw, "osu-bw", "osu_bw", 64, uni, 1, uni_verify,
               "osu_bw: one iteration = 64 MPI_Isend from one buffer, MPI_Waitall, then a 1-byte acknowledgement "
               "(MPI_Irecv x 64 and MPI_Waitall at the receiver); reported = time per message (sample / 64k)");
WINDOW_PATTERN(osu_bibw, "osu-bibw", "osu_bibw", 64, bi, 2, payload_verify_partner,
               "osu_bibw: one iteration = 64 MPI_Irecv and 64 MPI_Isend on both ranks, MPI_Waitall; reported = "
               "time per window slot (sample / 64k); bandwidth counts both directions");
WINDOW_PATTERN(imb_uniband, "imb-uniband", "IMB-MPI1 Uniband", 256, uni, 1, uni_verify,
               "IMB Uniband: one iteration = 256 MPI_Isend, MPI_Waitall, then a 1-byte acknowledgement (MPI_Irecv "
               "x 256 at the receiver); reported = time per message (sample / 256k)");
WINDOW_PATTERN(imb_biband, "imb-biband", "IMB-MPI1 Biband", 256, bi, 2, payload_verify_partner,
               "IMB Biband: one iteration = 256 MPI_Irecv and 256 MPI_Isend on both ranks, MPI_Waitall; reported = "
               "time per window slot (sample / 256k); bandwidth counts both directions");
