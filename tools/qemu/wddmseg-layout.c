/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg: the segment descriptor table, from the "layout" property or
 * from the size properties (the default layout)
 */

#include "qemu/osdep.h"
#include "qemu/ctype.h"
#include "qemu/cutils.h"
#include "qemu/units.h"
#include "qapi/error.h"

#include "wddmseg-internal.h"

/* BaseAddress of the default layout's aperture segment. */
#define WDDMSEG_DEFAULT_APERTURE_BASE       (4 * GiB)

/* ------------------------------------------------------------------------ */
/* Layout string                                                            */
/* ------------------------------------------------------------------------ */

/*
 * layout := CAPS ":" NODE { "|" SEG }
 * SEG    := BASE ":" CPU ":" SIZE ":" COMMIT ":" FLAGS
 *           [ ":" NBANKS [ ":" BANKS ] ]
 * BANKS  := END { "/" END }
 *
 * Numbers are 0x-hexadecimal or decimal with an optional K, M or G binary
 * suffix; CPU is a number or "-".
 */

typedef struct WddmsegParser {
    const char *str;            /* the whole string, for error positions */
    const char *p;              /* cursor */
    char ctx[32];               /* "segment 2" or "adapter", for errors */
} WddmsegParser;

static void wddmseg_parse_error(WddmsegParser *ps, Error **errp,
                                const char *what)
{
    ptrdiff_t col = ps->p - ps->str;

    if (*ps->p) {
        error_setg(errp, "malformed layout '%s': %s: %s at "
                   "offset %td ('%s')", ps->str, ps->ctx, what, col, ps->p);
    } else {
        error_setg(errp, "malformed layout '%s': %s: %s at "
                   "offset %td (end of string)", ps->str, ps->ctx, what, col);
    }
}

static bool wddmseg_parse_number(WddmsegParser *ps, const char *name,
                                 uint64_t max, uint64_t *val, Error **errp)
{
    const char *start = ps->p;
    const char *end;
    uint64_t v;
    int shift = 0;
    char msg[128];

    if (!qemu_isdigit(*start)) {
        snprintf(msg, sizeof(msg), "expected a number for %s", name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (start[0] == '0' && qemu_isdigit(start[1])) {
        snprintf(msg, sizeof(msg), "%s has a leading zero (numbers are "
                 "0x-hexadecimal or decimal, not octal)", name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (qemu_strtou64(start, &end, 0, &v) < 0) {
        snprintf(msg, sizeof(msg), "%s does not fit in 64 bits", name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (*end == 'x' || *end == 'X') {
        snprintf(msg, sizeof(msg), "%s has no hexadecimal digits after 0x",
                 name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }

    switch (*end) {
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
        if (v > (UINT64_MAX >> shift)) {
            snprintf(msg, sizeof(msg), "%s does not fit in 64 bits", name);
            wddmseg_parse_error(ps, errp, msg);
            return false;
        }
        v <<= shift;
        end++;
    }
    if (qemu_isalnum(*end)) {
        snprintf(msg, sizeof(msg), "%s has an unknown suffix '%c' (K, M or "
                 "G)", name, *end);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (v > max) {
        snprintf(msg, sizeof(msg), "%s 0x%" PRIx64 " does not fit in its "
                 "32-bit register", name, v);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    ps->p = end;
    *val = v;
    return true;
}

static bool wddmseg_parse_u32(WddmsegParser *ps, const char *name,
                              uint32_t *val, Error **errp)
{
    uint64_t v;

    if (!wddmseg_parse_number(ps, name, UINT32_MAX, &v, errp)) {
        return false;
    }
    *val = v;
    return true;
}

static bool wddmseg_parse_u64(WddmsegParser *ps, const char *name,
                              uint64_t *val, Error **errp)
{
    return wddmseg_parse_number(ps, name, UINT64_MAX, val, errp);
}

/* Consume @sep, which must follow a field of the given name. */
static bool wddmseg_parse_sep(WddmsegParser *ps, char sep, const char *after,
                              Error **errp)
{
    char msg[64];

    if (*ps->p != sep) {
        snprintf(msg, sizeof(msg), "expected '%c' after %s", sep, after);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    ps->p++;
    return true;
}

static bool wddmseg_parse_segment(WddmsegParser *ps, WddmsegSegment *seg,
                                  Error **errp)
{
    unsigned int j;

    if (!wddmseg_parse_u64(ps, "BASE", &seg->base, errp) ||
        !wddmseg_parse_sep(ps, ':', "BASE", errp)) {
        return false;
    }
    if (*ps->p == '-') {
        seg->has_cpu = false;
        seg->cpu_offset = 0;
        ps->p++;
    } else {
        if (!wddmseg_parse_u64(ps, "CPU (or '-')", &seg->cpu_offset, errp)) {
            return false;
        }
        seg->has_cpu = true;
    }
    if (!wddmseg_parse_sep(ps, ':', "CPU", errp) ||
        !wddmseg_parse_u64(ps, "SIZE", &seg->size, errp) ||
        !wddmseg_parse_sep(ps, ':', "SIZE", errp) ||
        !wddmseg_parse_u64(ps, "COMMIT", &seg->commit, errp) ||
        !wddmseg_parse_sep(ps, ':', "COMMIT", errp) ||
        !wddmseg_parse_u32(ps, "FLAGS", &seg->flags, errp)) {
        return false;
    }

    if (*ps->p != ':') {
        return true;
    }
    ps->p++;
    if (!wddmseg_parse_u32(ps, "NBANKS", &seg->nb_banks, errp)) {
        return false;
    }

    if (*ps->p != ':') {
        return true;
    }
    ps->p++;
    for (j = 0;; j++) {
        if (j == WDDMSEG_SEG_BANK_MAX) {
            wddmseg_parse_error(ps, errp, "more than "
                                stringify(WDDMSEG_SEG_BANK_MAX)
                                " bank entries");
            return false;
        }
        if (!wddmseg_parse_u64(ps, "a bank END", &seg->banks[j], errp)) {
            return false;
        }
        if (*ps->p != '/') {
            return true;
        }
        ps->p++;
    }
}

bool wddmseg_parse_layout(const char *str, WddmsegLayout *layout,
                          Error **errp)
{
    WddmsegParser ps = { .str = str, .p = str };

    memset(layout, 0, sizeof(*layout));

    pstrcpy(ps.ctx, sizeof(ps.ctx), "adapter");
    if (!wddmseg_parse_u32(&ps, "CAPS", &layout->caps, errp) ||
        !wddmseg_parse_sep(&ps, ':', "CAPS", errp) ||
        !wddmseg_parse_u32(&ps, "NODE", &layout->paging_node, errp)) {
        return false;
    }

    while (*ps.p) {
        if (*ps.p != '|') {
            wddmseg_parse_error(&ps, errp, "expected '|' or the end of "
                                "the string");
            return false;
        }
        ps.p++;
        snprintf(ps.ctx, sizeof(ps.ctx), "segment %u",
                 layout->seg_count + 1);
        if (layout->seg_count == WDDMSEG_SEG_MAX) {
            wddmseg_parse_error(&ps, errp, "more than "
                                stringify(WDDMSEG_SEG_MAX) " segments");
            return false;
        }
        if (!wddmseg_parse_segment(&ps, &layout->segs[layout->seg_count],
                                   errp)) {
            return false;
        }
        layout->seg_count++;
    }
    return true;
}

/* The table of the rst, from the size properties. */
void wddmseg_default_layout(WddmsegState *s, WddmsegLayout *layout)
{
    WddmsegSegment *seg;

    memset(layout, 0, sizeof(*layout));
    layout->caps = 0;
    layout->paging_node = 0;
    layout->seg_count = 3;

    /* 1: CPU-visible VRAM, seen through BAR2 */
    seg = &layout->segs[0];
    seg->base = 0;
    seg->has_cpu = true;
    seg->cpu_offset = 0;
    seg->size = s->vis_size;
    seg->commit = s->vis_size;
    seg->flags = DXGK_SEGFLAG_CPU_VISIBLE | DXGK_SEGFLAG_DIRECT_FLIP |
                 DXGK_SEGFLAG_PRESERVED_DURING_STANDBY;

    /* 2: CPU-invisible VRAM, right after it */
    seg = &layout->segs[1];
    seg->base = s->vis_size;
    seg->size = s->invis_size;
    seg->commit = s->invis_size;
    seg->flags = 0;

    /* 3: GART aperture */
    seg = &layout->segs[2];
    seg->base = WDDMSEG_DEFAULT_APERTURE_BASE;
    seg->size = s->aperture_size;
    seg->commit = s->aperture_commit;
    seg->flags = DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_CACHE_COHERENT;
}
