/* The driver's decisions, free of MPI so they can be unit-tested: how many iterations make
 * a sample (k), and whether (and how much) to keep sampling. */
#ifndef MP_SCHEDULE_H
#define MP_SCHEDULE_H

#include "clock.h"
#include "options.h"

#define MP_MAX_K (1L << 30)

/* Sample target: >= 20 us, >= 1000 clock resolutions, >= 200 clock reads. */
double schedule_sample_target(const struct mp_clock_test *clock);

/* Calibration step: k iterations took t seconds. Returns 0 to double k and time again, or
 * the calibrated k (> 0) once a sample is long enough to scale from. */
long schedule_calibrated_k(long k, double t, double target);

/* Fewest samples for a distribution-free 95% CI of the median. */
#define MP_CI_SAMPLES 6

/* The first batch: --min-samples, or MP_CI_SAMPLES when that many samples of `sample` seconds
 * would already overrun the time budget five times over (huge windowed messages). */
long schedule_first_batch(const struct mp_options *o, double sample);

/* After n samples (95% CI half-width `halfwidth` relative to the median, `median` seconds per
 * sample, `elapsed` seconds so far): the next batch size, or 0 with *stop_reason set. The
 * budget stops sampling once --min-samples are in, or once MP_CI_SAMPLES are in and five
 * budgets are spent. */
long schedule_next_batch(const struct mp_options *o, long n, double halfwidth, double median, double elapsed,
                         const char **stop_reason);

/* --total-time: the budget of the next measurement, the time left shared equally among the
 * measurements left (never below 0: an overrun launch gives each later size MP_CI_SAMPLES
 * samples). Sizes that stop early on precision leave their share to the sizes after them,
 * which in a sweep are the large ones that need it. */
double schedule_share(double total, double spent, long remaining);

#endif
