/* A tiny test harness (jsmn style): check() records failures, done() sets the exit code. */
#ifndef MP_TEST_H
#define MP_TEST_H

#include <stdio.h>

static int test_failed = 0, test_passed = 0;

#define check(cond)                                                            \
    do {                                                                       \
        if (cond) {                                                            \
            test_passed++;                                                     \
        } else {                                                               \
            test_failed++;                                                     \
            fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                      \
    } while (0)

static int done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, test_passed, test_failed);
    return test_failed > 0;
}

#endif
