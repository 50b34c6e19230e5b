/* The stopping rule's statistics: a distribution-free confidence interval of the median. */
#ifndef MP_STATS_H
#define MP_STATS_H

/* 0-based order-statistic index j of the lower bound of the median's CI with at least
 * `confidence` coverage: [x_(j), x_(n-1-j)]; -1 when n is too small for that coverage. */
long stats_median_ci_index(long n, double confidence);

/* Sorts x in place and gives its median and the CI bounds (full range when n is too small). */
void stats_median_ci(double *x, long n, double confidence, double *median, double *lo, double *hi);

#endif
