// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg-pmbench: what a suspend to RAM costs, per wddmseg device.
 *
 * For every wddmseg card: fill MB MiB of its memory segments with
 * allocations of 2 MiB (the engine fills each with its own word; at most
 * 3/4 of each segment, so that none is evicted to make room), then
 * suspend the system to RAM CYCLES times (RTC wake alarm WAKE seconds
 * ahead, echo mem > /sys/power/state). After each cycle it reads the
 * driver's account of the cycle from sysfs (pm_evicted_bytes,
 * pm_restored_bytes, pm_phase_us: the PM notifier's early eviction and the
 * suspend callback make the suspend latency; the resume callback and the
 * restore of what was evicted the resume latency) and at the end checks
 * that every allocation still holds its word (through a blit into system
 * memory). Prints one line per device with the medians:
 *
 *   card  caps  in-use MiB  copied MiB  suspend ms  resume ms  content
 *
 * and, for two devices or more, how much faster the first suspends than
 * each other one. The devices are the experiment: tools/vm/pm-bench.sh
 * boots one whose VRAM is PreservedDuringStandby next to one with
 * DisableSelfRefreshVRAMInS3 (everything copied, as amdgpu and xe always
 * do). Exit status 0 when every cycle and every content check worked.
 *
 * Usage: wddmseg-pmbench [--mb MB] [--cycles N] [--wake S]
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wddmseg.h"
#include "bench-stats.h"

#define CHUNK		(2u << 20)
#define MAX_DEVS	8
#define MAX_CHUNKS	512
#define MAX_CYCLES	64

struct dev {
	char card[32];
	char sysfs[96];
	int fd;
	uint32_t caps;
	uint32_t nseg;
	uint32_t h[MAX_CHUNKS];
	uint32_t word[MAX_CHUNKS];
	unsigned int n;
	double suspend_ms[MAX_CYCLES], resume_ms[MAX_CYCLES];
	uint64_t copied[MAX_CYCLES], restored[MAX_CYCLES];
	uint64_t bad;
};

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int phases(const struct dev *d, double *suspend, double *resume)
{
	unsigned long long pre, sus, res, rest;
	char path[160], buf[256];
	int ret;

	snprintf(path, sizeof(path), "%s/pm_phase_us", d->sysfs);
	ret = read_file(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "prepare %llu suspend %llu resume %llu restore %llu",
		   &pre, &sus, &res, &rest) != 4)
		return -EPROTO;
	*suspend = (pre + sus) / 1000.0;
	*resume = (res + rest) / 1000.0;
	return 0;
}

/* @mb MiB of 2 MiB allocations in the memory segments, engine-filled. */
static int fill(struct dev *d, unsigned int mb)
{
	struct drm_wddmseg_query_segment s;
	unsigned int want = mb / 2, id, limit;
	int ret, ffd;

	for (id = 1; id <= d->nseg && d->n < want; id++) {
		ret = wddmseg_query_segment(d->fd, id, NULL, 0, &s);
		if (ret)
			return ret;
		if (wddmseg_segment_is_aperture(s.flags))
			continue;
		/* Up to 3/4 of each segment: nothing is evicted to make room. */
		limit = d->n + s.size * 3 / 4 / CHUNK;
		while (d->n < want && d->n < limit && d->n < MAX_CHUNKS) {
			uint32_t h;

			if (wddmseg_create_allocation_in(d->fd, CHUNK, 0, id, &h))
				break;	/* the segment is full */
			if (wddmseg_allocation_segment(d->fd, h) != (int)id) {
				wddmseg_destroy_allocation(d->fd, h);
				break;
			}
			d->word[d->n] = 0x4d420000u | (id << 12) | d->n;
			ffd = -1;
			ret = wddmseg_fill(d->fd, h, 0, CHUNK, d->word[d->n], &ffd);
			if (ffd >= 0)
				close(ffd);
			if (ret)
				return ret;
			d->h[d->n++] = h;
		}
	}
	for (unsigned int i = 0; i < d->n; i++) {
		ret = wddmseg_wait(d->fd, d->h[i], 30000000000LL);
		if (ret)
			return ret;
		/* Still in VRAM: what a suspend has to deal with. */
		if (wddmseg_allocation_segment(d->fd, d->h[i]) <= 0)
			return -EAGAIN;
	}
	return d->n == want ? 0 : -ENOSPC;
}

/* Bad words of every allocation, through a blit into system memory. */
static int verify(struct dev *d)
{
	uint32_t sys, *p;
	void *map;
	int ret, ffd;

	ret = wddmseg_create_allocation_in(d->fd, CHUNK,
					   WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND, 0,
					   &sys);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < d->n; i++) {
		ffd = -1;
		ret = wddmseg_copy(d->fd, d->h[i], 0, sys, 0, CHUNK, &ffd);
		if (ffd >= 0)
			close(ffd);
		if (!ret)
			ret = wddmseg_wait(d->fd, sys, 30000000000LL);
		if (!ret)
			ret = wddmseg_lock(d->fd, sys, CHUNK, &map);
		if (ret)
			break;
		p = map;
		for (unsigned int k = 0; k < CHUNK / 4; k++)
			d->bad += p[k] != d->word[i];
		wddmseg_unlock(map, CHUNK);
	}
	wddmseg_destroy_allocation(d->fd, sys);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int mb = 48, cycles = 5, wake = 2, nd = 0, i, c;
	static struct dev devs[MAX_DEVS];
	struct drm_wddmseg_query_adapter a;
	char alarm[16];
	glob_t g;
	int err = 0, ret;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--mb") && i + 1 < (unsigned int)argc)
			mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cycles") && i + 1 < (unsigned int)argc)
			cycles = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--wake") && i + 1 < (unsigned int)argc)
			wake = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--mb MB] [--cycles N] [--wake S]\n",
				argv[0]);
			return 2;
		}
	}
	if (!cycles || cycles > MAX_CYCLES || mb / 2 > MAX_CHUNKS) {
		fprintf(stderr, "%s: 1..%d cycles, at most %u MiB\n", argv[0],
			MAX_CYCLES, MAX_CHUNKS * 2);
		return 2;
	}

	if (glob("/dev/dri/card*", 0, NULL, &g)) {
		fprintf(stderr, "%s: no /dev/dri/card*\n", argv[0]);
		return 1;
	}
	for (i = 0; i < g.gl_pathc && nd < MAX_DEVS; i++) {
		struct dev *d = &devs[nd];
		const char *n = strrchr(g.gl_pathv[i], '/') + 1;

		d->fd = wddmseg_open_adapter(g.gl_pathv[i], 0);
		if (d->fd < 0)
			continue;
		if (wddmseg_query_adapter(d->fd, &a)) {
			close(d->fd);
			continue;
		}
		snprintf(d->card, sizeof(d->card), "%s", n);
		snprintf(d->sysfs, sizeof(d->sysfs),
			 "/sys/class/drm/%s/device/wddmseg", n);
		d->caps = a.vidmm_caps;
		d->nseg = a.segment_count;
		ret = fill(d, mb);
		if (ret) {
			fprintf(stderr, "%s: %s: %u MiB do not fit (%s)\n", argv[0],
				d->card, mb, strerror(-ret));
			return 1;
		}
		nd++;
	}
	globfree(&g);
	if (!nd) {
		fprintf(stderr, "%s: no wddmseg device\n", argv[0]);
		return 1;
	}

	snprintf(alarm, sizeof(alarm), "+%u", wake);
	for (c = 0; c < cycles; c++) {
		ret = write_file("/sys/class/rtc/rtc0/wakealarm", "0");
		if (!ret)
			ret = write_file("/sys/class/rtc/rtc0/wakealarm", alarm);
		if (!ret)
			ret = write_file("/sys/power/state", "mem");
		if (ret) {
			fprintf(stderr, "%s: cycle %u: suspend: %s\n", argv[0],
				c + 1, strerror(-ret));
			return 1;
		}
		for (i = 0; i < nd; i++) {
			struct dev *d = &devs[i];

			char path[160], buf[160];

			snprintf(path, sizeof(path), "%s/pm_phase_us", d->sysfs);
			if (!read_file(path, buf, sizeof(buf)))
				printf("# cycle %u %s: %s", c + 1, d->card, buf);
			if (phases(d, &d->suspend_ms[c], &d->resume_ms[c]) ||
			    bench_sysfs_sum(d->sysfs, "pm_evicted_bytes", &d->copied[c]) ||
			    bench_sysfs_sum(d->sysfs, "pm_restored_bytes",
					    &d->restored[c])) {
				fprintf(stderr, "%s: %s: no PM statistics in %s\n",
					argv[0], d->card, d->sysfs);
				return 1;
			}
		}
	}

	printf("%-6s %-10s %10s %10s %10s %10s %8s\n", "card", "caps",
	       "in-use MiB", "copied MiB", "suspend ms", "resume ms", "content");
	for (i = 0; i < nd; i++) {
		struct dev *d = &devs[i];
		uint64_t copied = d->copied[cycles - 1];

		ret = verify(d);
		err |= ret || d->bad;
		for (c = 0; c < cycles; c++)
			err |= d->copied[c] != copied;
		printf("%-6s 0x%08x %10u %10.1f %10.2f %10.2f %8s\n", d->card,
		       d->caps, d->n * (CHUNK >> 20), copied / 1048576.0,
		       median(d->suspend_ms, cycles), median(d->resume_ms, cycles),
		       ret ? "error" : d->bad ? "BAD" : "intact");
	}
	for (i = 1; i < nd; i++) {
		double s0 = devs[0].suspend_ms[cycles / 2];
		double si = devs[i].suspend_ms[cycles / 2];

		printf("suspend: %s is %.1fx faster than %s (%.2f ms vs %.2f ms, medians)\n",
		       devs[0].card, s0 > 0 ? si / s0 : 0, devs[i].card, s0, si);
	}
	return err ? 1 : 0;
}
