// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg eviction stress: three processes allocate CpuVisibleOnDemand
 * allocations of mixed sizes (4 KiB .. 4 MiB) in the VRAM segments of the
 * device with the least VRAM until together they hold at least three times
 * that VRAM, write a distinct pattern into each (a hash of pid, index and
 * word offset), move them around at random (EVICT, MAKE_RESIDENT into a
 * given segment or into any, rewrites, remaps; fixed seed), and finally
 * read every byte back through a CPU mapping. Allocations in invisible
 * VRAM migrate on the CPU fault. Any corrupted byte fails the test.
 *
 * MAKE_RESIDENT into one given segment may fail with -ENOSPC while the
 * other processes hold the allocations it would evict; that is counted,
 * not an error. Every other failure is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wddmseg_harness.h"
#include "wddmseg_gem.h"

#define NR_PROCS	3
#define MAX_ALLOCS	2048
#define NR_ROUNDS	6	/* of random operations, then a full check */
#define OPS_PER_ROUND	500
#define SEED		0x5712e55u

enum {
	OP_EVICT, OP_RESIDENT_SEG, OP_RESIDENT_ANY, OP_REWRITE, OP_REMAP,
	OP_PEEK, NR_OP_KINDS
};

static const char *const op_name[NR_OP_KINDS] = {
	"evict", "resident-seg", "resident-any", "rewrite", "remap", "peek",
};

struct proc_result {
	int done;			/* the child got to the end */
	char error[256];		/* first hard error */
	uint64_t allocs, bytes;
	uint64_t ops[NR_OP_KINDS];
	uint64_t enospc;		/* MAKE_RESIDENT(seg) refused for room */
	uint64_t corrupt_bytes, corrupt_allocs;
	uint64_t peek_bad;		/* words wrong in the ops phase */
	uint64_t evictions, moves;	/* sums of GEM_INFO counters */
	uint64_t in_seg[WDDMSEG_MAX_SEGMENTS + 1];	/* bytes, at the end */
	double t_fill, t_ops, t_verify;
};

struct alloc {
	uint32_t handle;
	uint64_t size;
	uint32_t seed;
	void *map;
};

/* xorshift64*: deterministic per process */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static uint64_t pick_size(uint64_t *s)
{
	static const uint64_t base[] = {
		SZ_4K, 4 * SZ_4K, SZ_64K, 4 * SZ_64K, SZ_1M, 2 * SZ_1M,
		4 * SZ_1M,
	};
	uint64_t size = base[rnd(s) % ARRAY_SIZE(base)];

	/* a few odd page counts, never above 4 MiB nor below 4 KiB */
	if (size >= 8 * SZ_4K && (rnd(s) & 1))
		size -= (rnd(s) % 4 + 1) * SZ_4K;
	return size;
}

static uint32_t alloc_seed(pid_t pid, unsigned int index, unsigned int gen)
{
	return pattern_mix((uint32_t)pid * 7919u + index * 104729u + gen);
}

/* Shared between the processes: barriers before the final snapshot. */
struct proc_sync {
	int moving_done;
	int snapshot_done;
};

/* Wait until *@counter reaches @n; -1 after 60 s (a process died). */
static int wait_for(int *counter, int n)
{
	double t0 = now_seconds();

	while (__atomic_load_n(counter, __ATOMIC_SEQ_CST) < n) {
		if (now_seconds() - t0 > 60)
			return -1;
		usleep(10000);
	}
	return 0;
}

#define FAIL(res, ...) do {						\
	if (!(res)->error[0])						\
		snprintf((res)->error, sizeof((res)->error), __VA_ARGS__); \
	return -1;							\
} while (0)

static int proc_run(const struct gem_dev *d, unsigned int idx,
		    uint64_t target, struct proc_result *res,
		    struct proc_sync *sync)
{
	const struct layout *l = &d->exp.layout;
	uint32_t vram[WDDMSEG_MAX_SEGMENTS], supported = 0;
	unsigned int nr_vram = 0, n = 0, i, k, gen = 0, round;
	struct drm_wddmseg_gem_info info;
	uint64_t s = SEED ^ ((uint64_t)(idx + 1) << 32), first;
	static struct alloc a[MAX_ALLOCS];
	pid_t pid = getpid();
	double t0;
	int fd, ret;

	for (i = 0; i < l->nr_segs && i < WDDMSEG_MAX_SEGMENTS; i++) {
		if (!wddmseg_segment_is_aperture(l->seg[i].flags)) {
			vram[nr_vram++] = i + 1;
			supported |= WDDMSEG_SEGMENT_BIT(i + 1);
		}
	}
	fd = wddmseg_open_adapter(d->render, 0);
	if (fd < 0)
		FAIL(res, "open %s: %s", d->render, strerror(-fd));

	/* fill: allocate and write until this process holds @target */
	t0 = now_seconds();
	while (res->bytes < target) {
		struct wddmseg_allocation_desc ga = {
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
			.supported_segments = supported,
			.eviction_segments = supported,
		};
		unsigned int first_pref = rnd(&s) % nr_vram;

		if (n == MAX_ALLOCS)
			FAIL(res, "more than %d allocations", MAX_ALLOCS);
		ga.size = pick_size(&s);
		for (k = 0; k < nr_vram; k++)
			ga.preferred[k] = vram[(first_pref + k) % nr_vram];
		ret = wddmseg_create_allocation(fd, &ga, &a[n].handle);
		if (ret)
			FAIL(res, "GEM_CREATE #%u of 0x%" PRIx64 " bytes: %s", n,
			     ga.size, strerror(-ret));
		a[n].size = ga.size;
		a[n].seed = alloc_seed(pid, n, 0);
		ret = wddmseg_lock(fd, a[n].handle, ga.size, &a[n].map);
		if (ret)
			FAIL(res, "mmap #%u: %s", n, strerror(-ret));
		pattern_fill(a[n].map, a[n].size, a[n].seed);
		res->bytes += a[n].size;
		n++;
	}
	res->allocs = n;
	res->t_fill = now_seconds() - t0;

	for (round = 0; round < NR_ROUNDS; round++) {
		/* random moves, rewrites and remaps */
		t0 = now_seconds();
		for (k = 0; k < OPS_PER_ROUND; k++) {
			unsigned int op = rnd(&s) % NR_OP_KINDS;
			struct alloc *x = &a[rnd(&s) % n];
			uint32_t seg;
			uint64_t w;

			res->ops[op]++;
			switch (op) {
			case OP_EVICT:
				ret = wddmseg_evict(fd, x->handle, 0);
				if (ret)
					FAIL(res, "EVICT: %s", strerror(-ret));
				break;
			case OP_RESIDENT_SEG:
				seg = vram[rnd(&s) % nr_vram];
				ret = wddmseg_make_resident(fd, x->handle, seg);
				if (ret == -ENOSPC)
					res->enospc++;
				else if (ret)
					FAIL(res, "MAKE_RESIDENT(%u) of 0x%" PRIx64 " bytes: %s",
					     seg, x->size, strerror(-ret));
				break;
			case OP_RESIDENT_ANY:
				ret = wddmseg_make_resident(fd, x->handle, 0);
				if (ret)
					FAIL(res, "MAKE_RESIDENT(0): %s",
					     strerror(-ret));
				break;
			case OP_REWRITE:
				x->seed = alloc_seed(pid, x - a, ++gen);
				pattern_fill(x->map, x->size, x->seed);
				break;
			case OP_REMAP:
				wddmseg_unlock(x->map, x->size);
				ret = wddmseg_lock(fd, x->handle, x->size,
						   &x->map);
				if (ret)
					FAIL(res, "remap: %s", strerror(-ret));
				break;
			case OP_PEEK:
				w = rnd(&s) % (x->size / 4);
				if (((volatile uint32_t *)x->map)[w] !=
				    pattern_word(x->seed, w))
					res->peek_bad++;
				break;
			}
		}
		res->t_ops += now_seconds() - t0;

		/* verify every byte */
		t0 = now_seconds();
		for (i = 0; i < n; i++) {
			uint64_t bad;

			first = 0;
			bad = pattern_check(a[i].map, a[i].size, a[i].seed,
					    &first);
			if (bad) {
				res->corrupt_allocs++;
				if (res->corrupt_allocs <= 5)
					fprintf(stderr,
						"# proc %u round %u: allocation %u (0x%" PRIx64 " bytes): %" PRIu64 " bad bytes, first at 0x%" PRIx64 "\n",
						idx, round, i, a[i].size, bad,
						first);
			}
			res->corrupt_bytes += bad;
		}
		res->t_verify += now_seconds() - t0;
	}

	/*
	 * Where everything ended up, once all processes are done moving
	 * things, so that the snapshots add up; nobody frees anything before
	 * every snapshot is taken.
	 */
	__atomic_add_fetch(&sync->moving_done, 1, __ATOMIC_SEQ_CST);
	if (wait_for(&sync->moving_done, NR_PROCS))
		FAIL(res, "the other processes did not finish their moves");
	for (i = 0; i < n; i++) {
		ret = wddmseg_query_allocation(fd, a[i].handle, &info);
		if (ret)
			FAIL(res, "GEM_INFO: %s", strerror(-ret));
		res->evictions += info.eviction_count;
		res->moves += info.move_count;
		if (info.segment_id <= WDDMSEG_MAX_SEGMENTS)
			res->in_seg[info.segment_id] += a[i].size;
	}
	__atomic_add_fetch(&sync->snapshot_done, 1, __ATOMIC_SEQ_CST);
	if (wait_for(&sync->snapshot_done, NR_PROCS))
		FAIL(res, "the other processes did not take their snapshot");
	res->done = 1;
	wddmseg_close_adapter(fd);
	return 0;
}

FIXTURE(stress) {
	struct gem_env env;
	struct gem_dev *d;
};

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE_SETUP(stress)
{
	gem_env_load(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->d = gem_env_default(&self->env, GEM_PICK_LEAST_SEGMENT_VRAM);
}

FIXTURE_TEARDOWN(stress)
{
}

TEST_F_TIMEOUT(stress, three_processes, 280)
{
	struct proc_result *res;
	struct proc_sync *sync;
	uint64_t vram, total = 0, corrupt = 0, in_seg[WDDMSEG_MAX_SEGMENTS + 1] = { 0 };
	pid_t pid[NR_PROCS];
	unsigned int i, j;
	char ops[256];
	double t0 = now_seconds();
	int status;

	if (SETUP_SKIPPED())
		return;
	if (!self->d)
		WSKIP(return, "no device with the default layout in %s",
		     gem_env_source(&self->env));
	vram = layout_vram_bytes(&self->d->exp.layout);
	TH_LOG("device %s: %" PRIu64 " MiB of VRAM in segments 1-2; %d processes of %" PRIu64 " MiB each",
	       self->d->exp.bdf, vram >> 20, NR_PROCS, vram >> 20);

	res = mmap(NULL, NR_PROCS * sizeof(*res) + sizeof(*sync),
		   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	memset(res, 0, NR_PROCS * sizeof(*res) + sizeof(*sync));
	sync = (struct proc_sync *)(res + NR_PROCS);

	for (i = 0; i < NR_PROCS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit(proc_run(self->d, i, vram, &res[i], sync) ? 1 : 0);
	}
	for (i = 0; i < NR_PROCS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("process %u: %s %d: %s", i,
			       WIFSIGNALED(status) ? "killed by signal" : "exit",
			       WIFSIGNALED(status) ? WTERMSIG(status) :
						     WEXITSTATUS(status),
			       res[i].error[0] ? res[i].error : "no error recorded");
	}

	for (i = 0; i < NR_PROCS; i++) {
		struct proc_result *r = &res[i];

		TH_LOG("process %u: %" PRIu64 " allocations, %" PRIu64 " MiB; fill %.1fs, %d ops %.1fs, %d full checks %.1fs; %" PRIu64 " evictions, %" PRIu64 " moves; %" PRIu64 " MAKE_RESIDENT(seg) ENOSPC",
		       i, r->allocs, r->bytes >> 20, r->t_fill,
		       NR_ROUNDS * OPS_PER_ROUND, r->t_ops,
		       NR_ROUNDS, r->t_verify, r->evictions, r->moves,
		       r->enospc);
		ops[0] = '\0';
		for (j = 0; j < NR_OP_KINDS; j++)
			snprintf(ops + strlen(ops), sizeof(ops) - strlen(ops),
				 " %s %" PRIu64, op_name[j], r->ops[j]);
		TH_LOG("process %u: ops%s; corrupted: %" PRIu64 " bytes in %" PRIu64 " allocations",
		       i, ops, r->corrupt_bytes, r->corrupt_allocs);
		EXPECT_TRUE(r->done) TH_LOG("process %u did not finish", i);
		total += r->bytes;
		corrupt += r->corrupt_bytes;
		EXPECT_EQ(0u, r->peek_bad)
			TH_LOG("process %u: %" PRIu64 " words wrong when peeked between moves",
			       i, r->peek_bad);
		for (j = 0; j <= WDDMSEG_MAX_SEGMENTS; j++)
			in_seg[j] += r->in_seg[j];
	}
	TH_LOG("at the end: system %" PRIu64 " MiB, seg1 %" PRIu64 " MiB, seg2 %" PRIu64 " MiB, seg3 %" PRIu64 " MiB; %.1fs in all",
	       in_seg[0] >> 20, in_seg[1] >> 20, in_seg[2] >> 20,
	       in_seg[3] >> 20, now_seconds() - t0);
	/* the snapshots were taken while nothing moved: they must fit */
	for (j = 1; j <= self->d->exp.layout.nr_segs; j++) {
		EXPECT_LE(in_seg[j], self->d->exp.layout.seg[j - 1].commit)
			TH_LOG("GEM_INFO puts %" PRIu64 " MiB in segment %u of %" PRIu64 " MiB",
			       in_seg[j] >> 20, j,
			       self->d->exp.layout.seg[j - 1].commit >> 20);
	}
	TH_LOG("corrupted bytes: %" PRIu64, corrupt);
	EXPECT_LE(3 * vram, total) TH_LOG("the processes held less than 3x VRAM");
	EXPECT_EQ(0u, corrupt);
	munmap(res, NR_PROCS * sizeof(*res) + sizeof(*sync));
}

TEST_HARNESS_MAIN
