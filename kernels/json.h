/* JSON text, the one place that escapes strings and prints numbers for every file the kernels
 * write (run records, the pattern catalog). */
#ifndef MP_JSON_H
#define MP_JSON_H

#include <stdio.h>

/* A string as a JSON string literal: quotes and backslashes escaped, control bytes as \u00XX;
 * other bytes (UTF-8) pass through. */
void json_string(FILE *f, const char *s);
/* 17 significant digits: a double read back is the double written. */
void json_double(FILE *f, double x);
void json_bool(FILE *f, int value);

#endif
