/* The payload every pattern moves: each rank sends the bytes of its own seed, so a receiver
 * can prove it holds exactly what the named sender sent (and not stale or shifted data). */
#ifndef MP_PAYLOAD_H
#define MP_PAYLOAD_H

#include "pattern.h"

/* The seed of a comm rank's payload (never the stale seed). */
unsigned payload_seed(int rank);
/* Send buffer: this rank's payload; receive buffer (when separate): stale bytes. */
void payload_prepare(const struct mp_ctx *c);
/* 0 when the receive buffer holds `from`'s payload; else the first bad byte's index + 1. */
long long payload_verify_from(const struct mp_ctx *c, int from);
/* 0 when the receive buffer still holds the stale bytes payload_prepare() left there. */
long long payload_verify_untouched(const struct mp_ctx *c);
/* The same for the partner of a two-rank pattern (comm rank 1 - me). */
long long payload_verify_partner(const struct mp_ctx *c);

#endif
