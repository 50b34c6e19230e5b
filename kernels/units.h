/* Message sizes as text: "64K", lists "0,1,4K", ranges "1:64M" (powers of two) or "1:64M:4"
 * (a ratio). K, M, G are binary (1024-based); no MPI here. */
#ifndef MP_UNITS_H
#define MP_UNITS_H

#include <stddef.h>

#define MP_MAX_SIZES 4096

/* Parse one size; 0 on success, -1 with a message in err. */
int units_scan_size(const char *text, long long *bytes, char *err, size_t errlen);

/* Parse a size list or range into out[0..*count); 0 on success, -1 with a message. */
int units_scan_sizes(const char *text, long long *out, int max, int *count, char *err, size_t errlen);

/* Parse seconds with an optional unit suffix: "1.5", "500ms", "2s", "1m". */
int units_scan_seconds(const char *text, double *seconds, char *err, size_t errlen);

/* Parse a relative precision: "1%" or "0.01". */
int units_scan_fraction(const char *text, double *fraction, char *err, size_t errlen);

#endif
