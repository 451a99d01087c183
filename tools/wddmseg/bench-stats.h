/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the benchmark tools share: the driver's per-segment sysfs
 * counters summed, and the median of a run's figures.
 */
#ifndef WDDMSEG_BENCH_STATS_H
#define WDDMSEG_BENCH_STATS_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * The sum of the values of a per-segment sysfs file @name of the device
 * directory @dir (one value per segment, in segment id order).
 * Return: 0 or a negative errno.
 */
static inline int bench_sysfs_sum(const char *dir, const char *name,
				  uint64_t *sum)
{
	char path[256], buf[512], *p = buf, *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	*sum = 0;
	for (;;) {
		uint64_t v = strtoull(p, &end, 0);

		if (end == p)
			break;
		*sum += v;
		p = end;
	}
	return 0;
}

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
