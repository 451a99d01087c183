/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixture "alloc" of the wddmseg memory-management kselftests, one
 * concept per program:
 *   wddmseg_placement   placement rules, eviction, banks, VRAM made of blocks
 *   wddmseg_content     CPU mappings, content across moves, zeroing, the
 *                       GPU's view, dumb buffers
 *   wddmseg_sysmem      system pages: ExistingSysMem, PermanentSysMem,
 *                       cached pages, a non-coherent aperture
 *   wddmseg_residency   usage counters, budgets, CommitLimit, residency
 *                       events, GEM_WAIT
 *   wddmseg_refusal     accepted flags and every refusal with its errno
 *                       (and rule name when drm.debug can be raised)
 * Each program includes this once (it defines the fixture and
 * GEM_SKIP_WITHOUT_DEVICE()); the steps they share are in wddmseg_gem.h.
 *
 * The devices come from the expectation file of the VM harness
 * ($WDDMSEG_EXPECT, see wddmseg_query.c). Most tests run on the device with
 * the default layout (1: CPU-visible VRAM, 2: invisible VRAM, 3: aperture
 * with CommitLimit < Size) and the least VRAM, so that filling segments is
 * quick; others look for the segment kind they need (banks, VPR, AGP,
 * PitchAlignment) in any listed device and skip without one.
 */
#ifndef WDDMSEG_ALLOC_FIXTURE_H
#define WDDMSEG_ALLOC_FIXTURE_H

#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wddmseg_harness.h"
#include "wddmseg_gem.h"

#define MAX_EXTRA_FDS	16

FIXTURE(alloc) {
	struct gem_env env;
	struct gem_dev *def;		/* default layout, least VRAM */
	int fd;				/* render node of def */
	struct drm_wddmseg_query_segment seg[4];	/* of def, by id */
	int extra_fd[MAX_EXTRA_FDS];
	unsigned int nr_extra;
	char debug_saved[32];		/* drm.debug before we changed it */
};

GEM_SKIP_WITHOUT_DEVICE();

/* The setup of fixture alloc, and of create_refusal (wddmseg_refusal.c). */
static void alloc_fixture_setup(struct __test_metadata *_metadata,
			FIXTURE_DATA(alloc) *self)
{
	/* without the default layout, the tests that need it skip */
	self->def = gem_env_open_default(_metadata, &self->env,
					 GEM_PICK_LEAST_VRAM, &self->fd,
					 self->seg);
}

static void alloc_fixture_teardown(FIXTURE_DATA(alloc) *self)
{
	unsigned int i;

	drm_debug_restore(self->debug_saved);
	for (i = 0; i < self->nr_extra; i++)
		close(self->extra_fd[i]);
	if (self->fd >= 0)
		close(self->fd);
}

FIXTURE_SETUP(alloc)
{
	alloc_fixture_setup(_metadata, self);
}

FIXTURE_TEARDOWN(alloc)
{
	alloc_fixture_teardown(self);
}

#define NEED_DEF() do {							\
	if (SETUP_SKIPPED())	/* setup skipped */			\
		return;							\
	if (!self->def)							\
		WSKIP(return, "no device with the default layout in %s",	\
		     gem_env_source(&self->env));				\
} while (0)

/* Another open file on @node, closed by the teardown. */
static int open_extra(struct __test_metadata *_metadata,
		      FIXTURE_DATA(alloc) *self, const char *node)
{
	int fd;

	ASSERT_LT(self->nr_extra, MAX_EXTRA_FDS);
	fd = gem_open(_metadata, node);
	self->extra_fd[self->nr_extra++] = fd;
	return fd;
}

#endif /* WDDMSEG_ALLOC_FIXTURE_H */
