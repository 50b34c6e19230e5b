#include "series.h"

#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "stats.h"

#define MP_SERIES_MAX 16 /* series one measurement may ask for (loggp: 5) */

static double median_of(double *x, long n)
{
    double m, lo, hi;
    stats_median_ci(x, n, 0.95, &m, &lo, &hi);
    return m;
}

/* One test: `calls` calls, the pause (untimed) before each after the first, then the closing
 * call. Returns the whole test's time; *call gets this rank's mean time of the calls it times. */
static double one_test(const struct mp_pattern *p, const struct mp_ctx *ctx, const struct mp_series *s,
                       double *call)
{
    int64_t spent = 0, t0 = clock_now_ns();
    for (int i = 0; i < s->calls; i++) {
        if (i > 0 && s->pause_s > 0)
            clock_spin_ns((int64_t)(s->pause_s * 1e9));
        int64_t c0 = clock_now_ns();
        p->series_call(ctx, i);
        if (i > 0 || s->time_first_call)
            spent += clock_now_ns() - c0;
    }
    p->series_call(ctx, s->calls);
    double test = (clock_now_ns() - t0) * 1e-9;
    int timed = s->calls - (s->time_first_call ? 0 : 1);
    *call = timed > 0 ? spent * 1e-9 / timed : 0.0;
    return test;
}

int series_run(const struct mp_pattern *p, const struct mp_ctx *ctx, char *err, size_t errlen)
{
    struct mp_series_result done[MP_SERIES_MAX];
    struct mp_series s;
    for (int index = 0; index < MP_SERIES_MAX; index++) {
        s = (struct mp_series){0, 0, 0.0, 0, -1};
        p->series(ctx, index, done, &s);
        if (s.tests < 1)
            return 0;
        double *tests = malloc(2 * (size_t)s.tests * sizeof *tests), *calls = tests + s.tests;
        int ok = tests != NULL;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx->comm);
        if (!ok) {
            free(tests);
            snprintf(err, errlen, "out of memory for %d tests of the %s pattern", s.tests, p->name);
            return -1;
        }
        for (int t = 0; t < s.tests; t++)
            tests[t] = one_test(p, ctx, &s, &calls[t]);
        /* Every rank gets the same results: the test as comm rank 0 saw it, the calls as the rank
         * that times them (so the next series is planned alike everywhere). */
        double result[2] = {median_of(tests, s.tests), median_of(calls, s.tests)};
        MPI_Bcast(&result[0], 1, MPI_DOUBLE, 0, ctx->comm);
        MPI_Bcast(&result[1], 1, MPI_DOUBLE, s.calls_on >= 0 ? s.calls_on : 0, ctx->comm);
        done[index].test_s = result[0];
        done[index].call_s = s.calls_on >= 0 ? result[1] : 0.0;
        free(tests);
    }
    return 0;
}
