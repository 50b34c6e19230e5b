/* Which pair(s) of ranks the two-rank patterns measure: --pair as given, or chosen from the
 * rank->host map for --placement intra, inter or both. */
#ifndef MP_PAIR_CHOICE_H
#define MP_PAIR_CHOICE_H

#include "options.h"
#include "placement.h"

/* Collective: world rank 0 decides from `places` (its rank->host map), every rank learns the
 * answer. Fills pairs[2i], pairs[2i+1] (first rank first) and returns how many pairs (1 or 2);
 * stops the job with one line when no such pair exists. */
int pair_choice(const struct mp_options *o, const struct mp_rank_place *places, int nranks, int pairs[4]);

/* "intra" when ranks a and b share a host, else "inter" (needs the map: world rank 0 only). */
const char *pair_placement(const struct mp_rank_place *places, int a, int b);

#endif
