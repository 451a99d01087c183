// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg-churn: create and destroy many allocations of mixed sizes,
 * segments and DXGK_ALLOCATIONINFOFLAGS on every wddmseg DRM device, as the
 * load of the leak check (tools/testing/selftests/drivers/gpu/wddmseg/
 * wddmseg_leak.c). Every created allocation is destroyed before exit and
 * the program exits 0 only if every operation succeeded.
 *
 * Usage: wddmseg-churn [-n ALLOCATIONS] [-s SEED] [-v] [-d NODE]...
 *
 *   -n   allocations to create and destroy in all (default 10000)
 *   -s   seed of the pseudo-random mix (default 1); the same seed and
 *        devices give the same sequence
 *   -d   a primary node (/dev/dri/cardN); default every wddmseg device
 *   -v   one line per allocation class and device at the end
 *
 * What one run does, per device and round robin over the devices:
 *   - GEM_CREATE with a recipe chosen for the device's segment table (see
 *     build_recipes()): plain, CpuVisible[|Cached], FromEndOfSegment,
 *     SynchronousPaging|AccessedPhysically, AccessedPhysically|
 *     ExplicitResidencyNotification (events read back), CpuVisibleOnDemand
 *     in invisible VRAM (mapped, so the fault migrates it), Overlay
 *     (pinned), HardwareProtected in VPR segments, ExistingSysMem in
 *     apertures (user pages pinned), system memory only, every segment at
 *     once with an eviction set, and DRM dumb buffers;
 *   - sizes 4 KiB to 1 MiB, each at most 1/32 of the smallest segment of
 *     the recipe, so a working set of SLOTS allocations always fits;
 *   - every 4th CPU-visible allocation is mapped and written, every 8th
 *     movable one is evicted and made resident again;
 *   - a ring of SLOTS live allocations per device: creating into a busy
 *     slot destroys its previous allocation first;
 *   - the DRM file is closed and reopened every REOPEN allocations, with
 *     its allocations still open half of the time (the file release path
 *     destroys them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>
#include <wddmseg.h>

#define MAX_DEVS	16
#define MAX_RECIPES	64
#define SLOTS		16
#define REOPEN		997	/* prime, so it drifts against the other periods */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum kind { K_GEM, K_DUMB };

struct recipe {
	char name[48];
	enum kind kind;
	uint32_t flags;
	uint32_t supported;
	uint32_t eviction;
	uint8_t preferred;	/* 0: none given */
	uint64_t max_size;	/* largest size drawn for it */
	bool mappable;
	bool movable;		/* may be evicted and made resident */
	uint64_t created;	/* statistics */
	uint64_t bytes;
};

struct slot {
	bool used;
	enum kind kind;
	uint32_t handle;
	void *user;		/* ExistingSysMem backing store */
	uint64_t size;
};

struct dev {
	char node[64];
	int fd;
	uint32_t nseg;
	struct drm_wddmseg_query_segment seg[WDDMSEG_MAX_SEGMENTS];
	struct recipe recipe[MAX_RECIPES];
	unsigned int nrecipe;
	struct slot slot[SLOTS];
	unsigned int next_slot;
	uint64_t created, events, maps, evictions, reopens;
};

static const char *prog = "wddmseg-churn";
static struct dev devs[MAX_DEVS];
static unsigned int ndev;
static bool verbose;
static uint64_t rng_state = 1;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static void fail(const struct dev *d, const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s: %s\n", prog, d->node, what, strerror(-err));
	exit(1);
}

static int open_node(const char *node)
{
	return wddmseg_open_adapter(node, O_NONBLOCK);
}

/* Add @node if it is a wddmseg device; false if another driver owns it. */
static bool add_dev(const char *node)
{
	struct drm_wddmseg_query_adapter qa;
	struct dev *d;
	uint32_t i;
	int fd, ret;

	fd = open_node(node);
	if (fd == -ENODEV)
		return false;
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, node, strerror(-fd));
		exit(1);
	}
	if (ndev == MAX_DEVS) {
		fprintf(stderr, "%s: more than %d devices\n", prog, MAX_DEVS);
		exit(1);
	}
	d = &devs[ndev++];
	memset(d, 0, sizeof(*d));
	snprintf(d->node, sizeof(d->node), "%s", node);
	d->fd = fd;
	ret = wddmseg_query_adapter(fd, &qa);
	if (ret)
		fail(d, "QUERY_ADAPTER", ret);
	d->nseg = qa.segment_count;
	for (i = 0; i < d->nseg && i < WDDMSEG_MAX_SEGMENTS; i++) {
		ret = wddmseg_query_segment(fd, i + 1, NULL, 0, &d->seg[i]);
		if (ret)
			fail(d, "QUERY_SEGMENT", ret);
	}
	return true;
}

static uint64_t cap_size(uint64_t seg_bytes)
{
	uint64_t m = seg_bytes / 32;

	if (m > (1u << 20))
		m = 1u << 20;
	return m < 4096 ? 4096 : m;
}

static struct recipe *recipe_add(struct dev *d, const char *name,
				 enum kind kind, uint32_t flags,
				 uint32_t supported, uint32_t eviction,
				 uint8_t preferred, uint64_t max_size)
{
	struct recipe *r;

	if (d->nrecipe == MAX_RECIPES)
		return NULL;
	r = &d->recipe[d->nrecipe++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = kind;
	r->flags = flags;
	r->supported = supported;
	r->eviction = eviction;
	r->preferred = preferred;
	r->max_size = max_size;
	r->mappable = flags & (WDDMSEG_ALLOC_CPU_VISIBLE |
			       WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND);
	r->movable = !(flags & (WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE)) &&
		     kind == K_GEM;
	return r;
}

/* Recipes valid for the device's table (wddmseg_alloc_rules.c's rules). */
static void build_recipes(struct dev *d)
{
	uint32_t all = 0, all_evict = 0, id;
	uint64_t all_min = UINT64_MAX;
	char name[48];

	for (id = 1; id <= d->nseg; id++) {
		const struct drm_wddmseg_query_segment *s = &d->seg[id - 1];
		uint32_t bit = WDDMSEG_SEGMENT_BIT(id);
		uint64_t max = cap_size(s->commit_limit);

		if (s->flags & WDDMSEG_SEGMENT_FLAG_AGP)
			continue;	/* refused: no AGP bus */
		all |= bit;
		if (!(s->flags & WDDMSEG_SEGMENT_FLAG_PITCH_ALIGNMENT))
			all_evict |= bit;
		if (s->commit_limit < all_min)
			all_min = s->commit_limit;

		snprintf(name, sizeof(name), "seg%u plain", id);
		recipe_add(d, name, K_GEM, 0, bit, bit, id, max);
		snprintf(name, sizeof(name), "seg%u FromEndOfSegment", id);
		recipe_add(d, name, K_GEM, WDDMSEG_ALLOC_FROM_END_OF_SEGMENT,
			   bit, 0, id, max);
		snprintf(name, sizeof(name), "seg%u SynchronousPaging|AccessedPhysically", id);
		recipe_add(d, name, K_GEM, WDDMSEG_ALLOC_SYNCHRONOUS_PAGING |
			   WDDMSEG_ALLOC_ACCESSED_PHYSICALLY, bit, bit, id, max);
		snprintf(name, sizeof(name), "seg%u ExplicitResidencyNotification", id);
		recipe_add(d, name, K_GEM, WDDMSEG_ALLOC_ACCESSED_PHYSICALLY |
			   WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION,
			   bit, bit, id, max);
		if (wddmseg_segment_cpu_visible(s->flags)) {
			snprintf(name, sizeof(name), "seg%u CpuVisible", id);
			recipe_add(d, name, K_GEM, WDDMSEG_ALLOC_CPU_VISIBLE,
				   bit, bit, id, max);
			snprintf(name, sizeof(name), "seg%u CpuVisible|Cached", id);
			recipe_add(d, name, K_GEM, WDDMSEG_ALLOC_CPU_VISIBLE |
				   WDDMSEG_ALLOC_CACHED, bit, bit, id, max);
		} else {
			snprintf(name, sizeof(name), "seg%u CpuVisibleOnDemand", id);
			recipe_add(d, name, K_GEM,
				   WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
				   bit, bit, id, max);
		}
		if (!wddmseg_segment_is_aperture(s->flags)) {
			/* pinned in the last 20%: keep them small */
			snprintf(name, sizeof(name), "seg%u Overlay", id);
			recipe_add(d, name, K_GEM, WDDMSEG_ALLOC_OVERLAY,
				   bit, 0, id, 4096);
		}
		if (s->flags & WDDMSEG_SEGMENT_FLAG_VPR_SUPPORTED) {
			struct recipe *r;

			snprintf(name, sizeof(name), "seg%u HardwareProtected", id);
			r = recipe_add(d, name, K_GEM,
				       WDDMSEG_ALLOC_HARDWARE_PROTECTED,
				       bit, bit, id, max);
			/* without encrypted paging it never leaves the segment */
			if (r && !(s->flags &
				      WDDMSEG_SEGMENT_FLAG_ENCRYPTED_PAGING_SUPPORTED))
				r->movable = false;
		}
		if (s->flags & WDDMSEG_SEGMENT_FLAG_APERTURE) {
			snprintf(name, sizeof(name), "seg%u ExistingSysMem", id);
			recipe_add(d, name, K_GEM, WDDMSEG_ALLOC_EXISTING_SYSMEM,
				   bit, bit, id, max);
		}
	}
	recipe_add(d, "system CpuVisible", K_GEM, WDDMSEG_ALLOC_CPU_VISIBLE,
		   0, 0, 0, 1u << 20);
	recipe_add(d, "system", K_GEM, 0, 0, 0, 0, 1u << 20);
	if (all)
		recipe_add(d, "all segments, eviction set", K_GEM, 0, all,
			   all_evict, 0, cap_size(all_min));
	/* the dumb path picks the visible segments itself */
	recipe_add(d, "dumb", K_DUMB, 0, 0, 0, 0, 1u << 20);
}

static uint64_t draw_size(uint64_t max)
{
	static const uint64_t sizes[] = {
		4096, 4096, 4096, 4096, 8192, 16384, 16384, 65536, 65536,
		262144, 1048576,
	};
	uint64_t s;

	do
		s = sizes[rnd() % ARRAY_SIZE(sizes)];
	while (s > max);
	/* not always a multiple of the page: the driver rounds up */
	if (rnd() % 4 == 0 && s > 4096)
		s -= 100;
	return s;
}

static void drain_events(struct dev *d)
{
	struct drm_wddmseg_event_residency e[64];
	int n;

	while ((n = wddmseg_read_residency_events(d->fd, e, 64, 0)) >= 0)
		d->events += n;
	if (n != -ETIME && n != -EINTR)
		fail(d, "read events", n);
}

static void destroy_slot(struct dev *d, struct slot *s)
{
	int ret;

	if (!s->used)
		return;
	if (s->kind == K_DUMB)
		ret = drmModeDestroyDumbBuffer(d->fd, s->handle);
	else
		ret = wddmseg_destroy_allocation(d->fd, s->handle);
	if (ret)
		fail(d, "close", ret);
	if (s->user)
		munmap(s->user, s->size);
	memset(s, 0, sizeof(*s));
}

static void map_and_write(struct dev *d, struct slot *s, bool dumb)
{
	uint64_t offset;
	void *p;
	int ret;

	if (dumb) {
		ret = drmModeMapDumbBuffer(d->fd, s->handle, &offset);
		if (ret)
			fail(d, "MAP_DUMB", ret);
		p = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 d->fd, offset);
		if (p == MAP_FAILED)
			fail(d, "mmap", -errno);
	} else {
		ret = wddmseg_lock(d->fd, s->handle, s->size, &p);
		if (ret)
			fail(d, "lock", ret);
	}
	memset(p, 0xa5, 4096);
	((volatile char *)p)[s->size - 1] = 0x5a;
	munmap(p, s->size);
	d->maps++;
}

static void evict_restore(struct dev *d, struct slot *s)
{
	int ret;

	ret = wddmseg_evict(d->fd, s->handle, 0);
	if (ret)
		fail(d, "GEM_EVICT", ret);
	ret = wddmseg_make_resident(d->fd, s->handle, 0);
	if (ret)
		fail(d, "GEM_MAKE_RESIDENT", ret);
	d->evictions++;
}

static void create_one(struct dev *d)
{
	struct recipe *r = &d->recipe[rnd() % d->nrecipe];
	struct slot *s = &d->slot[d->next_slot];
	uint64_t size = draw_size(r->max_size);
	int ret;

	d->next_slot = (d->next_slot + 1) % SLOTS;
	destroy_slot(d, s);

	if (r->kind == K_DUMB) {
		/* 32 bpp, 1024 pixels wide: size / 4096 rows */
		uint32_t pitch;

		ret = drmModeCreateDumbBuffer(d->fd, 1024, (size + 4095) / 4096,
					      32, 0, &s->handle, &pitch,
					      &s->size);
		if (ret)
			fail(d, "CREATE_DUMB", ret);
	} else {
		struct wddmseg_allocation_desc a = {
			.flags = r->flags,
			.supported_segments = r->supported,
			.eviction_segments = r->eviction,
			.preferred = { r->preferred },
		};

		if (r->flags & WDDMSEG_ALLOC_EXISTING_SYSMEM) {
			size = (size + 4095) & ~4095ULL;
			s->user = mmap(NULL, size, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (s->user == MAP_FAILED)
				fail(d, "mmap anonymous", -errno);
			memset(s->user, 0x3c, size);
			a.user_ptr = s->user;
		}
		a.size = size;
		ret = wddmseg_create_allocation(d->fd, &a, &s->handle);
		if (ret) {
			char what[96];

			snprintf(what, sizeof(what), "GEM_CREATE %s, %" PRIu64 " bytes",
				 r->name, size);
			fail(d, what, ret);
		}
		s->size = (size + 4095) & ~4095ULL;
	}
	s->used = true;
	s->kind = r->kind;
	r->created++;
	r->bytes += s->size;
	d->created++;

	if ((r->mappable || r->kind == K_DUMB) && d->created % 4 == 0)
		map_and_write(d, s, r->kind == K_DUMB);
	if (r->movable && d->created % 8 == 0)
		evict_restore(d, s);
	/* TTM evictions of other allocations send events at any time */
	drain_events(d);
}

static void reopen(struct dev *d)
{
	unsigned int i;

	drain_events(d);
	/* half of the time the file release destroys what is left */
	if (d->reopens % 2 == 0)
		for (i = 0; i < SLOTS; i++)
			destroy_slot(d, &d->slot[i]);
	for (i = 0; i < SLOTS; i++) {
		if (d->slot[i].user)
			munmap(d->slot[i].user, d->slot[i].size);
		memset(&d->slot[i], 0, sizeof(d->slot[i]));
	}
	wddmseg_close_adapter(d->fd);
	d->fd = open_node(d->node);
	if (d->fd < 0)
		fail(d, "reopen", d->fd);
	d->reopens++;
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [-n ALLOCATIONS] [-s SEED] [-v] [-d NODE]...\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t n = 10000, i, total_bytes = 0;
	unsigned int k, j;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:d:vh")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 's':
			rng_state = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'd':
			if (!add_dev(optarg)) {
				fprintf(stderr, "%s: %s is not a wddmseg device\n",
					prog, optarg);
				return 1;
			}
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!ndev) {
		glob_t g;

		/* primary nodes: dumb buffers are not allowed on render nodes */
		if (glob("/dev/dri/card*", 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++)
				add_dev(g.gl_pathv[i]);
			globfree(&g);
		}
	}
	if (!ndev) {
		fprintf(stderr, "%s: no wddmseg device\n", prog);
		return 1;
	}
	for (k = 0; k < ndev; k++)
		build_recipes(&devs[k]);

	for (i = 0; i < n; i++) {
		struct dev *d = &devs[i % ndev];

		create_one(d);
		if (d->created % REOPEN == 0)
			reopen(d);
	}
	for (k = 0; k < ndev; k++) {
		struct dev *d = &devs[k];

		for (j = 0; j < SLOTS; j++)
			destroy_slot(d, &d->slot[j]);
		drain_events(d);
		wddmseg_close_adapter(d->fd);
		for (j = 0; j < d->nrecipe; j++)
			total_bytes += d->recipe[j].bytes;
	}

	printf("%s: %" PRIu64 " allocations created and destroyed on %u device(s), %" PRIu64 " MiB in all\n",
	       prog, n, ndev, total_bytes >> 20);
	for (k = 0; k < ndev; k++) {
		struct dev *d = &devs[k];

		printf("%s: %s: %" PRIu64 " allocations in %u classes, %" PRIu64
		       " mapped, %" PRIu64 " evicted+restored, %" PRIu64
		       " residency events, %" PRIu64 " file reopens\n",
		       prog, d->node, d->created, d->nrecipe, d->maps,
		       d->evictions, d->events, d->reopens);
		if (!verbose)
			continue;
		for (j = 0; j < d->nrecipe; j++)
			printf("%s:   %-44s %6" PRIu64 " allocations %8" PRIu64 " KiB\n",
			       prog, d->recipe[j].name, d->recipe[j].created,
			       d->recipe[j].bytes >> 10);
	}
	return 0;
}
