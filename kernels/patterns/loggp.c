/* What the LogGP parameters (Alexandrov et al. 1995) need, per size s, measured the way
 * Netgauge does (Hoefler, Lichei & Rehm 2007, after Kielmann, Bal & Verstoep 2000):
 *   PRTT(n,d,s): the first rank sends n messages of s bytes, waiting d between two sends; the
 *   second rank receives all n, then sends one message of s bytes back; timed on the first rank.
 * The driver's timed samples are the plain round trip PRTT(1,0,s) (metric round_trip). After
 * them (so that the cold first iteration stays cold and nothing is mixed into the samples) the
 * driver times the pattern's series (pattern.h series(); the driver's clock and median):
 *   prtt_1_0_s, prtt_n_0_s, prtt_n_d_s  (d = prtt_1_0_s, as Netgauge chooses it: larger than the gap)
 *   send_call_s: one MPI_Send call on the first rank, in the PRTT(n,d,s) series (paced by d)
 *   recv_call_s: one MPI_Recv call on the second rank when the message has had d to arrive
 *                (Netgauge's o_r series: n back-to-back messages, the receiver waits d before each)
 * and writes them as record fields; src/msgperf/analysis/model/loggp.py derives L, o_s, o_r, g, G. */
#include <stdio.h>
#include <stdlib.h>

#include "../payload.h"
#include "../record.h"

#define TAG 10
#define LOGGP_N 10              /* Netgauge's n */
#define LOGGP_MIN_REPS 5
#define LOGGP_MAX_REPS 101
#define LOGGP_TARGET_S 0.05     /* time per series, at most (bounded below by the minimum repetitions) */

struct loggp_state {
    int reps;
    int calls; /* messages of the current series' tests */
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

/* One call of a PRTT(n,d,s) test: the first rank sends message `call` (its closing call is the
 * receive of the reply); the second receives it (its closing call sends the reply). */
static void loggp_series_call(const struct mp_ctx *c, int call)
{
    const struct loggp_state *st = c->state;
    int closing = call == st->calls;
    if ((c->me == 0) != closing)
        MPI_Send(c->send, c->bytes, MPI_BYTE, 1 - c->me, TAG, c->comm);
    else
        MPI_Recv(c->recv, c->bytes, MPI_BYTE, 1 - c->me, TAG, c->comm, MPI_STATUS_IGNORE);
}

/* The series, in order: a few warm round trips (how many tests fit the target), PRTT(1,0,s),
 * PRTT(n,0,s), PRTT(n,d,s) with the first rank's send calls, then the o_r series (the second
 * rank waits d before each receive) with its receive calls. */
static void loggp_series(const struct mp_ctx *c, int index, const struct mp_series_result *done,
                         struct mp_series *next)
{
    struct loggp_state *st = c->state;
    switch (index) {
    case 0:
        *next = (struct mp_series){LOGGP_MIN_REPS, 1, 0.0, 0, -1};
        break;
    case 1: {
        double per_rep = done[0].test_s * (3 * LOGGP_N + 1), fit = per_rep > 0 ? LOGGP_TARGET_S / per_rep : 0;
        st->reps = fit > LOGGP_MAX_REPS ? LOGGP_MAX_REPS : fit < LOGGP_MIN_REPS ? LOGGP_MIN_REPS : (int)fit;
        *next = (struct mp_series){st->reps, 1, 0.0, 0, -1};
        break;
    }
    case 2:
        st->prtt_1_0 = st->d = done[1].test_s; /* Netgauge: d = PRTT(1,0,s), larger than g + G·s */
        *next = (struct mp_series){st->reps, LOGGP_N, 0.0, 0, -1};
        break;
    case 3:
        st->prtt_n_0 = done[2].test_s;
        *next = (struct mp_series){st->reps, LOGGP_N, c->me == 0 ? st->d : 0.0, 1, 0};
        break;
    case 4:
        st->prtt_n_d = done[3].test_s;
        st->send_call = done[3].call_s;
        *next = (struct mp_series){st->reps, LOGGP_N, c->me == 1 ? st->d : 0.0, 0, 1};
        break;
    default:
        st->recv_call = done[4].call_s;
        next->tests = 0;
    }
    st->calls = next->calls;
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
    .iterate = loggp_iterate, .prepare = payload_prepare, .verify = payload_verify_partner, .fields = loggp_fields,
    .series = loggp_series, .series_call = loggp_series_call,
};
