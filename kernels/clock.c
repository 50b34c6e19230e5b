#include "clock.h"

#define OVERHEAD_READS 200000
#define RESOLUTION_STEPS 1000

void clock_spin_ns(int64_t ns)
{
    int64_t end = clock_now_ns() + ns;
    while (clock_now_ns() < end)
        ;
}

void clock_self_test(struct mp_clock_test *out)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    out->reported_resolution = res.tv_sec + res.tv_nsec * 1e-9;
    out->monotonic = 1;

    int64_t first = clock_now_ns(), prev = first, last = first;
    for (int i = 0; i < OVERHEAD_READS; i++) {
        last = clock_now_ns();
        if (last < prev)
            out->monotonic = 0;
        prev = last;
    }
    out->overhead = (double)(last - first) / OVERHEAD_READS * 1e-9;

    /* The resolution is the smallest positive step seen over many distinct steps. */
    int64_t smallest = INT64_MAX;
    prev = clock_now_ns();
    for (int steps = 0, reads = 0; steps < RESOLUTION_STEPS && reads < 10000000; reads++) {
        int64_t now = clock_now_ns();
        if (now < prev)
            out->monotonic = 0;
        if (now > prev) {
            if (now - prev < smallest)
                smallest = now - prev;
            steps++;
        }
        prev = now;
    }
    out->resolution = smallest == INT64_MAX ? out->reported_resolution : smallest * 1e-9;
}
