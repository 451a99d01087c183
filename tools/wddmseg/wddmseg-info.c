// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg-info: print the adapter capabilities and the WDDM segment table
 * of every wddmseg DRM device, through DRM_IOCTL_WDDMSEG_QUERY_ADAPTER and
 * DRM_IOCTL_WDDMSEG_QUERY_SEGMENT.
 *
 * Usage: wddmseg-info [-d NODE]...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <wddmseg.h>

#define MAX_BANKS_SHOWN	1024	/* the driver allows WDDMSEG_MAX_BANKS */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *prog = "wddmseg-info";

/* "64 MiB", or "1.50 GiB" when not a whole number of the unit. */
static const char *human_size(uint64_t v, char *buf, size_t len)
{
	static const char * const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	unsigned int u = 0;

	while (u + 1 < ARRAY_SIZE(units) && v >> (10 * (u + 1)))
		u++;
	if (!(v & ((1ULL << (10 * u)) - 1)))
		snprintf(buf, len, "%" PRIu64 " %s", v >> (10 * u), units[u]);
	else
		snprintf(buf, len, "%.2f %s", (double)v / (double)(1ULL << (10 * u)),
			 units[u]);
	return buf;
}

/* Member names of the set bits, or "(none)"; others as "reserved-bitN". */
static const char *decode_bits(uint32_t value,
			       const char *(*name_of)(unsigned int bit),
			       char *buf, size_t len)
{
	size_t pos = 0;
	unsigned int bit;

	buf[0] = '\0';
	for (bit = 0; bit < 32; bit++) {
		const char *name = name_of(bit);
		int n;

		if (!(value & (1u << bit)))
			continue;
		if (name)
			n = snprintf(buf + pos, len - pos, "%s%s",
				     pos ? " " : "", name);
		else
			n = snprintf(buf + pos, len - pos, "%sreserved-bit%u",
				     pos ? " " : "", bit);
		if (n < 0 || (size_t)n >= len - pos)
			break;
		pos += n;
	}
	if (!pos)
		snprintf(buf, len, "(none)");
	return buf;
}

static const char *segment_kind(uint32_t flags)
{
	if (flags & WDDMSEG_SEGMENT_FLAG_AGP)
		return "agp";
	if (flags & WDDMSEG_SEGMENT_FLAG_APERTURE)
		return "aperture";
	return "memory";
}

static void print_pci(int fd)
{
	drmDevicePtr dev = NULL;

	if (drmGetDevice2(fd, 0, &dev) || !dev) {
		printf("  PCI ?");
		return;
	}
	if (dev->bustype == DRM_BUS_PCI) {
		printf("  PCI %04x:%02x:%02x.%x", dev->businfo.pci->domain,
		       dev->businfo.pci->bus, dev->businfo.pci->dev,
		       dev->businfo.pci->func);
		if (dev->deviceinfo.pci)
			printf(" [%04x:%04x]", dev->deviceinfo.pci->vendor_id,
			       dev->deviceinfo.pci->device_id);
	} else {
		printf("  bus type %d", dev->bustype);
	}
	drmFreeDevice(&dev);
}

static int print_banks(const char *path, int fd, uint32_t id, uint32_t nb)
{
	struct drm_wddmseg_query_segment s;
	char h[32];
	uint64_t *banks, start = 0;
	unsigned int j;
	int ret;

	if (nb > MAX_BANKS_SHOWN)
		nb = MAX_BANKS_SHOWN;
	banks = calloc(nb, sizeof(*banks));
	if (!banks) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -ENOMEM;
	}
	ret = wddmseg_query_segment(fd, id, banks, nb, &s);
	if (ret) {
		fprintf(stderr, "%s: %s: QUERY_SEGMENT %u banks: %s\n", prog,
			path, id, strerror(-ret));
		free(banks);
		return ret;
	}
	if (s.nb_banks < nb)
		nb = s.nb_banks;
	printf("\n  segment %u banks: %u\n", id, nb);
	printf("    %4s  %-18s  %-18s  %s\n", "bank", "start", "end", "size");
	for (j = 0; j < nb; j++) {
		printf("    %4u  0x%016" PRIx64 "  0x%016" PRIx64 "  %s\n", j,
		       start, banks[j],
		       human_size(banks[j] - start, h, sizeof(h)));
		start = banks[j];
	}
	free(banks);
	return 0;
}

static int print_device(const char *path, int fd)
{
	struct drm_wddmseg_query_adapter a;
	struct drm_wddmseg_query_segment s;
	char h1[32], h2[32], names[1024];
	uint32_t *nb_banks;
	unsigned int id;
	int ret, err = 0;

	printf("%s", path);
	print_pci(fd);
	printf("\n");

	ret = wddmseg_query_adapter(fd, &a);
	if (ret) {
		fprintf(stderr, "%s: %s: QUERY_ADAPTER: %s\n", prog, path,
			strerror(-ret));
		return ret;
	}

	printf("  uapi version:    %u\n", a.uapi_version);
	printf("  hw version:      %u.%u (0x%08x)\n", a.hw_version >> 16,
	       a.hw_version & 0xffff, a.hw_version);
	printf("  DXGK_VIDMMCAPS:  0x%08x %s\n", a.device_vidmm_caps,
	       decode_bits(a.device_vidmm_caps, wddmseg_vidmm_cap_name, names,
			   sizeof(names)));
	printf("  honoured:        0x%08x %s\n", a.vidmm_caps,
	       decode_bits(a.vidmm_caps, wddmseg_vidmm_cap_name, names,
			   sizeof(names)));
	printf("  paging node:     %u\n", a.paging_node);
	printf("  engines:         %u\n", a.num_engines);
	printf("  VRAM:            0x%" PRIx64 " (%s)\n", (uint64_t)a.vram_size,
	       human_size(a.vram_size, h1, sizeof(h1)));
	printf("  CPU-visible:     0x%" PRIx64 " (%s)\n",
	       (uint64_t)a.cpu_visible_size,
	       human_size(a.cpu_visible_size, h1, sizeof(h1)));
	printf("  segments:        %u\n", a.segment_count);
	if (!a.segment_count)
		return 0;

	nb_banks = calloc(a.segment_count + 1, sizeof(*nb_banks));
	if (!nb_banks) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -ENOMEM;
	}

	printf("\n  %2s  %-8s  %-18s  %-18s  %-22s  %-22s  %s\n", "id", "kind",
	       "base", "cpu translated", "size", "commit limit", "flags");
	for (id = 1; id <= a.segment_count; id++) {
		char size[64], commit[64];

		ret = wddmseg_query_segment(fd, id, NULL, 0, &s);
		if (ret) {
			fprintf(stderr, "%s: %s: QUERY_SEGMENT %u: %s\n", prog,
				path, id, strerror(-ret));
			err = ret;
			continue;
		}
		nb_banks[id] = s.nb_banks;
		snprintf(size, sizeof(size), "0x%" PRIx64 " (%s)",
			 (uint64_t)s.size, human_size(s.size, h1, sizeof(h1)));
		snprintf(commit, sizeof(commit), "0x%" PRIx64 " (%s)",
			 (uint64_t)s.commit_limit,
			 human_size(s.commit_limit, h2, sizeof(h2)));
		printf("  %2u  %-8s  0x%016" PRIx64 "  0x%016" PRIx64
		       "  %-22s  %-22s  0x%08x %s\n",
		       id, segment_kind(s.flags), (uint64_t)s.base_address,
		       (uint64_t)s.cpu_translated_address, size, commit,
		       s.flags,
		       decode_bits(s.flags, wddmseg_segment_flag_name, names,
				   sizeof(names)));
	}

	for (id = 1; id <= a.segment_count; id++) {
		if (!nb_banks[id])
			continue;
		ret = print_banks(path, fd, id, nb_banks[id]);
		if (ret)
			err = ret;
	}
	free(nb_banks);
	return err;
}

/*
 * Open @path if it is a wddmseg node. Returns the fd, -1 if it cannot be
 * opened, -2 if another driver owns it.
 */
static int open_node(const char *path, bool verbose)
{
	int fd = wddmseg_open_adapter(path, 0);

	if (fd == -ENODEV) {
		if (verbose)
			fprintf(stderr, "%s: %s: not a wddmseg device\n", prog,
				path);
		return -2;
	}
	if (fd < 0) {
		if (verbose || fd != -ENOENT)
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				strerror(-fd));
		return -1;
	}
	return fd;
}

static int cmp_version(const void *a, const void *b)
{
	return strverscmp(*(const char * const *)a, *(const char * const *)b);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-d NODE]...\n"
		"Print the WDDM adapter capabilities and segment table of wddmseg\n"
		"DRM devices: every /dev/dri/card* driven by wddmseg, or each NODE.\n",
		prog);
}

/* Print one open wddmseg node; a blank line separates devices. */
static int show(const char *path, int fd, unsigned int *found)
{
	int ret;

	if ((*found)++)
		printf("\n");
	ret = print_device(path, fd);
	wddmseg_close_adapter(fd);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int found = 0;
	size_t i, nr_nodes = 0;
	char **nodes;
	int opt, fd, err = 0;

	/* -d may be repeated: its arguments, in order */
	nodes = calloc(argc, sizeof(*nodes));
	if (!nodes) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		switch (opt) {
		case 'd':
			nodes[nr_nodes++] = optarg;
			break;
		case 'h':
			usage(stdout);
			free(nodes);
			return 0;
		default:
			usage(stderr);
			free(nodes);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		free(nodes);
		return 2;
	}

	if (nr_nodes) {
		for (i = 0; i < nr_nodes; i++) {
			fd = open_node(nodes[i], true);
			if (fd < 0)
				err = 1;
			else
				err |= show(nodes[i], fd, &found);
		}
	} else {
		glob_t g;

		if (!glob("/dev/dri/card*", 0, NULL, &g)) {
			qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv),
			      cmp_version);
			for (i = 0; i < g.gl_pathc; i++) {
				fd = open_node(g.gl_pathv[i], false);
				if (fd >= 0)
					err |= show(g.gl_pathv[i], fd, &found);
			}
			globfree(&g);
		}
	}
	free(nodes);

	if (!found) {
		fprintf(stderr, "%s: no wddmseg DRM device found%s\n", prog,
			nr_nodes ? "" : " in /dev/dri");
		return 1;
	}
	return err;
}
