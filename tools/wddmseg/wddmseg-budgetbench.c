// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg-budgetbench: what keeping budgets buys (issue 28), on the first
 * wddmseg device. Numbers only; `make bench` runs it in its own boot
 * (tools/vm/budget-bench.sh) with a layout whose invisible VRAM segment
 * is the local group's only ApplicationTarget, so that the group's budget
 * is that segment.
 *
 * 1. Oversubscription. Three processes (each its own DRM file) share the
 *    segment S that makes the local budget group (G bytes). Each has
 *    2G/3 of allocations of CHUNK bytes that only S supports (so the
 *    group is oversubscribed twice over; evictions go to system memory):
 *    first its "caches" (written once, then used once a round), then its
 *    working set of G/4 (the three fit in S together). Each allocation is
 *    filled by the engine with a word of its own.
 *      build   the processes create theirs one after the other;
 *      rounds  ROUNDS times, each process in turn makes its working set
 *              resident (MAKE_RESIDENT of each, then GEM_WAIT) and uses
 *              the next of its caches (resident again, a 4 KiB Fill);
 *              PAUSE ms of idle between two rounds, not timed.
 *    Three ways to run it, the same load each:
 *      budgets off   no process registers for trim notifications: the
 *                    driver evicts by LRU and copies what it evicts;
 *      cooperative   every process registers; on its first trim
 *                    notification it offers (OFFER, priority LOW) every
 *                    cache it is not using, and from then on keeps each
 *                    cache offered but while it uses it: it reclaims it
 *                    (RECLAIM with MAKE_RESIDENT) and, when the driver
 *                    dropped it, writes it again (a Fill, not a copy);
 *      ignored       every process registers and does nothing on the
 *                    notifications: the driver trims each past its grace
 *                    period (WDDMSEG_TRIM_GRACE_MS).
 *    Figures, from the driver's sysfs counters around the run: MiB the
 *    paging engine copied (transfer_in_bytes + transfer_out_bytes of all
 *    segments: every eviction and restore), MiB discarded without a copy
 *    (discard_bytes), MiB the processes wrote again after a discard,
 *    trim notifications (trim_events) and MiB the driver trimmed
 *    (trim_driver_bytes); wall times of the first round (from the build
 *    to every working set resident once) and of all rounds; then, per
 *    process, working-set allocations not in S at the end of its round
 *    (must be 0) and a content check: the first and last 4 KiB of every
 *    allocation hold its word (caches the driver dropped are skipped:
 *    RECLAIM said so). Medians of REPEATS runs of the three ways in turn.
 *    The ratio lines: MiB copied with budgets off over cooperative (a
 *    cooperative run that copied nothing counts as one allocation) and
 *    the first round's time, each the median of the runs' ratios (issue
 *    28's goal for the bytes: at least 3x fewer).
 *
 * 2. Purge against evict. One process fills S with allocations (G), then
 *    either offers all of them (LOW) or not; a second process creates
 *    and fills as many in S. The figure is the second process's time
 *    from its first create to its last fill done: the time from memory
 *    pressure to the memory being free, by purging offered allocations
 *    or by evicting (copying) them. REPEATS runs, alternating, medians
 *    and the median of the paired ratios.
 *
 * Usage: wddmseg-budgetbench [--segment ID] [--chunk-kib K] [--rounds N]
 *                            [--repeats N] [--pause-ms MS] [-v]
 *   --segment   S (default: the memory segment of the local group with
 *               ApplicationTarget, else the first one without CpuVisible)
 *   --chunk-kib allocation size (default 1024)
 *   --rounds    rounds after the build (default 4)
 *   --repeats   runs of each way (default 3)
 *   --pause-ms  idle time between two rounds, not timed (default 500: the
 *               rounds span more than the trim grace period, so that the
 *               driver trims the processes that ignore their notifications)
 *   -v          every run's figures
 * Exit status 0 when everything ran and every check held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wddmseg.h"
#include "bench-stats.h"

#define NPROC		3
#define MAX_CHUNKS	1024
#define PROBE		4096u
#define MIB		(1024.0 * 1024.0)
#define WAIT_NS		(30ll * 1000 * 1000 * 1000)

enum way { WAY_OFF, WAY_COOP, WAY_IGNORE, WAY_PLAIN };
static const char *const way_name[] = { "budgets off", "cooperative",
					"ignored" };

enum cmd { CMD_BUILD = 1, CMD_ROUND, CMD_CHECK, CMD_OFFER_ALL, CMD_QUIT };

/* What a child answers to a command. */
struct reply {
	int err;		/* 0 or a negative errno */
	char what[96];		/* the failing call */
	double ms;		/* the command's wall time */
	uint64_t regenerated;	/* bytes written again after a discard */
	unsigned int events;	/* trim notifications read */
	unsigned int ws_out;	/* working-set allocations not in S */
	unsigned int bad;	/* allocations whose probes are wrong */
	unsigned int dropped;	/* caches the driver dropped (not checked) */
};

struct child {
	int fd, id, seg;
	enum way way;
	uint64_t chunk;
	unsigned int ncache, nws, next, made;	/* made: caches created */
	uint32_t cache[MAX_CHUNKS], ws[MAX_CHUNKS], stage;
	bool offered[MAX_CHUNKS], trimming;
	struct reply r;
};

static int verbose;
static unsigned int pause_ms = 500;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint32_t word_of(int id, int cache, unsigned int i)
{
	return 0x5a000000u | (uint32_t)id << 20 | (uint32_t)cache << 16 | i;
}

static int fail(struct child *c, int err, const char *what, unsigned int i)
{
	if (!c->r.err) {
		c->r.err = err ? err : -EIO;
		snprintf(c->r.what, sizeof(c->r.what), "%s (#%u)", what, i);
	}
	return c->r.err;
}

/* Offer every cache not offered yet (priority LOW). */
static int offer_caches(struct child *c)
{
	uint32_t h[MAX_CHUNKS];
	unsigned int i, n = 0;
	int ret;

	for (i = 0; i < c->made; i++)
		if (!c->offered[i])
			h[n++] = c->cache[i];
	if (!n)
		return 0;
	ret = wddmseg_offer_allocations(c->fd, h, n,
					WDDMSEG_OFFER_PRIORITY_LOW);
	if (ret)
		return fail(c, ret, "OFFER_ALLOCATIONS", n);
	for (i = 0; i < c->made; i++)
		c->offered[i] = true;
	return 0;
}

/* Read the trim notifications that are there; cooperate if asked to. */
static int service_events(struct child *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	char buf[4096];
	ssize_t n, off;

	if (c->way == WAY_OFF || c->way == WAY_PLAIN)
		return 0;
	while (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
		n = read(c->fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (off = 0; off + (ssize_t)sizeof(struct drm_event) <= n;) {
			struct drm_event *e = (struct drm_event *)(buf + off);

			if (e->length < sizeof(*e))
				break;
			if (e->type == DRM_WDDMSEG_EVENT_TRIM)
				c->r.events++;
			off += e->length;
		}
	}
	if (c->way == WAY_COOP && c->r.events && !c->trimming) {
		c->trimming = true;
		return offer_caches(c);
	}
	return 0;
}

static int new_chunk(struct child *c, int cache, unsigned int i, uint32_t *h)
{
	int ret = wddmseg_create_allocation_in(c->fd, c->chunk, 0, c->seg, h);

	if (ret)
		return fail(c, ret, "create", i);
	ret = wddmseg_fill(c->fd, *h, 0, c->chunk, word_of(c->id, cache, i),
			   NULL);
	if (ret)
		return fail(c, ret, "fill", i);
	return 0;
}

static int build(struct child *c)
{
	unsigned int i;
	int ret;

	for (i = 0; i < c->ncache; i++) {
		if (new_chunk(c, 1, i, &c->cache[i]))
			return c->r.err;
		c->made = i + 1;
		if (service_events(c))
			return c->r.err;
		if (c->trimming && offer_caches(c))
			return c->r.err;
	}
	for (i = 0; i < c->nws; i++)
		if (new_chunk(c, 0, i, &c->ws[i]) || service_events(c))
			return c->r.err;
	/* The engine runs in order: the last fill done, all are. */
	ret = wddmseg_wait(c->fd, c->nws ? c->ws[c->nws - 1] :
			   c->cache[c->ncache - 1], WAIT_NS);
	if (ret)
		return fail(c, ret, "wait", 0);
	return service_events(c);
}

/* Use cache @i: resident again (reclaimed, written again if dropped). */
static int use_cache(struct child *c, unsigned int i)
{
	uint32_t h = c->cache[i], res = 0;
	int ret;

	if (c->offered[i]) {
		ret = wddmseg_reclaim_allocations(c->fd, &h, 1,
						  WDDMSEG_RECLAIM_MAKE_RESIDENT,
						  &res);
		if (ret)
			return fail(c, ret, "RECLAIM_ALLOCATIONS", i);
		c->offered[i] = false;
		if (res == WDDMSEG_RECLAIM_DISCARDED) {
			ret = wddmseg_fill(c->fd, h, 0, c->chunk,
					   word_of(c->id, 1, i), NULL);
			if (ret)
				return fail(c, ret, "fill", i);
			c->r.regenerated += c->chunk;
		}
	} else {
		ret = wddmseg_make_resident(c->fd, h, c->seg);
		if (ret)
			return fail(c, ret, "MAKE_RESIDENT (cache)", i);
	}
	ret = wddmseg_fill(c->fd, h, 0, PROBE, word_of(c->id, 1, i), NULL);
	if (ret)
		return fail(c, ret, "fill", i);
	ret = wddmseg_wait(c->fd, h, WAIT_NS);
	if (ret)
		return fail(c, ret, "wait", i);
	if (c->trimming) {
		ret = wddmseg_offer_allocations(c->fd, &h, 1,
						WDDMSEG_OFFER_PRIORITY_LOW);
		if (ret)
			return fail(c, ret, "OFFER_ALLOCATIONS", i);
		c->offered[i] = true;
	}
	return 0;
}

static int round_once(struct child *c)
{
	unsigned int i;
	int seg;

	for (i = 0; i < c->nws; i++) {
		int ret = wddmseg_make_resident(c->fd, c->ws[i], c->seg);

		if (ret)
			return fail(c, ret, "MAKE_RESIDENT", i);
		if (service_events(c))
			return c->r.err;
	}
	for (i = 0; i < c->nws; i++) {
		seg = wddmseg_wait(c->fd, c->ws[i], WAIT_NS);
		if (seg)
			return fail(c, seg, "wait", i);
	}
	c->r.ws_out = 0;
	for (i = 0; i < c->nws; i++) {
		seg = wddmseg_allocation_segment(c->fd, c->ws[i]);
		if (seg < 0)
			return fail(c, seg, "GEM_INFO", i);
		c->r.ws_out += seg != c->seg;
	}
	if (use_cache(c, c->next))
		return c->r.err;
	c->next = (c->next + 1) % c->ncache;
	return service_events(c);
}

/* The first and last PROBE bytes of @h hold @word? */
static int probe(struct child *c, uint32_t h, uint32_t word, bool *ok)
{
	uint64_t offs[2] = { 0, c->chunk - PROBE };
	uint32_t *p;
	unsigned int k, j;
	int ret;

	*ok = true;
	for (k = 0; k < 2; k++) {
		ret = wddmseg_copy(c->fd, h, offs[k], c->stage, k * PROBE,
				   PROBE, NULL);
		if (ret)
			return ret;
	}
	ret = wddmseg_wait(c->fd, c->stage, WAIT_NS);
	if (ret)
		return ret;
	ret = wddmseg_lock(c->fd, c->stage, 2 * PROBE, (void **)&p);
	if (ret)
		return ret;
	for (j = 0; j < 2 * PROBE / 4; j++)
		if (p[j] != word) {
			*ok = false;
			break;
		}
	return wddmseg_unlock(p, 2 * PROBE);
}

static int check(struct child *c)
{
	unsigned int i;
	uint32_t res;
	bool ok;
	int ret;

	ret = wddmseg_create_allocation_in(c->fd, 2 * PROBE,
					   WDDMSEG_ALLOC_CPU_VISIBLE, 0,
					   &c->stage);
	if (ret)
		return fail(c, ret, "create (stage)", 0);
	for (i = 0; i < c->nws; i++) {
		ret = probe(c, c->ws[i], word_of(c->id, 0, i), &ok);
		if (ret)
			return fail(c, ret, "check", i);
		c->r.bad += !ok;
	}
	for (i = 0; i < c->ncache; i++) {
		if (c->offered[i]) {
			ret = wddmseg_reclaim_allocations(c->fd, &c->cache[i],
							  1, 0, &res);
			if (ret)
				return fail(c, ret, "RECLAIM_ALLOCATIONS", i);
			c->offered[i] = false;
			if (res == WDDMSEG_RECLAIM_DISCARDED) {
				c->r.dropped++;
				continue;
			}
		}
		ret = probe(c, c->cache[i], word_of(c->id, 1, i), &ok);
		if (ret)
			return fail(c, ret, "check", i);
		c->r.bad += !ok;
	}
	return 0;
}

static void child_main(struct child *c, int in, int out)
{
	struct pollfd p[2] = { { .fd = in, .events = POLLIN },
			       { .fd = c->fd, .events = POLLIN } };
	unsigned char cmd;
	double t;

	if (c->way == WAY_COOP || c->way == WAY_IGNORE) {
		int ret = wddmseg_register_trim_notification(c->fd, true);

		if (ret)
			fail(c, ret, "REGISTER_TRIM_NOTIFICATION", 0);
	}
	for (;;) {
		/* Between commands, notifications are read as they come. */
		if (poll(p, c->way == WAY_OFF || c->way == WAY_PLAIN ? 1 : 2,
			 -1) < 0)
			continue;
		if (p[1].revents & POLLIN)
			service_events(c);
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (read(in, &cmd, 1) != 1 || cmd == CMD_QUIT)
			break;
		t = now_ms();
		if (!c->r.err) {
			switch (cmd) {
			case CMD_BUILD: build(c); break;
			case CMD_ROUND: round_once(c); break;
			case CMD_CHECK: check(c); break;
			case CMD_OFFER_ALL: offer_caches(c); break;
			}
		}
		c->r.ms = now_ms() - t;
		if (write(out, &c->r, sizeof(c->r)) != sizeof(c->r))
			break;
		c->r.regenerated = 0;
	}
	_exit(c->r.err ? 1 : 0);
}

struct proc {
	pid_t pid;
	int in, out;
};

static const char *node;

static int spawn(struct proc *p, int id, enum way way, int seg,
		 uint64_t chunk, unsigned int ncache, unsigned int nws)
{
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (!p->pid) {
		static struct child c;

		close(a[1]);
		close(b[0]);
		c.fd = wddmseg_open_adapter(node, 0);
		c.id = id;
		c.way = way;
		c.seg = seg;
		c.chunk = chunk;
		c.ncache = ncache;
		c.nws = nws;
		if (c.fd < 0)
			fail(&c, c.fd, "open", 0);
		child_main(&c, a[0], b[1]);
	}
	close(a[0]);
	close(b[1]);
	p->in = a[1];
	p->out = b[0];
	return 0;
}

static int ask(struct proc *p, unsigned char cmd, struct reply *r)
{
	if (write(p->in, &cmd, 1) != 1 ||
	    read(p->out, r, sizeof(*r)) != sizeof(*r)) {
		fprintf(stderr, "budgetbench: a process is gone\n");
		return -EPIPE;
	}
	if (r->err)
		fprintf(stderr, "budgetbench: process %d: %s: %s\n",
			(int)p->pid, r->what, strerror(-r->err));
	return r->err;
}

static void reap(struct proc *p, int n)
{
	unsigned char cmd = CMD_QUIT;
	int i;

	for (i = 0; i < n; i++) {
		if (write(p[i].in, &cmd, 1) != 1)
			kill(p[i].pid, SIGKILL);
		close(p[i].in);
		close(p[i].out);
		waitpid(p[i].pid, NULL, 0);
	}
}

static char sysfs[128];

/* A device counter (bench_sysfs_sum()); a missing one ends the program. */
static uint64_t counter(const char *name)
{
	uint64_t sum;
	int ret = bench_sysfs_sum(sysfs, name, &sum);

	if (ret) {
		fprintf(stderr, "budgetbench: %s/%s: %s\n", sysfs, name,
			strerror(-ret));
		exit(1);
	}
	return sum;
}

enum { F_COPIED, F_DISCARDED, F_REGEN, F_EVENTS, F_DRIVER, F_ROUND1,
	F_ROUNDS, F_NUM };

struct run {
	double f[F_NUM];
	unsigned int ws_out, bad, dropped;
};

static uint64_t copied(void)
{
	return counter("transfer_in_bytes") + counter("transfer_out_bytes");
}

static int oversubscribe(enum way way, int seg, uint64_t chunk,
			 unsigned int ncache, unsigned int nws,
			 unsigned int rounds, struct run *run)
{
	uint64_t c0, d0, e0, t0;
	struct proc p[NPROC];
	struct reply r;
	unsigned int k;
	int i, n = 0, ret = 0;
	double t;

	memset(run, 0, sizeof(*run));
	c0 = copied();
	d0 = counter("discard_bytes");
	e0 = counter("trim_events");
	t0 = counter("trim_driver_bytes");
	for (i = 0; i < NPROC && !ret; i++, n++)
		ret = spawn(&p[i], i, way, seg, chunk, ncache, nws);
	for (i = 0; i < n && !ret; i++) {
		ret = ask(&p[i], CMD_BUILD, &r);
		run->f[F_REGEN] += r.regenerated;
	}
	for (k = 0; k < rounds && !ret; k++) {
		/* The processes idle between rounds, as between frames. */
		if (k)
			usleep(pause_ms * 1000);
		t = now_ms();
		for (i = 0; i < n && !ret; i++) {
			ret = ask(&p[i], CMD_ROUND, &r);
			run->f[F_REGEN] += r.regenerated;
			run->ws_out += r.ws_out;
		}
		t = now_ms() - t;
		if (!k)
			run->f[F_ROUND1] = t;
		run->f[F_ROUNDS] += t;
	}
	run->f[F_COPIED] = (copied() - c0) / MIB;
	run->f[F_DISCARDED] = (counter("discard_bytes") - d0) / MIB;
	run->f[F_EVENTS] = counter("trim_events") - e0;
	run->f[F_DRIVER] = (counter("trim_driver_bytes") - t0) / MIB;
	run->f[F_REGEN] /= MIB;
	for (i = 0; i < n && !ret; i++) {
		ret = ask(&p[i], CMD_CHECK, &r);
		run->bad += r.bad;
		run->dropped += r.dropped;
	}
	reap(p, n);
	/* Trim work of this run finds nothing of it left in the next. */
	usleep((WDDMSEG_TRIM_GRACE_MS + 250) * 1000);
	return ret;
}

/* Process 1 fills S, offers all or not; process 2's fill of S is timed. */
static int pressure(bool offer, int seg, uint64_t chunk, unsigned int n,
		    double *ms, double *copied_mib, double *discarded_mib)
{
	uint64_t c0, d0;
	struct reply r = { 0 };
	struct proc p[2];
	int i, np = 0, ret = 0;

	for (i = 0; i < 2 && !ret; i++, np++)
		ret = spawn(&p[i], i, WAY_PLAIN, seg, chunk, n, 0);
	if (!ret)
		ret = ask(&p[0], CMD_BUILD, &r);
	if (!ret && offer)
		ret = ask(&p[0], CMD_OFFER_ALL, &r);
	c0 = copied();
	d0 = counter("discard_bytes");
	if (!ret)
		ret = ask(&p[1], CMD_BUILD, &r);
	*ms = r.ms;
	*copied_mib = (copied() - c0) / MIB;
	*discarded_mib = (counter("discard_bytes") - d0) / MIB;
	reap(p, np);
	return ret;
}

/* The segment: ApplicationTarget of the local group, else not CpuVisible. */
static int pick_segment(int fd, uint32_t count)
{
	struct drm_wddmseg_query_segment s;
	int target = 0, invisible = 0;
	uint32_t i;

	for (i = 1; i <= count; i++) {
		if (wddmseg_query_segment(fd, i, NULL, 0, &s) ||
		    wddmseg_segment_is_aperture(s.flags))
			continue;
		if (!target && (s.flags & WDDMSEG_SEGMENT_FLAG_APPLICATION_TARGET))
			target = i;
		if (!invisible && !wddmseg_segment_cpu_visible(s.flags))
			invisible = i;
	}
	return target ? target : invisible;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "segment", required_argument, NULL, 's' },
		{ "chunk-kib", required_argument, NULL, 'c' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "pause-ms", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int rounds = 4, repeats = 3, kib = 1024, ncache, nws, nfill;
	unsigned int k, w, bad = 0;
	double v[3][F_NUM][16], ratio[16], pm[2][16], pc[2][16], pd[2][16];
	double pratio[16], tratio[16];
	struct drm_wddmseg_query_adapter a;
	struct drm_wddmseg_query_segment s;
	struct drm_wddmseg_query_budget b;
	uint64_t chunk, group;
	int seg = 0, opt, fd = -1;
	size_t gi;
	glob_t g;

	while ((opt = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (opt) {
		case 's': seg = atoi(optarg); break;
		case 'c': kib = atoi(optarg); break;
		case 'n': rounds = atoi(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		case 'p': pause_ms = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: %s [--segment ID] [--chunk-kib K] [--rounds N] [--repeats N] [--pause-ms MS] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (!rounds || !repeats || repeats > 16 || kib < 16 || kib % 4) {
		fprintf(stderr, "budgetbench: rounds >= 1, repeats 1..16, chunk-kib >= 16 and a multiple of 4\n");
		return 2;
	}
	chunk = (uint64_t)kib << 10;

	if (glob("/dev/dri/card*", 0, NULL, &g)) {
		fprintf(stderr, "budgetbench: no /dev/dri/card*\n");
		return 1;
	}
	for (gi = 0; gi < g.gl_pathc; gi++) {
		fd = wddmseg_open_adapter(g.gl_pathv[gi], 0);
		if (fd >= 0 && !wddmseg_query_adapter(fd, &a))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fprintf(stderr, "budgetbench: no wddmseg device\n");
		return 1;
	}
	node = strdup(g.gl_pathv[gi]);
	snprintf(sysfs, sizeof(sysfs), "/sys/class/drm/%s/device/wddmseg",
		 strrchr(node, '/') + 1);
	globfree(&g);
	if (!seg)
		seg = pick_segment(fd, a.segment_count);
	if (seg <= 0 || wddmseg_query_segment(fd, seg, NULL, 0, &s) ||
	    wddmseg_segment_is_aperture(s.flags) ||
	    wddmseg_segment_budget_group(s.flags) != WDDMSEG_BUDGET_LOCAL ||
	    wddmseg_query_budget(fd, WDDMSEG_BUDGET_LOCAL, &b)) {
		fprintf(stderr, "budgetbench: no memory segment of the local group to use\n");
		return 1;
	}
	/* A lone file's budget is the whole group. */
	group = b.budget;
	if (group != s.commit_limit)
		printf("note: the local group's budget (%.0f MiB) is not segment %d's CommitLimit (%.0f MiB): the processes' budgets do not describe the segment\n",
		       group / MIB, seg, s.commit_limit / MIB);
	close(fd);
	nfill = s.commit_limit / chunk;
	nws = nfill / 4;
	ncache = 2 * nfill / NPROC - nws;
	if (ncache + nws > MAX_CHUNKS || !nws || !ncache) {
		fprintf(stderr, "budgetbench: %u allocations per process: choose another --chunk-kib\n",
			ncache + nws);
		return 2;
	}

	printf("oversubscription: segment %d (%.0f MiB, the local group's budget %.0f MiB), %d processes x %u allocations of %u KiB (%.2fx the segment), working sets %u each, %u rounds, %u runs\n",
	       seg, s.commit_limit / MIB, group / MIB, NPROC, ncache + nws,
	       kib, (double)NPROC * (ncache + nws) / nfill, nws, rounds,
	       repeats);
	for (k = 0; k < repeats; k++) {
		for (w = WAY_OFF; w <= WAY_IGNORE; w++) {
			struct run run;
			unsigned int f;

			if (oversubscribe(w, seg, chunk, ncache, nws, rounds,
					  &run))
				return 1;
			for (f = 0; f < F_NUM; f++)
				v[w][f][k] = run.f[f];
			bad += run.bad + run.ws_out;
			if (verbose || run.bad || run.ws_out)
				printf("# run %u %-11s copied %.1f MiB discarded %.1f MiB regenerated %.1f MiB events %.0f driver-trimmed %.1f MiB round 1 %.0f ms rounds %.0f ms; ws not resident %u, bad %u, dropped %u\n",
				       k + 1, way_name[w], run.f[F_COPIED],
				       run.f[F_DISCARDED], run.f[F_REGEN],
				       run.f[F_EVENTS], run.f[F_DRIVER],
				       run.f[F_ROUND1], run.f[F_ROUNDS],
				       run.ws_out, run.bad, run.dropped);
		}
		ratio[k] = v[WAY_OFF][F_COPIED][k] /
			(v[WAY_COOP][F_COPIED][k] > 0 ? v[WAY_COOP][F_COPIED][k] :
			 chunk / MIB);
		tratio[k] = v[WAY_OFF][F_ROUND1][k] / v[WAY_COOP][F_ROUND1][k];
	}
	printf("%-12s %10s %13s %15s %11s %18s %10s %13s\n", "way",
	       "copied MiB", "discarded MiB", "regenerated MiB", "trim events",
	       "driver-trimmed MiB", "round 1 ms", "all rounds ms");
	for (w = WAY_OFF; w <= WAY_IGNORE; w++)
		printf("%-12s %10.1f %13.1f %15.1f %11.0f %18.1f %10.0f %13.0f\n",
		       way_name[w], median(v[w][F_COPIED], repeats),
		       median(v[w][F_DISCARDED], repeats),
		       median(v[w][F_REGEN], repeats),
		       median(v[w][F_EVENTS], repeats),
		       median(v[w][F_DRIVER], repeats),
		       median(v[w][F_ROUND1], repeats),
		       median(v[w][F_ROUNDS], repeats));
	printf("bytes copied, budgets off / cooperative: %.1fx (median of %u paired runs; goal >= 3x)\n",
	       median(ratio, repeats), repeats);
	printf("time to the working sets resident (round 1), budgets off / cooperative: %.1fx (median of %u paired runs)\n",
	       median(tratio, repeats), repeats);

	printf("purge against evict: one process fills segment %d (%u allocations of %u KiB), offered or not; a second fills it again\n",
	       seg, nfill, kib);
	for (k = 0; k < repeats; k++) {
		for (w = 0; w < 2; w++) {
			bool offer = (k + w) % 2;

			if (pressure(offer, seg, chunk, nfill, &pm[offer][k],
				     &pc[offer][k], &pd[offer][k]))
				return 1;
			if (verbose)
				printf("# run %u %s: %.0f ms, copied %.1f MiB, discarded %.1f MiB\n",
				       k + 1, offer ? "purge" : "evict",
				       pm[offer][k], pc[offer][k], pd[offer][k]);
		}
		pratio[k] = pm[0][k] / pm[1][k];
	}
	printf("%-12s %10s %10s %13s\n", "memory freed", "ms", "copied MiB",
	       "discarded MiB");
	printf("%-12s %10.0f %10.1f %13.1f\n", "by evicting", median(pm[0], repeats),
	       median(pc[0], repeats), median(pd[0], repeats));
	printf("%-12s %10.0f %10.1f %13.1f\n", "by purging", median(pm[1], repeats),
	       median(pc[1], repeats), median(pd[1], repeats));
	printf("time to free, evicting / purging: %.2fx (median of %u paired runs)\n",
	       median(pratio, repeats), repeats);
	if (bad)
		printf("FAILED: %u allocations were not resident after their round or lost content\n",
		       bad);
	return bad ? 1 : 0;
}
