/* Which ranks meet in which round, free of MPI so it can be unit-tested: the sweep of
 * concurrent pairs (pairs) and the rounds of disjoint pairs that cover every ordered pair
 * in O(P) rounds (matrix, the circle method of round-robin tournaments). */
#ifndef MP_ROUNDS_H
#define MP_ROUNDS_H

/* Steps of the sweep 1, 2, 4, ... concurrent pairs, ending at nranks / 2. */
int rounds_active_steps(int nranks);
int rounds_active_pairs(int nranks, int step);
/* Whether a rank takes part when `active` pairs run: bottom ranks [0, a) with [P/2, P/2 + a). */
int rounds_active_member(int nranks, int active, int rank);

/* 2(n - 1) rounds, n = nranks rounded up to even: each unordered pair meets twice, once
 * started by each side. */
int rounds_matrix_count(int nranks);
/* The partner of rank in round (-1: it sits this round out); *starts = 1 when rank starts. */
int rounds_matrix_partner(int nranks, int round, int rank, int *starts);

#endif
