#include <string.h>

#include "../schedule.h"
#include "test.h"

int main(void)
{
    struct mp_clock_test fine = {1e-9, 20e-9, 1e-9, 1};
    struct mp_clock_test coarse = {1e-6, 20e-9, 1e-6, 1};
    check(schedule_sample_target(&fine) == 20e-6);     /* the floor */
    check(schedule_sample_target(&coarse) == 1e-3);    /* 1000 resolutions */

    /* Short samples double k; a long-enough one scales k to the target. */
    check(schedule_calibrated_k(1, 2e-6, 20e-6) == 0);
    check(schedule_calibrated_k(8, 16e-6, 20e-6) == 10);
    check(schedule_calibrated_k(1, 40e-3, 20e-6) == 1); /* long messages: k = 1 */
    check(schedule_calibrated_k(MP_MAX_K, 1e-9, 20e-6) == MP_MAX_K);

    struct mp_options o;
    memset(&o, 0, sizeof o);
    o.precision = 0.01;
    o.time_budget = 1.0;
    o.min_samples = 20;
    o.max_samples = 1000;
    const char *why = NULL;
    check(schedule_next_batch(&o, 20, 0.005, 1e-6, 0.01, &why) == 0 && strcmp(why, "precision") == 0);
    check(schedule_next_batch(&o, 20, 0.05, 1e-6, 1.5, &why) == 0 && strcmp(why, "time_budget") == 0);
    check(schedule_next_batch(&o, 1000, 0.05, 1e-6, 0.1, &why) == 0 && strcmp(why, "max_samples") == 0);
    /* Below the minimum, precision and budget do not stop it (until five budgets are spent). */
    check(schedule_next_batch(&o, 10, 0.001, 1e-6, 2.0, &why) == 10); /* 2 budgets: not yet */
    /* Twice too wide: about 4x the samples are needed, but a batch at most doubles n. */
    check(schedule_next_batch(&o, 100, 0.02, 1e-6, 0.01, &why) == 100);
    /* Just above the target: a small batch, at least n/8. */
    check(schedule_next_batch(&o, 400, 0.0101, 1e-6, 0.01, &why) == 50);
    /* The budget caps the batch: 0.1 s left at 1 ms a sample = 100. */
    check(schedule_next_batch(&o, 800, 0.03, 1e-3, 0.9, &why) == 100);
    /* Never past max_samples. */
    check(schedule_next_batch(&o, 990, 0.03, 1e-6, 0.1, &why) == 10);
    /* A size whose samples are far longer than the budget: 6 samples, then stop at 5 budgets. */
    check(schedule_first_batch(&o, 1e-3) == 20);
    check(schedule_first_batch(&o, 0.2) == 20);      /* 20 x 0.2 s = 4 s, within 5 budgets */
    check(schedule_first_batch(&o, 2.0) == MP_CI_SAMPLES);
    check(schedule_next_batch(&o, 6, 0.2, 2.0, 14.0, &why) == 0 && strcmp(why, "time_budget") == 0);
    check(schedule_next_batch(&o, 6, 0.2, 0.1, 2.0, &why) > 0); /* 2 budgets spent: go on to 20 */
    /* --total-time: the time left shared equally among the measurements left; none once spent. */
    check(schedule_share(10.0, 2.0, 4) == 2.0);
    check(schedule_share(10.0, 9.5, 1) == 0.5);
    check(schedule_share(10.0, 12.0, 3) == 0.0);
    check(schedule_share(10.0, 1.0, 0) == 0.0);
    return done("test_schedule");
}
