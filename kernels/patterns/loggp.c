/* What the LogGP parameters (Alexandrov et al. 1995) need, per size s, measured the way
 * Netgauge does (Hoefler, Lichei & Rehm 2007, after Kielmann, Bal & Verstoep 2000):
 *   PRTT(n,d,s): the first rank sends n messages of s bytes, waiting d between two sends; the
 *   second rank receives all n, then sends one message of s bytes back; timed on the first rank.
 * The driver's timed samples are the plain round trip PRTT(1,0,s) (metric round_trip). After
 * them (in verify(), so that the cold first iteration stays cold and nothing is mixed into the
 * samples) the pattern measures, with the driver's clock and median:
 *   prtt_1_0_s, prtt_n_0_s, prtt_n_d_s  (d = prtt_1_0_s, as Netgauge chooses it: larger than the gap)
 *   send_call_s: one MPI_Send call on the first rank, in the PRTT(n,d,s) series (paced by d)
 *   recv_call_s: one MPI_Recv call on the second rank when the message has had d to arrive
 *                (Netgauge's o_r series: n back-to-back messages, the receiver waits d before each)
 * and writes them as record fields; src/msgperf/analysis/loggp.py derives L, o_s, o_r, g, G. */
#include <stdio.h>
#include <stdlib.h>

#include "../clock.h"
#include "../payload.h"
#include "../record.h"
#include "../stats.h"

#define TAG 10
#define LOGGP_N 10              /* Netgauge's n */
#define LOGGP_MIN_REPS 5
#define LOGGP_MAX_REPS 101
#define LOGGP_TARGET_S 0.05     /* time per series, at most (bounded below by the minimum repetitions) */

struct loggp_state {
    int reps;
    double prtt_1_0, prtt_n_0, prtt_n_d, d, send_call, recv_call;
};

static void pingpong_once(const struct mp_ctx *c)
{
    if (c->me == 0) {
        MPI_Send(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
        MPI_Recv(c->recv, c->bytes, MPI_BYTE, 1, TAG, c->comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, MPI_STATUS_IGNORE);
        MPI_Send(c->send, c->bytes, MPI_BYTE, 0, TAG, c->comm);
    }
}

static void loggp_iterate(const struct mp_ctx *c, long iterations)
{
    for (long i = 0; i < iterations; i++)
        pingpong_once(c);
}

static double median_of(double *x, long n)
{
    double m, lo, hi;
    stats_median_ci(x, n, 0.95, &m, &lo, &hi);
    return m;
}

/* One PRTT(n,d,s) test. The first rank returns the round trip and adds its send-call times to
 * *send_calls; with recv_delay > 0 the second rank waits that long before each receive after
 * the first and adds its receive-call times to *recv_calls (Netgauge's o_r series). */
static double prtt(const struct mp_ctx *c, int n, double d, double recv_delay, double *send_calls,
                   double *recv_calls)
{
    if (c->me == 0) {
        int64_t t0 = clock_now_ns();
        for (int i = 0; i < n; i++) {
            int64_t s0 = clock_now_ns();
            MPI_Send(c->send, c->bytes, MPI_BYTE, 1, TAG, c->comm);
            if (send_calls)
                *send_calls += (clock_now_ns() - s0) * 1e-9;
            if (d > 0 && i < n - 1)
                clock_spin_ns((int64_t)(d * 1e9));
        }
        MPI_Recv(c->recv, c->bytes, MPI_BYTE, 1, TAG, c->comm, MPI_STATUS_IGNORE);
        return (clock_now_ns() - t0) * 1e-9;
    }
    for (int i = 0; i < n; i++) {
        if (recv_delay > 0 && i > 0)
            clock_spin_ns((int64_t)(recv_delay * 1e9));
        int64_t r0 = clock_now_ns();
        MPI_Recv(c->recv, c->bytes, MPI_BYTE, 0, TAG, c->comm, MPI_STATUS_IGNORE);
        if (recv_calls && i > 0)
            *recv_calls += (clock_now_ns() - r0) * 1e-9;
    }
    MPI_Send(c->send, c->bytes, MPI_BYTE, 0, TAG, c->comm);
    return 0.0;
}

/* `reps` tests of PRTT(n,d,s): the median round trip on the first rank (0 elsewhere), and the
 * medians of the per-call send / receive times of each test. */
static double series(const struct mp_ctx *c, int reps, int n, double d, double recv_delay, double *buf,
                     double *send_call, double *recv_call)
{
    double *sends = buf + reps, *recvs = buf + 2 * reps;
    for (int r = 0; r < reps; r++) {
        sends[r] = recvs[r] = 0.0;
        buf[r] = prtt(c, n, d, recv_delay, &sends[r], &recvs[r]);
        sends[r] /= n;
        recvs[r] /= n > 1 ? n - 1 : 1;
    }
    if (send_call)
        *send_call = median_of(sends, reps);
    if (recv_call)
        *recv_call = median_of(recvs, reps);
    return median_of(buf, reps);
}

static int loggp_setup(struct mp_ctx *c, char *err, size_t errlen)
{
    c->state = calloc(1, sizeof(struct loggp_state));
    if (!c->state) {
        snprintf(err, errlen, "out of memory for the loggp pattern");
        return -1;
    }
    return 0;
}

static void loggp_teardown(struct mp_ctx *c) { free(c->state); }

/* Check the timed loop's bytes, then run the PRTT series (collective on both ranks) and check
 * the bytes again: every message of every series carries the partner's payload. */
static long long loggp_verify(const struct mp_ctx *c)
{
    struct loggp_state *st = c->state;
    long long bad = payload_verify_partner(c);
    double *buf = malloc(3 * LOGGP_MAX_REPS * sizeof *buf);
    int ok = buf != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, c->comm);
    if (!ok) {
        free(buf);
        return bad;
    }
    /* How many tests fit the target: from a few warm round trips, decided on the first rank. */
    double est = series(c, LOGGP_MIN_REPS, 1, 0.0, 0.0, buf, NULL, NULL);
    int reps = LOGGP_MIN_REPS;
    if (c->me == 0 && est > 0) {
        double per_rep = est * (3 * LOGGP_N + 1);
        double fit = LOGGP_TARGET_S / per_rep;
        reps = fit > LOGGP_MAX_REPS ? LOGGP_MAX_REPS : fit < LOGGP_MIN_REPS ? LOGGP_MIN_REPS : (int)fit;
    }
    MPI_Bcast(&reps, 1, MPI_INT, 0, c->comm);
    st->reps = reps;
    st->prtt_1_0 = series(c, reps, 1, 0.0, 0.0, buf, NULL, NULL);
    st->prtt_n_0 = series(c, reps, LOGGP_N, 0.0, 0.0, buf, NULL, NULL);
    double d = st->prtt_1_0; /* Netgauge: d = PRTT(1,0,s), larger than g + G·s */
    MPI_Bcast(&d, 1, MPI_DOUBLE, 0, c->comm);
    st->d = d;
    st->prtt_n_d = series(c, reps, LOGGP_N, d, 0.0, buf, &st->send_call, NULL);
    double recv_call = 0.0;
    series(c, reps, LOGGP_N, 0.0, d, buf, NULL, &recv_call);
    /* The receive-call time was measured on the second rank: bring it to the first. */
    double calls[2] = {c->me == 0 ? st->send_call : 0.0, c->me == 1 ? recv_call : 0.0};
    MPI_Allreduce(MPI_IN_PLACE, calls, 2, MPI_DOUBLE, MPI_MAX, c->comm);
    st->send_call = calls[0];
    st->recv_call = calls[1];
    free(buf);
    long long again = payload_verify_partner(c);
    return bad ? bad : again;
}

static void loggp_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    const struct loggp_state *st = c->state;
    record_field_int(out, "n", LOGGP_N);
    record_field_double(out, "d_s", st->d);
    record_field_double(out, "prtt_1_0_s", st->prtt_1_0);
    record_field_double(out, "prtt_n_0_s", st->prtt_n_0);
    record_field_double(out, "prtt_n_d_s", st->prtt_n_d);
    record_field_double(out, "send_call_s", st->send_call);
    record_field_double(out, "recv_call_s", st->recv_call);
    record_field_int(out, "loggp_tests", st->reps);
}

const struct mp_pattern pattern_loggp = {
    .name = "loggp",
    .family = MP_FAMILY_PINGPONG, .modelled = 1,
    .timing = "samples: one iteration = MPI_Send then MPI_Recv of the reply (a round trip, PRTT(1,0,s)); "
              "reported = round-trip time. After the samples, Netgauge's series (n = 10, d = PRTT(1,0,s)), "
              "medians of up to 101 tests each: prtt_1_0_s, prtt_n_0_s (n messages back to back, one reply), "
              "prtt_n_d_s (d between sends), send_call_s (one MPI_Send call, paced by d), recv_call_s (one "
              "MPI_Recv call after waiting d, the message already there)",
    .metric = "round_trip", .divisor = 1, .setup = loggp_setup, .teardown = loggp_teardown,
    .iterate = loggp_iterate, .prepare = payload_prepare, .verify = loggp_verify, .fields = loggp_fields,
};
