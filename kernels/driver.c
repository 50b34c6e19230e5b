#include "driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"
#include "series.h"
#include "stats.h"

#define CONFIDENCE 0.95
#define WARMUP_SECONDS 2e-3

/* The timed call: k iterations. --test-delay-ns (test only) adds a known slowdown inside the
 * timing: every participant spins k x N ns after them, in the warm-up and the samples alike.
 * Every participant, not only the first: a partner left waiting in MPI_Recv for microseconds
 * passes MPICH's polls-before-yield, gives its core away on a loaded node and comes back late,
 * so the slowdown would no longer be the N that was asked for. */
static inline void iterate(const struct mp_pattern *p, const struct mp_ctx *ctx, long k, long long delay_ns)
{
    p->iterate(ctx, k);
    if (delay_ns > 0)
        clock_spin_ns(k * delay_ns);
}

/* Time `k` iterations; every participant gets the slowest participant's time. */
static double timed_max(const struct mp_pattern *p, const struct mp_ctx *ctx, long k, long long delay_ns)
{
    int64_t t0 = clock_now_ns();
    iterate(p, ctx, k, delay_ns);
    double t = (clock_now_ns() - t0) * 1e-9;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    return t;
}

/* Double k until a sample lasts long enough, then scale k to the target. Every participant
 * sees the same reduced times, so all agree on k without another message. These iterations
 * are the warm-up; *seconds gets their total time and *last the time of the last one per
 * iteration. */
static long calibrate(const struct mp_pattern *p, const struct mp_ctx *ctx, double target, long long delay_ns,
                      long *warmup, double *seconds, double *per_iteration)
{
    for (long k = 1;; k *= 2) {
        double t = timed_max(p, ctx, k, delay_ns);
        *warmup += k;
        *seconds += t;
        *per_iteration = t / k;
        long calibrated = schedule_calibrated_k(k, t, target);
        if (calibrated > 0)
            return calibrated;
    }
}

int driver_measure(const struct mp_pattern *p, const struct mp_ctx *ctx, const struct mp_options *o,
                   const struct mp_clock_test *clock, struct mp_driver_state *state, struct mp_result *result,
                   char *err, size_t errlen)
{
    memset(result, 0, sizeof *result);
    /* The launch's first measurement: its cold first iteration is the job's first message of a
     * pattern (only MPI_Init and the start-up collectives came before it). */
    if (state)
        result->first_of_job = state->measurements++ == 0;
    int64_t start = clock_now_ns();
    p->prepare(ctx);
    MPI_Barrier(ctx->comm);

    const long long delay_ns = o->test_delay_ns;
    result->first = timed_max(p, ctx, 1, delay_ns);
    result->warmup = 1;
    double warm = 0, per_iteration = 0;
    /* --iteration-barrier (collectives) and the osu_* loops: one call per sample, each after a barrier outside
     * the timing, so no rank starts a call while another is still in the previous one. */
    const int barrier = p->iteration_barrier || (o->iteration_barrier && p->family == MP_FAMILY_COLLECTIVE);
    if (o->iterations_per_sample > 0 || barrier) { /* k as asked (1: one iteration per sample) */
        result->k = barrier ? 1 : o->iterations_per_sample;
        warm = timed_max(p, ctx, result->k, delay_ns);
        result->warmup += result->k;
        per_iteration = warm / result->k;
    } else {
        result->k = calibrate(p, ctx, schedule_sample_target(clock), delay_ns, &result->warmup, &warm,
                              &per_iteration);
    }
    /* Calibration alone can be a few microseconds: keep warming up (caches, lazily mapped pages,
     * the MPI's connection state) for at least WARMUP_SECONDS. The times are reduced, so every
     * participant stops after the same batch. */
    while (warm < WARMUP_SECONDS) {
        double t = timed_max(p, ctx, result->k, delay_ns);
        warm += t;
        per_iteration = t / result->k;
        result->warmup += result->k;
    }
    const long k = result->k;

    long n = 0, batch = schedule_first_batch(o, per_iteration * k), capacity = batch;
    double *samples = malloc(capacity * sizeof *samples);
    double *own = malloc(capacity * sizeof *own);
    double *sorted = malloc(capacity * sizeof *sorted);
    if (!samples || !own || !sorted) {
        snprintf(err, errlen, "out of memory for %ld samples", capacity);
        return -1;
    }
    const char *stop_reason = "max_samples";
    while (batch > 0) {
        if (n + batch > capacity) {
            capacity = n + batch > 2 * capacity ? n + batch : 2 * capacity;
            samples = realloc(samples, capacity * sizeof *samples);
            own = realloc(own, capacity * sizeof *own);
            sorted = realloc(sorted, capacity * sizeof *sorted);
            if (!samples || !own || !sorted) {
                snprintf(err, errlen, "out of memory for %ld samples", capacity);
                return -1;
            }
        }
        for (long i = n; i < n + batch; i++) {
            if (barrier)
                MPI_Barrier(ctx->comm);
            int64_t t0 = clock_now_ns();
            iterate(p, ctx, k, delay_ns);
            samples[i] = (clock_now_ns() - t0) * 1e-9;
        }
        memcpy(own + n, samples + n, batch * sizeof *own);
        /* Honest reduction: each sample is what the slowest participant saw. */
        MPI_Reduce(ctx->me == 0 ? MPI_IN_PLACE : samples + n, samples + n, (int)batch, MPI_DOUBLE,
                   MPI_MAX, 0, ctx->comm);
        n += batch;
        if (ctx->me == 0) {
            double median, lo, hi;
            memcpy(sorted, samples, n * sizeof *samples);
            stats_median_ci(sorted, n, CONFIDENCE, &median, &lo, &hi);
            batch = schedule_next_batch(o, n, (hi - lo) / (2 * median), median, (clock_now_ns() - start) * 1e-9,
                                        &stop_reason);
        }
        MPI_Bcast(&batch, 1, MPI_LONG, 0, ctx->comm);
    }
    /* Every participant's own median (per-pair times of patterns that run many pairs). */
    double lo, hi, mine;
    memcpy(sorted, own, n * sizeof *own);
    stats_median_ci(sorted, n, CONFIDENCE, &mine, &lo, &hi);
    mine /= (double)k;
    result->rank_medians = ctx->me == 0 ? malloc(ctx->nranks * sizeof(double)) : NULL;
    MPI_Gather(&mine, 1, MPI_DOUBLE, result->rank_medians, 1, MPI_DOUBLE, 0, ctx->comm);
    /* Patterns of many pairs keep every participant's own samples: each pair's samples (its slower
     * rank's, sample by sample) show the spread of that pair, not only its median. */
    result->rank_samples = NULL;
    result->rank_nsamples = 0;
    if (p->pairs) {
        long kept = n < MP_PAIR_SAMPLES_MAX ? n : MP_PAIR_SAMPLES_MAX;
        for (long i = 0; i < kept; i++) /* evenly spaced over the measurement; in place: i*n/kept >= i */
            own[i] = own[(long)((double)i * n / kept)];
        result->rank_nsamples = kept;
        result->rank_samples = ctx->me == 0 ? malloc((size_t)ctx->nranks * kept * sizeof(double)) : NULL;
        if (ctx->me == 0 && !result->rank_samples) {
            snprintf(err, errlen, "out of memory for %ld samples of %d ranks", kept, ctx->nranks);
            return -1;
        }
        MPI_Gather(own, (int)kept, MPI_DOUBLE, result->rank_samples, (int)kept, MPI_DOUBLE, 0, ctx->comm);
    }
    if (ctx->me == 0) {
        memcpy(sorted, samples, n * sizeof *samples);
        stats_median_ci(sorted, n, CONFIDENCE, &result->median, &lo, &hi);
        result->median /= (double)k;
    }
    MPI_Bcast(&result->median, 1, MPI_DOUBLE, 0, ctx->comm);
    free(sorted);
    free(own);

    if (o->test_corrupt >= 0 && o->test_corrupt == ctx->bytes && ctx->me == 1 && ctx->bytes > 0 && ctx->recv)
        ctx->recv[ctx->bytes / 2] ^= 0x5a; /* test-only: prove that verify() catches bad bytes */
    long long bad = p->verify(ctx);
    if (p->series) { /* the pattern's extra series, timed here as well; their bytes checked again */
        if (series_run(p, ctx, err, errlen) != 0) {
            free(samples);
            return -1;
        }
        long long again = p->verify(ctx);
        bad = bad ? bad : again;
    }
    long long first_bad = bad > 0 ? bad - 1 : -1;
    MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_LONG_LONG, MPI_MAX, ctx->comm);

    result->samples = samples;
    result->nsamples = n;
    result->stop_reason = stop_reason;
    result->mismatch = first_bad;
    result->elapsed = (clock_now_ns() - start) * 1e-9;
    return 0;
}
