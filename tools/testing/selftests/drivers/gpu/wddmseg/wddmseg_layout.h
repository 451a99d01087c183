/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsers used by the wddmseg selftest: the layout string of the QEMU
 * device (tools/qemu/docs-wddmseg.rst, "Layout strings"), the lines of
 * the expectation file written by the VM harness, and the lines of the
 * debugfs "segments" file.
 *
 * Pure string handling, no I/O, so that wddmseg_layout_test.c can check it
 * on the build host.
 *
 * The QEMU device model parses the same layout grammar with its own code
 * (tools/qemu/, the "layout" property). That is on purpose: this parser is
 * an independent oracle, written from the grammar in
 * tools/qemu/docs-wddmseg.rst and not from the device's code, so a
 * misreading in the device (a suffix, a default, the bank list) shows up
 * as a difference between what the kselftests expect and what the driver
 * reports, instead of being shared by both sides. Do not replace either
 * with the other; change both when the grammar changes.
 *
 *   layout := CAPS ":" NODE { "|" SEG }
 *   SEG    := BASE ":" CPU ":" SIZE ":" COMMIT ":" FLAGS
 *             [ ":" NBANKS [ ":" BANKS ] ]
 *   BANKS  := END { "/" END }
 *
 * Numbers are "0x" hexadecimal or decimal, with an optional binary suffix
 * K, M or G. CPU is an offset into BAR2 or "-" for none.
 *
 * An expectation line is
 *
 *   <pci-bdf> vram=<size> bar2=<size> layout=<layout-string>
 */
#ifndef WDDMSEG_LAYOUT_H
#define WDDMSEG_LAYOUT_H

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAYOUT_MAX_SEGS		8	/* table slots of the device */
#define LAYOUT_MAX_BANK_ENDS	16	/* bank slots per segment */
#define LAYOUT_ERR_LEN		128
#define EXPECT_BDF_LEN		32
#define EXPECT_ERR_LEN		256

struct layout_seg {
	uint64_t base;
	bool has_cpu;		/* false for "-" */
	uint64_t cpu_offset;	/* offset into BAR2 when has_cpu */
	uint64_t size;
	uint64_t commit;
	uint32_t flags;
	uint32_t nb_banks;	/* NBANKS as given, 0 when absent */
	unsigned int nr_bank_ends;	/* END values listed */
	uint64_t bank_end[LAYOUT_MAX_BANK_ENDS];
};

struct layout {
	uint32_t caps;
	uint32_t node;
	unsigned int nr_segs;
	struct layout_seg seg[LAYOUT_MAX_SEGS];
};

struct expect_dev {
	char bdf[EXPECT_BDF_LEN];
	uint64_t vram;
	uint64_t bar2;
	struct layout layout;
};

/*
 * Bank j as the device reports it: the listed end, or 0 for a slot the
 * layout claims through NBANKS but does not list.
 */
static inline uint64_t layout_bank_end(const struct layout_seg *s,
				       unsigned int j)
{
	return j < s->nr_bank_ends ? s->bank_end[j] : 0;
}

/*
 * Parse one number at *p and advance *p past it. Decimal or "0x" hex,
 * optional K/M/G suffix. A decimal number with a leading zero ("010") is
 * refused as ambiguous (octal in C). Returns 0 or -1.
 */
static inline int layout_parse_number(const char **p, uint64_t *val)
{
	const char *s = *p;
	unsigned int base = 10, digits = 0, shift = 0;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++, digits++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -1;	/* overflow */
		v = v * base + d;
	}
	if (!digits)
		return -1;
	if (base == 10 && digits > 1 && (*p)[0] == '0')
		return -1;
	switch (*s) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	}
	if (shift) {
		if (v > (UINT64_MAX >> shift))
			return -1;
		v <<= shift;
		s++;
	}
	*val = v;
	*p = s;
	return 0;
}

static inline int layout_parse_u32(const char **p, uint32_t *val)
{
	const char *start = *p;
	uint64_t v;

	if (layout_parse_number(p, &v))
		return -1;
	if (v > UINT32_MAX) {
		*p = start;
		return -1;
	}
	*val = v;
	return 0;
}

/* Step over the ':' at *p, or return false. */
static inline bool layout_colon(const char **p)
{
	if (**p != ':')
		return false;
	(*p)++;
	return true;
}

/* Write "offset N: [segment I: ]message" to @err; returns -1. */
static inline __attribute__((format(printf, 5, 6)))
int layout_fail(char *err, const char *str, const char *p, unsigned int id,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return -1;
	if (id)
		n = snprintf(err, LAYOUT_ERR_LEN, "offset %ld: segment %u: ",
			     (long)(p - str), id);
	else
		n = snprintf(err, LAYOUT_ERR_LEN, "offset %ld: ",
			     (long)(p - str));
	va_start(ap, fmt);
	vsnprintf(err + n, LAYOUT_ERR_LEN - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* SEG at *p, the text after its '|'; @id numbers it in messages. */
static inline int layout_parse_seg(const char *str, const char **pp,
				   struct layout_seg *s, unsigned int id,
				   char *err)
{
	const char *p = *pp;

	if (layout_parse_number(&p, &s->base))
		return layout_fail(err, str, p, id, "bad BASE");
	if (!layout_colon(&p))
		return layout_fail(err, str, p, id, "expected ':' after BASE");
	s->has_cpu = *p != '-';
	if (!s->has_cpu)
		p++;
	else if (layout_parse_number(&p, &s->cpu_offset))
		return layout_fail(err, str, p, id, "bad CPU");
	if (!layout_colon(&p))
		return layout_fail(err, str, p, id, "expected ':' after CPU");
	if (layout_parse_number(&p, &s->size))
		return layout_fail(err, str, p, id, "bad SIZE");
	if (!layout_colon(&p))
		return layout_fail(err, str, p, id, "expected ':' after SIZE");
	if (layout_parse_number(&p, &s->commit))
		return layout_fail(err, str, p, id, "bad COMMIT");
	if (!layout_colon(&p))
		return layout_fail(err, str, p, id, "expected ':' after COMMIT");
	if (layout_parse_u32(&p, &s->flags))
		return layout_fail(err, str, p, id, "bad FLAGS");

	if (layout_colon(&p)) {
		if (layout_parse_u32(&p, &s->nb_banks))
			return layout_fail(err, str, p, id, "bad NBANKS");
		if (*p == ':') {
			do {
				uint64_t *end = &s->bank_end[s->nr_bank_ends];

				if (s->nr_bank_ends == LAYOUT_MAX_BANK_ENDS)
					return layout_fail(err, str, p, id,
							   "more than %d banks",
							   LAYOUT_MAX_BANK_ENDS);
				p++;
				if (layout_parse_number(&p, end))
					return layout_fail(err, str, p, id,
							   "bad bank END %u",
							   s->nr_bank_ends);
				s->nr_bank_ends++;
			} while (*p == '/');
		}
	}
	if (*p && *p != '|')
		return layout_fail(err, str, p, id, "unexpected '%c'", *p);
	*pp = p;
	return 0;
}

/*
 * Parse the layout string @str into @l. The string must be consumed
 * completely. On error returns -1 and, when @err is not NULL, writes a
 * message of at most LAYOUT_ERR_LEN bytes there.
 */
static inline int layout_parse(const char *str, struct layout *l, char *err)
{
	const char *p = str;

	memset(l, 0, sizeof(*l));

	if (layout_parse_u32(&p, &l->caps))
		return layout_fail(err, str, p, 0, "bad CAPS");
	if (!layout_colon(&p))
		return layout_fail(err, str, p, 0, "expected ':' after CAPS");
	if (layout_parse_u32(&p, &l->node))
		return layout_fail(err, str, p, 0, "bad NODE");

	while (*p == '|') {
		if (l->nr_segs == LAYOUT_MAX_SEGS)
			return layout_fail(err, str, p, 0, "more than %d segments",
					   LAYOUT_MAX_SEGS);
		p++;
		if (layout_parse_seg(str, &p, &l->seg[l->nr_segs],
				     l->nr_segs + 1, err))
			return -1;
		l->nr_segs++;
	}
	if (*p)
		return layout_fail(err, str, p, 0, "unexpected '%c'", *p);
	return 0;
}

/*
 * Parse one line of the expectation file. Returns 1 for a device line,
 * 0 for a blank or '#' comment line, -1 on error (message in @err, of
 * EXPECT_ERR_LEN bytes).
 * Keys other than vram, bar2 and layout are ignored.
 */
static inline int expect_parse_line(const char *line, struct expect_dev *d,
				    char *err)
{
	bool have_vram = false, have_bar2 = false, have_layout = false;
	const char *p = line;
	size_t len;

	memset(d, 0, sizeof(*d));
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n' || *p == '#')
		return 0;

	len = strcspn(p, " \t\n");
	if (len >= EXPECT_BDF_LEN) {
		snprintf(err, EXPECT_ERR_LEN, "PCI address too long");
		return -1;
	}
	memcpy(d->bdf, p, len);
	p += len;

	for (;;) {
		char tok[4096], lerr[LAYOUT_ERR_LEN];
		const char *v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		len = strcspn(p, " \t\n");
		if (len >= sizeof(tok)) {
			snprintf(err, EXPECT_ERR_LEN, "%s: token too long",
				 d->bdf);
			return -1;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		p += len;

		v = strchr(tok, '=');
		if (!v) {
			snprintf(err, EXPECT_ERR_LEN, "%s: '%.40s' is not key=value",
				 d->bdf, tok);
			return -1;
		}
		v++;
		if (!strncmp(tok, "vram=", 5) || !strncmp(tok, "bar2=", 5)) {
			bool vram = tok[0] == 'v';
			uint64_t *dst = vram ? &d->vram : &d->bar2;

			if (layout_parse_number(&v, dst) || *v) {
				snprintf(err, EXPECT_ERR_LEN, "%s: bad %s size",
					 d->bdf, vram ? "vram" : "bar2");
				return -1;
			}
			if (vram)
				have_vram = true;
			else
				have_bar2 = true;
		} else if (!strncmp(tok, "layout=", 7)) {
			if (layout_parse(v, &d->layout, lerr)) {
				snprintf(err, EXPECT_ERR_LEN, "%s: layout: %s",
					 d->bdf, lerr);
				return -1;
			}
			have_layout = true;
		}
	}
	if (!have_vram || !have_bar2 || !have_layout) {
		snprintf(err, EXPECT_ERR_LEN, "%s: missing %s", d->bdf,
			 !have_vram ? "vram=" : !have_bar2 ? "bar2=" : "layout=");
		return -1;
	}
	return 1;
}

/*
 * Parse one line of /sys/kernel/debug/dri/N/segments. A segment line
 * begins, in its first column, with its decimal id and a colon and
 * contains "size=0x<hex>"; indented lines (say, a bank list) are not.
 * Returns 1 for a segment line (id and size filled in), 0 for any other
 * line (a header, say), -1 for a segment line without a readable size.
 * The only place that knows the debugfs format.
 */
static inline int debugfs_parse_segment_line(const char *line,
					     unsigned int *id, uint64_t *size)
{
	const char *p = line, *q;
	unsigned long long v;
	char *end;

	if (*p < '0' || *p > '9')
		return 0;
	q = p;
	while (*q >= '0' && *q <= '9')
		q++;
	if (*q != ':')
		return 0;
	v = strtoull(p, NULL, 10);
	if (v > UINT32_MAX)
		return 0;
	*id = v;

	/* "size=" as a word of its own, not the tail of "commit_size=" */
	for (q = strstr(q, "size=0x"); q; q = strstr(q + 1, "size=0x")) {
		char c = q[-1];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			break;
	}
	if (!q)
		return -1;
	q += 7;
	if (!isxdigit((unsigned char)*q))
		return -1;
	errno = 0;
	v = strtoull(q, &end, 16);
	if (errno || isalnum((unsigned char)*end) || *end == '_')
		return -1;
	*size = v;
	return 1;
}

#endif /* WDDMSEG_LAYOUT_H */
