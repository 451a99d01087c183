/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the wddmseg memory-management selftests
 * (wddmseg_alloc.c, wddmseg_stress.c): the devices of the expectation file
 * and their DRM nodes, thin ioctl wrappers returning 0 or -errno, and
 * content patterns checked byte by byte.
 *
 * The expectation file ($WDDMSEG_EXPECT, default /etc/wddmseg/expect) is
 * parsed with wddmseg_layout.h; see wddmseg_query.c for its format.
 */
#ifndef WDDMSEG_GEM_H
#define WDDMSEG_GEM_H

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
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <drm/wddmseg_drm.h>

#include "wddmseg_layout.h"

#define GEM_EXPECT_DEFAULT	"/etc/wddmseg/expect"
#define GEM_MAX_DEVS		8
#define GEM_NODE_LEN		32

#define SZ_4K			0x1000ULL
#define SZ_64K			0x10000ULL
#define SZ_1M			0x100000ULL

/* DXGK_SEGMENTFLAGS bits the tests look at (wddmseg_hw.h). */
#define SEGF_APERTURE		(1u << 0)
#define SEGF_AGP		(1u << 1)
#define SEGF_CPU_VISIBLE	(1u << 2)
#define SEGF_USE_BANKING	(1u << 3)
#define SEGF_PITCH_ALIGNMENT	(1u << 5)
#define SEGF_USE_64KB_PAGES	(1u << 11)
#define SEGF_VPR_SUPPORTED	(1u << 16)
#define SEGF_LOCAL_BUDGET	(1u << 19)
#define SEGF_NON_LOCAL_BUDGET	(1u << 20)

struct gem_dev {
	struct expect_dev exp;
	char card[GEM_NODE_LEN];	/* /dev/dri/cardN */
	char render[GEM_NODE_LEN];	/* /dev/dri/renderDN */
};

static inline const char *gem_expect_path(void)
{
	const char *p = getenv("WDDMSEG_EXPECT");

	return p && *p ? p : GEM_EXPECT_DEFAULT;
}

/*
 * Read the expectation file into @devs. Returns 0, -ENOENT when the file
 * does not exist, or another -errno with a message in @err
 * (EXPECT_ERR_LEN bytes).
 */
static inline int gem_load_expect(const char *path, struct gem_dev *devs,
				  unsigned int max, unsigned int *nr, char *err)
{
	unsigned int lineno = 0, n = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, EXPECT_ERR_LEN, "cannot open %s: %s", path,
			 strerror(errno));
		return ret;
	}
	while (getline(&line, &cap, f) != -1) {
		char lerr[EXPECT_ERR_LEN];
		struct expect_dev d;
		int r;

		lineno++;
		r = expect_parse_line(line, &d, lerr);
		if (r == 0)
			continue;
		if (r < 0) {
			snprintf(err, EXPECT_ERR_LEN, "%s:%u: %.200s", path,
				 lineno, lerr);
			ret = -EINVAL;
			break;
		}
		if (n == max) {
			snprintf(err, EXPECT_ERR_LEN, "%s:%u: more than %u devices",
				 path, lineno, max);
			ret = -E2BIG;
			break;
		}
		memset(&devs[n], 0, sizeof(devs[n]));
		devs[n++].exp = d;
	}
	free(line);
	fclose(f);
	*nr = n;
	return ret;
}

/* @name is @prefix followed by decimal digits only. */
static inline bool gem_node_number(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *p = name + len;

	if (strncmp(name, prefix, len) || !*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* Find the cardN and renderDN nodes of @d. Returns 0 or -1 with @err. */
/*
 * GEM_SKIP_WITHOUT_EXPECT() - skip the whole test program, before the
 * harness starts, when there is no expectation file or it lists no device.
 * Use once per program, after including kselftest_harness.h.
 */
#define GEM_SKIP_WITHOUT_EXPECT()					\
static void __attribute__((constructor)) gem_skip_without_expect(void)	\
{									\
	static struct gem_dev devs[GEM_MAX_DEVS];			\
	char err[EXPECT_ERR_LEN] = "";					\
	unsigned int nr = 0;						\
	int ret;							\
									\
	ret = gem_load_expect(gem_expect_path(), devs, GEM_MAX_DEVS,	\
			      &nr, err);				\
	if (ret == -ENOENT) {						\
		ksft_print_header();					\
		ksft_exit_skip("no expectation file %s\n",		\
			       gem_expect_path());			\
	}								\
	if (!ret && !nr) {						\
		ksft_print_header();					\
		ksft_exit_skip("%s lists no device\n",			\
			       gem_expect_path());			\
	}								\
}

static inline int gem_find_nodes(struct gem_dev *d, char *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	d->card[0] = d->render[0] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/drm", d->exp.bdf);
	dir = opendir(path);
	if (!dir) {
		snprintf(err, EXPECT_ERR_LEN,
			 "%s: no DRM node; the driver did not probe the device (see dmesg)",
			 d->exp.bdf);
		return -1;
	}
	while ((de = readdir(dir))) {
		if (gem_node_number(de->d_name, "card"))
			snprintf(d->card, sizeof(d->card), "/dev/dri/%.20s",
				 de->d_name);
		else if (gem_node_number(de->d_name, "renderD"))
			snprintf(d->render, sizeof(d->render), "/dev/dri/%.20s",
				 de->d_name);
	}
	closedir(dir);
	if (!d->card[0] || !d->render[0]) {
		snprintf(err, EXPECT_ERR_LEN, "%s: no %s node under %.100s",
			 d->exp.bdf, d->card[0] ? "render" : "primary", path);
		return -1;
	}
	return 0;
}

/* Layout predicates on the expected table (flags as the device reports). */
static inline bool seg_is_aperture(const struct layout_seg *s)
{
	return s->flags & (SEGF_APERTURE | SEGF_AGP);
}

static inline bool seg_is_memory(const struct layout_seg *s)
{
	return !seg_is_aperture(s);
}

/* The CPU can map it: CpuVisible memory, or an aperture (system pages). */
static inline bool seg_cpu_visible(const struct layout_seg *s)
{
	return (s->flags & SEGF_APERTURE) ||
	       (seg_is_memory(s) && (s->flags & SEGF_CPU_VISIBLE));
}

static inline int seg_budget_group(const struct layout_seg *s)
{
	if (s->flags & SEGF_LOCAL_BUDGET)
		return WDDMSEG_BUDGET_LOCAL;
	if (s->flags & SEGF_NON_LOCAL_BUDGET)
		return WDDMSEG_BUDGET_NON_LOCAL;
	return seg_is_aperture(s) ? WDDMSEG_BUDGET_NON_LOCAL :
				    WDDMSEG_BUDGET_LOCAL;
}

/*
 * The default layout of the device, whatever its sizes: segment 1
 * CPU-visible VRAM, segment 2 invisible VRAM, segment 3 an aperture whose
 * CommitLimit is below its Size; no banks.
 */
static inline bool layout_is_default_shape(const struct layout *l)
{
	const struct layout_seg *s = l->seg;

	return l->nr_segs == 3 &&
	       seg_is_memory(&s[0]) && (s[0].flags & SEGF_CPU_VISIBLE) &&
	       !(s[0].flags & SEGF_USE_BANKING) &&
	       seg_is_memory(&s[1]) && !(s[1].flags & SEGF_CPU_VISIBLE) &&
	       !(s[1].flags & SEGF_USE_BANKING) &&
	       !(s[2].flags & SEGF_AGP) && (s[2].flags & SEGF_APERTURE) &&
	       s[2].commit < s[2].size &&
	       !(s[0].flags & SEGF_USE_64KB_PAGES) &&
	       !(s[1].flags & SEGF_USE_64KB_PAGES);
}

static inline uint64_t layout_vram_bytes(const struct layout *l)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < l->nr_segs; i++)
		if (seg_is_memory(&l->seg[i]))
			sum += l->seg[i].size;
	return sum;
}

/* ioctl wrappers: 0 or -errno. */
static inline int wioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

struct gem_args {
	uint64_t size;
	uint32_t flags;
	uint32_t supported;
	uint32_t eviction;
	uint8_t preferred[WDDMSEG_MAX_PREFERRED];
	uint32_t bank_hint;
	uint32_t alignment;
};

static inline int gem_create_raw(int fd, struct drm_wddmseg_gem_create *c)
{
	return wioctl(fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, c);
}

static inline int gem_create(int fd, const struct gem_args *a, uint32_t *handle)
{
	struct drm_wddmseg_gem_create c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.size = a->size;
	c.flags = a->flags;
	c.supported_segments = a->supported;
	c.eviction_segments = a->eviction;
	memcpy(c.preferred, a->preferred, sizeof(c.preferred));
	c.bank_hint = a->bank_hint;
	c.alignment = a->alignment;
	ret = gem_create_raw(fd, &c);
	*handle = ret ? 0 : c.handle;
	return ret;
}

/* One allocation in segment @id only (0: system memory only). */
static inline int gem_create_in(int fd, uint64_t size, uint32_t flags,
				uint32_t id, uint32_t *handle)
{
	struct gem_args a = { .size = size, .flags = flags };

	if (id) {
		a.supported = WDDMSEG_SEGMENT_BIT(id);
		a.preferred[0] = id;
	}
	return gem_create(fd, &a, handle);
}

static inline int gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return wioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static inline int gem_info(int fd, uint32_t handle,
			   struct drm_wddmseg_gem_info *info)
{
	memset(info, 0, sizeof(*info));
	info->handle = handle;
	return wioctl(fd, DRM_IOCTL_WDDMSEG_GEM_INFO, info);
}

/* Segment id the allocation is in now, or -errno. */
static inline int gem_segment(int fd, uint32_t handle)
{
	struct drm_wddmseg_gem_info info;
	int ret = gem_info(fd, handle, &info);

	return ret ? ret : (int)info.segment_id;
}

static inline int gem_make_resident(int fd, uint32_t handle, uint32_t id)
{
	struct drm_wddmseg_gem_residency r = {
		.handle = handle, .segment_id = id,
	};

	return wioctl(fd, DRM_IOCTL_WDDMSEG_GEM_MAKE_RESIDENT, &r);
}

static inline int gem_evict(int fd, uint32_t handle)
{
	struct drm_wddmseg_gem_residency r = { .handle = handle };

	return wioctl(fd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r);
}

/* Move to @id: MAKE_RESIDENT for a segment, EVICT for system memory. */
static inline int gem_move(int fd, uint32_t handle, uint32_t id)
{
	return id ? gem_make_resident(fd, handle, id) : gem_evict(fd, handle);
}

static inline int gem_wait(int fd, uint32_t handle, int64_t timeout_ns)
{
	struct drm_wddmseg_gem_wait w = {
		.handle = handle, .timeout_ns = timeout_ns,
	};

	return wioctl(fd, DRM_IOCTL_WDDMSEG_GEM_WAIT, &w);
}

/* Whole small file (sysfs, debugfs, tracefs) into @buf, NUL-terminated. */
static inline int file_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Write @s to a sysfs/debugfs/tracefs file, as `echo s > path` does. */
static inline int file_write(const char *path, const char *s)
{
	ssize_t n;
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * Save a parameter file's value once in @saved (the caller restores it in
 * its teardown), then set it to @val.
 */
static inline int file_param_set(char *saved, size_t len, const char *path,
				 const char *val)
{
	int ret;

	if (!saved[0]) {
		ret = file_read(path, saved, len);
		if (ret)
			return ret;
		saved[strcspn(saved, "\n")] = '\0';
	}
	return file_write(path, val);
}

/* ---------------------------------------------------------------- */
/* Kernel log (/dev/kmsg) and drm.debug                              */

#define DRM_DEBUG_PARAM	"/sys/module/drm/parameters/debug"

/* /dev/kmsg positioned at its end (records from now on), or -1. */
static inline int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The next record of @fd into @rec (NUL-terminated): its length, or 0
 * when no record is waiting. Records overwritten before they were read
 * are skipped.
 */
static inline ssize_t kmsg_read(int fd, char *rec, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, rec, len - 1);
	} while (n < 0 && errno == EPIPE);
	if (n <= 0)
		return 0;
	rec[n] = '\0';
	return n;
}

/*
 * If @rec holds "@key NAME" and @rule is still empty, copy NAME (up to
 * ':', a blank or the end of the line) to @rule.
 */
static inline void kmsg_rule(const char *rec, const char *key, char *rule,
			     size_t len)
{
	const char *p = strstr(rec, key);

	if (!p || rule[0])
		return;
	p += strlen(key);
	snprintf(rule, len, "%.*s", (int)strcspn(p, ": \n"), p);
}

/*
 * Add @bits to drm.debug. The value found first is kept in @saved (empty
 * until then) for drm_debug_restore(). -errno if it cannot be set.
 */
static inline int drm_debug_raise(unsigned long bits, char *saved,
				  size_t len)
{
	bool first = !saved[0];
	char buf[32];
	int ret;

	ret = file_read(DRM_DEBUG_PARAM, buf, sizeof(buf));
	if (ret)
		return ret;
	buf[strcspn(buf, "\n")] = '\0';
	if (first)
		snprintf(saved, len, "%s", buf);
	snprintf(buf, sizeof(buf), "%lu", strtoul(buf, NULL, 0) | bits);
	ret = file_write(DRM_DEBUG_PARAM, buf);
	if (ret && first)
		saved[0] = '\0';
	return ret;
}

/* Put drm.debug back as drm_debug_raise() found it (once). */
static inline void drm_debug_restore(char *saved)
{
	if (!saved[0])
		return;
	if (file_write(DRM_DEBUG_PARAM, saved))
		perror("restore " DRM_DEBUG_PARAM);
	saved[0] = '\0';
}

/*
 * A CpuVisibleOnDemand allocation that may live in any segment of the
 * default layout (1 visible VRAM, 2 invisible VRAM, 3 aperture), first
 * placed in @first.
 */
static inline int gem_create_any(int fd, uint64_t size, uint8_t first,
				 uint32_t *handle)
{
	struct gem_args a = {
		.size = size,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.supported = WDDMSEG_SEGMENT_BIT(1) | WDDMSEG_SEGMENT_BIT(2) |
			     WDDMSEG_SEGMENT_BIT(3),
		.preferred = { first },
	};

	return gem_create(fd, &a, handle);
}

/*
 * Move to segment @to, wait for the engine (20 s), and check the
 * placement. 0, -EXDEV if it landed elsewhere, or -errno.
 */
static inline int gem_move_wait(int fd, uint32_t handle, uint32_t to)
{
	int ret = gem_move(fd, handle, to);

	if (ret)
		return ret;
	ret = gem_wait(fd, handle, 20 * 1000000000LL);
	if (ret)
		return ret;
	ret = gem_segment(fd, handle);
	if (ret < 0)
		return ret;
	return (uint32_t)ret == to ? 0 : -EXDEV;
}

#define GEM_PEEK_WORDS	16

/*
 * The GEM_PEEK_WORDS words the GPU sees at @addr, through the debugfs
 * files peek_addr and peek of the DRM debugfs directory @dir. A word the
 * device could not read counts in *@faults and reads as 0xffffffff.
 * 0 or -errno.
 */
static inline int gem_peek(const char *dir, uint64_t addr, uint32_t *words,
			   unsigned int *faults)
{
	char path[128], line[512], *p, *end;
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), "%s/peek_addr", dir);
	snprintf(line, sizeof(line), "0x%" PRIx64, addr);
	ret = file_write(path, line);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/peek", dir);
	ret = file_read(path, line, sizeof(line));
	if (ret)
		return ret;
	p = strchr(line, ':');
	if (!p || strtoull(line, NULL, 16) != addr)
		return -EPROTO;
	*faults = 0;
	for (p++, i = 0; i < GEM_PEEK_WORDS; i++) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "fault", 5)) {
			words[i] = 0xffffffff;
			(*faults)++;
			p += 5;
			continue;
		}
		words[i] = strtoul(p, &end, 16);
		if (end == p)
			return -EPROTO;
		p = end;
	}
	return 0;
}

static inline int gem_mmap_offset(int fd, uint32_t handle, uint64_t *offset)
{
	struct drm_wddmseg_gem_mmap_offset m = { .handle = handle };
	int ret = wioctl(fd, DRM_IOCTL_WDDMSEG_GEM_MMAP_OFFSET, &m);

	*offset = ret ? 0 : m.offset;
	return ret;
}

/* Map the whole allocation read-write; NULL with errno set on failure. */
static inline void *gem_mmap(int fd, uint32_t handle, uint64_t size)
{
	uint64_t off;
	void *p;
	int ret;

	ret = gem_mmap_offset(fd, handle, &off);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	return p == MAP_FAILED ? NULL : p;
}

static inline int query_segment(int fd, uint32_t id,
				struct drm_wddmseg_query_segment *s)
{
	memset(s, 0, sizeof(*s));
	s->segment_id = id;
	return wioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_SEGMENT, s);
}

static inline int query_budget(int fd, uint32_t group,
			       struct drm_wddmseg_query_budget *b)
{
	memset(b, 0, sizeof(*b));
	b->group = group;
	return wioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_BUDGET, b);
}

/*
 * Content patterns: word i of a buffer filled with seed s is
 * pattern_word(s, i), a 32-bit mix, so a word that lands at the wrong
 * offset or in the wrong allocation does not match by accident.
 */
static inline uint32_t pattern_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static inline uint32_t pattern_word(uint32_t seed, uint64_t i)
{
	return pattern_mix(seed * 0x9e3779b9U ^ pattern_mix((uint32_t)i) ^
			   (uint32_t)(i >> 32));
}

static inline void pattern_fill(volatile void *p, uint64_t size, uint32_t seed)
{
	volatile uint32_t *w = p;
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		w[i] = pattern_word(seed, i);
}

/*
 * Bytes of @p that differ from the pattern; the offset of the first one in
 * *@first (unchanged when none).
 */
static inline uint64_t pattern_check(const volatile void *p, uint64_t size,
				     uint32_t seed, uint64_t *first)
{
	const volatile uint32_t *w = p;
	uint64_t i, bad = 0;
	unsigned int b;

	for (i = 0; i < size / 4; i++) {
		uint32_t got = w[i], want = pattern_word(seed, i);

		if (got == want)
			continue;
		for (b = 0; b < 4; b++) {
			if (((got ^ want) >> (8 * b)) & 0xff) {
				if (!bad && first)
					*first = i * 4 + b;
				bad++;
			}
		}
	}
	return bad;
}

/* Bytes of @p that are not @byte; the first offset in *@first. */
static inline uint64_t bytes_check(const volatile void *p, uint64_t size,
				   uint8_t byte, uint64_t *first)
{
	const volatile uint64_t *q = p;
	uint64_t want = 0x0101010101010101ULL * byte, i, bad = 0;
	unsigned int b;

	for (i = 0; i < size / 8; i++) {
		uint64_t got = q[i];

		if (got == want)
			continue;
		for (b = 0; b < 8; b++) {
			if (((got ^ want) >> (8 * b)) & 0xff) {
				if (!bad && first)
					*first = i * 8 + b;
				bad++;
			}
		}
	}
	return bad;
}

static inline void bytes_fill(volatile void *p, uint64_t size, uint8_t byte)
{
	volatile uint64_t *q = p;
	uint64_t v = 0x0101010101010101ULL * byte, i;

	for (i = 0; i < size / 8; i++)
		q[i] = v;
}

static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* WDDMSEG_GEM_H */
