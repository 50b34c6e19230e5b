#include "../clock.h"
#include "test.h"

int main(void)
{
    /* The spin of --test-delay-ns lasts at least what was asked (a loaded machine only adds). */
    for (int64_t ns = 0; ns <= 2000000; ns = ns ? ns * 10 : 2000) {
        int64_t t0 = clock_now_ns();
        clock_spin_ns(ns);
        int64_t took = clock_now_ns() - t0;
        check(took >= ns);
        check(took < ns + 1000000000); /* and ends: not a second more */
    }
    struct mp_clock_test t;
    clock_self_test(&t);
    check(t.monotonic && t.resolution > 0 && t.resolution < 1e-3 && t.overhead > 0 && t.overhead < 1e-5);
    return done("test_clock");
}
