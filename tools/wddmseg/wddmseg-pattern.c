// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg-pattern: show a deterministic test pattern on a KMS device so
 * that the host can take a QEMU screendump and compare it pixel by pixel
 * (tools/vm/screendump.py recomputes the same pattern).
 *
 * Usage: wddmseg-pattern [-D DRIVER] [-c CONNECTOR_ID] [-m WxH]
 *                        [-f XR24|RG16] [-s SEED] [-p PAD] [-t TAG]
 *                        [-H SECS] [-w] [-n] [-C]
 *
 *   -D  DRM driver name of the card to use (default wddmseg; Debian's
 *       bochs driver is "bochs-drm")
 *   -c  connector id (default: the first connected one with modes)
 *   -m  mode WxH from the connector's list (default: the preferred one)
 *   -f  XR24 (DRM_FORMAT_XRGB8888, default) or RG16 (DRM_FORMAT_RGB565)
 *   -s  pattern seed (default 1)
 *   -p  extra pixels per line in the buffer: the framebuffer pitch is
 *       then larger than width * cpp, and the padding holds a colour the
 *       pattern never has at that place (default 16)
 *   -t  tag copied into the marker line (the host uses it to find the
 *       QEMU display, e.g. qdev=gpu0)
 *   -H  hold the mode for SECS seconds after the marker (default 10)
 *   -w  with -H: stop holding as soon as a byte (or EOF) arrives on stdin;
 *       a tty on stdin is put in raw mode first
 *   -n  no page flip: set the pattern directly with SETCRTC. Without -n,
 *       a decoy buffer (the pattern of seed ~SEED) is set first, then the
 *       real one is shown with a page flip and its event is awaited, so a
 *       device that kept scanning out the old buffer fails the comparison.
 *   -C  also show a 64x64 hardware cursor (legacy cursor ioctls) at
 *       (W - 40, 20), so its right 24 columns are off screen: ARGB8888,
 *       premultiplied, pixel (cx, cy) with alpha A = 0, 0x55, 0xaa or
 *       0xff for (cx + cy) % 4 = 0..3 and colour
 *       (cx * 4, cy * 4, ((cx ^ cy) * 4) & 0xff) * A / 255 (rounded down);
 *       the marker then says cursor=X,Y and the host blends it over the
 *       pattern (c + fb * (255 - A) / 255, rounded) before comparing.
 *
 * Output (stdout), one line each:
 *   WDDMSEG-PATTERN READY driver=D format=F width=W height=H seed=S
 *       pitch=P pad=N connector=C crtc=R fb=B flip=0|1 [cursor=X,Y] TAG
 *   WDDMSEG-PATTERN DONE
 * Errors go to stderr, exit status 1. Exit 4 (kselftest's skip) when the
 * driver has no KMS or no connected connector with modes.
 *
 * The pattern, per pixel (x, y) of a W x H frame, with channel maxima
 * M = 255/255/255 (XR24) or 31/63/31 (RG16) and K = (M + 1) / 8:
 *   h     = mix32(x * 0x9e3779b1 ^ y * 0x85ebca77 ^ seed * 0xc2b2ae3d)
 *   noise = (h & (Kr-1), (h >> 8) & (Kg-1), (h >> 16) & (Kb-1))
 *   base  = top 3/4 of the frame: 8 colour bars (white, yellow, cyan,
 *           green, magenta, red, blue, black) of full M or 0 per channel;
 *           bottom 1/4: ramps R = x*M/(W-1), G = (W-1-x)*M/(W-1),
 *           B = y*M/(H-1)
 *   value = base ^ noise   (per channel)
 * packed as 0x00RRGGBB (XR24) or RRRRRGGGGGGBBBBB (RG16), little endian.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

static const char *prog = "wddmseg-pattern";

#define fail(...) do {						\
	fprintf(stderr, "wddmseg-pattern: " __VA_ARGS__);	\
	fprintf(stderr, "\n");					\
	exit(1);						\
} while (0)

struct buf {
	uint32_t handle, fb_id, pitch;
	uint64_t size;
	void *map;
};

static uint32_t mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	h *= 0x846ca68bu;
	h ^= h >> 16;
	return h;
}

/* bit 2 red, bit 1 green, bit 0 blue */
static const unsigned int bars[8] = { 7, 6, 3, 2, 5, 4, 1, 0 };

static void pattern_pixel(uint32_t x, uint32_t y, uint32_t w, uint32_t h,
			  uint32_t seed, const unsigned int max[3],
			  unsigned int out[3])
{
	uint32_t n = mix32((x * 0x9e3779b1u) ^ (y * 0x85ebca77u) ^
			   (seed * 0xc2b2ae3du));
	unsigned int c;

	for (c = 0; c < 3; c++) {
		unsigned int k = (max[c] + 1) / 8, base;

		if (y < h * 3 / 4) {
			base = (bars[x * 8 / w] >> (2 - c)) & 1 ? max[c] : 0;
		} else if (c == 0) {
			base = w > 1 ? x * max[c] / (w - 1) : 0;
		} else if (c == 1) {
			base = w > 1 ? (w - 1 - x) * max[c] / (w - 1) : 0;
		} else {
			base = h > 1 ? y * max[c] / (h - 1) : 0;
		}
		out[c] = base ^ ((n >> (8 * c)) & (k - 1));
	}
}

static void fill(struct buf *b, uint32_t format, uint32_t w, uint32_t h,
		 uint32_t pad, uint32_t seed)
{
	static const unsigned int max8[3] = { 255, 255, 255 };
	static const unsigned int max565[3] = { 31, 63, 31 };
	unsigned int v[3];
	uint32_t x, y;

	for (y = 0; y < h; y++) {
		uint8_t *line = (uint8_t *)b->map + (size_t)y * b->pitch;

		if (format == DRM_FORMAT_XRGB8888) {
			uint32_t *p = (uint32_t *)line;

			for (x = 0; x < w; x++) {
				pattern_pixel(x, y, w, h, seed, max8, v);
				p[x] = v[0] << 16 | v[1] << 8 | v[2];
			}
			/* padding and the rest of the pitch: not a pattern colour */
			for (; x < w + pad && (x + 1) * 4 <= b->pitch; x++)
				p[x] = 0x00ff00ffu ^ (x + y);
		} else {
			uint16_t *p = (uint16_t *)line;

			for (x = 0; x < w; x++) {
				pattern_pixel(x, y, w, h, seed, max565, v);
				p[x] = v[0] << 11 | v[1] << 5 | v[2];
			}
			for (; x < w + pad && (x + 1) * 2 <= b->pitch; x++)
				p[x] = 0xf81f ^ (x + y);
		}
	}
}

static int open_driver(const char *driver)
{
	char path[64];
	int i, fd;

	for (i = 0; i < 16; i++) {
		drmVersionPtr v;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, driver)) {
			fprintf(stderr, "%s: %s is %s\n", prog, path, v->name);
			drmFreeVersion(v);
			return fd;
		}
		if (v)
			drmFreeVersion(v);
		close(fd);
	}
	return -1;
}

static void create_buf(int fd, struct buf *b, uint32_t w, uint32_t h,
		       uint32_t pad, uint32_t format)
{
	uint32_t bpp = format == DRM_FORMAT_XRGB8888 ? 32 : 16;
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint64_t offset;
	int ret;

	ret = drmModeCreateDumbBuffer(fd, w + pad, h, bpp, 0, &b->handle,
				      &b->pitch, &b->size);
	if (ret)
		fail("CREATE_DUMB %ux%u bpp %u: %s", w + pad, h, bpp,
		     strerror(-ret));
	handles[0] = b->handle;
	pitches[0] = b->pitch;
	if (drmModeAddFB2(fd, w, h, format, handles, pitches, offsets,
			  &b->fb_id, 0))
		fail("ADDFB2 %ux%u pitch %u: %s", w, h, b->pitch,
		     strerror(errno));
	ret = drmModeMapDumbBuffer(fd, b->handle, &offset);
	if (ret)
		fail("MAP_DUMB: %s", strerror(-ret));
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      offset);
	if (b->map == MAP_FAILED)
		fail("mmap of the dumb buffer: %s", strerror(errno));
}

static void destroy_buf(int fd, struct buf *b)
{
	munmap(b->map, b->size);
	drmModeRmFB(fd, b->fb_id);
	drmModeDestroyDumbBuffer(fd, b->handle);
}

static void flip_handler(int fd, unsigned int seq, unsigned int sec,
			 unsigned int usec, void *data)
{
	(void)fd; (void)seq; (void)sec; (void)usec;
	*(int *)data = 1;
}

/* wait until the page-flip event sets *done, at most 5 s */
static void wait_flip(int fd, int *done)
{
	drmEventContext ev = {
		.version = 2,
		.page_flip_handler = flip_handler,
	};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (!*done) {
		int r = poll(&pfd, 1, 5000);

		if (r == 0)
			fail("no page-flip event within 5 s");
		if (r < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		if (r > 0 && drmHandleEvent(fd, &ev))
			fail("drmHandleEvent: %s", strerror(errno));
	}
}

static void hold(unsigned int secs, bool wait_input)
{
	struct termios t;
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct timespec end, now;
	char c;

	if (!wait_input) {
		sleep(secs);
		return;
	}
	if (isatty(0) && !tcgetattr(0, &t)) {
		cfmakeraw(&t);
		tcsetattr(0, TCSANOW, &t);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	for (;;) {
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (end.tv_sec - now.tv_sec) * 1000 +
		     (end.tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0) {
			fprintf(stderr, "%s: no input within %u s\n", prog, secs);
			return;
		}
		if (poll(&pfd, 1, ms) > 0) {
			if (pfd.revents & (POLLHUP | POLLERR))
				return;
			if (read(0, &c, 1) != -1 || errno != EINTR)
				return;
		}
	}
}

/* The -C cursor: 64x64 ARGB8888, premultiplied (see the header). */
static void show_cursor(int fd, uint32_t crtc_id, struct buf *c, int x, int y)
{
	static const uint32_t alpha[4] = { 0, 0x55, 0xaa, 0xff };
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint64_t offset;
	uint32_t cx, cy;
	int ret;

	ret = drmModeCreateDumbBuffer(fd, 64, 64, 32, 0, &c->handle,
				      &c->pitch, &c->size);
	if (ret)
		fail("CREATE_DUMB 64x64 cursor: %s", strerror(-ret));
	ret = drmModeMapDumbBuffer(fd, c->handle, &offset);
	if (ret)
		fail("MAP_DUMB: %s", strerror(-ret));
	c->map = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      offset);
	if (c->map == MAP_FAILED)
		fail("mmap of the cursor: %s", strerror(errno));
	for (cy = 0; cy < 64; cy++) {
		for (cx = 0; cx < 64; cx++) {
			uint32_t a = alpha[(cx + cy) % 4];
			uint32_t r = cx * 4 * a / 255, g = cy * 4 * a / 255;
			uint32_t b = (((cx ^ cy) * 4) & 0xff) * a / 255;

			((uint32_t *)((uint8_t *)c->map + cy * c->pitch))[cx] =
				a << 24 | r << 16 | g << 8 | b;
		}
	}
	/* the fb is not needed by the legacy ioctl, but keep it listed */
	handles[0] = c->handle;
	pitches[0] = c->pitch;
	if (drmModeAddFB2(fd, 64, 64, DRM_FORMAT_ARGB8888, handles, pitches,
			  offsets, &c->fb_id, 0))
		fail("ADDFB2 64x64 AR24: %s", strerror(errno));
	if (drmModeSetCursor(fd, crtc_id, c->handle, 64, 64))
		fail("SETCURSOR: %s", strerror(errno));
	if (drmModeMoveCursor(fd, crtc_id, x, y))
		fail("MOVECURSOR %d,%d: %s", x, y, strerror(errno));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-D DRIVER] [-c CONNECTOR_ID] [-m WxH] [-f XR24|RG16]\n"
		"       [-s SEED] [-p PAD] [-t TAG] [-H SECS] [-w] [-n] [-C]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *driver = "wddmseg", *tag = "", *fmt_name = "XR24";
	uint32_t conn_id = 0, seed = 1, pad = 16, format = DRM_FORMAT_XRGB8888;
	unsigned int want_w = 0, want_h = 0, hold_secs = 10;
	bool wait_input = false, flip = true, cursor = false;
	int cur_x = 0, cur_y = 0;
	char cur_kv[48] = "";
	struct buf cur;
	drmModeResPtr res;
	drmModeConnectorPtr conn = NULL;
	drmModeModeInfoPtr mode = NULL;
	uint32_t crtc_id = 0;
	struct buf real, decoy;
	int fd, i, j, opt;

	while ((opt = getopt(argc, argv, "D:c:m:f:s:p:t:H:wnCh")) != -1) {
		switch (opt) {
		case 'D': driver = optarg; break;
		case 'c': conn_id = strtoul(optarg, NULL, 0); break;
		case 'm':
			if (sscanf(optarg, "%ux%u", &want_w, &want_h) != 2)
				usage();
			break;
		case 'f':
			fmt_name = optarg;
			if (!strcmp(optarg, "XR24"))
				format = DRM_FORMAT_XRGB8888;
			else if (!strcmp(optarg, "RG16"))
				format = DRM_FORMAT_RGB565;
			else
				usage();
			break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'p': pad = strtoul(optarg, NULL, 0); break;
		case 't': tag = optarg; break;
		case 'H': hold_secs = strtoul(optarg, NULL, 0); break;
		case 'w': wait_input = true; break;
		case 'n': flip = false; break;
		case 'C': cursor = true; break;
		default: usage();
		}
	}

	fd = open_driver(driver);
	if (fd < 0)
		fail("no DRM card of driver %s", driver);
	res = drmModeGetResources(fd);
	if (!res && errno == EOPNOTSUPP) {
		/* a driver without DRIVER_MODESET */
		fprintf(stderr, "%s: %s: no KMS (GETRESOURCES: %s)\n", prog,
			driver, strerror(errno));
		return 4;
	}
	if (!res)
		fail("GETRESOURCES: %s", strerror(errno));

	for (i = 0; i < res->count_connectors && !conn; i++) {
		drmModeConnectorPtr c = drmModeGetConnector(fd, res->connectors[i]);

		if (c && (conn_id ? c->connector_id == conn_id :
			  c->connection == DRM_MODE_CONNECTED && c->count_modes))
			conn = c;
		else if (c)
			drmModeFreeConnector(c);
	}
	if (!conn || !conn->count_modes) {
		fprintf(stderr, "%s: %s: no connected connector with modes\n",
			prog, driver);
		return 4;
	}
	for (i = 0; i < conn->count_modes && !mode; i++) {
		drmModeModeInfoPtr m = &conn->modes[i];

		if (want_w ? m->hdisplay == want_w && m->vdisplay == want_h :
		    !!(m->type & DRM_MODE_TYPE_PREFERRED))
			mode = m;
	}
	if (!mode && want_w)
		fail("connector %u has no mode %ux%u", conn->connector_id,
		     want_w, want_h);
	if (!mode)
		mode = &conn->modes[0];

	/* a CRTC: the current encoder's, or the first possible one */
	for (i = 0; i < conn->count_encoders && !crtc_id; i++) {
		drmModeEncoderPtr e = drmModeGetEncoder(fd, conn->encoders[i]);

		if (!e)
			continue;
		if (e->encoder_id == conn->encoder_id && e->crtc_id)
			crtc_id = e->crtc_id;
		for (j = 0; j < res->count_crtcs && !crtc_id; j++)
			if (e->possible_crtcs & (1u << j))
				crtc_id = res->crtcs[j];
		drmModeFreeEncoder(e);
	}
	if (!crtc_id)
		fail("no CRTC for connector %u", conn->connector_id);

	create_buf(fd, &real, mode->hdisplay, mode->vdisplay, pad, format);
	fill(&real, format, mode->hdisplay, mode->vdisplay, pad, seed);
	if (flip) {
		create_buf(fd, &decoy, mode->hdisplay, mode->vdisplay, pad, format);
		fill(&decoy, format, mode->hdisplay, mode->vdisplay, pad, ~seed);
	}

	if (drmModeSetCrtc(fd, crtc_id, flip ? decoy.fb_id : real.fb_id, 0, 0,
			   &conn->connector_id, 1, mode))
		fail("SETCRTC crtc %u fb %u %s: %s", crtc_id,
		     flip ? decoy.fb_id : real.fb_id, mode->name, strerror(errno));
	if (flip) {
		int flipped = 0;

		if (drmModePageFlip(fd, crtc_id, real.fb_id,
				    DRM_MODE_PAGE_FLIP_EVENT, &flipped))
			fail("PAGE_FLIP to fb %u: %s", real.fb_id, strerror(errno));
		wait_flip(fd, &flipped);
	}
	if (cursor) {
		cur_x = mode->hdisplay - 40;
		cur_y = 20;
		show_cursor(fd, crtc_id, &cur, cur_x, cur_y);
		snprintf(cur_kv, sizeof(cur_kv), "cursor=%d,%d ", cur_x, cur_y);
	}

	printf("WDDMSEG-PATTERN READY driver=%s format=%s width=%u height=%u seed=%u pitch=%u pad=%u connector=%u crtc=%u fb=%u flip=%d %s%s\n",
	       driver, fmt_name, mode->hdisplay, mode->vdisplay, seed,
	       real.pitch, pad, conn->connector_id, crtc_id, real.fb_id,
	       flip, cur_kv, tag);
	fflush(stdout);
	hold(hold_secs, wait_input);

	/*
	 * Removing the framebuffers turns the CRTC off; closing the last
	 * file gives the display back to fbdev emulation, if any.
	 */
	if (cursor) {
		drmModeSetCursor(fd, crtc_id, 0, 0, 0);
		destroy_buf(fd, &cur);
	}
	if (flip)
		destroy_buf(fd, &decoy);
	destroy_buf(fd, &real);
	drmModeFreeConnector(conn);
	drmModeFreeResources(res);
	close(fd);
	printf("WDDMSEG-PATTERN DONE\n");
	return 0;
}
