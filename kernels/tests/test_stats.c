#include <math.h>

#include "../stats.h"
#include "test.h"

int main(void)
{
    /* Indices agree with msgperf.analysis.summary.median_ci_ranks (scipy's binomial). */
    check(stats_median_ci_index(5, 0.95) == -1);
    check(stats_median_ci_index(6, 0.95) == 0);
    check(stats_median_ci_index(10, 0.95) == 1);
    check(stats_median_ci_index(20, 0.95) == 5);
    check(stats_median_ci_index(100, 0.95) == 39);
    check(stats_median_ci_index(1000, 0.95) == 468);
    check(stats_median_ci_index(100000, 0.95) == 49689);

    double x[] = {5, 1, 4, 2, 3, 9, 7, 8, 6, 10};
    double median, lo, hi;
    stats_median_ci(x, 10, 0.95, &median, &lo, &hi);
    check(x[0] == 1 && x[9] == 10); /* sorted in place */
    check(median == 5.5 && lo == 2 && hi == 9);
    double few[] = {3, 1, 2};
    stats_median_ci(few, 3, 0.95, &median, &lo, &hi);
    check(median == 2 && lo == 1 && hi == 3);
    return done("test_stats");
}
