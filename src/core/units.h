/*
** units.h -- unit normalisation: the base units are ns, byte, Hz, percent
** (0-100), and plain counts.  Profilers spell units many ways (usecond,
** us, Kbyte, Gbyte/s, Ghz, cycle/nsecond, ...); pl_unit_lookup maps a
** spelling to the factor that converts a value to the base unit.
*/
#ifndef PL_UNITS_H
#define PL_UNITS_H

#include <stddef.h>

typedef struct pl_unit {
  double factor;    /* value_in_base = value * factor */
  const char *base; /* "ns", "byte", "Hz", "byte/s", "cycle/s", "pct", ... or the unit itself */
} pl_unit;

/* Returns 0 and fills u when the spelling is known (case-insensitive for
** the prefix letters where tools disagree, e.g. Ghz/GHz); -1 otherwise
** (u then holds factor 1 and the spelling itself is the base). */
int pl_unit_lookup(const char *s, size_t n, pl_unit *u);

/* v * factor without binary noise: a decimal input scaled by a power of
** ten comes out as the double nearest the exact decimal result
** ("32.06" us -> 32060 ns, not 32060.000000000004).  The input's decimals
** are those of the shortest decimal that reads back as v (at most 15);
** the product is rounded to that many decimals less the factor's power of
** ten.  Any other factor (1024, 1) is a plain product. */
double pl_unit_scale(double v, double factor);

#endif
