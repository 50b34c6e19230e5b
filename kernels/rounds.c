#include "rounds.h"

int rounds_active_steps(int nranks)
{
    int steps = 0, half = nranks / 2;
    for (int a = 1; a < half; a *= 2)
        steps++;
    return steps + (half >= 1);
}

int rounds_active_pairs(int nranks, int step)
{
    int a = 1;
    for (int i = 0; i < step; i++)
        a *= 2;
    return a < nranks / 2 ? a : nranks / 2;
}

int rounds_active_member(int nranks, int active, int rank)
{
    int half = nranks / 2;
    return rank < active || (rank >= half && rank < half + active);
}

int rounds_matrix_count(int nranks)
{
    int n = nranks + (nranks & 1);
    return 2 * (n - 1);
}

int rounds_matrix_partner(int nranks, int round, int rank, int *starts)
{
    int n = nranks + (nranks & 1), m = n - 1;
    int q = round % m, second = round / m, partner;
    if (rank == n - 1)
        partner = q;
    else if (rank == q)
        partner = n - 1;
    else
        partner = ((2 * q - rank) % m + m) % m;
    if (partner >= nranks)
        return -1;
    *starts = second ? rank > partner : rank < partner;
    return partner;
}
