// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg_leak: create/destroy 10,000 allocations, unload and reload the
 * driver 20 times, and check that the driver's and TTM's accounting and
 * the kernel's slab and memory use come back to where they started.
 *
 * Needs root, the driver loaded or loadable with modprobe, and the
 * wddmseg-churn helper (tools/wddmseg/) in $PATH or at $WDDMSEG_CHURN;
 * without it the test is skipped. It runs in the `make check` VM boot with
 * the other kselftests (tools/vm/guest/init runs every /usr/bin/wddmseg_*)
 * and leaves the driver loaded, every device bound, as it found it.
 *
 * Sequence:
 *   0. rmmod + modprobe, so the baseline does not depend on the tests that
 *      ran before (per-device counters start at 0, TTM's pools are fresh);
 *      baseline snapshot S0
 *   1. wddmseg-churn -n CYCLES: mixed sizes, segments, flags, dumb
 *      buffers, mmap, evict/restore, file reopen (see wddmseg-churn.c);
 *      snapshot S1a; the same once more, snapshot S1
 *   2. RELOADS times: the module's refcount must be 0, rmmod, every device
 *      unbound and its DRM nodes gone, modprobe, every device bound again;
 *      snapshot S2; RELOADS times more, snapshot S3
 *
 * A snapshot is taken after quiescing: sync, drop_caches=3 (which also
 * runs TTM's page pool shrinker, so pooled pages do not count), an RCU
 * grace period and a pause for deferred frees, then a slab shrink of
 * every cache right before /proc/slabinfo is read (per-CPU slabs flushed:
 * see quiesce_and_read_slabs() for how the active counts are kept nearly
 * exact). It records:
 *   - TTM's global BO count, debugfs ttm/buffer_objects (6.1 creates it
 *     with the first TTM device and removes it with the last);
 *   - TTM's global page pool, the "total" line(s) of debugfs ttm/page_pool;
 *   - per device, sysfs wddmseg/{usage_bytes,allocations,pinned_bytes,
 *     evictions} (one value per segment);
 *   - /proc/slabinfo active objects of every cache, /proc/meminfo.
 *
 * Checks (one TAP line each):
 *   exact, S1 == S0 and S3 == S0: buffer_objects, page pool total, the
 *     sysfs counters (evictions only for S3: churn evicts, a reload starts
 *     from 0 again)
 *   bounded, over two windows each, S0 -> S1a -> S1 and S1 -> S2 -> S3,
 *   failing only when both windows exceed the bound (check_slab2(): what
 *   the rest of the kernel does once is not taken for a leak):
 *     - no slab cache holds more than SLAB_TOL_OBJS more active objects.
 *       The driver allocates from the shared kmalloc caches (bo, mm node,
 *       ttm_tt, residency events, files, managers), which the rest of the
 *       kernel uses too, so the count cannot be exact; a leak of one
 *       object per allocation is 10,000 objects, one per device and reload
 *       20 per device and window (the check boot has 5 devices: 100). See
 *       quiesce_and_read_slabs() for how the counts are made stable;
 *     - SUnreclaim grew by at most SUNRECLAIM_TOL_KB (S1 against S0, S3
 *       against S1: one window);
 *     - "used" memory, MemTotal - MemFree - Buffers - Cached -
 *       SReclaimable, grew by at most USED_TOL_KB: pages the driver or TTM
 *       allocated and never freed (a page per allocation is 39 MiB).
 *   The tolerances come from the spread measured in the check VM (see
 *   the comment at SLAB_TOL_OBJS). Under
 *   KASAN the bounded checks are skipped: freed objects wait in KASAN's
 *   quarantine, so the counts cannot return (the debug tier's kmemleak
 *   scan covers leaks there).
 *
 * Knobs (environment, else kernel command line, else default):
 *   WDDMSEG_LEAK_CYCLES   wddmseg_leak.cycles=    allocations (10000)
 *   WDDMSEG_LEAK_RELOADS  wddmseg_leak.reloads=   unload/load cycles per window (20)
 *   WDDMSEG_LEAK_VERBOSE  wddmseg_leak.verbose=   1: list every slab cache
 *                                                 that moved by more than 8
 *                                                 objects, every meminfo
 *                                                 field by more than 256 kB
 *   WDDMSEG_CHURN                                 the churn helper
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

#define MODULE			"wddmseg"
#define DRV_DIR			"/sys/bus/pci/drivers/" MODULE
#define TTM_BOS			"/sys/kernel/debug/ttm/buffer_objects"
#define TTM_POOL		"/sys/kernel/debug/ttm/page_pool"
#define TTM_DIR			"/sys/kernel/debug/ttm"
#define MAX_DEVS		64
#define MAX_CACHES		512
#define NCOUNTERS		4

/*
 * Tolerances of the bounded checks, from the check VM (Debian 6.1, 2
 * vCPUs, 1 GiB, TCG, the 4 devices of tools/vm/valid-layouts.txt), over
 * about fifteen runs around nothing, around 10,000 allocations and around
 * 20 or 60 reloads of a driver without leaks:
 *   - slab: no cache grew by more than 8 objects (dentry +8 after the
 *     reloads in the check boot, the same for 20 and 60 reloads; most
 *     caches +0..2);
 *   - SUnreclaim: at most ~150 kB;
 *   - "used" memory: up to 3.7 MiB, all of it MemFree: free pages parked
 *     on the per-CPU page lists, which MemFree does not count; in CI runs
 *     single readings varied by -21..+12 MiB, hence read_meminfo()'s
 *     draining and minimum of several readings, and a 16 MiB bound.
 * A leak of one object per allocation is 10,000 objects, of one object
 * per device and reload 20 per device (80 in the check boot), of one page
 * per allocation 39 MiB: still well above the bound.
 */
#define SLAB_TOL_OBJS		16
#define SUNRECLAIM_TOL_KB	1024
#define USED_TOL_KB		16384

static const char * const counter_name[NCOUNTERS] = {
	"usage_bytes", "allocations", "pinned_bytes", "evictions",
};

struct cache {
	char name[64];
	long active;
	long objsize;
	long perslab;
};

struct snap {
	long ttm_bos;		/* -1: no debugfs file */
	long pool_total;	/* -1: no debugfs file */
	unsigned int ndev;
	char bdf[MAX_DEVS][16];
	char counter[MAX_DEVS][NCOUNTERS][128];
	struct cache cache[MAX_CACHES];
	unsigned int ncache;
	long sunreclaim_kb, used_kb;
	char meminfo[4096];
};

static struct snap s0, s1a, s1, s2, s3;
static bool kasan, verbose;

/* ---- small helpers ---- */

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long knob(const char *env, const char *param, long def)
{
	char cmdline[4096], *p;
	const char *v = getenv(env);

	if (v && *v)
		return strtol(v, NULL, 0);
	if (read_line("/proc/cmdline", cmdline, sizeof(cmdline))) {
		for (p = strtok(cmdline, " "); p; p = strtok(NULL, " "))
			if (!strncmp(p, param, strlen(param)))
				return strtol(p + strlen(param), NULL, 0);
	}
	return def;
}

/*
 * Run a program; its output goes to the TAP stream as "# " comments.
 * Returns its exit status, or -1 if it could not run or was killed.
 */
static int run(char *const argv[], bool quiet)
{
	int pfd[2], status;
	char line[512];
	pid_t pid;
	FILE *f;

	fflush(stdout);
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	while (f && fgets(line, sizeof(line), f))
		if (!quiet)
			ksft_print_msg("  %s", line);
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static bool has_kasan(void)
{
	char line[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " kasan_save_stack") ||
			strstr(line, " __asan_load8\n");
	fclose(f);
	return found;
}

/* ---- devices ---- */

/* BDFs bound to the driver, sorted. */
static unsigned int bound_devices(char bdf[][16])
{
	struct dirent **names;
	unsigned int n = 0;
	int i, k;

	k = scandir(DRV_DIR, &names, NULL, alphasort);
	for (i = 0; i < k; i++) {
		const char *d = names[i]->d_name;

		/* 0000:00:04.0 */
		if (n < MAX_DEVS && strlen(d) == 12 && d[4] == ':' && d[7] == ':')
			snprintf(bdf[n++], 16, "%.15s", d);
		free(names[i]);
	}
	if (k > 0)
		free(names);
	return n;
}

/* Any DRM node left for @bdf? */
static bool has_drm_nodes(const char *bdf)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.15s/drm", bdf);
	return exists(path);
}

/* ---- snapshots ---- */

/*
 * Quiesce, then read /proc/slabinfo into @s with as little of our own
 * allocation in between as possible. A slab shrink flushes the per-CPU
 * slabs, after which /proc/slabinfo's active counts are exact; but any
 * allocation after it gives the allocating CPU a new per-CPU slab, counted
 * as fully active (one slab of noise: 512 objects of kmalloc-8). So every
 * file is opened first (the same set each time, so the files themselves
 * cancel out), /proc/slabinfo is read once to allocate its buffer, every
 * cache is shrunk, kmalloc-8 last since each sysfs write allocates its
 * 2-byte buffer there, and /proc/slabinfo is read again from offset 0.
 */
static void parse_slabinfo(struct snap *s, char *text);

static void quiesce_and_read_slabs(struct snap *s)
{
	static int fds[MAX_CACHES];
	static char buf[1 << 18];
	unsigned int nfd = 0, i;
	int kmalloc8 = -1, slabfd;
	struct dirent *de;
	char path[512];
	ssize_t len = 0, n;
	DIR *dir;

	sync();
	write_str("/proc/sys/vm/drop_caches", "3");
	/* RCU-deferred frees (files, kfree_rcu): a grace period, and time */
	syscall(__NR_membarrier, 0x1 /* MEMBARRIER_CMD_GLOBAL */, 0, 0);
	msleep(500);

	slabfd = open("/proc/slabinfo", O_RDONLY | O_CLOEXEC);
	while (slabfd >= 0 && read(slabfd, buf, sizeof(buf)) > 0)
		;
	dir = opendir("/sys/kernel/slab");
	while (dir && (de = readdir(dir)) && nfd < MAX_CACHES) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", de->d_name);
		/* aliases of merged caches are symlinks */
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 de->d_name);
		fds[nfd] = open(path, O_WRONLY | O_CLOEXEC);
		if (fds[nfd] < 0)
			continue;
		if (!strcmp(de->d_name, "kmalloc-8"))
			kmalloc8 = nfd;
		nfd++;
	}
	if (dir)
		closedir(dir);
	for (i = 0; i < nfd; i++)
		if ((int)i != kmalloc8 && write(fds[i], "1", 1) < 0)
			break;
	if (kmalloc8 >= 0 && write(fds[kmalloc8], "1", 1) < 0)
		kmalloc8 = -1;

	if (slabfd >= 0 && lseek(slabfd, 0, SEEK_SET) == 0)
		while (len < (ssize_t)sizeof(buf) - 1 &&
		       (n = read(slabfd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += n;
	buf[len] = '\0';
	for (i = 0; i < nfd; i++)
		close(fds[i]);
	if (slabfd >= 0)
		close(slabfd);
	parse_slabinfo(s, buf);
}

static long read_long(const char *path)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) ? strtol(buf, NULL, 10) : -1;
}

static long pool_total(void)
{
	char line[256];
	long total = -1;
	FILE *f = fopen(TTM_POOL, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long t, max;
		unsigned int node;

		/*
		 * "total\t: %8lu of %8lu", or since the pools are per NUMA
		 * node (7.x) one "total node%d\t: %8lu of %8lu" per node
		 */
		if (sscanf(line, "total : %lu of %lu", &t, &max) == 2)
			total = t;
		else if (sscanf(line, "total node%u : %lu of %lu", &node, &t,
				&max) == 3)
			total = (total < 0 ? 0 : total) + t;
	}
	fclose(f);
	return total;
}

static void parse_slabinfo(struct snap *s, char *text)
{
	char *line, *save = NULL;

	s->ncache = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct cache *c = &s->cache[s->ncache];
		long num;

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (s->ncache == MAX_CACHES)
			break;
		if (sscanf(line, "%63s %ld %ld %ld %ld", c->name, &c->active,
			   &num, &c->objsize, &c->perslab) == 5)
			s->ncache++;
	}
}

/* One reading of /proc/meminfo into @s. */
static void read_meminfo_once(struct snap *s)
{
	long total = 0, free_ = 0, buffers = 0, cached = 0, srecl = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	s->sunreclaim_kb = -1;
	s->meminfo[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (strlen(s->meminfo) + strlen(line) < sizeof(s->meminfo))
			strcat(s->meminfo, line);
		sscanf(line, "MemTotal: %ld", &total);
		sscanf(line, "MemFree: %ld", &free_);
		sscanf(line, "Buffers: %ld", &buffers);
		sscanf(line, "Cached: %ld", &cached);
		sscanf(line, "SReclaimable: %ld", &srecl);
		sscanf(line, "SUnreclaim: %ld", &s->sunreclaim_kb);
	}
	if (f)
		fclose(f);
	s->used_kb = total - free_ - buffers - cached - srecl;
}

/*
 * "Used" memory is noisy: free pages parked on per-CPU lists are not in
 * MemFree, and the harness and the kernel allocate for a moment now and
 * then (seen: -21..+12 MiB between two snapshots of a leak-free driver).
 * Compaction drains the per-CPU lists; of MEMINFO_SAMPLES readings 100 ms
 * apart the smallest "used" counts, since transient allocations only ever
 * add to it.
 */
#define MEMINFO_SAMPLES		5

static void read_meminfo(struct snap *s)
{
	static struct snap t;
	int i;

	write_str("/proc/sys/vm/compact_memory", "1");
	read_meminfo_once(s);
	for (i = 1; i < MEMINFO_SAMPLES; i++) {
		msleep(100);
		read_meminfo_once(&t);
		if (t.used_kb < s->used_kb) {
			s->used_kb = t.used_kb;
			s->sunreclaim_kb = t.sunreclaim_kb;
			memcpy(s->meminfo, t.meminfo, sizeof(s->meminfo));
		}
	}
}

static void snapshot(struct snap *s)
{
	unsigned int i, k;
	char path[256];

	quiesce_and_read_slabs(s);
	s->ttm_bos = read_long(TTM_BOS);
	s->pool_total = pool_total();
	s->ndev = bound_devices(s->bdf);
	for (i = 0; i < s->ndev; i++)
		for (k = 0; k < NCOUNTERS; k++) {
			snprintf(path, sizeof(path),
				 "/sys/bus/pci/devices/%.15s/" MODULE "/%s",
				 s->bdf[i], counter_name[k]);
			if (!read_line(path, s->counter[i][k],
				       sizeof(s->counter[i][k])))
				snprintf(s->counter[i][k],
					 sizeof(s->counter[i][k]), "(unreadable)");
		}
	read_meminfo(s);
}

static void print_snap(const char *name, const struct snap *s, bool details)
{
	unsigned int i, k;

	ksft_print_msg("%s: ttm buffer_objects %ld, page pool %ld pages, %u devices, SUnreclaim %ld kB, used %ld kB\n",
		       name, s->ttm_bos, s->pool_total, s->ndev,
		       s->sunreclaim_kb, s->used_kb);
	for (i = 0; details && i < s->ndev; i++)
		for (k = 0; k < NCOUNTERS; k++)
			ksft_print_msg("%s:   %s %-12s %s\n", name, s->bdf[i],
				       counter_name[k], s->counter[i][k]);
}

/* ---- checks ---- */

static void check_exact_long(const char *what, const char *when, long got,
			     long want)
{
	if (want < 0) {
		ksft_test_result_skip("%s %s: not available on this kernel\n",
				      what, when);
		return;
	}
	ksft_test_result(got == want, "%s %s: %ld (baseline %ld)\n", what,
			 when, got, want);
}

/* Counters @mask of every device: @s equal to @base. */
static void check_counters(const char *when, const struct snap *s,
			   const struct snap *base, unsigned int mask)
{
	unsigned int i, k;
	bool ok = s->ndev == base->ndev && s->ndev > 0;
	char names[128] = "";

	for (k = 0; k < NCOUNTERS; k++)
		if (mask & (1u << k))
			snprintf(names + strlen(names), sizeof(names) - strlen(names),
				 "%s%s", names[0] ? "," : "", counter_name[k]);
	if (s->ndev != base->ndev)
		ksft_print_msg("%u devices bound, baseline %u\n", s->ndev,
			       base->ndev);
	for (i = 0; i < s->ndev && i < base->ndev; i++) {
		if (strcmp(s->bdf[i], base->bdf[i])) {
			ksft_print_msg("device %u is %s, baseline %s\n", i,
				       s->bdf[i], base->bdf[i]);
			ok = false;
			continue;
		}
		for (k = 0; k < NCOUNTERS; k++) {
			if (!(mask & (1u << k)))
				continue;
			if (strcmp(s->counter[i][k], base->counter[i][k])) {
				ksft_print_msg("%s %s: \"%s\", baseline \"%s\"\n",
					       s->bdf[i], counter_name[k],
					       s->counter[i][k],
					       base->counter[i][k]);
				ok = false;
			}
		}
	}
	ksft_test_result(ok, "sysfs %s of %u devices %s: back to baseline\n",
			 names, s->ndev, when);
}

static const struct cache *find_cache(const struct snap *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->ncache; i++)
		if (!strcmp(s->cache[i].name, name))
			return &s->cache[i];
	return NULL;
}

/*
 * Each phase runs twice, in two windows: churn as S0 -> S1a -> S1, the
 * reloads as S1 -> S2 -> S3. A leak grows a cache (or the used memory) by
 * the same amount in both windows; what the rest of the kernel does once
 * (a sysfs directory looked up for the first time: kernfs_node_cache,
 * dentry, inode_cache +25..56 in one CI run; "used" memory moving by
 * -26..+19 MiB as page cache and per-CPU lists come and go) shows in one.
 * A cache fails when it grew by more than SLAB_TOL_OBJS in both windows.
 */
static void check_slab2(const char *when, const struct snap *end,
			const struct snap *mid, const struct snap *base)
{
	unsigned int i, over = 0, once = 0;

	if (kasan) {
		ksft_test_result_skip("slab caches %s: KASAN quarantine keeps freed objects\n",
				      when);
		return;
	}
	if (!end->ncache) {
		ksft_test_result_skip("slab caches %s: no /proc/slabinfo\n", when);
		return;
	}
	for (i = 0; i < end->ncache; i++) {
		const struct cache *c = &end->cache[i];
		const struct cache *b = find_cache(mid, c->name);
		const struct cache *a = find_cache(base, c->name);
		long m = b ? b->active : 0;
		long d1 = m - (a ? a->active : 0), d2 = c->active - m;
		bool both = d1 > SLAB_TOL_OBJS && d2 > SLAB_TOL_OBJS;

		if (d1 <= SLAB_TOL_OBJS && d2 <= SLAB_TOL_OBJS &&
		    !(verbose && (d1 > 8 || d2 > 8)))
			continue;
		if (both)
			over++;
		else if (d1 > SLAB_TOL_OBJS || d2 > SLAB_TOL_OBJS)
			once++;
		ksft_print_msg("slab %s: %+ld then %+ld active objects over two windows %s (%ld bytes each)%s\n",
			       c->name, d1, d2, when, c->objsize,
			       both ? ": grows with every window" : "");
	}
	ksft_test_result(!over, "slab caches %s: none grew by more than %d objects in both windows (%u grew in one only)\n",
			 when, SLAB_TOL_OBJS, once);
}

/* @what (kB) over two windows, base -> mid -> end: see check_slab2(). */
static void check_kb2(const char *what, const char *when, long base, long mid,
		      long end, long tol)
{
	if (kasan) {
		ksft_test_result_skip("%s %s: KASAN quarantine keeps freed memory\n",
				      what, when);
		return;
	}
	if (base < 0 || mid < 0 || end < 0) {
		ksft_test_result_skip("%s %s: not in /proc/meminfo\n", what, when);
		return;
	}
	ksft_test_result(mid - base <= tol || end - mid <= tol,
			 "%s %s: %+ld then %+ld kB over two windows (fails above +%ld in both)\n",
			 what, when, mid - base, end - mid, tol);
}

/* verbose: the /proc/meminfo fields that moved by more than 256 kB */
static void meminfo_diff(const struct snap *s, const struct snap *base)
{
	char a[sizeof(s->meminfo)], *line, *save = NULL;

	memcpy(a, s->meminfo, sizeof(a));
	for (line = strtok_r(a, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64], *p;
		long v, b;

		if (sscanf(line, "%63[^:]: %ld", name, &v) != 2)
			continue;
		p = strstr(base->meminfo, name);
		if (!p || sscanf(p + strlen(name), ": %ld", &b) != 1)
			continue;
		if (v - b > 256 || b - v > 256)
			ksft_print_msg("meminfo %s: %ld -> %ld kB (%+ld)\n", name,
				       b, v, v - b);
	}
}

static void check_kb(const char *what, const char *when, long got, long base,
		     long tol)
{
	if (kasan) {
		ksft_test_result_skip("%s %s: KASAN quarantine keeps freed memory\n",
				      what, when);
		return;
	}
	if (got < 0 || base < 0) {
		ksft_test_result_skip("%s %s: not in /proc/meminfo\n", what, when);
		return;
	}
	ksft_test_result(got - base <= tol, "%s %s: %+ld kB (at most +%ld)\n",
			 what, when, got - base, tol);
}

/* ---- module ---- */

static int modprobe(void)
{
	char *argv[] = { "modprobe", MODULE, NULL };

	return run(argv, false);
}

static int rmmod(void)
{
	char *argv[] = { "rmmod", MODULE, NULL };

	return run(argv, false);
}

/*
 * One unload/load cycle. Returns false with a message on the first
 * thing that is not as it should be.
 */
static bool reload(const struct snap *base, unsigned int cycle)
{
	char bdf[MAX_DEVS][16], path[128];
	long refcnt;
	unsigned int i, n;

	refcnt = read_long("/sys/module/" MODULE "/refcnt");
	if (refcnt != 0) {
		ksft_print_msg("cycle %u: module refcount %ld before rmmod (an open file or a held reference)\n",
			       cycle, refcnt);
		return false;
	}
	if (rmmod()) {
		ksft_print_msg("cycle %u: rmmod failed\n", cycle);
		return false;
	}
	if (exists("/sys/module/" MODULE) || exists(DRV_DIR)) {
		ksft_print_msg("cycle %u: module or PCI driver still present after rmmod\n",
			       cycle);
		return false;
	}
	for (i = 0; i < base->ndev; i++) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.15s/driver",
			 base->bdf[i]);
		if (exists(path) || has_drm_nodes(base->bdf[i])) {
			ksft_print_msg("cycle %u: %s still has a driver or DRM nodes after rmmod\n",
				       cycle, base->bdf[i]);
			return false;
		}
	}
	if (cycle == 1)
		ksft_print_msg("after rmmod: %s\n", exists(TTM_DIR) ?
			       "debugfs ttm/ still there (another TTM driver is loaded)" :
			       "debugfs ttm/ gone (TTM's globals were released with the last device)");
	if (modprobe()) {
		ksft_print_msg("cycle %u: modprobe failed\n", cycle);
		return false;
	}
	n = bound_devices(bdf);
	if (n != base->ndev) {
		ksft_print_msg("cycle %u: %u devices bound after modprobe, %u before\n",
			       cycle, n, base->ndev);
		return false;
	}
	for (i = 0; i < n; i++)
		if (strcmp(bdf[i], base->bdf[i]) || !has_drm_nodes(bdf[i])) {
			ksft_print_msg("cycle %u: %s not bound with DRM nodes after modprobe\n",
				       cycle, base->bdf[i]);
			return false;
		}
	return true;
}

int main(void)
{
	long cycles = knob("WDDMSEG_LEAK_CYCLES", "wddmseg_leak.cycles=", 10000);
	long reloads = knob("WDDMSEG_LEAK_RELOADS", "wddmseg_leak.reloads=", 20);
	const char *churn = getenv("WDDMSEG_CHURN");
	char cycles_s[32], *churn_argv[5];
	unsigned int k;
	time_t t0;
	bool ok;
	int ret;

	if (!churn || !*churn)
		churn = "wddmseg-churn";

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root (rmmod, drop_caches, debugfs)\n");
	{
		char *argv[] = { (char *)churn, "-h", NULL };

		/* usage exits 2; 127 is "not found" */
		if (run(argv, true) == 127)
			ksft_exit_skip("%s not found: build tools/wddmseg\n", churn);
	}
	if (!exists("/sys/module/" MODULE) && modprobe())
		ksft_exit_fail_msg("modprobe " MODULE " failed\n");
	s0.ndev = exists(DRV_DIR) ? bound_devices(s0.bdf) : 0;
	if (!s0.ndev)
		ksft_exit_skip("no device bound to " MODULE "\n");
	kasan = has_kasan();
	verbose = knob("WDDMSEG_LEAK_VERBOSE", "wddmseg_leak.verbose=", 0);
	ksft_set_plan(14);
	ksft_print_msg("%ld allocations, %ld reloads%s\n", cycles, reloads,
		       kasan ? "; KASAN kernel: memory bounds skipped" : "");

	/* 0. fresh start and baseline */
	ok = reload(&s0, 0);
	if (!ok) {
		if (!exists("/sys/module/" MODULE))
			modprobe();
		ksft_exit_fail_msg("initial rmmod + modprobe failed\n");
	}
	snapshot(&s0);
	print_snap("baseline", &s0, true);
	if (s0.ttm_bos < 0)
		ksft_print_msg("no %s: is debugfs mounted?\n", TTM_BOS);

	/* 1. churn */
	snprintf(cycles_s, sizeof(cycles_s), "%ld", cycles);
	churn_argv[0] = (char *)churn;
	churn_argv[1] = "-n";
	churn_argv[2] = cycles_s;
	churn_argv[3] = NULL;
	t0 = time(NULL);
	ret = run(churn_argv, false);
	if (!ret) {
		snapshot(&s1a);
		/* Under KASAN the bounded checks are skipped: one window. */
		if (!kasan)
			ret = run(churn_argv, false);
	}
	ksft_test_result(ret == 0, "churn: %ld allocations created and destroyed, %s (exit %d, %lds)\n",
			 cycles, kasan ? "once" : "twice", ret,
			 (long)(time(NULL) - t0));
	snapshot(&s1);
	if (ret || kasan)
		s1a = s1;
	print_snap("after churn", &s1, false);
	check_exact_long("ttm buffer_objects", "after churn", s1.ttm_bos, s0.ttm_bos);
	check_exact_long("ttm page pool pages", "after churn", s1.pool_total,
			 s0.pool_total);
	check_counters("after churn", &s1, &s0, 0x7);
	check_slab2("after churn", &s1, &s1a, &s0);
	check_kb("SUnreclaim", "after churn", s1.sunreclaim_kb, s0.sunreclaim_kb,
		 SUNRECLAIM_TOL_KB);
	if (verbose)
		meminfo_diff(&s1, &s0);
	check_kb2("used memory", "after churn", s0.used_kb, s1a.used_kb,
		  s1.used_kb, USED_TOL_KB);

	/* 2. reloads, in two windows (see check_slab2()) */
	t0 = time(NULL);
	ok = true;
	for (k = 1; k <= reloads && ok; k++)
		ok = reload(&s0, k);
	if (ok)
		snapshot(&s2);
	/* Under KASAN the slab check is skipped: one window is enough. */
	for (; k <= 2 * reloads && ok && !kasan; k++)
		ok = reload(&s0, k);
	if (!ok && !exists("/sys/module/" MODULE))
		modprobe();	/* leave the driver loaded for the next tests */
	ksft_test_result(ok, "%ld rmmod + modprobe cycles in %s, every device unbound and bound again (%lds)\n",
			 kasan ? reloads : 2 * reloads,
			 kasan ? "one window" : "two windows",
			 (long)(time(NULL) - t0));
	snapshot(&s3);
	if (!ok)
		s2 = s3;
	print_snap("after reloads", &s3, false);
	check_exact_long("ttm buffer_objects", "after reloads", s3.ttm_bos,
			 s0.ttm_bos);
	check_exact_long("ttm page pool pages", "after reloads", s3.pool_total,
			 s0.pool_total);
	check_counters("after reloads", &s3, &s0, 0xf);
	check_slab2("after reloads", &s3, &s2, &s1);
	check_kb("SUnreclaim", "after reloads", s3.sunreclaim_kb,
		 s1.sunreclaim_kb, SUNRECLAIM_TOL_KB);
	if (verbose)
		meminfo_diff(&s3, &s1);
	check_kb2("used memory", "after reloads", s1.used_kb, s2.used_kb,
		  s3.used_kb, USED_TOL_KB);

	ksft_finished();
}
