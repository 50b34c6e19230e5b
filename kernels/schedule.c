#include "schedule.h"

#include <math.h>

#define MIN_SAMPLE_SECONDS 20e-6

double schedule_sample_target(const struct mp_clock_test *clock)
{
    double t = MIN_SAMPLE_SECONDS;
    if (1000 * clock->resolution > t)
        t = 1000 * clock->resolution;
    if (200 * clock->overhead > t)
        t = 200 * clock->overhead;
    return t;
}

long schedule_calibrated_k(long k, double t, double target)
{
    if (t < target / 2 && k < MP_MAX_K && t > 0)
        return 0;
    double scaled = t > 0 ? ceil(k * target / t - 1e-9) : 2.0 * k; /* - 1e-9: float noise */
    if (scaled < 1)
        scaled = 1;
    return scaled > MP_MAX_K ? MP_MAX_K : (long)scaled;
}

#define OVERRUN 5.0 /* budgets a size may use before --min-samples yields to MP_CI_SAMPLES */

long schedule_first_batch(const struct mp_options *o, double sample)
{
    long n = o->min_samples;
    if (n > MP_CI_SAMPLES && sample * n > OVERRUN * o->time_budget)
        n = MP_CI_SAMPLES;
    return n;
}

long schedule_next_batch(const struct mp_options *o, long n, double halfwidth, double median, double elapsed,
                         const char **stop_reason)
{
    if (n >= o->min_samples && halfwidth <= o->precision) {
        *stop_reason = "precision";
        return 0;
    }
    if ((n >= o->min_samples && elapsed >= o->time_budget) || (n >= MP_CI_SAMPLES && elapsed >= OVERRUN * o->time_budget)) {
        *stop_reason = "time_budget";
        return 0;
    }
    if (n >= o->max_samples) {
        *stop_reason = "max_samples";
        return 0;
    }
    /* The CI narrows as 1/sqrt(n): aim for the samples the target needs, at most doubling n
     * per batch so the check runs O(log n) times, and no further than the budget allows. */
    double ratio = halfwidth / o->precision;
    double want = n * ratio * ratio * 1.1 - n;
    double by_time = median > 0 ? (o->time_budget - elapsed) / median : (double)n;
    long batch = (long)fmin(fmin(want, (double)n), by_time);
    if (batch < n / 8)
        batch = n / 8;
    if (batch < 1)
        batch = 1;
    if (n < o->min_samples && batch < o->min_samples - n)
        batch = o->min_samples - n;
    if (batch > o->max_samples - n)
        batch = o->max_samples - n;
    return batch;
}

double schedule_share(double total, double spent, long remaining)
{
    double left = total - spent;
    if (left <= 0 || remaining < 1)
        return 0;
    return left / (double)remaining;
}
