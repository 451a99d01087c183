// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg-bench: allocation create+destroy rates and eviction throughput
 * of wddmseg, side by side with another DRM driver (by default bochs-drm,
 * Debian's driver for QEMU's bochs-display, which uses
 * drm_gem_vram_helper), measured in the same boot. Numbers only: nothing
 * passes or fails here. `make bench` runs it (tools/bench.sh).
 *
 * Usage: wddmseg-bench [-t SECONDS] [-r REPEATS] [-e MIB] [-v]
 *                      [-m SECONDS] [-S KIB] [-M] [-L] [-H MIBPS]
 *                      [-C TTY] [-d DRIVER=NODE]...
 *                      [DRIVER...]
 *
 *   DRIVER   DRM driver names, one table column each (default: wddmseg
 *            bochs-drm); the first primary node (/dev/dri/cardN) whose
 *            driver has that name is used, unless -d names one
 *   -t       seconds per measurement, split over the repeats (default 5)
 *   -r       repeats of each measurement; the table shows the median
 *            (default 5); -v prints every repeat
 *   -e       wddmseg eviction buffer size in MiB (default 8)
 *   -m       seconds per migration throughput cell, over 6 runs
 *            (default 1.5; 0 skips the migration table)
 *   -S       only this migration size, in KiB (one of the table's sizes)
 *   -M       only the migration table (no allocation, eviction or
 *            fragmentation measurements)
 *   -L       only wddmseg's live-allocation rows: the close of 100,000
 *            allocations and create+destroy with 1,000 and 100,000 live
 *   -H       host memcpy bandwidth in MiB/s, measured outside the VM
 *            (tools/bench.sh), printed as the physical ceiling
 *   -C       a serial port whose other end answers a line "memcpy" with
 *            the host's memcpy bandwidth now, in MiB/s (tools/bench.sh:
 *            tools/vm/host-memcpy-ctl.py on run-vm.sh's --ctl socket):
 *            the ceiling is then also sampled next to the 64 MiB cells
 *
 * Before anything is timed, 80% of MemAvailable is mapped, written and
 * unmapped: QEMU gives guest RAM host pages on first touch, and without
 * this whichever driver first allocates fresh pages (bochs evicts into
 * newly allocated pages; wddmseg reuses TTM's write-combined pool) pays
 * for the host's page faults.
 *
 * Measurements (each a loop timed with CLOCK_MONOTONIC):
 *
 *   reference             64 MiB of memset in userspace before every
 *                         repeat: the speed of the (virtual) CPU. Its
 *                         min..max is printed: under TCG on a loaded host
 *                         everything else moves with it.
 *
 *   GEM create+destroy    wddmseg only: DRM_IOCTL_WDDMSEG_GEM_CREATE of an
 *                         allocation whose only segment is the first memory
 *                         segment (VRAM, preferring a CpuVisible one), then
 *                         DRM_IOCTL_GEM_CLOSE. Pairs per second.
 *   dumb create+destroy   both: DRM_IOCTL_MODE_CREATE_DUMB (1024 pixels of
 *                         32 bpp per row, size / 4 KiB rows) then
 *                         DRM_IOCTL_MODE_DESTROY_DUMB. Pairs per second.
 *                         Not the same work: wddmseg places a dumb buffer
 *                         in VRAM, zero-filled (by a Fill, or because the
 *                         range is known to be zero: Documentation/gpu/
 *                         wddmseg.rst, "Releasing and clearing VRAM"),
 *                         while drm_gem_vram_helper creates it in system
 *                         memory with no pages until first use.
 *   eviction round trip   MiB moved per second, counting both directions.
 *     wddmseg             a CpuVisible allocation in that VRAM segment,
 *                         written through mmap, then DRM_IOCTL_WDDMSEG_
 *                         GEM_EVICT (VRAM -> system) and GEM_MAKE_RESIDENT
 *                         (system -> VRAM) in turn, each timed on its own;
 *                         GEM_INFO checks the placement after the first
 *                         round trip and the content is compared at the end.
 *     bochs-drm           the driver has no eviction ioctl; its buffers
 *                         move only when a framebuffer is pinned into VRAM
 *                         for scanout. The benchmark takes DRM master, and
 *                         flips one CRTC (drmModeSetCrtc, blocking) round
 *                         robin over 3 framebuffers of exactly half the
 *                         VRAM (size read from debugfs vram-mm): only 2 fit,
 *                         the shown one is pinned, so every flip evicts the
 *                         least recently shown (VRAM -> system) and moves
 *                         the next one in (system -> VRAM); both are CPU
 *                         copies in TTM (ttm_bo_move_memcpy). The same
 *                         flips between 2 of them, which stay in VRAM, are
 *                         the control: flips/s without eviction. The
 *                         directions cannot be timed apart from userspace.
 *                         vram-mm is checked to be full after the loop and
 *                         the framebuffers' content is compared at the end.
 *                         Before, the VRAM is emptied (fbdev's buffer
 *                         would fragment it) by showing, then freeing, a
 *                         framebuffer of the whole VRAM.
 *                         Needs a connector and a mode of at most the
 *                         framebuffer size; otherwise "n/a" with the reason.
 *
 *   exit, 1,000 allocations   wddmseg only: a child process opens the
 *                         device, creates 1,000 allocations of 4 KiB in
 *                         the VRAM segment, writes one byte into each
 *                         through mmap and waits; it is killed (SIGKILL)
 *                         and the time from kill() to waitpid() is the
 *                         figure (its exit releases the file and every
 *                         allocation). "engine busy": meanwhile another
 *                         process keeps the copy engine saturated with
 *                         8 MiB Transfers between two allocations in the
 *                         other VRAM segment (two in flight at all times);
 *                         "idle": without it. Milliseconds, median.
 *   close, 100,000 allocations  wddmseg only: a second file on the node
 *                         gets 100,000 allocations of 4 KiB (preferring the
 *                         VRAM segment, then the other memory segments and
 *                         the aperture, evicted to system memory when those
 *                         are full); close() of it is timed. Once, not
 *                         repeated (creating them takes long); printed with
 *                         the 100,000-live figure below.
 *   create+destroy, N live   wddmseg only: the GEM create+destroy of a
 *                         4 KiB allocation in the VRAM segment (as above)
 *                         while that second file holds 1,000, then
 *                         100,000 live allocations: placement cost as the
 *                         number of allocations grows. Pairs per second.
 *                         "again": after the close, a third file holds
 *                         1,000 and the rate is measured once more; it
 *                         brackets the 100,000 figure in time, so that a
 *                         difference the host's drift made (TCG, a
 *                         shared host) shows as a difference between the
 *                         two 1,000 rows.
 *
 *   4 MiB at 90% full     wddmseg only, fragmentation: a second file
 *                         churns the VRAM segment with allocations of
 *                         mixed sizes (4 KiB to 2 MiB, only that segment
 *                         supported; a fixed pseudo-random sequence) up
 *                         to 90% occupancy (QUERY_SEGMENT usage) and
 *                         keeps replacing random ones; then, 24 times, an
 *                         allocation of 4 MiB while at least 4 MiB is
 *                         free (releasing random ones first if not),
 *                         released again after some more churn. The
 *                         figure is how many of the 24 made the segment
 *                         evict (its eviction count grew): with
 *                         vram_blocks=0 ("one range", every placement
 *                         contiguous, as before issue 17) and with
 *                         vram_blocks=1 ("blocks", the default), in the
 *                         same boot (debugfs knob wddmseg/vram_blocks
 *                         of the device); the knob is restored. The
 *                         evictions in all and the time per 4 MiB
 *                         placement are in the notes. Aim: no eviction
 *                         with blocks, as the free space can hold them.
 *
 * The create+destroy rows of all drivers are measured interleaved (for
 * each size and repeat one run of each driver in turn), so that they see
 * the same host. The ratio column (first driver / second) compares the
 * rows both have;
 * a GEM row of the first with the same size's dumb row of the second
 * (the second, bochs, has no GEM create ioctl of its own).
 *
 * Migration throughput (wddmseg only, its own table after the main one):
 * one CpuVisibleOnDemand allocation of 4 KiB, 16 KiB, 64 KiB, 128 KiB,
 * 256 KiB, 1 MiB, 16 MiB and 64 MiB moved back and forth between VRAM (the
 * CpuVisible segment) and system memory (EVICT), the aperture, and the
 * other (invisible) VRAM segment; each move is the ioctl plus GEM_WAIT, so
 * the engine's pipelined copy is inside the time. MiB moved per second,
 * both directions counted, median of 6 runs (48 shorter ones below 1 MiB),
 * each after one untimed warm-up round trip. Every cell is measured in
 * three modes in the same boot, the runs of the modes alternating (each 6
 * repeats run the modes in the 6 possible orders) so that all see the
 * same host (its speed drifts under TCG): engine-or-CPU (use_engine=1 with the
 * driver's cpu_move_max_kb thresholds: what users get), the engine alone
 * (cpu_move_max_kb=0,0,0) and the CPU copy fallback (use_engine=0), all
 * debugfs knobs of the device (wddmseg/ in its debugfs directory); the
 * knobs are restored afterwards. Rows also show engine-or-CPU over
 * each of the others: the median of the ratios of runs made one after
 * the other in the same repeat, not the ratio of the medians, so that a
 * drift of the host between repeats cancels out. The 64 MiB figures are
 * compared with the host's memcpy bandwidth (-H) and the guest's
 * userspace memcpy of 64 MiB; with -C, also with the host's memcpy
 * sampled before each repeat of the 64 MiB cells and after the last one
 * (the VM idle meanwhile): each engine-or-CPU run against the faster of
 * the two samples around it, median of the 6 ratios. A size that does
 * not fit a segment shows n/a. The content is checked after each size.
 * Last, what the driver's own dma_fence wait buys: 64 KiB and 1 MiB VRAM
 * <-> system round trips in engine-or-CPU mode with the debugfs knob
 * fence_spin_us as loaded (the waiter polls the fence's writeback first)
 * and with 0 (dma_fence_default_wait() at once), 12 runs each, ABBA
 * order; a note gives both medians and the median of the paired ratios.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>
#include <wddmseg.h>

#include "bench-stats.h"

#define MAX_COLS	4
#define MAX_REPEATS	15
#define NA		(-1.0)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *prog = "wddmseg-bench";
static double seconds = 5.0;
static unsigned int repeats = 5;
static uint64_t evict_mib = 8;
static bool verbose;
static bool live_only;		/* -L */
static double mig_seconds = 1.5;
static double host_memcpy = NA;
static const char *ctl_path;	/* -C */
static int ctl_fd = -1;

static const uint64_t sizes[] = { 4096, 65536, 1048576 };

enum row {
	R_GEM_4K, R_GEM_64K, R_GEM_1M,
	R_DUMB_4K, R_DUMB_64K, R_DUMB_1M,
	R_EVICT_SIZE, R_EVICT, R_EVICT_OUT, R_EVICT_IN,
	R_FLIP_EVICT, R_FLIP_STAY,
	R_EXIT_BUSY, R_EXIT_IDLE, R_CLOSE_BIG,
	R_PLACE_1K, R_PLACE_100K, R_PLACE_1K_AGAIN,
	R_FRAG_CONTIG, R_FRAG_BLOCKS,
	R_REF,
	R_COUNT,
};

static const char * const row_name[R_COUNT] = {
	[R_GEM_4K]	= "GEM create+destroy, 4 KiB, VRAM [1/s]",
	[R_GEM_64K]	= "GEM create+destroy, 64 KiB, VRAM [1/s]",
	[R_GEM_1M]	= "GEM create+destroy, 1 MiB, VRAM [1/s]",
	[R_DUMB_4K]	= "dumb create+destroy, 4 KiB [1/s]",
	[R_DUMB_64K]	= "dumb create+destroy, 64 KiB [1/s]",
	[R_DUMB_1M]	= "dumb create+destroy, 1 MiB [1/s]",
	[R_EVICT_SIZE]	= "eviction buffer size [MiB]",
	[R_EVICT]	= "eviction round trip, both ways [MiB/s]",
	[R_EVICT_OUT]	= "  VRAM -> system only [MiB/s]",
	[R_EVICT_IN]	= "  system -> VRAM only [MiB/s]",
	[R_FLIP_EVICT]	= "flips with eviction [1/s]",
	[R_FLIP_STAY]	= "flips without eviction (control) [1/s]",
	[R_EXIT_BUSY]	= "exit, 1,000 allocations, engine busy [ms]",
	[R_EXIT_IDLE]	= "exit, 1,000 allocations, engine idle [ms]",
	[R_CLOSE_BIG]	= "close, 100,000 allocations of 4 KiB [ms]",
	[R_PLACE_1K]	= "create+destroy, 1,000 live [1/s]",
	[R_PLACE_100K]	= "create+destroy, 100,000 live [1/s]",
	[R_PLACE_1K_AGAIN] = "create+destroy, 1,000 live, again [1/s]",
	[R_FRAG_CONTIG]	= "4 MiB at 90% full: evicted, one range [#]",
	[R_FRAG_BLOCKS]	= "4 MiB at 90% full: evicted, blocks [#]",
	[R_REF]		= "reference: userspace memset [MiB/s]",
};

struct cell {
	double value;		/* NA: not measured, see note */
	char note[160];		/* why n/a */
	double runs[MAX_REPEATS * R_COUNT];	/* R_REF takes more */
	unsigned int nruns;
};

struct col {
	char driver[32];
	char node[64];
	int fd;
	int minor;
	struct cell cell[R_COUNT];
	char info[12][200];
	unsigned int ninfo;
};

static struct col cols[MAX_COLS];
static unsigned int ncols;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void __attribute__((format(printf, 2, 3)))
info(struct col *c, const char *fmt, ...)
{
	va_list ap;

	if (c->ninfo == ARRAY_SIZE(c->info))
		return;
	va_start(ap, fmt);
	vsnprintf(c->info[c->ninfo++], sizeof(c->info[0]), fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 3, 4)))
na(struct col *c, enum row r, const char *fmt, ...)
{
	va_list ap;

	c->cell[r].value = NA;
	va_start(ap, fmt);
	vsnprintf(c->cell[r].note, sizeof(c->cell[r].note), fmt, ap);
	va_end(ap);
}

/* Record a finished measurement: the median of its runs. */
static void done(struct col *c, enum row r)
{
	struct cell *cl = &c->cell[r];
	double s[MAX_REPEATS * R_COUNT];

	if (!cl->nruns)
		return;
	memcpy(s, cl->runs, sizeof(s));
	cl->value = median(s, cl->nruns);
}

static int open_driver(struct col *c)
{
	glob_t g;
	size_t i;

	if (c->node[0]) {
		c->fd = open(c->node, O_RDWR | O_CLOEXEC);
		return c->fd < 0 ? -errno : 0;
	}
	if (glob("/dev/dri/card*", 0, NULL, &g))
		return -ENODEV;
	for (i = 0; i < g.gl_pathc; i++) {
		int fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		drmVersionPtr v;
		bool match;

		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		match = v && v->name && !strcmp(v->name, c->driver);
		drmFreeVersion(v);
		if (match) {
			snprintf(c->node, sizeof(c->node), "%s", g.gl_pathv[i]);
			c->fd = fd;
			globfree(&g);
			return 0;
		}
		close(fd);
	}
	globfree(&g);
	return -ENODEV;
}

static int node_minor(const char *node)
{
	struct stat st;

	return stat(node, &st) ? -1 : (int)minor(st.st_rdev);
}

/*
 * The CPU itself: 64 MiB of memset in a 1 MiB buffer, sampled before
 * every repeat of every measurement. Under TCG on a shared host this
 * moves with the host's load, so its spread (min..max in the notes) says
 * how far the other numbers can be trusted.
 */
static void ref_sample(struct col *c)
{
	static char buf[1 << 20];
	struct cell *cl = &c->cell[R_REF];
	double t0 = now();
	int i;

	for (i = 0; i < 64; i++) {
		memset(buf, i, sizeof(buf));
		__asm__ volatile("" : : "r"(buf) : "memory");
	}
	if (cl->nruns < MAX_REPEATS * R_COUNT)
		cl->runs[cl->nruns++] = 64 / (now() - t0);
}

/* Touch most of the free RAM once (see the comment at the top). */
static void prefault_ram(void)
{
	unsigned long long avail = 0;
	char line[128];
	size_t len;
	FILE *f = fopen("/proc/meminfo", "re");
	void *p;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu", &avail) == 1)
			break;
	if (f)
		fclose(f);
	len = avail * 1024 / 10 * 8;
	if (!len)
		return;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	memset(p, 1, len);
	munmap(p, len);
	printf("%s: touched %zu MiB of guest RAM before timing\n", prog,
	       len >> 20);
}

/* ---- create + destroy ---------------------------------------------- */

struct alloc_ops {
	int (*create)(struct col *c, uint64_t size, uint32_t *handle);
	int (*destroy)(struct col *c, uint32_t handle);
};

static uint32_t wddmseg_vram_id;
static uint32_t wddmseg_other_vram_id;	/* another memory segment, or 0 */

static int gem_create(struct col *c, uint64_t size, uint32_t *handle)
{
	return wddmseg_create_allocation_in(c->fd, size, 0, wddmseg_vram_id,
					    handle);
}

static int gem_close(struct col *c, uint32_t handle)
{
	return wddmseg_destroy_allocation(c->fd, handle);
}

static int dumb_create(struct col *c, uint64_t size, uint32_t *handle)
{
	uint64_t got = 0;
	uint32_t pitch;
	int ret;

	ret = drmModeCreateDumbBuffer(c->fd, 1024, size / 4096, 32, 0, handle,
				      &pitch, &got);
	if (!ret && got != size) {
		/* not comparable if the driver padded it */
		drmModeDestroyDumbBuffer(c->fd, *handle);
		return -ERANGE;
	}
	return ret;
}

static int dumb_destroy(struct col *c, uint32_t handle)
{
	return drmModeDestroyDumbBuffer(c->fd, handle);
}

/* One pair, which also tells whether it works at all (noted if not). */
static bool alloc_warm(struct col *c, enum row r, const struct alloc_ops *ops,
		       uint64_t size)
{
	uint32_t h;
	int ret = ops->create(c, size, &h);

	if (ret) {
		na(c, r, "create failed: %s", strerror(-ret));
		return false;
	}
	ops->destroy(c, h);
	return true;
}

/* One timed repeat into row @r; false (noted) on failure. */
static bool alloc_run(struct col *c, enum row r, const struct alloc_ops *ops,
		      uint64_t size)
{
	struct cell *cl = &c->cell[r];
	double per_run = seconds / repeats, t0, t;
	uint64_t n = 0;
	uint32_t h;
	int ret;

	ref_sample(c);
	t0 = now();
	do {
		ret = ops->create(c, size, &h);
		if (!ret)
			ret = ops->destroy(c, h);
		if (ret) {
			na(c, r, "failed after %" PRIu64 " pairs: %s", n,
			   strerror(-ret));
			return false;
		}
		n++;
		t = now() - t0;
	} while (t < per_run || n < 4);
	cl->runs[cl->nruns++] = n / t;
	return true;
}

static int bench_find_vram(struct col *c);

/*
 * The create+destroy rows of every driver, interleaved: for each size and
 * repeat, one run of each (driver, row) in turn, so that all of them see
 * the same host (under TCG on a shared host its speed drifts by a factor
 * of two within minutes; measured one driver after the other, the ratio
 * column would mostly show that drift).
 */
static void bench_alloc_all(void)
{
	static const struct alloc_ops gem = { gem_create, gem_close };
	static const struct alloc_ops dumb = { dumb_create, dumb_destroy };
	struct {
		struct col *c;
		enum row r;
		const struct alloc_ops *ops;
		bool ok;
	} job[MAX_COLS * 2];
	unsigned int i, j, k, n;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		n = 0;
		for (j = 0; j < ncols; j++) {
			struct col *c = &cols[j];

			if (c->fd < 0)
				continue;
			if (!strcmp(c->driver, "wddmseg")) {
				if (bench_find_vram(c)) {
					na(c, R_GEM_4K + i, "no VRAM segment");
					na(c, R_DUMB_4K + i, "no VRAM segment");
					continue;
				}
				job[n++] = (typeof(job[0])){ c, R_GEM_4K + i, &gem, false };
			} else {
				if (!strcmp(c->driver, "bochs-drm"))
					na(c, R_GEM_4K + i, "no driver GEM_CREATE ioctl (dumb only)");
			}
			job[n++] = (typeof(job[0])){ c, R_DUMB_4K + i, &dumb, false };
		}
		for (j = 0; j < n; j++)
			job[j].ok = alloc_warm(job[j].c, job[j].r, job[j].ops,
					       sizes[i]);
		for (k = 0; k < repeats; k++)
			for (j = 0; j < n; j++)
				if (job[j].ok)
					job[j].ok = alloc_run(job[j].c, job[j].r,
							      job[j].ops,
							      sizes[i]);
		for (j = 0; j < n; j++)
			if (job[j].ok)
				done(job[j].c, job[j].r);
	}
}

/* ---- content helpers ----------------------------------------------- */

static void fill(void *p, uint64_t size, uint32_t seed)
{
	uint32_t *w = p;
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		w[i] = seed ^ (uint32_t)(i * 2654435761u);
}

static bool check(const void *p, uint64_t size, uint32_t seed)
{
	const uint32_t *w = p;
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		if (w[i] != (seed ^ (uint32_t)(i * 2654435761u)))
			return false;
	return true;
}

static void *map(struct col *c, uint64_t offset, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
		       offset);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- wddmseg ------------------------------------------------------- */

static int bench_find_vram(struct col *c)
{
	struct drm_wddmseg_query_adapter qa;
	struct drm_wddmseg_query_segment qs;
	uint32_t id, first = 0;
	int ret;

	if (wddmseg_vram_id)
		return 0;	/* found before */

	ret = wddmseg_query_adapter(c->fd, &qa);
	if (ret)
		return ret;
	for (id = 1; id <= qa.segment_count; id++) {
		ret = wddmseg_query_segment(c->fd, id, NULL, 0, &qs);
		if (ret)
			return ret;
		if (wddmseg_segment_is_aperture(qs.flags))
			continue;
		if (!first)
			first = id;
		if (!wddmseg_vram_id &&
		    (qs.flags & WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE)) {
			wddmseg_vram_id = id;
			info(c, "VRAM segment %u: %llu MiB, CpuVisible", id,
			     (unsigned long long)qs.size >> 20);
		}
	}
	if (!first)
		return -ENODEV;
	if (!wddmseg_vram_id) {
		wddmseg_vram_id = first;
		info(c, "VRAM segment %u (none is CpuVisible)", first);
	}
	/* another memory segment, for the engine saturator */
	for (id = 1; id <= qa.segment_count; id++)
		if (id != wddmseg_vram_id &&
		    !wddmseg_query_segment(c->fd, id, NULL, 0, &qs) &&
		    !wddmseg_segment_is_aperture(qs.flags)) {
			wddmseg_other_vram_id = id;
			break;
		}
	return 0;
}

static int gem_segment(struct col *c, uint32_t handle, uint32_t *id)
{
	int ret = wddmseg_allocation_segment(c->fd, handle);

	*id = ret < 0 ? 0 : (uint32_t)ret;
	return ret < 0 ? ret : 0;
}

static void bench_evict(struct col *c)
{
	uint64_t size = evict_mib << 20;
	double per_run = seconds / repeats;
	uint32_t seg = 0, h;
	unsigned int k;
	void *p;
	int ret;

	c->cell[R_EVICT_SIZE].value = evict_mib;
	na(c, R_FLIP_EVICT, "no KMS: eviction is an ioctl");
	na(c, R_FLIP_STAY, "no KMS");

	ret = wddmseg_create_allocation_in(c->fd, size,
					   WDDMSEG_ALLOC_CPU_VISIBLE,
					   wddmseg_vram_id, &h);
	if (ret) {
		na(c, R_EVICT, "GEM_CREATE of %" PRIu64 " MiB CpuVisible: %s",
		   evict_mib, strerror(-ret));
		na(c, R_EVICT_OUT, "see above");
		na(c, R_EVICT_IN, "see above");
		return;
	}
	ret = wddmseg_lock(c->fd, h, size, &p);
	if (ret) {
		na(c, R_EVICT, "mmap failed: %s", strerror(-ret));
		goto out;
	}
	fill(p, size, 0x77dd5e90);
	wddmseg_unlock(p, size);

	/* one checked round trip, not timed */
	ret = wddmseg_evict(c->fd, h, 0);
	if (!ret)
		ret = gem_segment(c, h, &seg);
	if (ret || seg != 0) {
		na(c, R_EVICT, "GEM_EVICT did not move it to system memory (%s, segment %u)",
		   strerror(-ret), seg);
		goto out;
	}
	ret = wddmseg_make_resident(c->fd, h, wddmseg_vram_id);
	if (!ret)
		ret = gem_segment(c, h, &seg);
	if (ret || seg != wddmseg_vram_id) {
		na(c, R_EVICT, "GEM_MAKE_RESIDENT did not move it back (%s, segment %u)",
		   strerror(-ret), seg);
		goto out;
	}

	for (k = 0; k < repeats; k++) {
		double t_out = 0, t_in = 0, t0, t1, t2;
		uint64_t n = 0;

		ref_sample(c);
		t0 = now();
		do {
			t1 = now();
			ret = wddmseg_evict(c->fd, h, 0);
			t2 = now();
			t_out += t2 - t1;
			if (!ret)
				ret = wddmseg_make_resident(c->fd, h,
							    wddmseg_vram_id);
			t_in += now() - t2;
			if (ret) {
				na(c, R_EVICT, "round trip %" PRIu64 " failed: %s",
				   n, strerror(-ret));
				goto out;
			}
			n++;
		} while (now() - t0 < per_run || n < 2);
		c->cell[R_EVICT].runs[c->cell[R_EVICT].nruns++] =
			2.0 * n * evict_mib / (t_out + t_in);
		c->cell[R_EVICT_OUT].runs[c->cell[R_EVICT_OUT].nruns++] =
			n * evict_mib / t_out;
		c->cell[R_EVICT_IN].runs[c->cell[R_EVICT_IN].nruns++] =
			n * evict_mib / t_in;
	}
	done(c, R_EVICT);
	done(c, R_EVICT_OUT);
	done(c, R_EVICT_IN);

	ret = wddmseg_lock(c->fd, h, size, &p);
	if (ret || !check(p, size, 0x77dd5e90))
		info(c, "CONTENT LOST after the eviction round trips");
	else
		info(c, "eviction: content intact after the round trips");
	if (!ret)
		wddmseg_unlock(p, size);
out:
	gem_close(c, h);
}

/* ---- release: exit and close ---------------------------------------- */

/*
 * The engine saturator: two 8 MiB allocations in the other VRAM segment
 * (or the VRAM segment), Transfers between them with two always queued,
 * until killed. Writes one byte to @ready once the first are queued.
 */
static void __attribute__((noreturn)) saturate(const char *node, int ready)
{
	const uint64_t size = 8 << 20;
	uint32_t seg = wddmseg_other_vram_id ? wddmseg_other_vram_id :
		       wddmseg_vram_id;
	int fd = open(node, O_RDWR | O_CLOEXEC), fence[2] = { -1, -1 };
	uint32_t h[2];
	unsigned int k;

	if (fd < 0 || wddmseg_create_allocation_in(fd, size, 0, seg, &h[0]) ||
	    wddmseg_create_allocation_in(fd, size, 0, seg, &h[1]))
		_exit(1);
	for (k = 0;; k++) {
		struct pollfd pfd = { .fd = fence[k % 2], .events = POLLIN };

		if (pfd.fd >= 0) {
			poll(&pfd, 1, 10000);
			close(pfd.fd);
		}
		if (wddmseg_copy(fd, h[k % 2], 0, h[(k + 1) % 2], 0, size,
				 &fence[k % 2]))
			_exit(1);
		if (k == 1 && write(ready, "s", 1) != 1)
			_exit(1);
	}
}

/* A process holding 1,000 allocations, each written once; waits. */
static void __attribute__((noreturn)) hold(const char *node, int ready)
{
	int fd = open(node, O_RDWR | O_CLOEXEC);
	unsigned int i;

	if (fd < 0)
		_exit(1);
	for (i = 0; i < 1000; i++) {
		uint32_t h;
		void *p;

		if (wddmseg_create_allocation_in(fd, 4096,
						 WDDMSEG_ALLOC_CPU_VISIBLE,
						 wddmseg_vram_id, &h) ||
		    wddmseg_lock(fd, h, 4096, &p))
			_exit(1);
		*(volatile char *)p = 1;
		wddmseg_unlock(p, 4096);
	}
	if (write(ready, "h", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* Fork @fn(node, pipe); wait for its byte. The pid, or a negative errno. */
static pid_t spawn(const char *node, void (*fn)(const char *, int))
{
	int p[2];
	pid_t pid;
	char b;

	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!pid) {
		close(p[0]);
		fn(node, p[1]);
	}
	close(p[1]);
	if (read(p[0], &b, 1) != 1) {
		close(p[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -EIO;
	}
	close(p[0]);
	return pid;
}

static void bench_exit(struct col *c, enum row r, bool busy)
{
	struct cell *cl = &c->cell[r];
	unsigned int k;

	for (k = 0; k < repeats; k++) {
		pid_t sat = 0, holder;
		double t0;
		int st;

		ref_sample(c);
		holder = spawn(c->node, hold);
		if (holder < 0) {
			na(c, r, "holder: %s", strerror(-holder));
			return;
		}
		if (busy) {
			sat = spawn(c->node, saturate);
			if (sat < 0) {
				kill(holder, SIGKILL);
				waitpid(holder, NULL, 0);
				na(c, r, "saturator: %s", strerror(-sat));
				return;
			}
			usleep(200000);	/* the engine's queue fills */
		}
		t0 = now();
		kill(holder, SIGKILL);
		waitpid(holder, &st, 0);
		cl->runs[cl->nruns++] = (now() - t0) * 1000.0;
		if (sat > 0) {
			kill(sat, SIGKILL);
			waitpid(sat, NULL, 0);
		}
	}
	done(c, r);
}

/* Create+destroy pairs per second of 4 KiB in the VRAM segment, timed. */
static double place_rate(struct col *c, double secs)
{
	uint64_t n = 0;
	double t0 = now(), t;
	uint32_t h;

	do {
		if (gem_create(c, 4096, &h) || gem_close(c, h))
			return NA;
		n++;
		t = now() - t0;
	} while (t < secs || n < 4);
	return n / t;
}

/* Row @r: the create+destroy rate, repeated, while @fd holds the live ones. */
static void live_rate(struct col *c, enum row r)
{
	struct cell *cl = &c->cell[r];
	unsigned int k;

	for (k = 0; k < repeats; k++) {
		ref_sample(c);
		cl->runs[cl->nruns] = place_rate(c, seconds / repeats);
		if (cl->runs[cl->nruns] == NA) {
			na(c, r, "create+destroy failed");
			break;
		}
		cl->nruns++;
	}
	done(c, r);
}

/* Give @fd allocations up to @want; returns how many it has (*@n). */
static int live_fill(int fd, const struct wddmseg_allocation_desc *a,
		     unsigned int *n, unsigned int want)
{
	uint32_t h;
	int ret = 0;

	for (; *n < want; (*n)++) {
		ret = wddmseg_create_allocation(fd, a, &h);
		if (ret)
			break;
	}
	return ret;
}

/*
 * Placement cost at 1,000 and 100,000 live allocations of a second file,
 * then the close of that file, then 1,000 live again in a third file (see
 * the comment at the top).
 */
static void bench_live(struct col *c)
{
	static const unsigned int live[] = { 1000, 100000 };
	struct wddmseg_allocation_desc a = {
		.size = 4096,
		.preferred = { wddmseg_vram_id, wddmseg_other_vram_id },
	};
	struct drm_wddmseg_query_adapter qa;
	struct drm_wddmseg_query_segment qs;
	unsigned int i, n = 0;
	uint32_t id;
	double t0;
	int fd, ret;

	if (!wddmseg_query_adapter(c->fd, &qa))
		for (id = 1; id <= qa.segment_count; id++)
			if (!wddmseg_query_segment(c->fd, id, NULL, 0, &qs) &&
			    !(qs.flags & WDDMSEG_SEGMENT_FLAG_AGP))
				a.supported_segments |= WDDMSEG_SEGMENT_BIT(id);
	fd = open(c->node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		na(c, R_PLACE_1K, "open: %s", strerror(errno));
		na(c, R_PLACE_100K, "see above");
		na(c, R_CLOSE_BIG, "see above");
		na(c, R_PLACE_1K_AGAIN, "see above");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(live); i++) {
		enum row r = i ? R_PLACE_100K : R_PLACE_1K;

		t0 = now();
		ret = live_fill(fd, &a, &n, live[i]);
		if (n < live[i]) {
			na(c, r, "allocation %u of %u: %s", n, live[i],
			   strerror(-ret));
			continue;
		}
		info(c, "%u live allocations created in %.1f s", live[i],
		     now() - t0);
		live_rate(c, r);
	}
	t0 = now();
	close(fd);
	if (n == live[ARRAY_SIZE(live) - 1]) {
		c->cell[R_CLOSE_BIG].runs[c->cell[R_CLOSE_BIG].nruns++] =
			(now() - t0) * 1000.0;
		done(c, R_CLOSE_BIG);
	} else {
		na(c, R_CLOSE_BIG, "only %u allocations", n);
	}

	/* The host's drift: the first figure again, after the others. */
	fd = open(c->node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		na(c, R_PLACE_1K_AGAIN, "open: %s", strerror(errno));
		return;
	}
	n = 0;
	ret = live_fill(fd, &a, &n, live[0]);
	if (n < live[0])
		na(c, R_PLACE_1K_AGAIN, "allocation %u of %u: %s", n, live[0],
		   strerror(-ret));
	else
		live_rate(c, R_PLACE_1K_AGAIN);
	close(fd);
}

/* ---- fragmentation: 4 MiB at 90% full -------------------------------- */

static int param_read(const char *path, char *buf, size_t len);
static int param_write(const char *path, const char *val);

/*
 * The test knob @name of the device of @c (Documentation/gpu/wddmseg.rst,
 * DOC: Test knobs) into @buf: /sys/kernel/debug/dri/N/wddmseg/@name, N
 * of its primary node cardN.
 */
static const char *knob_path(const struct col *c, const char *name,
			     char *buf, size_t len)
{
	const char *n = c->node + strcspn(c->node, "0123456789");

	snprintf(buf, len, "/sys/kernel/debug/dri/%s/wddmseg/%s",
		 *n ? n : "0", name);
	return buf;
}
#define FRAG_TRIALS		24
#define FRAG_CHURN		1500
#define FRAG_MAX		4096

struct frag {
	int fd;
	uint64_t rng;
	uint64_t size;		/* of the segment */
	uint32_t h[FRAG_MAX];
	unsigned int n;
};

static uint32_t frag_rand(struct frag *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng >> 32;
}

/* Usage and eviction count of the VRAM segment. */
static int frag_seg(struct frag *f, uint64_t *usage, uint64_t *evictions)
{
	struct drm_wddmseg_query_segment qs;
	int ret = wddmseg_query_segment(f->fd, wddmseg_vram_id, NULL, 0, &qs);

	if (ret)
		return ret;
	f->size = qs.size;
	*usage = qs.usage_bytes;
	if (evictions)
		*evictions = qs.eviction_count;
	return 0;
}

static int frag_create(struct frag *f, uint64_t size, uint32_t *h)
{
	struct wddmseg_allocation_desc a = {
		.size = size,
		.supported_segments = WDDMSEG_SEGMENT_BIT(wddmseg_vram_id),
		.preferred = { wddmseg_vram_id },
	};

	return wddmseg_create_allocation(f->fd, &a, h);
}

static void frag_drop(struct frag *f)
{
	unsigned int i = frag_rand(f) % f->n;

	wddmseg_destroy_allocation(f->fd, f->h[i]);
	f->h[i] = f->h[--f->n];
}

/* One churn step: below 90%, a new allocation of a mixed size; else drop. */
static int frag_step(struct frag *f)
{
	static const uint64_t mix[] = {
		4096, 4096, 16384, 65536, 65536, 262144, 1 << 20, 2 << 20
	};
	uint64_t usage;
	int ret = frag_seg(f, &usage, NULL);

	if (ret)
		return ret;
	if (usage < f->size / 10 * 9 && f->n < FRAG_MAX) {
		ret = frag_create(f, mix[frag_rand(f) % ARRAY_SIZE(mix)],
				  &f->h[f->n]);
		if (!ret)
			f->n++;
		return ret;
	}
	if (f->n)
		frag_drop(f);
	return 0;
}

/*
 * One run in the current vram_blocks mode: how many of FRAG_TRIALS 4 MiB
 * placements made the segment evict; *evictions all their evictions,
 * *ms the mean time of a placement.
 */
static int frag_run(struct col *c, unsigned int *needed, uint64_t *evictions,
		    double *ms)
{
	struct frag *f = calloc(1, sizeof(*f));
	uint64_t usage, ev0 = 0, ev1 = 0;
	unsigned int t, k;
	double t0, spent = 0;
	uint32_t big;
	int ret = 0;

	if (!f)
		return -ENOMEM;
	f->rng = 0x9e3779b97f4a7c15ULL;
	f->fd = open(c->node, O_RDWR | O_CLOEXEC);
	if (f->fd < 0) {
		ret = -errno;
		free(f);
		return ret;
	}
	*needed = 0;
	*evictions = 0;
	for (k = 0; k < FRAG_CHURN && !ret; k++)
		ret = frag_step(f);
	for (t = 0; t < FRAG_TRIALS && !ret; t++) {
		for (k = 0; k < 50 && !ret; k++)
			ret = frag_step(f);
		/* at least 4 MiB free */
		while (!ret && !(ret = frag_seg(f, &usage, &ev0)) &&
		       f->size - usage < (4 << 20) && f->n)
			frag_drop(f);
		if (ret)
			break;
		t0 = now();
		ret = frag_create(f, 4 << 20, &big);
		spent += now() - t0;
		if (ret)
			break;
		ret = frag_seg(f, &usage, &ev1);
		if (ev1 > ev0) {
			(*needed)++;
			*evictions += ev1 - ev0;
		}
		wddmseg_destroy_allocation(f->fd, big);
	}
	*ms = t ? spent * 1000.0 / t : NA;
	close(f->fd);
	free(f);
	return ret;
}

static void bench_frag(struct col *c)
{
	char saved[16] = "", knob[64];
	unsigned int i, needed = 0;
	uint64_t ev = 0;
	double ms = NA;
	int ret;

	knob_path(c, "vram_blocks", knob, sizeof(knob));
	if (param_read(knob, saved, sizeof(saved))) {
		na(c, R_FRAG_CONTIG, "no knob %s", knob);
		na(c, R_FRAG_BLOCKS, "no knob %s", knob);
		return;
	}
	for (i = 0; i < 2; i++) {
		enum row r = i ? R_FRAG_BLOCKS : R_FRAG_CONTIG;

		ret = param_write(knob, i ? "1" : "0");
		if (!ret)
			ret = frag_run(c, &needed, &ev, &ms);
		if (ret) {
			na(c, r, "%s", strerror(-ret));
			continue;
		}
		c->cell[r].runs[c->cell[r].nruns++] = needed;
		done(c, r);
		info(c, "4 MiB at 90%% full, %s: %u of %u placements evicted (%llu evictions), %.2f ms each",
		     i ? "blocks" : "one range", needed, FRAG_TRIALS,
		     (unsigned long long)ev, ms);
	}
	param_write(knob, saved);
}

static void bench_wddmseg(struct col *c)
{
	unsigned int i;
	int ret;

	ret = bench_find_vram(c);
	if (ret) {
		for (i = 0; i < R_COUNT; i++)
			na(c, i, "no VRAM segment (%s)", strerror(-ret));
		return;
	}
	/* create+destroy: bench_alloc_all() */
	bench_evict(c);
	bench_frag(c);
	bench_exit(c, R_EXIT_IDLE, false);
	bench_exit(c, R_EXIT_BUSY, true);
	bench_live(c);
}

/* ---- wddmseg migration throughput: engine against CPU --------------- */

/* The test knobs the migration table switches, of its device. */
static char use_engine_knob[64], cpu_move_knob[64], fence_spin_knob[64];
/*
 * Repeats of a cell: the 6 orders of the three modes (MIG_ORDERS), once
 * for 1 MiB and more, MIG_SMALL_CYCLES times below (mig_repeats()).
 */
#define MIG_ORDERS		6
#define MIG_SMALL_CYCLES	8
#define MIG_REPEATS_MAX		(MIG_ORDERS * MIG_SMALL_CYCLES)

static const uint64_t mig_sizes[] = {
	4096, 8192, 16384, 32768, 65536, 131072, 262144, 1048576, 16 << 20,
	64 << 20,
};
#define MIG_NSIZES	ARRAY_SIZE(mig_sizes)
static uint64_t mig_only;	/* -S: bytes, 0 for every size */
static bool mig_table_only;	/* -M */

enum mig_path { MIG_SYS, MIG_APT, MIG_VRAM, MIG_NPATHS };
static const char * const mig_path_name[MIG_NPATHS] = {
	[MIG_SYS]	= "VRAM <-> system",
	[MIG_APT]	= "VRAM <-> aperture",
	[MIG_VRAM]	= "VRAM <-> VRAM (seg1<->seg2)",
};

/*
 * The modes: the CPU copy (use_engine=0), the driver's choice of engine
 * or CPU per move (use_engine=1, cpu_move_max_kb as loaded), the engine
 * alone (use_engine=1, cpu_move_max_kb=0,0,0).
 */
enum mig_mode { MIG_CPU, MIG_AUTO, MIG_ENGINE, MIG_NMODES };
static const char * const mig_mode_name[MIG_NMODES] = {
	[MIG_CPU] = "CPU", [MIG_AUTO] = "engine-or-CPU",
	[MIG_ENGINE] = "engine only",
};
static char saved_cpu_move[32];	/* cpu_move_max_kb as loaded, or "" */

/* [path][size][mode], MiB/s or NA; why n/a */
static double mig[MIG_NPATHS][MIG_NSIZES][MIG_NMODES];
/* every run in the order of the repeats, NA if it failed */
static double mig_runs[MIG_NPATHS][MIG_NSIZES][MIG_NMODES][MIG_REPEATS_MAX];
/* -C: host memcpy before each repeat of the 64 MiB cells, and after */
static double mig_host[MIG_NPATHS][MIG_ORDERS + 1];
static char mig_note[MIG_NPATHS][MIG_NSIZES][MIG_NMODES][96];
static bool mig_ran;
static char mig_info[8][200];
static unsigned int mig_ninfo;
static double guest_memcpy = NA;

static void __attribute__((format(printf, 1, 2))) minfo(const char *fmt, ...)
{
	va_list ap;

	if (mig_ninfo == ARRAY_SIZE(mig_info))
		return;
	va_start(ap, fmt);
	vsnprintf(mig_info[mig_ninfo++], sizeof(mig_info[0]), fmt, ap);
	va_end(ap);
}

static int param_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int param_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Move and wait until the move (the engine's copy too) is done. */
static int mig_move(struct col *c, uint32_t h, uint32_t id)
{
	int ret = wddmseg_move(c->fd, h, id);

	return ret ? ret : wddmseg_wait(c->fd, h, 30000000000LL);
}

/* Guest userspace memcpy of 64 MiB, warmed up: the (virtual) CPU's copy. */
static void guest_memcpy_sample(void)
{
	const size_t len = 64 << 20;
	char *a = malloc(len), *b = malloc(len);
	double t0, best = 0;
	int i;

	if (!a || !b)
		goto out;
	memset(a, 1, len);
	memset(b, 2, len);
	for (i = 0; i < 4; i++) {
		t0 = now();
		memcpy(b, a, len);
		__asm__ volatile("" : : "r"(b) : "memory");
		t0 = 64 / (now() - t0);
		if (i && t0 > best)	/* the first is warm-up */
			best = t0;
	}
	guest_memcpy = best;
out:
	free(a);
	free(b);
}

/*
 * -C: the host's memcpy bandwidth now, in MiB/s, or NA. The host copies
 * while this waits in poll(): the vCPUs idle and the engine has nothing
 * queued, so the sample sees the host as the next run will.
 */
static double host_memcpy_now(void)
{
	struct pollfd pfd = { .events = POLLIN };
	char line[64], ch, *end;
	size_t n = 0;
	double v;

	if (ctl_fd < 0)
		return NA;
	pfd.fd = ctl_fd;
	if (write(ctl_fd, "memcpy\n", 7) != 7)
		goto fail;
	for (;;) {
		if (poll(&pfd, 1, 30000) != 1 || read(ctl_fd, &ch, 1) != 1)
			goto fail;
		if (ch == '\n')
			break;
		if (ch != '\r' && n < sizeof(line) - 1)
			line[n++] = ch;
	}
	line[n] = '\0';
	v = strtod(line, &end);
	if (end != line && v > 0)
		return v;
fail:
	minfo("host memcpy over %s: no answer, not sampled again", ctl_path);
	close(ctl_fd);
	ctl_fd = -1;
	return NA;
}

/* -C: the control port, raw (no echo, no line editing), or exit. */
static void ctl_open(void)
{
	struct termios t;

	ctl_fd = open(ctl_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (ctl_fd >= 0 && !tcgetattr(ctl_fd, &t)) {
		cfmakeraw(&t);
		if (!tcsetattr(ctl_fd, TCSANOW, &t) &&
		    !tcflush(ctl_fd, TCIOFLUSH))
			return;
	}
	fprintf(stderr, "%s: %s: %s\n", prog, ctl_path, strerror(errno));
	exit(2);
}

/*
 * Median over the repeats of @a[k] / @b[k], runs of the same repeat (one
 * after the other, so the host's drift between repeats cancels out); NA
 * if a run is missing.
 */
static double mig_paired(const double *a, const double *b, unsigned int n)
{
	double r[MIG_REPEATS_MAX];
	unsigned int k;

	for (k = 0; k < n; k++) {
		if (a[k] == NA || b[k] == NA || b[k] <= 0)
			return NA;
		r[k] = a[k] / b[k];
	}
	return median(r, n);
}

/*
 * One timed run: round trips of @h between @a and @b for @secs, after one
 * untimed round trip (the first touch of pages and VRAM is slow in QEMU,
 * and the mode may just have changed).
 */
/* @h from @a to @b and back, each move waited for. */
static int mig_round_trip(struct col *c, uint32_t h, uint32_t a, uint32_t b)
{
	int ret = mig_move(c, h, b);

	return ret ? ret : mig_move(c, h, a);
}

static double mig_run(struct col *c, uint32_t h, uint64_t size, uint32_t a,
		      uint32_t b, double secs, char *note, size_t nlen)
{
	double t0, dt;
	uint64_t n = 0;
	int ret;

	ret = mig_round_trip(c, h, a, b);
	if (ret) {
		snprintf(note, nlen, "warm-up move: %s", strerror(-ret));
		return NA;
	}
	t0 = now();
	do {
		ret = mig_round_trip(c, h, a, b);
		if (ret) {
			snprintf(note, nlen, "move: %s", strerror(-ret));
			return NA;
		}
		n++;
		dt = now() - t0;
	} while (dt < secs || n < 2);
	return 2.0 * n * size / 1048576.0 / dt;
}

/* Switch the test knobs to mode @e; 0 or a negative errno. */
static int mig_set_mode(unsigned int e, char *note, size_t nlen)
{
	const char *path = use_engine_knob;
	int ret = param_write(path, e == MIG_CPU ? "0" : "1");

	if (!ret && saved_cpu_move[0] && e != MIG_CPU) {
		path = cpu_move_knob;
		ret = param_write(path, e == MIG_ENGINE ? "0,0,0" :
				  saved_cpu_move);
	}
	if (ret)
		snprintf(note, nlen, "cannot write %s: %s", path,
			 strerror(-ret));
	return ret;
}

/*
 * The order of the modes in each repeat: all 6 orders of 3, so that every
 * mode runs first, second and third twice, and follows each other mode
 * twice (a Williams design): neither the drift of the host within a
 * repeat nor what the mode before leaves behind (the engine's thread
 * still polling, caches) favours a mode.
 */
static const unsigned char mig_order[MIG_ORDERS][MIG_NMODES] = {
	{ MIG_CPU, MIG_AUTO, MIG_ENGINE }, { MIG_AUTO, MIG_ENGINE, MIG_CPU },
	{ MIG_ENGINE, MIG_CPU, MIG_AUTO }, { MIG_CPU, MIG_ENGINE, MIG_AUTO },
	{ MIG_AUTO, MIG_CPU, MIG_ENGINE }, { MIG_ENGINE, MIG_AUTO, MIG_CPU },
};

/*
 * The repeats of the cells of size @s. A move below 1 MiB takes
 * microseconds, and the ratio of two such modes is close to 1 where both
 * copy on the CPU: the runs are shorter and their pairs more (the same
 * time in all), so that the host's drift within a run and its noise
 * between runs weigh less. A 64 MiB round trip takes a good part of a
 * short run, and the host memcpy samples go with its repeats: once.
 */
static unsigned int mig_repeats(unsigned int s)
{
	return mig_sizes[s] < 1048576 ? MIG_REPEATS_MAX : MIG_ORDERS;
}

/*
 * The cells of one path and size: mig_repeats() runs in each mode, the
 * modes alternating (the knobs are switched between runs), so that
 * all see the same host; each cell is the median of its runs. Without
 * use_engine only the default mode runs (as engine-or-CPU); without
 * cpu_move_max_kb (a driver that always uses the engine) engine-or-CPU
 * is the engine alone and "engine only" is not measured apart.
 */
static void mig_cells(struct col *c, uint32_t h, unsigned int p,
		      unsigned int s, uint32_t a, uint32_t b, bool switchable)
{
	double runs[MIG_REPEATS_MAX], *run;
	bool last = s == MIG_NSIZES - 1;
	unsigned int n = mig_repeats(s), k, i, e;
	char *note;

	for (k = 0; k < n; k++) {
		if (last)
			mig_host[p][k] = host_memcpy_now();
		for (i = 0; i < MIG_NMODES; i++) {
			e = mig_order[k % MIG_ORDERS][i];
			note = mig_note[p][s][e];
			run = &mig_runs[p][s][e][k];
			*run = NA;
			if (!switchable && e != MIG_AUTO)
				continue;
			if (e == MIG_ENGINE && !saved_cpu_move[0]) {
				snprintf(note, sizeof(mig_note[0][0][0]),
					 "no %s: engine-or-CPU is the engine",
					 cpu_move_knob);
				continue;
			}
			if (switchable &&
			    mig_set_mode(e, note, sizeof(mig_note[0][0][0])))
				continue;
			*run = mig_run(c, h, mig_sizes[s], a, b,
				       mig_seconds / n, note,
				       sizeof(mig_note[0][0][0]));
		}
	}
	if (last)
		mig_host[p][n] = host_memcpy_now();
	for (e = 0; e < MIG_NMODES; e++) {
		for (k = 0; k < n; k++) {
			runs[k] = mig_runs[p][s][e][k];
			if (runs[k] == NA)	/* failed: see its note */
				break;
		}
		if (k < n)
			continue;
		mig[p][s][e] = median(runs, n);
		if (verbose) {
			printf("%s: migration %s %" PRIu64 " KiB %s: %.1f MiB/s (runs in order",
			       prog, mig_path_name[p], mig_sizes[s] >> 10,
			       mig_mode_name[e], mig[p][s][e]);
			for (k = 0; k < n; k++)
				printf(" %.0f", mig_runs[p][s][e][k]);
			printf(")\n");
		}
	}
}

/*
 * What the driver's dma_fence_ops.wait buys (wddmseg_fence_wait(): poll
 * the fence's writeback for up to the knob fence_spin_us before sleeping
 * until the interrupt, where the default wait sleeps at once): VRAM <->
 * system round trips of @size in engine-or-CPU mode (each move's GEM_WAIT
 * reaches the fence through dma_fence_wait_timeout()), with the knob as
 * loaded and with 0 (the default wait), in 2 * MIG_ORDERS runs of
 * alternating order (ABBA...), one note: both medians and the median of
 * the ratios of the runs made one after the other.
 */
static void mig_fence_spin(struct col *c, uint32_t vis, uint64_t size)
{
	struct wddmseg_allocation_desc g = {
		.size = size,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.preferred = { vis },
		.supported_segments = WDDMSEG_SEGMENT_BIT(vis),
	};
	double spin[2 * MIG_ORDERS], nospin[2 * MIG_ORDERS];
	char saved[16] = "", note[96] = "";
	unsigned int k, i, n = 2 * MIG_ORDERS;
	uint32_t h = 0;
	double q;
	int ret;

	knob_path(c, "fence_spin_us", fence_spin_knob, sizeof(fence_spin_knob));
	if (param_read(fence_spin_knob, saved, sizeof(saved)) || !atoi(saved)) {
		minfo("fence polling: no knob %s or 0, not measured",
		      fence_spin_knob);
		return;
	}
	ret = vis ? wddmseg_create_allocation(c->fd, &g, &h) : -ENODEV;
	if (!ret)
		ret = mig_move(c, h, vis);
	for (k = 0; !ret && k < n; k++) {
		for (i = 0; i < 2; i++) {
			/* spin first in even pairs, second in odd ones */
			bool on = (i == 0) == !(k & 1);

			ret = param_write(fence_spin_knob, on ? saved : "0");
			if (ret)
				break;
			(on ? spin : nospin)[k] =
				mig_run(c, h, size, vis, 0, mig_seconds / MIG_ORDERS,
					note, sizeof(note));
		}
	}
	param_write(fence_spin_knob, saved);
	if (h)
		gem_close(c, h);
	if (ret) {
		minfo("fence polling %" PRIu64 " KiB: %s", size >> 10,
		      strerror(-ret));
		return;
	}
	/* the ratios before the medians, which sort the runs */
	q = mig_paired(spin, nospin, n);
	if (q == NA) {
		minfo("fence polling %" PRIu64 " KiB: a run failed: %s",
		      size >> 10, note);
		return;
	}
	minfo("dma_fence wait, %" PRIu64 " KiB VRAM <-> system, engine-or-CPU: polling (fence_spin_us=%s) %.1f MiB/s, default wait (0) %.1f MiB/s, ratio %.2f",
	      size >> 10, saved, median(spin, n), median(nospin, n), q);
}

static void bench_migrate(struct col *c)
{
	struct drm_wddmseg_query_adapter qa;
	struct drm_wddmseg_query_segment qs;
	uint32_t vis = 0, inv = 0, apt = 0, id, other[MIG_NPATHS];
	char saved[16] = "";
	unsigned int p, s, e, k;
	int ret;

	for (p = 0; p < MIG_NPATHS; p++) {
		for (s = 0; s < MIG_NSIZES; s++) {
			for (e = 0; e < MIG_NMODES; e++) {
				mig[p][s][e] = NA;
				for (k = 0; k < MIG_REPEATS_MAX; k++)
					mig_runs[p][s][e][k] = NA;
			}
		}
		for (k = 0; k <= MIG_ORDERS; k++)
			mig_host[p][k] = NA;
	}
	mig_ran = true;
	guest_memcpy_sample();
	if (wddmseg_query_adapter(c->fd, &qa))
		return;
	for (id = 1; id <= qa.segment_count; id++) {
		if (wddmseg_query_segment(c->fd, id, NULL, 0, &qs))
			return;
		if (qs.flags & WDDMSEG_SEGMENT_FLAG_AGP)
			continue;
		if (qs.flags & WDDMSEG_SEGMENT_FLAG_APERTURE) {
			if (!apt)
				apt = id;
		} else if (qs.flags & WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE) {
			if (!vis)
				vis = id;
		} else if (!inv) {
			inv = id;
		}
	}
	minfo("migration: VRAM segment %u, other VRAM segment %u, aperture %u",
	      vis, inv, apt);
	other[MIG_SYS] = 0;
	other[MIG_APT] = apt;
	other[MIG_VRAM] = inv;
	knob_path(c, "use_engine", use_engine_knob, sizeof(use_engine_knob));
	knob_path(c, "cpu_move_max_kb", cpu_move_knob, sizeof(cpu_move_knob));
	if (param_read(use_engine_knob, saved, sizeof(saved)))
		minfo("no %s: only the default mode is measured", use_engine_knob);
	if (param_read(cpu_move_knob, saved_cpu_move, sizeof(saved_cpu_move)))
		saved_cpu_move[0] = '\0';
	else
		minfo("engine-or-CPU: cpu_move_max_kb=%s (VRAM<->system, aperture, VRAM<->VRAM)",
		      saved_cpu_move);

	for (s = 0; s < MIG_NSIZES; s++) {
		struct wddmseg_allocation_desc g = {
			.size = mig_sizes[s],
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
			.preferred = { vis },
		};
		uint64_t size = mig_sizes[s];
		uint32_t seed = 0x316e0000 + s, h = 0;
		void *m;

		if (mig_only && size != mig_only) {
			for (p = 0; p < MIG_NPATHS; p++)
				for (e = 0; e < MIG_NMODES; e++)
					snprintf(mig_note[p][s][e], sizeof(mig_note[0][0][0]),
						 "not measured (-S)");
			continue;
		}
		g.supported_segments = WDDMSEG_SEGMENT_BIT(vis);
		if (apt)
			g.supported_segments |= WDDMSEG_SEGMENT_BIT(apt);
		if (inv)
			g.supported_segments |= WDDMSEG_SEGMENT_BIT(inv);
		ret = vis ? wddmseg_create_allocation(c->fd, &g, &h) : -ENODEV;
		if (!ret)
			ret = mig_move(c, h, vis);
		if (ret) {
			for (p = 0; p < MIG_NPATHS; p++)
				for (e = 0; e < MIG_NMODES; e++)
					snprintf(mig_note[p][s][e], sizeof(mig_note[0][0][0]),
						 "%" PRIu64 " KiB in VRAM: %s",
						 size >> 10, strerror(-ret));
			if (h)
				gem_close(c, h);
			continue;
		}
		if (wddmseg_lock(c->fd, h, size, &m))
			m = NULL;
		if (m)
			fill(m, size, seed);
		for (p = 0; p < MIG_NPATHS; p++) {
			if (p != MIG_SYS && !other[p]) {
				for (e = 0; e < MIG_NMODES; e++)
					snprintf(mig_note[p][s][e], sizeof(mig_note[0][0][0]),
						 "no such segment");
				continue;
			}
			mig_cells(c, h, p, s, vis, other[p], saved[0]);
		}
		if (m) {
			if (!check(m, size, seed))
				minfo("CONTENT LOST: %" PRIu64 " KiB", size >> 10);
			wddmseg_unlock(m, size);
		}
		gem_close(c, h);
	}
	if (saved[0])
		param_write(use_engine_knob, saved);
	if (saved_cpu_move[0])
		param_write(cpu_move_knob, saved_cpu_move);
	/* engine-or-CPU as loaded again */
	if (!mig_only || mig_only == 65536)
		mig_fence_spin(c, vis, 65536);
	if (!mig_only || mig_only == 1048576)
		mig_fence_spin(c, vis, 1048576);
}

/*
 * Who copies a move of path @p and size @s for engine-or-CPU (the moves
 * measured here are of an idle allocation). Module parameter
 * copy_policy=fixed (or a driver without it): the CPU up to the path's
 * cpu_move_max_kb, the engine above it. copy_policy=adaptive: "either"
 * up to 1 MiB on a path whose cpu_move_max_kb is not 0 (the driver takes
 * the way it measured cheaper, move by move: DOC: Copy cost model), the
 * engine above it.
 */
static const char *mig_copier(unsigned int p, unsigned int s)
{
	unsigned long kb[MIG_NPATHS] = { 0 };
	char *end = saved_cpu_move;
	char policy[16];
	unsigned int i;

	if (!saved_cpu_move[0])
		return "engine";
	for (i = 0; i < MIG_NPATHS; i++) {
		kb[i] = strtoul(end, &end, 10);
		if (*end != ',')
			break;
		end++;
	}
	if (!param_read("/sys/module/wddmseg/parameters/copy_policy", policy,
			sizeof(policy)) && !strncmp(policy, "adaptive", 8) &&
	    kb[p] && mig_sizes[s] <= (1u << 20))
		return "either";
	return mig_sizes[s] >> 10 <= kb[p] ? "CPU" : "engine";
}

static void fmt_mibs(char *buf, size_t len, double v)
{
	if (v == NA)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f", v);
}

static void print_migration(void)
{
	char a[24], b[24], d[24], r1[24], r2[24];
	unsigned int p, s, e;

	if (!mig_ran)
		return;
	printf("\nmigration throughput, wddmseg (move + GEM_WAIT, both directions, median of %d runs, %d below 1 MiB) [MiB/s]\n",
	       MIG_ORDERS, MIG_REPEATS_MAX);
	printf("%-30s %8s %14s %7s %12s %12s %9s %9s\n", "path", "size",
	       "engine-or-CPU", "copies", "engine only", "CPU", "/engine",
	       "/CPU");
	for (p = 0; p < MIG_NPATHS; p++) {
		for (s = 0; s < MIG_NSIZES; s++) {
			double (*runs)[MIG_REPEATS_MAX] = mig_runs[p][s];
			unsigned int n = mig_repeats(s);
			double au = mig[p][s][MIG_AUTO],
			       en = mig[p][s][MIG_ENGINE],
			       cpu = mig[p][s][MIG_CPU],
			       q1 = mig_paired(runs[MIG_AUTO], runs[MIG_ENGINE], n),
			       q2 = mig_paired(runs[MIG_AUTO], runs[MIG_CPU], n);
			char sz[24];

			if (mig_sizes[s] >= 1048576)
				snprintf(sz, sizeof(sz), "%" PRIu64 " MiB",
					 mig_sizes[s] >> 20);
			else
				snprintf(sz, sizeof(sz), "%" PRIu64 " KiB",
					 mig_sizes[s] >> 10);
			fmt_mibs(a, sizeof(a), au);
			fmt_mibs(b, sizeof(b), en);
			fmt_mibs(d, sizeof(d), cpu);
			if (q1 != NA)
				snprintf(r1, sizeof(r1), "%.2f", q1);
			else
				snprintf(r1, sizeof(r1), "n/a");
			if (q2 != NA)
				snprintf(r2, sizeof(r2), "%.2f", q2);
			else
				snprintf(r2, sizeof(r2), "n/a");
			printf("%-30s %8s %14s %7s %12s %12s %9s %9s\n",
			       mig_path_name[p], sz, a, mig_copier(p, s), b, d,
			       r1, r2);
		}
	}
	printf("(/engine, /CPU: engine-or-CPU against each alone, median of the %d (below 1 MiB %d) ratios of runs in the same repeat;\n"
	       " copies: what copies for engine-or-CPU, by cpu_move_max_kb: where it is the CPU, it runs the CPU path's code;\n"
	       " either: copy_policy=adaptive picks, move by move, the way it measured cheaper: debugfs wddmseg/copy_costs)\n",
	       MIG_ORDERS, MIG_REPEATS_MAX);
	for (s = 0; s < MIG_NSIZES * MIG_NPATHS * MIG_NMODES; s++) {
		unsigned int pp = s / (MIG_NSIZES * MIG_NMODES),
			     ss = s / MIG_NMODES % MIG_NSIZES;

		e = s % MIG_NMODES;
		if (mig[pp][ss][e] == NA && mig_note[pp][ss][e][0])
			printf("  n/a %s %" PRIu64 " KiB %s: %s\n",
			       mig_path_name[pp], mig_sizes[ss] >> 10,
			       mig_mode_name[e], mig_note[pp][ss][e]);
	}
	fmt_mibs(a, sizeof(a), host_memcpy);
	fmt_mibs(b, sizeof(b), guest_memcpy);
	printf("host memcpy, 64 MiB buffers (outside the VM) [MiB/s]: %s\n", a);
	printf("guest userspace memcpy, 64 MiB (TCG) [MiB/s]: %s\n", b);
	for (p = 0; p < MIG_NPATHS; p++) {
		double au = mig[p][MIG_NSIZES - 1][MIG_AUTO];

		if (au != NA && host_memcpy != NA && host_memcpy > 0)
			printf("engine-or-CPU 64 MiB %s / host memcpy: %.3f\n",
			       mig_path_name[p], au / host_memcpy);
	}
	for (p = 0; p < MIG_NPATHS; p++) {
		double ceil[MIG_ORDERS], q;
		const double *h = mig_host[p];
		unsigned int k;

		if (h[0] == NA)
			continue;
		printf("host memcpy before each repeat of the 64 MiB %s cells and after [MiB/s]:",
		       mig_path_name[p]);
		/* 64 MiB: mig_repeats() is MIG_ORDERS, one sample more. */
		for (k = 0; k <= MIG_ORDERS; k++)
			printf(h[k] == NA ? " n/a" : " %.0f", h[k]);
		printf("\n");
		for (k = 0; k < MIG_ORDERS; k++)
			ceil[k] = h[k] == NA || h[k + 1] == NA ? NA :
				  h[k] > h[k + 1] ? h[k] : h[k + 1];
		q = mig_paired(mig_runs[p][MIG_NSIZES - 1][MIG_AUTO], ceil,
			       MIG_ORDERS);
		if (q != NA)
			printf("engine-or-CPU 64 MiB %s / host memcpy next to it: %.3f\n",
			       mig_path_name[p], q);
	}
	for (s = 0; s < mig_ninfo; s++)
		printf("  %s\n", mig_info[s]);
}

/* ---- drm_gem_vram_helper drivers (bochs) ---------------------------- */

/* VRAM size and usage in bytes from debugfs dri/N/vram-mm. */
static int vram_mm(struct col *c, uint64_t *size, uint64_t *usage)
{
	char path[96], line[256];
	bool got_size = false, got_usage = false;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/vram-mm",
		 c->minor);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		/* "size" of a range manager is in pages, "usage" in bytes */
		if (sscanf(line, " size: %llu", &v) == 1) {
			*size = v * (uint64_t)sysconf(_SC_PAGESIZE);
			got_size = true;
		} else if (sscanf(line, " usage: %llu", &v) == 1) {
			*usage = v;
			got_usage = true;
		}
	}
	fclose(f);
	return got_size && got_usage ? 0 : -EINVAL;
}

struct kms {
	uint32_t crtc, conn;
	drmModeModeInfo mode;
};

static int find_kms(struct col *c, struct kms *k, uint32_t fb_w, uint32_t fb_h,
		    char *why, size_t len)
{
	drmModeResPtr res = drmModeGetResources(c->fd);
	int i, j, ret = -ENOENT;

	if (!res) {
		snprintf(why, len, "no KMS resources");
		return -ENODEV;
	}
	if (!res->count_crtcs) {
		snprintf(why, len, "no CRTC");
		goto out;
	}
	k->crtc = res->crtcs[0];
	snprintf(why, len, "no connector with a mode of at most %ux%u",
		 fb_w, fb_h);
	for (i = 0; i < res->count_connectors && ret; i++) {
		drmModeConnectorPtr conn =
			drmModeGetConnector(c->fd, res->connectors[i]);
		int best = -1;

		if (!conn)
			continue;
		for (j = 0; j < conn->count_modes; j++) {
			const drmModeModeInfo *m = &conn->modes[j];

			if (m->hdisplay > fb_w || m->vdisplay > fb_h)
				continue;
			if (best < 0 || (m->type & DRM_MODE_TYPE_PREFERRED))
				best = j;
		}
		if (best >= 0) {
			k->conn = conn->connector_id;
			k->mode = conn->modes[best];
			ret = 0;
		}
		drmModeFreeConnector(conn);
	}
out:
	drmModeFreeResources(res);
	return ret;
}

/* Show, then drop, a framebuffer as large as the VRAM: evicts the rest. */
static int vram_flush(struct col *c, const struct kms *k, uint32_t fb_w,
		      uint64_t vram, char *why, size_t len)
{
	uint32_t fb = 0, handle, pitch, h = vram / (fb_w * 4);
	uint64_t size;
	int ret;

	ret = drmModeCreateDumbBuffer(c->fd, fb_w, h, 32, 0, &handle, &pitch,
				      &size);
	if (ret) {
		snprintf(why, len, "CREATE_DUMB of the VRAM size: %s",
			 strerror(-ret));
		return ret;
	}
	ret = drmModeAddFB(c->fd, fb_w, h, 24, 32, pitch, handle, &fb) ?
	      -errno : 0;
	if (!ret)
		ret = drmModeSetCrtc(c->fd, k->crtc, fb, 0, 0,
				     (uint32_t *)&k->conn, 1,
				     (drmModeModeInfo *)&k->mode) ? -errno : 0;
	if (ret)
		snprintf(why, len, "showing a framebuffer of the VRAM size to empty it: %s",
			 strerror(-ret));
	drmModeSetCrtc(c->fd, k->crtc, 0, 0, 0, NULL, 0, NULL);
	if (fb)
		drmModeRmFB(c->fd, fb);
	dumb_destroy(c, handle);
	return ret;
}

static void bench_vram_helper(struct col *c)
{
	double per_run = seconds / repeats;
	uint64_t vram = 0, usage = 0, fb_size;
	uint32_t handle[3] = { 0 }, fb[3] = { 0 }, fb_w = 2048, fb_h;
	uint64_t offset[3];
	char why[160];
	struct kms k = { 0 };
	unsigned int i, r;
	uint64_t shown;
	int ret;

	/* create+destroy: bench_alloc_all() */
	na(c, R_EVICT_OUT, "one flip moves both ways; not separable");
	na(c, R_EVICT_IN, "one flip moves both ways; not separable");

	ret = vram_mm(c, &vram, &usage);
	if (ret) {
		snprintf(why, sizeof(why), "no debugfs dri/%d/vram-mm (%s): VRAM size unknown",
			 c->minor, strerror(-ret));
		goto fail;
	}
	info(c, "VRAM %" PRIu64 " MiB (debugfs vram-mm), %" PRIu64 " KiB in use before",
	     vram >> 20, usage >> 10);
	/* framebuffers of exactly half the VRAM, 2048 pixels of 32 bpp wide */
	fb_size = vram / 2;
	fb_h = fb_size / (fb_w * 4);
	if (fb_size % (fb_w * 4) || !fb_h) {
		snprintf(why, sizeof(why), "VRAM of %" PRIu64 " bytes: half is not a whole number of 8 KiB rows",
			 vram);
		goto fail;
	}
	c->cell[R_EVICT_SIZE].value = fb_size / 1048576.0;
	ret = find_kms(c, &k, fb_w, fb_h, why, sizeof(why));
	if (ret)
		goto fail;

	for (i = 0; i < 3; i++) {
		uint64_t size = 0;
		uint32_t pitch;
		void *p;

		ret = drmModeCreateDumbBuffer(c->fd, fb_w, fb_h, 32, 0,
					      &handle[i], &pitch, &size);
		if (ret || size != fb_size) {
			snprintf(why, sizeof(why), "CREATE_DUMB %ux%u: %s, size %llu",
				 fb_w, fb_h, strerror(-ret),
				 (unsigned long long)size);
			goto fail_free;
		}
		ret = drmModeAddFB(c->fd, fb_w, fb_h, 24, 32, pitch, handle[i],
				   &fb[i]);
		if (ret) {
			snprintf(why, sizeof(why), "drmModeAddFB: %s", strerror(errno));
			goto fail_free;
		}
		ret = drmModeMapDumbBuffer(c->fd, handle[i], &offset[i]);
		p = ret ? NULL : map(c, offset[i], fb_size);
		if (!p) {
			snprintf(why, sizeof(why), "mmap of a dumb buffer failed");
			goto fail_free;
		}
		fill(p, fb_size, 0xb0c50000 + i);
		munmap(p, fb_size);
	}
	info(c, "flips: CRTC %u, connector %u, mode %ux%u, 3 framebuffers %ux%u (%" PRIu64 " MiB each)",
	     k.crtc, k.conn, k.mode.hdisplay, k.mode.vdisplay, fb_w, fb_h,
	     fb_size >> 20);

	/*
	 * Empty the VRAM: the fbdev console's buffer sits in it, and would
	 * leave no hole of half the VRAM once one of ours is in (drm_mm
	 * ranges are contiguous). Disable the CRTC (unpins it), show a
	 * framebuffer of the whole VRAM (evicts everything), disable again
	 * and free it. Ours then take the two halves.
	 */
	ret = drmModeSetCrtc(c->fd, k.crtc, 0, 0, 0, NULL, 0, NULL);
	if (ret) {
		snprintf(why, sizeof(why), "disabling the CRTC: %s (DRM master?)",
			 strerror(errno));
		goto fail_free;
	}
	ret = vram_flush(c, &k, fb_w, vram, why, sizeof(why));
	if (ret)
		goto fail_free;

	/* warm up: show each once, then the next is the least recent */
	for (shown = 0; shown < 4; shown++) {
		ret = drmModeSetCrtc(c->fd, k.crtc, fb[shown % 3], 0, 0,
				     &k.conn, 1, &k.mode);
		if (ret) {
			snprintf(why, sizeof(why), "drmModeSetCrtc: %s (DRM master?)",
				 strerror(errno));
			goto fail_free;
		}
	}

	/*
	 * With eviction: 3 framebuffers round robin, 2 fit. The next one is
	 * always the least recently shown, the one evicted by the previous
	 * flip.
	 */
	for (r = 0; r < repeats; r++) {
		uint64_t n = 0;
		double t0, t;

		ref_sample(c);
		t0 = now();
		do {
			ret = drmModeSetCrtc(c->fd, k.crtc, fb[shown % 3], 0, 0,
					     &k.conn, 1, &k.mode);
			if (ret) {
				snprintf(why, sizeof(why), "flip %" PRIu64 ": %s",
					 n, strerror(errno));
				goto fail_free;
			}
			n++;
			shown++;
			t = now() - t0;
		} while (t < per_run || n < 3);
		c->cell[R_FLIP_EVICT].runs[c->cell[R_FLIP_EVICT].nruns++] = n / t;
		c->cell[R_EVICT].runs[c->cell[R_EVICT].nruns++] =
			2.0 * n * (fb_size / 1048576.0) / t;
	}
	done(c, R_FLIP_EVICT);
	done(c, R_EVICT);
	if (!vram_mm(c, &vram, &usage))
		info(c, "vram-mm after the eviction flips: %" PRIu64 " of %" PRIu64 " MiB in use%s",
		     usage >> 20, vram >> 20,
		     usage == vram ? " (full: 2 framebuffers)" : " (NOT full: the eviction count is an estimate)");

	/* control: the last 2 shown, which both stay in VRAM */
	for (r = 0; r < repeats; r++) {
		uint64_t n = 0;
		double t0, t;

		ref_sample(c);
		t0 = now();
		do {
			ret = drmModeSetCrtc(c->fd, k.crtc,
					     fb[(shown + 1 + n % 2) % 3], 0, 0,
					     &k.conn, 1, &k.mode);
			if (ret) {
				snprintf(why, sizeof(why), "flip %" PRIu64 ": %s",
					 n, strerror(errno));
				goto fail_free;
			}
			n++;
			t = now() - t0;
		} while (t < per_run || n < 2);
		c->cell[R_FLIP_STAY].runs[c->cell[R_FLIP_STAY].nruns++] = n / t;
	}
	done(c, R_FLIP_STAY);

	/* content survived every trip through system memory and back */
	drmModeSetCrtc(c->fd, k.crtc, 0, 0, 0, NULL, 0, NULL);
	for (i = 0; i < 3; i++) {
		void *p = map(c, offset[i], fb_size);
		bool ok = p && check(p, fb_size, 0xb0c50000 + i);

		if (p)
			munmap(p, fb_size);
		if (!ok) {
			info(c, "CONTENT LOST in framebuffer %u after the flips", i);
			break;
		}
		if (i == 2)
			info(c, "eviction: content of the 3 framebuffers intact");
	}
	for (i = 0; i < 3; i++) {
		drmModeRmFB(c->fd, fb[i]);
		dumb_destroy(c, handle[i]);
	}
	return;

fail_free:
	drmModeSetCrtc(c->fd, k.crtc, 0, 0, 0, NULL, 0, NULL);
	for (i = 0; i < 3; i++) {
		if (fb[i])
			drmModeRmFB(c->fd, fb[i]);
		if (handle[i])
			dumb_destroy(c, handle[i]);
	}
fail:
	na(c, R_EVICT, "%s", why);
	na(c, R_FLIP_EVICT, "see above");
	na(c, R_FLIP_STAY, "see above");
}

static void bench_other(struct col *c)
{
	unsigned int i;

	/* create+destroy: bench_alloc_all() */
	for (i = 0; i < R_COUNT; i++)
		if (i < R_DUMB_4K || i > R_DUMB_1M)
			na(c, i, "not measured for this driver");
}

/* ---- output -------------------------------------------------------- */

static void fmt_value(char *buf, size_t len, enum row r, double v)
{
	if (v == NA)
		snprintf(buf, len, "n/a");
	else if (r == R_FRAG_CONTIG || r == R_FRAG_BLOCKS)
		snprintf(buf, len, "%.0f", v);
	else if (r == R_EVICT_SIZE || v < 100)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.0f", v);
}

/* Footnotes: one number per distinct (driver, reason). */
static const char *note_text[MAX_COLS * R_COUNT];
static unsigned int note_col[MAX_COLS * R_COUNT], nnotes;

static unsigned int note_number(unsigned int col, const char *text)
{
	unsigned int i;

	for (i = 0; i < nnotes; i++)
		if (note_col[i] == col && !strcmp(note_text[i], text))
			return i + 1;
	note_col[nnotes] = col;
	note_text[nnotes] = text;
	return ++nnotes;
}

static void print_table(void)
{
	unsigned int i, r;
	char buf[64];

	printf("\n%-42s", "measurement (median of repeats)");
	for (i = 0; i < ncols; i++)
		printf(" %14s", cols[i].driver);
	if (ncols >= 2)
		printf(" %10s", "ratio");
	printf("\n");
	for (r = 0; r < R_COUNT; r++) {
		if (live_only && (r < R_CLOSE_BIG || r > R_PLACE_1K_AGAIN) &&
		    r != R_REF)
			continue;
		printf("%-42s", row_name[r]);
		for (i = 0; i < ncols; i++) {
			struct cell *cl = &cols[i].cell[r];

			fmt_value(buf, sizeof(buf), r, cl->value);
			if (cl->value == NA && cl->note[0] &&
			    strcmp(cl->note, "see above"))
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
					 " [%u]", note_number(i, cl->note));
			printf(" %14s", buf);
		}
		if (ncols >= 2) {
			double a = cols[0].cell[r].value, b = NA;

			/* GEM rows: against the other's dumb row, same size */
			if (r <= R_GEM_1M)
				b = cols[1].cell[r - R_GEM_4K + R_DUMB_4K].value;
			else if ((r >= R_DUMB_4K && r <= R_DUMB_1M) || r == R_REF)
				b = cols[1].cell[r].value;
			if (a != NA && b != NA && b > 0)
				printf(" %10.2f", a / b);
			else
				printf(" %10s", "");
		}
		printf("\n");
	}
	if (ncols >= 2)
		printf("ratio: %s / %s; GEM rows against %s's dumb row of the same size\n",
		       cols[0].driver, cols[1].driver, cols[1].driver);
	printf("\n");
	for (i = 0; i < nnotes; i++)
		printf("[%u] %s: %s\n", i + 1, cols[note_col[i]].driver,
		       note_text[i]);
	for (i = 0; i < ncols; i++) {
		const struct cell *ref = &cols[i].cell[R_REF];
		double lo = 0, hi = 0;
		unsigned int j;

		for (j = 0; j < ref->nruns; j++) {
			if (!j || ref->runs[j] < lo)
				lo = ref->runs[j];
			if (!j || ref->runs[j] > hi)
				hi = ref->runs[j];
		}
		printf("%s: %s\n", cols[i].driver, cols[i].node[0] ?
		       cols[i].node : "(no device)");
		if (ref->nruns)
			printf("  reference memset over the column's %u repeats: %.0f..%.0f MiB/s%s\n",
			       ref->nruns, lo, hi, hi > 1.5 * lo ?
			       " (host speed varied: other load on the host)" : "");
		for (j = 0; j < cols[i].ninfo; j++)
			printf("  %s\n", cols[i].info[j]);
	}
	if (!verbose)
		return;
	printf("\nrepeats:\n");
	for (r = 0; r < R_COUNT; r++)
		for (i = 0; i < ncols; i++) {
			struct cell *cl = &cols[i].cell[r];
			unsigned int k;

			if (!cl->nruns || r == R_REF)
				continue;
			printf("  %-10s %-42s", cols[i].driver, row_name[r]);
			for (k = 0; k < cl->nruns; k++)
				printf(" %.1f", cl->runs[k]);
			printf("\n");
		}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-t SECONDS] [-r REPEATS] [-e MIB] [-m SECONDS] [-S KIB] [-M] [-L] [-H MIBPS] [-C TTY] [-v] [-d DRIVER=NODE]... [DRIVER...]\n",
		prog);
	exit(2);
}

static struct col *add_col(const char *driver)
{
	struct col *c;

	if (ncols == MAX_COLS) {
		fprintf(stderr, "%s: at most %d drivers\n", prog, MAX_COLS);
		exit(2);
	}
	c = &cols[ncols++];
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	snprintf(c->driver, sizeof(c->driver), "%s", driver);
	return c;
}

int main(int argc, char **argv)
{
	unsigned int i, r;
	int opt;

	while ((opt = getopt(argc, argv, "t:r:e:m:S:MLH:C:d:vh")) != -1) {
		switch (opt) {
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'r':
			repeats = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			evict_mib = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			mig_seconds = strtod(optarg, NULL);
			break;
		case 'S':
			mig_only = strtoull(optarg, NULL, 0) << 10;
			for (i = 0; i < MIG_NSIZES; i++)
				if (mig_sizes[i] == mig_only)
					break;
			if (i == MIG_NSIZES)
				usage();
			break;
		case 'M':
			mig_table_only = true;
			break;
		case 'L':
			live_only = true;
			break;
		case 'H':
			host_memcpy = strtod(optarg, NULL);
			break;
		case 'C':
			ctl_path = optarg;
			break;
		case 'd': {
			char *eq = strchr(optarg, '=');
			struct col *c;

			if (!eq)
				usage();
			*eq = '\0';
			c = add_col(optarg);
			snprintf(c->node, sizeof(c->node), "%s", eq + 1);
			break;
		}
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (seconds <= 0 || !repeats || repeats > MAX_REPEATS || !evict_mib)
		usage();
	if (ctl_path)
		ctl_open();
	for (; optind < argc; optind++)
		add_col(argv[optind]);
	if (!ncols) {
		add_col("wddmseg");
		add_col("bochs-drm");
	}

	printf("%s: %.1f s per measurement in %u repeats\n", prog, seconds,
	       repeats);
	prefault_ram();
	for (i = 0; i < ncols; i++) {
		struct col *c = &cols[i];
		int ret = open_driver(c);

		if (ret) {
			for (r = 0; r < R_COUNT; r++)
				na(c, r, r ? "see above" : "no DRM device of this driver");
			c->node[0] = '\0';
			c->fd = -1;
			continue;
		}
		c->minor = node_minor(c->node);
	}
	if (mig_table_only) {
		for (i = 0; i < ncols; i++)
			if (cols[i].fd >= 0 && !strcmp(cols[i].driver, "wddmseg"))
				bench_migrate(&cols[i]);
		print_migration();
		return 0;
	}
	if (live_only) {
		for (i = 0; i < ncols; i++) {
			struct col *c = &cols[i];

			if (c->fd < 0 || strcmp(c->driver, "wddmseg") ||
			    bench_find_vram(c))
				continue;
			bench_live(c);
			done(c, R_REF);
		}
		print_table();
		return 0;
	}
	bench_alloc_all();
	for (i = 0; i < ncols; i++) {
		struct col *c = &cols[i];

		if (c->fd < 0)
			continue;
		fflush(stdout);
		if (!strcmp(c->driver, "wddmseg")) {
			bench_wddmseg(c);
			if (mig_seconds > 0)
				bench_migrate(c);
		}
		else if (!strcmp(c->driver, "bochs-drm"))
			bench_vram_helper(c);
		else
			bench_other(c);
		if (strcmp(c->driver, "wddmseg"))
			for (r = R_EXIT_BUSY; r <= R_FRAG_BLOCKS; r++)
				na(c, r, "wddmseg only");
		done(c, R_REF);
		close(c->fd);
	}
	print_table();
	print_migration();
	return 0;
}
