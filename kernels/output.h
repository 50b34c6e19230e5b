/* Opening the run file (world rank 0 only): the one place that decides whether an existing file
 * may be added to or replaced. */
#ifndef MP_OUTPUT_H
#define MP_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"

/* "-" is stdout; --append adds to the file; --overwrite replaces it; otherwise the file must not
 * exist yet (an exclusive create, C11 "wx"), so nothing the kernels write replaces a file that
 * is not theirs. NULL with a one-line message (problem and fix) in err. */
FILE *output_open(const struct mp_options *o, char *err, size_t errlen);

#endif
