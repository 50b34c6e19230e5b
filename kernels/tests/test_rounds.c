#include <string.h>

#include "../rounds.h"
#include "test.h"

/* Every ordered pair exactly once, rounds of disjoint pairs, partners agree. */
static int covers_every_ordered_pair(int p)
{
    static int seen[64][64];
    memset(seen, 0, sizeof seen);
    for (int r = 0; r < rounds_matrix_count(p); r++)
        for (int a = 0; a < p; a++) {
            int starts, back, b = rounds_matrix_partner(p, r, a, &starts);
            if (b < 0)
                continue;
            if (b == a || rounds_matrix_partner(p, r, b, &back) != a || back == starts)
                return 0;
            if (starts)
                seen[a][b]++;
        }
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++)
            if (seen[a][b] != (a != b))
                return 0;
    return 1;
}

int main(void)
{
    check(rounds_active_steps(2) == 1 && rounds_active_pairs(2, 0) == 1);
    check(rounds_active_steps(8) == 3 && rounds_active_pairs(8, 2) == 4);
    check(rounds_active_steps(12) == 4 && rounds_active_pairs(12, 3) == 6); /* 1 2 4 6 */
    check(rounds_active_member(8, 2, 1) && rounds_active_member(8, 2, 5) && !rounds_active_member(8, 2, 2));
    check(rounds_matrix_count(2) == 2 && rounds_matrix_count(4) == 6 && rounds_matrix_count(5) == 10);
    for (int p = 2; p <= 17; p++)
        check(covers_every_ordered_pair(p));
    return done("test_rounds");
}
