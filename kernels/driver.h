/* The one timed loop every pattern runs in: cold first iteration, warm-up and calibration
 * of k, timed samples in batches, honest reduction (max over participants) and adaptive
 * stopping on the precision of the median. */
#ifndef MP_DRIVER_H
#define MP_DRIVER_H

#include "clock.h"
#include "options.h"
#include "pattern.h"

/* Per-pair samples kept per participant: enough for a pair's percentiles, while a 64-rank matrix
 * at k = 1 and a million samples would otherwise gather half a gigabyte on one rank. */
#define MP_PAIR_SAMPLES_MAX 1000

struct mp_result {
    long k;
    long warmup;
    double first;
    double elapsed;
    const char *stop_reason;
    long long mismatch;     /* -1 when every participant received what it should */
    double *samples;        /* on comm rank 0 only: max over participants, seconds */
    long nsamples;
    double median;          /* median of samples / k: time per iteration, on every participant */
    double *rank_medians;   /* on comm rank 0 only: each participant's own median sample / k */
    double *rank_samples;   /* on comm rank 0, for patterns with pairs only: participant r's own samples
                             * at [r * rank_nsamples, (r + 1) * rank_nsamples), seconds; else NULL */
    long rank_nsamples;     /* nsamples, or MP_PAIR_SAMPLES_MAX of them evenly spaced (the same on every
                             * participant, so a pair's two ranks keep the same samples) */
    int first_of_job;       /* 1 on the first measurement of the launch: `first` is then also the job's
                             * first message of a pattern (record field first_message_of_job_s) */
};

/* What the driver carries from one measurement to the next, owned by the caller (zero it once
 * per launch): no mutable globals. */
struct mp_driver_state {
    long measurements;      /* measurements this rank has run in the launch */
};

/* Collective over ctx->comm. The caller frees result->samples, result->rank_medians and result->rank_samples.
 * Returns 0, or -1 when out of memory (with a message in err). `state` (may be NULL) marks the launch's first
 * measurement. */
int driver_measure(const struct mp_pattern *p, const struct mp_ctx *ctx, const struct mp_options *o,
                   const struct mp_clock_test *clock, struct mp_driver_state *state, struct mp_result *result,
                   char *err, size_t errlen);

#endif
