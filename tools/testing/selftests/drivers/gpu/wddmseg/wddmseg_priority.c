// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg allocation priority (DOC: Allocation priority, wddmseg_offer.c)
 * reservations and trim notifications (DOC: Reservations, DOC: Trim
 * notifications, wddmseg_budget.c):
 *
 * - priority_orders_eviction: in a full invisible VRAM segment whose
 *   allocations were given priorities in the order that makes the LRU
 *   pick the wrong ones (HIGH and MAXIMUM least recently used, MINIMUM and
 *   LOW most recently), room is made by evicting MINIMUM and LOW first,
 *   then NORMAL, while HIGH and MAXIMUM stay.
 * - priority_across_files: the same between two processes: a child's LOW
 *   allocations are evicted for the parent's new ones before the parent's
 *   older NORMAL ones, and the child's HIGH ones stay.
 * - priority_offered_first: an offered allocation goes before a MINIMUM
 *   one; once reclaimed it is back at the priority it was given (HIGH,
 *   also read back by GEM_INFO) and outlives a NORMAL one.
 * - priority_offer_order: offered HIGH, NORMAL, then LOW, the LOW one is
 *   discarded first and the HIGH one last (the offer priority orders
 *   discards within the offered list), a GEM_INFO in between or not.
 * - priority_bad_input: every refusal with its errno and rule name, all
 *   or nothing, the default (NORMAL), GEM_INFO's read-back and the
 *   library's one-priority-per-handle call.
 * - reservation_kept: a process's reservation (SET_RESERVATION) keeps its
 *   allocations from evictions made for another process, down to the
 *   reserved bytes; what is above them goes as before.
 * - reservation_bad_input: the refusals, the read-back, the non-local
 *   group, and what is available to each file.
 * - trim_notified: a file over its budget share gets a trim event when a
 *   second process's allocation evicts; fdinfo counts it.
 * - trim_enforced: one that ignores it is trimmed by the driver after the
 *   grace period, lowest priority first, and only it.
 * - trim_self: one that trims in time is left alone; fdinfo counts what
 *   it gave back.
 * - trim_three_processes: three processes oversubscribe the local group
 *   twice over: the one that trims keeps its working set, the one that
 *   ignores its notifications loses its least recently used allocations
 *   to the driver, the one within its budget loses nothing.
 * - trim_bad_input: REGISTER_TRIM_NOTIFICATION's refusals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wddmseg_alloc_fixture.h"

#define PRIO_MAX_BOS	64

#define P_MIN	WDDMSEG_ALLOCATION_PRIORITY_MINIMUM
#define P_LOW	WDDMSEG_ALLOCATION_PRIORITY_LOW
#define P_NORM	WDDMSEG_ALLOCATION_PRIORITY_NORMAL
#define P_HIGH	WDDMSEG_ALLOCATION_PRIORITY_HIGH
#define P_MAX	WDDMSEG_ALLOCATION_PRIORITY_MAXIMUM

static int set_prio(int fd, uint32_t h, uint32_t prio)
{
	return wddmseg_set_allocation_priority(fd, &h, 1, &prio);
}

/*
 * The chunk size and how many chunks fill what is free of the invisible
 * VRAM segment: 0 when there is not room for at least @need of them.
 */
static unsigned int prio_chunks(struct __test_metadata *_metadata, int fd,
				unsigned int need, uint64_t *chunk)
{
	struct drm_wddmseg_query_segment qs;
	uint64_t room, n;

	qseg(_metadata, fd, SEG_INV, &qs);
	room = qs.size - qs.usage_bytes;
	*chunk = (qs.size / 16) & ~(uint64_t)(SZ_64K - 1);
	if (!*chunk)
		return 0;
	n = room / *chunk;
	return n >= need && n <= PRIO_MAX_BOS ? n : 0;
}

/* A new allocation of @size in the invisible segment, at @prio. */
static int prio_place(int fd, uint64_t size, uint32_t prio, uint32_t *h)
{
	int ret = gem_create_any(fd, size, SEG_VIS, h);

	if (!ret && prio != P_NORM)
		ret = set_prio(fd, *h, prio);
	if (!ret)
		ret = gem_move_wait(fd, *h, SEG_INV);
	return ret;
}

/*
 * Where @h is and whether it was evicted: 0 for "in the invisible
 * segment, never evicted", 1 for "evicted to system memory once", -1
 * otherwise. Reading GEM_INFO makes @h the most recently used of its
 * list: only call it once no eviction is to come.
 */
static int prio_state(struct __test_metadata *_metadata, int fd, uint32_t h)
{
	struct drm_wddmseg_gem_info info;

	info_of(_metadata, fd, h, &info);
	if (info.segment_id == SEG_INV && !info.eviction_count)
		return 0;
	if (info.segment_id == 0 && info.eviction_count == 1)
		return 1;
	return -1;
}

static const char *prio_name(uint32_t p)
{
	switch (p) {
	case P_MIN: return "MINIMUM";
	case P_LOW: return "LOW";
	case P_NORM: return "NORMAL";
	case P_HIGH: return "HIGH";
	case P_MAX: return "MAXIMUM";
	}
	return "?";
}

TEST_F_TIMEOUT(alloc, priority_orders_eviction, 300)
{
	uint32_t h[PRIO_MAX_BOS], prio[PRIO_MAX_BOS], p[PRIO_MAX_BOS];
	/* Set in this order: the LRU would evict the first ones first. */
	static const uint32_t order[] = { P_HIGH, P_MAX, P_NORM, P_LOW, P_MIN };
	unsigned int n, i, k, np = 0, low = 0, normal = 0;
	uint64_t chunk;

	NEED_DEF();
	n = prio_chunks(_metadata, self->fd, 7, &chunk);
	if (!n)
		WSKIP(return, "segment 2: not room for 7 allocations");

	/* 1 MINIMUM, 2 LOW, 2 HIGH, 1 MAXIMUM, the rest NORMAL */
	for (i = 0; i < n; i++) {
		prio[i] = i == 0 ? P_MIN : i < 3 ? P_LOW : i < 5 ? P_HIGH :
			  i == 5 ? P_MAX : P_NORM;
		low += prio[i] < P_NORM;
		normal += prio[i] == P_NORM;
		ASSERT_EQ(0, gem_create_any(self->fd, chunk, SEG_VIS, &h[i]));
		ASSERT_EQ(0, gem_move_wait(self->fd, h[i], SEG_INV));
	}
	/* the segment is full; HIGH first ... MINIMUM last in the LRU */
	for (k = 0; k < ARRAY_SIZE(order); k++) {
		for (i = 0; i < n; i++) {
			if (prio[i] == order[k])
				ASSERT_EQ(0, set_prio(self->fd, h[i], prio[i]));
		}
	}

	/* room for as many as are MINIMUM or LOW: exactly they go */
	for (i = 0; i < low; i++)
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &p[np++]));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(prio[i] < P_NORM ? 1 : 0,
			  prio_state(_metadata, self->fd, h[i]))
			TH_LOG("allocation %u (%s) after %u new ones", i,
			       prio_name(prio[i]), low);
	}

	/*
	 * GEM_INFO touched them in index order: the NORMAL ones last, so
	 * after the new ones and the HIGH and MAXIMUM ones in the LRU
	 */
	for (i = 0; i < normal; i++)
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &p[np++]));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(prio[i] <= P_NORM ? 1 : 0,
			  prio_state(_metadata, self->fd, h[i]))
			TH_LOG("allocation %u (%s) after %u more", i,
			       prio_name(prio[i]), normal);
	}

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[i]));
	for (i = 0; i < np; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, p[i]));
}

/* Pipe messages between the parent and the child of priority_across_files. */
static int msg_put(int fd, char c)
{
	return write(fd, &c, 1) == 1 ? 0 : -1;
}

static int msg_get(int fd, char want)
{
	char c;

	return read(fd, &c, 1) == 1 && c == want ? 0 : -1;
}

/* A child process of a test, its own DRM file, and the pipes to it. */
struct kid {
	pid_t pid;
	int in;		/* what the child writes */
	int out;	/* what the child reads */
};

typedef int (*kid_fn)(const char *node, uint64_t chunk, int in, int out);

/*
 * Fork a child that runs @fn(@node, @chunk, its end of the pipes) and
 * exits with what it returns. In the parent, 0 or -errno.
 */
static int kid_start(struct kid *k, kid_fn fn, const char *node,
		     uint64_t chunk)
{
	int to[2], from[2];

	if (pipe(to))
		return -errno;
	if (pipe(from)) {
		close(to[0]);
		close(to[1]);
		return -errno;
	}
	k->pid = fork();
	if (k->pid < 0) {
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		return -errno;
	}
	if (!k->pid) {
		close(to[1]);
		close(from[0]);
		_exit(fn(node, chunk, to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	k->in = from[0];
	k->out = to[1];
	return 0;
}

/* Reap @k (after its last message); its wait status, or -1. */
static int kid_end(struct kid *k)
{
	int status;

	close(k->out);
	if (waitpid(k->pid, &status, 0) != k->pid)
		status = -1;
	close(k->in);
	return status;
}

/* Reap @k: did it exit with 0? @what says what its other codes mean. */
#define EXPECT_KID_OK(k, what) do {					\
	int st_ = kid_end(k);						\
									\
	EXPECT_TRUE(WIFEXITED(st_) && WEXITSTATUS(st_) == 0)		\
		TH_LOG("child status 0x%x (%s)", st_, what);		\
} while (0)

#define CHILD_LOW	2
#define CHILD_HIGH	2

/*
 * The child of priority_across_files: its own DRM file on @node, CHILD_LOW
 * + CHILD_HIGH allocations of @chunk in the invisible segment. Exit 0 if
 * after the parent's pressure its LOW ones were evicted and its HIGH ones
 * were not; 10 + step on a failure.
 */
static int prio_child(const char *node, uint64_t chunk, int in, int out)
{
	uint32_t h[CHILD_LOW + CHILD_HIGH];
	struct drm_wddmseg_gem_info info;
	unsigned int i;
	int fd;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 10;
	for (i = 0; i < ARRAY_SIZE(h); i++) {
		if (gem_create_any(fd, chunk, SEG_VIS, &h[i]) ||
		    gem_move_wait(fd, h[i], SEG_INV))
			return 11;
	}
	if (msg_put(out, 'a') || msg_get(in, 'f'))	/* parent filled */
		return 12;
	/* the parent's NORMAL ones are now older than all of ours */
	for (i = 0; i < ARRAY_SIZE(h); i++)
		if (set_prio(fd, h[i], i < CHILD_LOW ? P_LOW : P_HIGH))
			return 13;
	if (msg_put(out, 'b') || msg_get(in, 'p'))	/* parent pressed */
		return 14;
	for (i = 0; i < ARRAY_SIZE(h); i++) {
		if (wddmseg_query_allocation(fd, h[i], &info))
			return 15;
		if (i < CHILD_LOW ? info.segment_id != 0 || !info.eviction_count :
				    info.segment_id != SEG_INV ||
				    info.eviction_count)
			return 20 + i;
	}
	close(fd);
	return 0;
}

TEST_F_TIMEOUT(alloc, priority_across_files, 300)
{
	uint32_t h[PRIO_MAX_BOS], p[CHILD_LOW];
	unsigned int n, i;
	uint64_t chunk;
	struct kid k;

	NEED_DEF();
	n = prio_chunks(_metadata, self->fd, CHILD_LOW + CHILD_HIGH + 2,
			&chunk);
	if (!n)
		WSKIP(return, "segment 2: not room for %u allocations",
		      CHILD_LOW + CHILD_HIGH + 2);
	n -= CHILD_LOW + CHILD_HIGH;
	ASSERT_EQ(0, kid_start(&k, prio_child, self->def->render, chunk));

	/* the child's first, then the parent's: the segment is full */
	ASSERT_EQ(0, msg_get(k.in, 'a'));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, gem_create_any(self->fd, chunk, SEG_VIS, &h[i]));
		ASSERT_EQ(0, gem_move_wait(self->fd, h[i], SEG_INV));
	}
	ASSERT_EQ(0, msg_put(k.out, 'f'));
	ASSERT_EQ(0, msg_get(k.in, 'b'));
	/* room for as many as the child has LOW ones */
	for (i = 0; i < CHILD_LOW; i++)
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &p[i]));
	ASSERT_EQ(0, msg_put(k.out, 'p'));
	EXPECT_KID_OK(&k, "exit 2x: its allocation x was misplaced");
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, prio_state(_metadata, self->fd, h[i]))
			TH_LOG("the parent's NORMAL allocation %u", i);
	}
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[i]));
	for (i = 0; i < CHILD_LOW; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, p[i]));
}

TEST_F_TIMEOUT(alloc, priority_offered_first, 300)
{
	uint32_t h[PRIO_MAX_BOS], o, m, nrm, p[2], res;
	struct drm_wddmseg_gem_info info;
	unsigned int n, i, nf;
	uint64_t chunk;

	NEED_DEF();
	n = prio_chunks(_metadata, self->fd, 4, &chunk);
	if (!n)
		WSKIP(return, "segment 2: not room for 4 allocations");
	nf = n - 3;
	ASSERT_EQ(0, prio_place(self->fd, chunk, P_HIGH, &o));
	ASSERT_EQ(0, prio_place(self->fd, chunk, P_NORM, &nrm));
	ASSERT_EQ(0, prio_place(self->fd, chunk, P_NORM, &m));
	for (i = 0; i < nf; i++)
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &h[i]));
	/* offered first, the MINIMUM one most recently used */
	ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, &o, 1,
					       WDDMSEG_OFFER_PRIORITY_HIGH));
	ASSERT_EQ(0, set_prio(self->fd, m, P_MIN));
	ASSERT_EQ(0, set_prio(self->fd, nrm, P_NORM));

	/* one more: the offered one goes, not the MINIMUM one */
	ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &p[0]));
	EXPECT_EQ(1, prio_state(_metadata, self->fd, o)) TH_LOG("offered");
	EXPECT_EQ(0, prio_state(_metadata, self->fd, m)) TH_LOG("MINIMUM");
	EXPECT_EQ(0, prio_state(_metadata, self->fd, nrm)) TH_LOG("NORMAL");
	for (i = 0; i < nf; i++) {
		EXPECT_EQ(0, prio_state(_metadata, self->fd, h[i]))
			TH_LOG("MAXIMUM allocation %u", i);
	}

	/* offered, its priority is kept; reclaimed, it is HIGH again */
	info_of(_metadata, self->fd, o, &info);
	EXPECT_EQ(P_HIGH, info.priority);
	EXPECT_EQ(WDDMSEG_OFFER_PRIORITY_HIGH, info.offer_priority);
	ASSERT_EQ(0, wddmseg_reclaim_allocations(self->fd, &o, 1, 0, &res));
	EXPECT_EQ(WDDMSEG_RECLAIM_DISCARDED, res);
	info_of(_metadata, self->fd, o, &info);
	EXPECT_EQ(P_HIGH, info.priority);
	EXPECT_EQ(0, info.offer_priority);
	/* making it resident again evicts the MINIMUM one */
	ASSERT_EQ(0, gem_move_wait(self->fd, o, SEG_INV));
	EXPECT_EQ(1, prio_state(_metadata, self->fd, m))
		TH_LOG("MINIMUM, made room for the reclaimed one");
	/* the NORMAL one used after it: were o NORMAL, o would go now */
	ASSERT_EQ(0, set_prio(self->fd, nrm, P_NORM));
	ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &p[1]));
	EXPECT_EQ(1, prio_state(_metadata, self->fd, nrm))
		TH_LOG("NORMAL, used after the reclaimed HIGH one");
	info_of(_metadata, self->fd, o, &info);
	EXPECT_EQ(SEG_INV, info.segment_id) TH_LOG("reclaimed HIGH allocation");
	for (i = 0; i < nf; i++) {
		EXPECT_EQ(0, prio_state(_metadata, self->fd, h[i]))
			TH_LOG("MAXIMUM allocation %u", i);
	}

	for (i = 0; i < nf; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[i]));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, o));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, m));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, nrm));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, p[0]));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, p[1]));
}

/*
 * Offered HIGH, then NORMAL, then LOW, each by its own OFFER: least
 * recently used first would discard the HIGH one first. The offer
 * priority orders the discards within the offered list: LOW, NORMAL,
 * HIGH, one per new allocation, whatever the order of the offers; and a
 * GEM_INFO of the LOW one in between (TTM's unreserve makes an allocation
 * the most recently used of its list) does not change that.
 */
TEST_F_TIMEOUT(alloc, priority_offer_order, 300)
{
	static const uint32_t op[3] = { WDDMSEG_OFFER_PRIORITY_HIGH,
					WDDMSEG_OFFER_PRIORITY_NORMAL,
					WDDMSEG_OFFER_PRIORITY_LOW };
	static const char * const on[3] = { "HIGH", "NORMAL", "LOW" };
	uint32_t h[PRIO_MAX_BOS], o[3], p[3], res[3];
	struct drm_wddmseg_gem_info info;
	unsigned int n, i, k, nf;
	uint64_t chunk;

	NEED_DEF();
	n = prio_chunks(_metadata, self->fd, 4, &chunk);
	if (!n)
		WSKIP(return, "segment 2: not room for 4 allocations");
	nf = n - 3;
	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_NORM, &o[k]));
	for (i = 0; i < nf; i++)
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &h[i]));
	/* the segment is full; offered HIGH first, LOW last */
	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, &o[k], 1,
						       op[k]));
	info_of(_metadata, self->fd, o[2], &info);
	EXPECT_EQ(WDDMSEG_OFFER_PRIORITY_LOW, info.offer_priority);

	/* each new allocation discards one: LOW, then NORMAL, then HIGH */
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_MAX, &p[k]));
		for (i = 0; i < 3; i++) {
			/* o[2 - k] is the one to go now */
			EXPECT_EQ(i >= 2 - k ? 1 : 0,
				  prio_state(_metadata, self->fd, o[i]))
				TH_LOG("offered %s after %u new allocations",
				       on[i], k + 1);
		}
		for (i = 0; i < nf; i++) {
			EXPECT_EQ(0, prio_state(_metadata, self->fd, h[i]))
				TH_LOG("MAXIMUM allocation %u", i);
		}
	}
	ASSERT_EQ(0, wddmseg_reclaim_allocations(self->fd, o, 3, 0, res));
	for (k = 0; k < 3; k++) {
		EXPECT_EQ(WDDMSEG_RECLAIM_DISCARDED, res[k])
			TH_LOG("offered %s", on[k]);
	}

	for (i = 0; i < nf; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[i]));
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, o[k]));
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, p[k]));
	}
}

static int set_raw(int fd, struct drm_wddmseg_set_allocation_priority *s)
{
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_SET_ALLOCATION_PRIORITY, s);
}

static uint32_t prio_of(struct __test_metadata *_metadata, int fd, uint32_t h)
{
	struct drm_wddmseg_gem_info info;

	info_of(_metadata, fd, h, &info);
	return info.priority;
}

TEST_F_TIMEOUT(alloc, priority_bad_input, 120)
{
	static const uint32_t bad[] = {
		0, 1, P_NORM - 1, P_NORM + 1, 0xffffffffu,
	};
	static const uint32_t good[] = { P_MIN, P_LOW, P_NORM, P_HIGH, P_MAX };
	struct drm_wddmseg_set_allocation_priority s;
	uint32_t h, g, h2[2], pr2[2], none = 0xfffffff0u;
	struct drm_wddmseg_gem_info info;
	int kmsg = -1, fd2;
	unsigned int i;

	NEED_DEF();
	if (!drm_debug_raise(DRM_UT_DRIVER, self->debug_saved,
			     sizeof(self->debug_saved)))
		kmsg = kmsg_open_end();
	ASSERT_EQ(0, gem_create_any(self->fd, SZ_64K, SEG_VIS, &h));
	ASSERT_EQ(0, gem_create_any(self->fd, SZ_64K, SEG_VIS, &g));
	EXPECT_EQ(P_NORM, prio_of(_metadata, self->fd, h)) TH_LOG("default");

	/* every value, read back */
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, set_prio(self->fd, h, good[i]));
		EXPECT_EQ(good[i], prio_of(_metadata, self->fd, h));
	}

	memset(&s, 0, sizeof(s));
	s.handles = (uintptr_t)&h;
	s.count = 1;
	kmsg_drain_rules(kmsg);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		s.priority = bad[i];
		EXPECT_EQ(-EINVAL, set_raw(self->fd, &s))
			TH_LOG("priority 0x%x", bad[i]);
		EXPECT_KMSG_RULE(kmsg, "prio-value");
	}
	s.priority = P_LOW;
	s.flags = 1;
	EXPECT_EQ(-EINVAL, set_raw(self->fd, &s));
	EXPECT_KMSG_RULE(kmsg, "prio-flags");
	s.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, set_raw(self->fd, &s));
	EXPECT_KMSG_RULE(kmsg, "prio-flags");
	s.flags = 0;
	s.pad = 1;
	EXPECT_EQ(-EINVAL, set_raw(self->fd, &s));
	EXPECT_KMSG_RULE(kmsg, "prio-reserved");
	s.pad = 0;
	for (i = 0; i < ARRAY_SIZE(s.reserved); i++) {
		s.reserved[i] = 1;
		EXPECT_EQ(-EINVAL, set_raw(self->fd, &s))
			TH_LOG("reserved[%u]", i);
		EXPECT_KMSG_RULE(kmsg, "prio-reserved");
		s.reserved[i] = 0;
	}
	s.count = 0;
	EXPECT_EQ(-EINVAL, set_raw(self->fd, &s));
	EXPECT_KMSG_RULE(kmsg, "prio-count");
	s.count = WDDMSEG_OFFER_MAX_HANDLES + 1;
	EXPECT_EQ(-EINVAL, set_raw(self->fd, &s));
	EXPECT_KMSG_RULE(kmsg, "prio-count");
	s.count = 1;
	s.handles = 8;	/* not user memory */
	EXPECT_EQ(-EFAULT, set_raw(self->fd, &s));
	/* none of these changed it */
	EXPECT_EQ(P_MAX, prio_of(_metadata, self->fd, h));

	/* unknown handles, another file's */
	EXPECT_EQ(-ENOENT, set_prio(self->fd, none, P_LOW));
	fd2 = open_extra(_metadata, self, self->def->render);
	EXPECT_EQ(-ENOENT, set_prio(fd2, h, P_LOW));

	/* all or nothing: a bad handle or a handle twice changes nothing */
	h2[0] = h;
	pr2[0] = P_LOW;
	pr2[1] = P_LOW;
	s.handles = (uintptr_t)h2;
	s.count = 2;
	s.priority = P_LOW;
	h2[1] = none;
	EXPECT_EQ(-ENOENT, set_raw(self->fd, &s));
	EXPECT_EQ(P_MAX, prio_of(_metadata, self->fd, h));
	h2[1] = h;
	kmsg_drain_rules(kmsg);
	EXPECT_EQ(-EINVAL, wddmseg_set_allocation_priority(self->fd, h2, 2, pr2));
	EXPECT_KMSG_RULE(kmsg, "prio-duplicate");
	EXPECT_EQ(P_MAX, prio_of(_metadata, self->fd, h));

	/* the library: one priority per handle */
	h2[1] = g;
	pr2[0] = P_MIN;
	pr2[1] = P_HIGH;
	EXPECT_EQ(0, wddmseg_set_allocation_priority(self->fd, h2, 2, pr2));
	EXPECT_EQ(P_MIN, prio_of(_metadata, self->fd, h2[0]));
	EXPECT_EQ(P_HIGH, prio_of(_metadata, self->fd, h2[1]));
	/* ...checked before any call: nothing changes */
	pr2[0] = P_LOW;
	pr2[1] = 7;
	EXPECT_EQ(-EINVAL, wddmseg_set_allocation_priority(self->fd, h2, 2, pr2));
	EXPECT_EQ(P_MIN, prio_of(_metadata, self->fd, h2[0]));

	/* set while offered: kept, and the allocation stays offered */
	ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, &h, 1,
					       WDDMSEG_OFFER_PRIORITY_LOW));
	ASSERT_EQ(0, set_prio(self->fd, h, P_LOW));
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(P_LOW, info.priority);
	EXPECT_EQ(WDDMSEG_OFFER_PRIORITY_LOW, info.offer_priority);
	EXPECT_EQ(-EINVAL, wddmseg_make_resident(self->fd, h, SEG_VIS))
		TH_LOG("still offered");

	if (kmsg >= 0)
		close(kmsg);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, g));
}

/* Reservations (DOC: Reservations, wddmseg_budget.c) */

#define RESV_CHILD	3	/* the child's allocations */
#define RESV_KEPT	2	/* chunks its reservation keeps */

/*
 * The child of reservation_kept: its own DRM file on @node, RESV_CHILD
 * allocations of @chunk in the invisible segment, a reservation of
 * RESV_KEPT chunks. Exit 0 if after the parent's pressure exactly the
 * least recently used one was evicted (the file was over its
 * reservation by one chunk) and the others stayed; 10 + step on a
 * failure.
 */
static int resv_child(const char *node, uint64_t chunk, int in, int out)
{
	struct drm_wddmseg_query_budget b;
	struct drm_wddmseg_gem_info info;
	uint32_t h[RESV_CHILD];
	unsigned int i;
	int fd;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 10;
	for (i = 0; i < RESV_CHILD; i++) {
		if (gem_create_any(fd, chunk, SEG_VIS, &h[i]) ||
		    gem_move_wait(fd, h[i], SEG_INV))
			return 11;
	}
	if (wddmseg_set_video_memory_reservation(fd, WDDMSEG_BUDGET_LOCAL,
						 RESV_KEPT * chunk))
		return 12;
	if (wddmseg_query_budget(fd, WDDMSEG_BUDGET_LOCAL, &b) ||
	    b.current_reservation != RESV_KEPT * chunk ||
	    b.current_usage < RESV_CHILD * chunk)
		return 13;
	if (msg_put(out, 'a') || msg_get(in, 'p'))	/* parent pressed */
		return 14;
	for (i = 0; i < RESV_CHILD; i++) {
		if (wddmseg_query_allocation(fd, h[i], &info))
			return 15;
		if (i == 0 ? info.segment_id != 0 || info.eviction_count != 1 :
			     info.segment_id != SEG_INV || info.eviction_count)
			return 20 + i;
	}
	if (wddmseg_query_budget(fd, WDDMSEG_BUDGET_LOCAL, &b) ||
	    b.current_usage < RESV_KEPT * chunk)
		return 16;
	close(fd);
	return 0;
}

/*
 * reservation_kept: a child reserves two of its three allocations in the
 * full invisible segment; the parent, another process, makes room for
 * three of its own. The child's least recently used allocation goes (it
 * was over its reservation), its two others stay although they are the
 * least recently used of the segment, and the parent's own older ones
 * go instead. The parent sees the child's reservation in what is left
 * for its own, and gets it back when the child's file is closed.
 */
TEST_F_TIMEOUT(alloc, reservation_kept, 300)
{
	uint32_t h[PRIO_MAX_BOS], p[RESV_CHILD];
	struct drm_wddmseg_query_budget b;
	unsigned int n, i, evicted = 0;
	uint64_t chunk, half;
	struct kid k;

	NEED_DEF();
	n = prio_chunks(_metadata, self->fd, RESV_CHILD + RESV_CHILD + 1,
			&chunk);
	if (!n)
		WSKIP(return, "segment 2: not room for %u allocations",
		      2 * RESV_CHILD + 1);
	n -= RESV_CHILD;
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	half = b.budget / 2;
	ASSERT_EQ(0, b.current_reservation);
	ASSERT_EQ(half, b.available_for_reservation)
		TH_LOG("nobody has a reservation: half the budget %llu",
		       (unsigned long long)b.budget);
	ASSERT_LE(RESV_KEPT * chunk, half);

	ASSERT_EQ(0, kid_start(&k, resv_child, self->def->render, chunk));
	ASSERT_EQ(0, msg_get(k.in, 'a'));
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(half - RESV_KEPT * chunk, b.available_for_reservation);
	EXPECT_EQ(-ENOSPC, wddmseg_set_video_memory_reservation(self->fd,
			WDDMSEG_BUDGET_LOCAL, half - RESV_KEPT * chunk + 4096));

	/* the child's first, then the parent's: the segment is full */
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, gem_create_any(self->fd, chunk, SEG_VIS, &h[i]));
		ASSERT_EQ(0, gem_move_wait(self->fd, h[i], SEG_INV));
	}
	/* room for RESV_CHILD more: one of the child's, two of ours */
	for (i = 0; i < RESV_CHILD; i++)
		ASSERT_EQ(0, prio_place(self->fd, chunk, P_NORM, &p[i]));
	ASSERT_EQ(0, msg_put(k.out, 'p'));
	EXPECT_KID_OK(&k, "exit 2x: its allocation x was misplaced");
	for (i = 0; i < n; i++) {
		int st = prio_state(_metadata, self->fd, h[i]);

		EXPECT_NE(-1, st) TH_LOG("the parent's allocation %u", i);
		evicted += st == 1;
	}
	EXPECT_EQ(RESV_CHILD - (RESV_CHILD - RESV_KEPT), evicted)
		TH_LOG("the parent's allocations evicted for its own");

	/* the child's file is closed: its reservation is gone */
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(half, b.available_for_reservation);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[i]));
	for (i = 0; i < RESV_CHILD; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, p[i]));
}

static int resv_raw(int fd, struct drm_wddmseg_set_reservation *r)
{
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_SET_RESERVATION, r);
}

/*
 * reservation_bad_input: every refusal with its errno and rule name, the
 * read-back, the non-local group (0 available, only 0 accepted), a file
 * that reserves all there is, and QUERY_BUDGET's new outputs checked to
 * be zero on input.
 */
TEST_F_TIMEOUT(alloc, reservation_bad_input, 120)
{
	struct drm_wddmseg_set_reservation r;
	struct drm_wddmseg_query_budget b;
	uint64_t half;
	int kmsg = -1, fd2;
	unsigned int i;

	NEED_DEF();
	if (!drm_debug_raise(DRM_UT_DRIVER, self->debug_saved,
			     sizeof(self->debug_saved)))
		kmsg = kmsg_open_end();
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	half = b.budget / 2;
	ASSERT_LT(0, half);

	memset(&r, 0, sizeof(r));
	r.group = WDDMSEG_BUDGET_LOCAL;
	r.reservation = 4096;
	kmsg_drain_rules(kmsg);
	r.flags = 1;
	EXPECT_EQ(-EINVAL, resv_raw(self->fd, &r));
	EXPECT_KMSG_RULE(kmsg, "reserve-args");
	r.flags = 0;
	for (i = 0; i < ARRAY_SIZE(r.reserved); i++) {
		r.reserved[i] = 1;
		EXPECT_EQ(-EINVAL, resv_raw(self->fd, &r))
			TH_LOG("reserved[%u]", i);
		EXPECT_KMSG_RULE(kmsg, "reserve-args");
		r.reserved[i] = 0;
	}
	r.group = 2;
	EXPECT_EQ(-EINVAL, resv_raw(self->fd, &r));
	EXPECT_KMSG_RULE(kmsg, "reserve-args");
	r.group = WDDMSEG_BUDGET_NON_LOCAL;
	EXPECT_EQ(-EOPNOTSUPP, resv_raw(self->fd, &r));
	EXPECT_KMSG_RULE(kmsg, "reserve-non-local");
	r.reservation = 0;
	EXPECT_EQ(0, resv_raw(self->fd, &r));
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_NON_LOCAL, &b));
	EXPECT_EQ(0, b.current_reservation);
	EXPECT_EQ(0, b.available_for_reservation);

	/* over what is available, then all of it */
	EXPECT_EQ(-ENOSPC, wddmseg_set_video_memory_reservation(self->fd,
			WDDMSEG_BUDGET_LOCAL, half + 1));
	EXPECT_KMSG_RULE(kmsg, "reserve-over-available");
	ASSERT_EQ(0, wddmseg_set_video_memory_reservation(self->fd,
			WDDMSEG_BUDGET_LOCAL, half));
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(half, b.current_reservation);
	EXPECT_EQ(half, b.available_for_reservation) TH_LOG("its own counts");

	/* another file has nothing left; a refusal changes nothing */
	fd2 = open_extra(_metadata, self, self->def->render);
	ASSERT_EQ(0, wddmseg_query_budget(fd2, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(0, b.available_for_reservation);
	EXPECT_EQ(0, b.current_reservation);
	EXPECT_EQ(-ENOSPC, wddmseg_set_video_memory_reservation(fd2,
			WDDMSEG_BUDGET_LOCAL, 4096));
	EXPECT_EQ(0, wddmseg_set_video_memory_reservation(fd2,
			WDDMSEG_BUDGET_LOCAL, 0));

	/* smaller, then none: the other file gets the room back */
	ASSERT_EQ(0, wddmseg_set_video_memory_reservation(self->fd,
			WDDMSEG_BUDGET_LOCAL, 8192));
	ASSERT_EQ(0, wddmseg_query_budget(fd2, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(half - 8192, b.available_for_reservation);
	ASSERT_EQ(0, wddmseg_set_video_memory_reservation(self->fd,
			WDDMSEG_BUDGET_LOCAL, 0));
	ASSERT_EQ(0, wddmseg_query_budget(fd2, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(half, b.available_for_reservation);

	/* QUERY_BUDGET's outputs must be zero on input */
	memset(&b, 0, sizeof(b));
	b.group = WDDMSEG_BUDGET_LOCAL;
	b.current_reservation = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_QUERY_BUDGET,
					 &b));
	b.current_reservation = 0;
	b.available_for_reservation = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_QUERY_BUDGET,
					 &b));
	if (kmsg >= 0)
		close(kmsg);
}

/* Trim notifications (DOC: Trim notifications, wddmseg_budget.c) */

/* A counter of the device's sysfs directory, or -1. */
static int64_t trim_sysfs(const struct gem_dev *d, const char *name)
{
	char path[192], buf[64];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/wddmseg/%s",
		 d->exp.bdf, name);
	if (file_read(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

static uint64_t fdinfo_of(struct __test_metadata *_metadata, int fd,
			  const char *key)
{
	uint64_t v = 0;

	EXPECT_EQ(0, wddmseg_fdinfo(fd, key, &v, NULL, 0)) TH_LOG("%s", key);
	return v;
}

/* The next trim event on @fd within @ms: 0, -ETIME, or -errno. */
static int read_trim_event(int fd, struct drm_wddmseg_event_trim *e, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int ret;

	ret = poll(&pfd, 1, ms);
	if (ret < 0)
		return -errno;
	if (!ret)
		return -ETIME;
	n = read(fd, e, sizeof(*e));
	if (n < 0)
		return -errno;
	return n == sizeof(*e) && e->base.type == DRM_WDDMSEG_EVENT_TRIM &&
	       e->base.length == sizeof(*e) ? 0 : -EPROTO;
}

/*
 * The child of the trim tests: its own file, one allocation of @chunk
 * placed in the aperture and moved into the full invisible segment (an
 * eviction there, none in visible VRAM), then it waits with it resident
 * (an active file) until the parent is done. Exit 0 if its allocation
 * was never evicted; 10 + step on a failure.
 */
static int trim_child(const char *node, uint64_t chunk, int in, int out)
{
	struct drm_wddmseg_gem_info info;
	uint32_t h;
	int fd;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 10;
	if (gem_create_any(fd, chunk, SEG_APT, &h) ||
	    gem_move_wait(fd, h, SEG_INV))
		return 11;
	if (msg_put(out, 'a') || msg_get(in, 'd'))
		return 12;
	if (wddmseg_query_allocation(fd, h, &info) ||
	    info.segment_id != SEG_INV || info.eviction_count)
		return 13;
	close(fd);
	return 0;
}

/* What trim_setup() built: the parent's allocations and its child. */
struct trim_ctx {
	uint32_t h[PRIO_MAX_BOS];	/* 0 once destroyed */
	unsigned int n;		/* h[0..n) in the invisible segment */
	unsigned int nv;	/* h[n..n + nv) in visible VRAM */
	uint64_t chunk, whole;
	struct kid kid;
};

/*
 * The invisible segment filled, then visible VRAM up to half the local
 * budget and 2 chunks; the second half of the invisible segment's
 * allocations (the most recently used there) and the visible ones at
 * @low_prio, the others NORMAL. Then a child whose allocation evicts one
 * of ours from the invisible segment: two active files, our budget half
 * the group, our usage over it. The fixture's file is registered for
 * trim notifications and got none while alone. Returns false
 * (allocations freed, test skipped) without room for it.
 */
static bool trim_setup(struct __test_metadata *_metadata,
		       FIXTURE_DATA(alloc) *self, struct trim_ctx *c,
		       uint32_t low_prio)
{
	struct drm_wddmseg_query_budget b;
	struct drm_wddmseg_event_trim e;
	unsigned int i;
	uint32_t *hv;

	memset(c, 0, sizeof(*c));
	c->n = prio_chunks(_metadata, self->fd, 4, &c->chunk);
	if (!c->n) {
		WSKIP(return false, "segment 2: not room for 4 allocations");
	}
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	c->whole = b.budget;
	ASSERT_EQ(b.budget, b.available + b.current_usage)
		TH_LOG("alone on the device, a file's budget is the group's");
	ASSERT_EQ(0, wddmseg_register_trim_notification(self->fd, true));

	for (i = 0; i < c->n; i++) {
		ASSERT_EQ(0, gem_create_any(self->fd, c->chunk, SEG_VIS, &c->h[i]));
		ASSERT_EQ(0, gem_move_wait(self->fd, c->h[i], SEG_INV));
	}
	for (i = c->n / 2; i < c->n && low_prio != P_NORM; i++)
		ASSERT_EQ(0, set_prio(self->fd, c->h[i], low_prio));
	for (;;) {
		ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
		if (b.current_usage >= c->whole / 2 + 2 * c->chunk)
			break;
		hv = &c->h[c->n + c->nv];
		if (c->n + c->nv >= PRIO_MAX_BOS ||
		    gem_create_any(self->fd, c->chunk, SEG_VIS, hv))
			break;
		c->nv++;
		if (wddmseg_allocation_segment(self->fd, *hv) != SEG_VIS)
			break;
		if (low_prio != P_NORM)
			ASSERT_EQ(0, set_prio(self->fd, *hv, low_prio));
	}
	if (b.current_usage < c->whole / 2 + 2 * c->chunk) {
		for (i = 0; i < c->n + c->nv; i++)
			wddmseg_destroy_allocation(self->fd, c->h[i]);
		WSKIP(return false, "not room for half the budget and 2 chunks");
	}
	/* our own evictions (if any) found us within the whole group */
	EXPECT_EQ(-ETIME, read_trim_event(self->fd, &e, 200));

	ASSERT_EQ(0, kid_start(&c->kid, trim_child, self->def->render,
			       c->chunk));
	ASSERT_EQ(0, msg_get(c->kid.in, 'a'));
	return true;
}

/* The child's allocation was never evicted; everything goes. */
static void trim_teardown(struct __test_metadata *_metadata,
			  FIXTURE_DATA(alloc) *self, struct trim_ctx *c)
{
	struct drm_wddmseg_query_budget b;
	unsigned int i;

	ASSERT_EQ(0, msg_put(c->kid.out, 'd'));
	EXPECT_KID_OK(&c->kid, "exit 13: its allocation was evicted");
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(c->whole, b.budget) TH_LOG("alone again");
	for (i = 0; i < c->n + c->nv; i++)
		if (c->h[i])
			ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, c->h[i]));
}

/*
 * trim_notified: a file over half the local budget registers for trim
 * notifications; a second process's allocation evicts one of its
 * allocations, which makes that process active and halves the first
 * file's budget. The first file gets one DRM_WDDMSEG_EVENT_TRIM with
 * its budget and how far over it is, fdinfo and sysfs count it; a
 * registered file within its budget (no allocation) gets none. The file
 * trims with EVICT until it is within budget.
 */
TEST_F_TIMEOUT(alloc, trim_notified, 300)
{
	struct drm_wddmseg_query_budget b;
	struct drm_wddmseg_event_trim e;
	struct trim_ctx c;
	int64_t sys0;
	unsigned int i;
	int fd2, ret;

	NEED_DEF();
	sys0 = trim_sysfs(self->def, "trim_events");
	ASSERT_LE(0, sys0);
	fd2 = open_extra(_metadata, self, self->def->render);
	ASSERT_EQ(0, wddmseg_register_trim_notification(fd2, true));
	if (!trim_setup(_metadata, self, &c, P_NORM))
		return;

	ret = read_trim_event(self->fd, &e, 5000);
	ASSERT_EQ(0, ret) TH_LOG("no trim event: %s", strerror(-ret));
	EXPECT_EQ(WDDMSEG_BUDGET_LOCAL, e.group);
	EXPECT_EQ(c.whole / 2, e.budget) TH_LOG("two active files: half each");
	EXPECT_LT(0, e.bytes);
	EXPECT_GE(c.whole / 2 + 2 * c.chunk, e.bytes);
	EXPECT_EQ(1, e.sequence);
	EXPECT_EQ(1, fdinfo_of(_metadata, self->fd, "wddmseg-trim-events"));
	EXPECT_EQ(sys0 + 1, trim_sysfs(self->def, "trim_events"))
		TH_LOG("sysfs trim_events");
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	EXPECT_EQ(c.whole / 2, b.budget);
	EXPECT_LT(b.budget, b.current_usage);
	/* within its budget (nothing resident): no event */
	EXPECT_EQ(-ETIME, read_trim_event(fd2, &e, 0));

	/* trim: evict until within budget */
	for (i = 0; i < c.n + c.nv && b.current_usage > b.budget; i++) {
		ret = wddmseg_evict(self->fd, c.h[i], 0);
		ASSERT_TRUE(!ret || ret == -EINVAL);
		ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	}
	EXPECT_GE(b.budget, b.current_usage);
	trim_teardown(_metadata, self, &c);
}

/*
 * trim_enforced: the same, but the file does nothing about the event.
 * Once the grace period is over the driver evicts its allocations until
 * it is within its budget, the LOW ones (though the most recently used)
 * and none of its NORMAL ones, nothing of the child's (within its
 * budget); fdinfo and sysfs count the bytes. The child's allocation took
 * the place of one LOW one too (TTM's eviction order).
 */
TEST_F_TIMEOUT(alloc, trim_enforced, 300)
{
	struct drm_wddmseg_query_budget b;
	struct drm_wddmseg_event_trim e;
	struct drm_wddmseg_gem_info info;
	unsigned int i, normal_gone = 0, low_gone = 0;
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	struct trim_ctx c;
	uint64_t drv;
	int64_t sys0;
	int ret;

	NEED_DEF();
	sys0 = trim_sysfs(self->def, "trim_driver_bytes");
	ASSERT_LE(0, sys0);
	if (!trim_setup(_metadata, self, &c, P_LOW))
		return;
	ret = read_trim_event(self->fd, &e, 5000);
	ASSERT_EQ(0, ret) TH_LOG("no trim event: %s", strerror(-ret));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
		if (b.current_usage <= b.budget)
			break;
		nanosleep(&ts, NULL);
	}
	EXPECT_GE(b.budget, b.current_usage) TH_LOG("not trimmed in 10 s");
	drv = fdinfo_of(_metadata, self->fd, "wddmseg-trim-driver-bytes");
	EXPECT_LE(e.bytes, drv);
	EXPECT_EQ(sys0 + (int64_t)drv,
		  trim_sysfs(self->def, "trim_driver_bytes"));
	EXPECT_EQ(0, fdinfo_of(_metadata, self->fd, "wddmseg-trim-self-bytes"));
	for (i = 0; i < c.n + c.nv; i++) {
		info_of(_metadata, self->fd, c.h[i], &info);
		if (i < c.n / 2)
			normal_gone += info.segment_id != SEG_INV;
		else
			low_gone += info.segment_id !=
				    (i < c.n ? SEG_INV : SEG_VIS);
	}
	EXPECT_EQ(0, normal_gone) TH_LOG("NORMAL ones evicted");
	EXPECT_EQ(drv + c.chunk, low_gone * c.chunk)
		TH_LOG("the driver took LOW ones only (%u gone, one for the child)",
		       low_gone);
	trim_teardown(_metadata, self, &c);
}

/*
 * trim_self: a file that trims at once (it destroys its most recent
 * allocations until within its budget) is left alone by the driver:
 * after the grace period fdinfo counts what it gave back (what was
 * asked) and nothing trimmed by the driver.
 */
TEST_F_TIMEOUT(alloc, trim_self, 300)
{
	struct timespec grace = { WDDMSEG_TRIM_GRACE_MS / 1000 + 1, 0 };
	struct drm_wddmseg_query_budget b;
	struct drm_wddmseg_event_trim e;
	struct trim_ctx c;
	unsigned int i;
	int ret;

	NEED_DEF();
	if (!trim_setup(_metadata, self, &c, P_NORM))
		return;
	ret = read_trim_event(self->fd, &e, 5000);
	ASSERT_EQ(0, ret) TH_LOG("no trim event: %s", strerror(-ret));
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	for (i = c.n + c.nv; i-- > 0 && b.current_usage > b.budget;) {
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, c.h[i]));
		c.h[i] = 0;
		ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	}
	nanosleep(&grace, NULL);
	EXPECT_EQ(0, fdinfo_of(_metadata, self->fd, "wddmseg-trim-driver-bytes"));
	EXPECT_EQ(e.bytes, fdinfo_of(_metadata, self->fd,
				     "wddmseg-trim-self-bytes"));
	trim_teardown(_metadata, self, &c);
}

/* Three processes (trim_three_processes), in chunks of 1/32 of the group */
#define TP_CHUNKS	32	/* the local group */
#define TP_TRIMMER	24	/* the trimming child's allocations ... */
#define TP_WS		4	/* ... the last of them its working set */
#define TP_PARENT	36	/* the parent's: 60 in all, twice the group */

/* A chunk the local group's memory segments hold, evicted to system. */
static int tp_chunk(int fd, uint64_t size, uint32_t *h)
{
	struct wddmseg_allocation_desc a = {
		.size = size,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
		.preferred = { SEG_INV, SEG_VIS },
	};

	return wddmseg_create_allocation(fd, &a, h);
}

/* The next byte from @fd within @ms is @want: 0, or -1. */
static int msg_wait(int fd, char want, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 ? msg_get(fd, want) : -1;
}

/*
 * The process of trim_three_processes that trims: TP_TRIMMER allocations,
 * registered; on its first trim notification it evicts all but its
 * working set at once and says 'e'; on 'r' it makes its working set
 * resident again ('c'); on 'd' it checks it got a notification, was not
 * trimmed by the driver and has its working set in VRAM. 10 + step on a
 * failure.
 */
static int tp_trimmer(const char *node, uint64_t chunk, int in, int out)
{
	struct drm_wddmseg_event_trim e;
	uint32_t h[TP_TRIMMER];
	unsigned int i, events = 0;
	uint64_t drv = 1;
	struct pollfd p[2];
	int fd, ret, seg;
	char c;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 10;
	if (wddmseg_register_trim_notification(fd, true))
		return 11;
	for (i = 0; i < TP_TRIMMER; i++)
		if (tp_chunk(fd, chunk, &h[i]))
			return 12;
	if (wddmseg_wait(fd, h[TP_TRIMMER - 1], 20 * NSEC_PER_SEC) ||
	    msg_put(out, 'a'))
		return 13;
	for (;;) {
		p[0] = (struct pollfd){ .fd = in, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(p, 2, -1) < 0)
			return 14;
		if (p[1].revents & POLLIN) {
			if (read_trim_event(fd, &e, 0))
				return 15;
			for (i = 0; !events && i < TP_TRIMMER - TP_WS; i++) {
				ret = wddmseg_evict(fd, h[i], 0);
				if (ret && ret != -EINVAL)
					return 16;
			}
			if (!events++ && msg_put(out, 'e'))
				return 17;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (read(in, &c, 1) != 1 || c == 'd')
			break;
		if (c != 'r')
			return 18;
		for (i = TP_TRIMMER - TP_WS; i < TP_TRIMMER; i++)
			if (wddmseg_make_resident(fd, h[i], 0) ||
			    wddmseg_wait(fd, h[i], 20 * NSEC_PER_SEC))
				return 19;
		if (msg_put(out, 'c'))
			return 20;
	}
	if (!events)
		return 21;
	if (wddmseg_fdinfo(fd, "wddmseg-trim-driver-bytes", &drv, NULL, 0) ||
	    drv)
		return 22;
	for (i = TP_TRIMMER - TP_WS; i < TP_TRIMMER; i++) {
		seg = wddmseg_allocation_segment(fd, h[i]);
		if (seg != SEG_VIS && seg != SEG_INV)
			return 23;
	}
	close(fd);
	return 0;
}

/*
 * The process within its budget: one allocation, registered. On 'd' it
 * checks it got no notification and its allocation never left VRAM.
 */
static int tp_within(const char *node, uint64_t chunk, int in, int out)
{
	struct drm_wddmseg_gem_info info;
	struct drm_wddmseg_event_trim e;
	uint64_t drv = 1;
	uint32_t h;
	int fd;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 10;
	if (wddmseg_register_trim_notification(fd, true) ||
	    tp_chunk(fd, chunk, &h) ||
	    wddmseg_wait(fd, h, 20 * NSEC_PER_SEC) || msg_put(out, 'a'))
		return 11;
	if (msg_get(in, 'd'))
		return 12;
	if (read_trim_event(fd, &e, 0) != -ETIME)
		return 13;
	if (wddmseg_fdinfo(fd, "wddmseg-trim-driver-bytes", &drv, NULL, 0) ||
	    drv)
		return 14;
	if (wddmseg_query_allocation(fd, h, &info) ||
	    (info.segment_id != SEG_VIS && info.segment_id != SEG_INV) ||
	    info.eviction_count)
		return 15;
	close(fd);
	return 0;
}

/*
 * trim_three_processes: three processes oversubscribe the local group
 * twice over (allocations of its memory segments only, evicted to
 * system memory). A child that trims when notified (it evicts all but
 * its working set) keeps its working set resident and is never trimmed
 * by the driver; the parent, which ignores its notifications, is trimmed
 * by the driver down to its budget (a third of the group: three active
 * files), its least recently used allocations first; a child within its
 * budget gets no notification and loses nothing.
 */
TEST_F_TIMEOUT(alloc, trim_three_processes, 300)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	struct timespec grace = { WDDMSEG_TRIM_GRACE_MS / 1000, 500000000 };
	struct drm_wddmseg_query_budget b;
	struct drm_wddmseg_event_trim e;
	uint64_t chunk, whole, drv = 0;
	uint32_t h[TP_PARENT];
	struct kid t, w;
	unsigned int i, first;

	NEED_DEF();
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_LOCAL, &b));
	whole = b.budget;
	chunk = (whole / TP_CHUNKS) & ~(uint64_t)(SZ_64K - 1);
	if (!chunk)
		WSKIP(return, "a local group of %llu bytes",
		      (unsigned long long)whole);
	ASSERT_EQ(0, wddmseg_register_trim_notification(self->fd, true));
	ASSERT_EQ(0, kid_start(&t, tp_trimmer, self->def->render, chunk));
	ASSERT_EQ(0, msg_get(t.in, 'a'));

	/* fill what is left, evict: the trimmer is notified and trims */
	first = TP_CHUNKS - TP_TRIMMER + 2;
	for (i = 0; i < first; i++)
		ASSERT_EQ(0, tp_chunk(self->fd, chunk, &h[i]));
	ASSERT_EQ(0, msg_wait(t.in, 'e', 5000))
		TH_LOG("the trimming process got no trim notification");
	/* the rest: twice the group in all */
	for (; i < TP_PARENT; i++)
		ASSERT_EQ(0, tp_chunk(self->fd, chunk, &h[i]));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h[TP_PARENT - 1],
				  20 * NSEC_PER_SEC));
	ASSERT_EQ(0, kid_start(&w, tp_within, self->def->render, chunk));
	ASSERT_EQ(0, msg_get(w.in, 'a'));
	ASSERT_EQ(0, msg_put(t.out, 'r'));
	ASSERT_EQ(0, msg_get(t.in, 'c'));

	/* the parent ignores its notifications: the driver trims it */
	for (i = 0; i < 150; i++) {
		ASSERT_EQ(0, wddmseg_query_budget(self->fd,
						  WDDMSEG_BUDGET_LOCAL, &b));
		drv = fdinfo_of(_metadata, self->fd,
				"wddmseg-trim-driver-bytes");
		if (drv && b.current_usage <= b.budget)
			break;
		nanosleep(&ts, NULL);
	}
	EXPECT_LT(0, drv) TH_LOG("the driver trimmed nothing of the parent");
	EXPECT_GE(b.budget, b.current_usage)
		TH_LOG("the parent is still over its budget after 15 s");
	EXPECT_EQ(whole / 3, b.budget) TH_LOG("three active files");
	EXPECT_EQ(0, read_trim_event(self->fd, &e, 0))
		TH_LOG("the parent was not notified");
	/* what any trim still to come would take, taken */
	nanosleep(&grace, NULL);
	EXPECT_EQ(0, wddmseg_allocation_segment(self->fd, h[0]))
		TH_LOG("the parent's least recently used allocation stayed");
	EXPECT_NE(0, wddmseg_allocation_segment(self->fd, h[TP_PARENT - 1]))
		TH_LOG("the parent's most recently used allocation went");

	ASSERT_EQ(0, msg_put(w.out, 'd'));
	EXPECT_KID_OK(&w,
		      "within budget: 13 notified, 14 trimmed, 15 evicted");
	ASSERT_EQ(0, msg_put(t.out, 'd'));
	EXPECT_KID_OK(&t,
		      "trimming: 21 never notified, 22 trimmed by the driver, 23 working set not resident");
	for (i = 0; i < TP_PARENT; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[i]));
}

/* trim_bad_input: the refusals of REGISTER_TRIM_NOTIFICATION. */
TEST_F(alloc, trim_bad_input)
{
	struct drm_wddmseg_register_trim r;
	int kmsg = -1;
	unsigned int i;

	NEED_DEF();
	if (!drm_debug_raise(DRM_UT_DRIVER, self->debug_saved,
			     sizeof(self->debug_saved)))
		kmsg = kmsg_open_end();
	kmsg_drain_rules(kmsg);
	memset(&r, 0, sizeof(r));
	r.flags = 2;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd,
			DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION, &r));
	EXPECT_KMSG_RULE(kmsg, "trim-args");
	r.flags = WDDMSEG_TRIM_NOTIFY_ENABLE;
	r.pad = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd,
			DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION, &r));
	EXPECT_KMSG_RULE(kmsg, "trim-args");
	r.pad = 0;
	for (i = 0; i < ARRAY_SIZE(r.reserved); i++) {
		r.reserved[i] = 1;
		EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd,
				DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION, &r));
		EXPECT_KMSG_RULE(kmsg, "trim-args");
		r.reserved[i] = 0;
	}
	/* on, on again, off, off again */
	EXPECT_EQ(0, wddmseg_register_trim_notification(self->fd, true));
	EXPECT_EQ(0, wddmseg_register_trim_notification(self->fd, true));
	EXPECT_EQ(0, wddmseg_register_trim_notification(self->fd, false));
	EXPECT_EQ(0, wddmseg_register_trim_notification(self->fd, false));
	if (kmsg >= 0)
		close(kmsg);
}

TEST_HARNESS_MAIN
