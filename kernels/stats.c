#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The count of samples below the median is Binomial(n, 1/2): [x_(j), x_(n-1-j)] covers the
 * median with probability 1 - 2 P(B <= j) (Conover, Practical Nonparametric Statistics, 3.2).
 * Same rule as msgperf.analysis.summary.median_ci_ranks. */
long stats_median_ci_index(long n, double confidence)
{
    double alpha = 1.0 - confidence, log_p = n * log(0.5), cdf = 0.0;
    long j = -1;
    for (long i = 0; i <= n / 2; i++) {
        if (i > 0)
            log_p += log((double)(n - i + 1)) - log((double)i); /* C(n,i) from C(n,i-1) */
        cdf += exp(log_p);
        if (2.0 * cdf > alpha)
            break;
        j = i;
    }
    return j;
}

void stats_median_ci(double *x, long n, double confidence, double *median, double *lo, double *hi)
{
    qsort(x, (size_t)n, sizeof *x, compare_doubles);
    *median = (n % 2) ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
    long j = stats_median_ci_index(n, confidence);
    *lo = x[j < 0 ? 0 : j];
    *hi = x[j < 0 ? n - 1 : n - 1 - j];
}
