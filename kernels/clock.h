/* The measurement clock (CLOCK_MONOTONIC, nanoseconds) and its start-up self-test. */
#ifndef MP_CLOCK_H
#define MP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t clock_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

struct mp_clock_test {
    double resolution;          /* smallest observed positive step, seconds */
    double overhead;            /* cost of one clock read, seconds */
    double reported_resolution; /* clock_getres() */
    int monotonic;              /* no backward step observed */
};

void clock_self_test(struct mp_clock_test *out);

/* Busy-wait (no sleep, no system call but the clock) for at least `ns` nanoseconds. */
void clock_spin_ns(int64_t ns);

#endif
