/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the benchmark tools share: the median of a run's figures.
 */
#ifndef WDDMSEG_BENCH_STATS_H
#define WDDMSEG_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median of @n values (sorted in place); of an even count, the mean
 * of the middle two.
 */
static inline double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(double), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
