/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: what a system reset puts back, and migration: the
 * device state (window, aperture page tables, STATUS, PEEK, the ring, the
 * interrupts, the scanout and its vblank timer), a destination whose
 * aperture page tables differ refusing the state, and the encrypted-paging
 * key and a TRANSFER_ENCRYPTED stopped halfway migrating with the VM,
 * the GPU MMU's hardware contexts and faults (device 1.9).
 *
 * Migration goes through a file (exec:cat), so the source has quit before
 * the destination starts.
 */

#include "qemu/osdep.h"
#include "qobject/qdict.h"

#include "wddmseg-qtest.h"

#define P50 20000000            /* ns per vblank at 50 Hz */

/* ---- system reset -------------------------------------------------------- */

static void test_reset(void)
{
    WDev *d = wdev_start("", 0, NULL);

    wdev_command(d, true);
    window(d, 3 * MiB);
    apt_set(d, 3, 7, WQ_RAM);
    check_eq(peek(d, 4 * GiB + 0x10000), 0xffffffff,
             "before reset: PEEK of an unmapped page faults");
    apt_set(d, 0, 0, 0);
    check_eq(rd(d, WDDMSEG_REG_STATUS),
             WDDMSEG_STATUS_APT_ERROR | WDDMSEG_STATUS_PEEK_FAULT,
             "before reset: both STATUS bits set");
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR);
    ring_enable(d, WQ_RING, 0x1000);
    qtest_irq_intercept_in(d->qts, "ioapic");
    c_fence(d, WDDMSEG_FENCE_IRQ);
    run(d);
    wr(d, WDDMSEG_REG_INJECT, WDDMSEG_INJECT_HANG);
    c_fence(d, 0);
    run_settle(d);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_ENABLED,
             "before reset: the engine hangs with a FENCE queued");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_FENCE,
             "before reset: IRQ_STATUS.FENCE set");
    check_true(qtest_get_irq(d->qts, WQ_GSI),
               "before reset: the FENCE raised INTx");
    /*
     * The scanout enabled, 4 vblanks counted, a refused commit, another
     * one pending.
     */
    wr(d, WDDMSEG_REG_SCANOUT_SEGMENT, 1);
    wr64(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, 0x20000);
    wr(d, WDDMSEG_REG_SCANOUT_WIDTH, 64);
    wr(d, WDDMSEG_REG_SCANOUT_HEIGHT, 32);
    wr(d, WDDMSEG_REG_SCANOUT_PITCH, 256);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, WDDMSEG_SCANOUT_FMT_XRGB8888);
    wr(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 50000);
    wr(d, WDDMSEG_REG_SCANOUT_CTRL, WDDMSEG_SCANOUT_CTRL_ENABLE);
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    qtest_clock_step(d->qts, 3 * P50);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, 0);
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    qtest_clock_step(d->qts, P50);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, WDDMSEG_SCANOUT_FMT_XRGB8888);
    wr64(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, 0x40000);
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_STATUS),
             WDDMSEG_SCANOUT_STATUS_ENABLED | WDDMSEG_SCANOUT_STATUS_PENDING |
             WDDMSEG_SCANOUT_STATUS_REFUSED,
             "before reset: scanout enabled, REFUSED, a commit PENDING");
    check_eq(rd(d, WDDMSEG_REG_VBLANK_COUNT), 4,
             "before reset: four vblanks counted");

    wdev_system_reset(d);
    check_eq(qpci_config_readl(d->dev, PCI_COMMAND), 0x00100000,
             "after reset: PCI command register cleared (reset happened), "
             "status has CAP_LIST");
    check_true(!qtest_get_irq(d->qts, WQ_GSI), "after reset: INTx lowered");
    wdev_map(d);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 0,
             "after reset: WINDOW_BASE is 0");
    vram_wr(d, 0x40, 0x0e5e7040);
    check_eq(win_rd(d, 0x40), 0x0e5e7040,
             "after reset: BAR4 shows VRAM from offset 0");
    check_eq(rd(d, WDDMSEG_REG_STATUS), 0, "after reset: STATUS is 0");
    check_eq(rd(d, WDDMSEG_REG_APT_SEGMENT), 0,
             "after reset: APT_SEGMENT is 0");
    check_eq(rd(d, WDDMSEG_REG_APT_PAGE), 0, "after reset: APT_PAGE is 0");
    check_eq(apt_get(d, 3, 7), 0, "after reset: aperture entries are unmapped");
    check_eq(rd64(d, WDDMSEG_REG_PEEK_ADDR_LO), 0,
             "after reset: PEEK_ADDR is 0");
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_IDLE,
             "after reset: ring disabled and IDLE");
    check_eq(rd(d, WDDMSEG_REG_RING_CTRL), 0, "after reset: RING_CTRL is 0");
    check_eq(rd64(d, WDDMSEG_REG_RING_BASE_LO), 0,
             "after reset: RING_BASE is 0");
    check_eq(rd(d, WDDMSEG_REG_RING_SIZE), 0, "after reset: RING_SIZE is 0");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0, "after reset: RING_HEAD is 0");
    check_eq(rd(d, WDDMSEG_REG_RING_TAIL), 0, "after reset: RING_TAIL is 0");
    check_eq(rd(d, WDDMSEG_REG_INJECT), 0,
             "after reset: no hang, no injected fault");
    check_eq(rd64(d, WDDMSEG_REG_LAST_SEQNO_LO), 0,
             "after reset: LAST_SEQNO is 0");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), 0, "after reset: IRQ_STATUS is 0");
    check_eq(rd(d, WDDMSEG_REG_IRQ_MASK), 0, "after reset: IRQ_MASK is 0");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_STATUS), 0,
             "after reset: SCANOUT_STATUS is 0 (disabled, nothing pending)");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ERROR), 0,
             "after reset: SCANOUT_ERROR is 0");
    check_eq(rd(d, WDDMSEG_REG_VBLANK_COUNT), 0,
             "after reset: VBLANK_COUNT is 0");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_CTRL), 0,
             "after reset: pending SCANOUT_CTRL is 0");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_SEGMENT), 0,
             "after reset: pending SCANOUT_SEGMENT is 0");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ), 0,
             "after reset: pending SCANOUT_REFRESH_MHZ is 0");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ACTIVE_SEGMENT), 0,
             "after reset: ACTIVE_SEGMENT = 0");
    check_eq(rd64(d, WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO), 0,
             "after reset: ACTIVE_OFFSET = 0x0");
    qtest_clock_step(d->qts, 10 * P50);
    check_eq(rd(d, WDDMSEG_REG_VBLANK_COUNT), 0,
             "after reset: no vblank (the timer stopped)");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), 0, "after reset: no IRQ_VBLANK");
    check_true(!qtest_get_irq(d->qts, WQ_GSI), "after reset: INTx still low");
    wdev_stop(d);
}

/* ---- migration ----------------------------------------------------------- */

static const char *qmp_status(WDev *d, const char *cmd)
{
    static char buf[64];
    QDict *resp = qtest_qmp(d->qts, "{'execute': %s}", cmd);
    QDict *ret = qdict_get_qdict(resp, "return");
    const char *s = ret ? qdict_get_try_str(ret, "status") : NULL;

    g_strlcpy(buf, s ? s : "", sizeof(buf));
    qobject_unref(resp);
    return buf;
}

/* Migrate to a file; true when the migration completed. */
static bool migrate_to(WDev *d, const char *path)
{
    g_autofree char *uri = g_strdup_printf("exec:cat > %s", path);
    const char *st = "";

    qtest_qmp_assert_success(d->qts, "{'execute': 'migrate', "
                             "'arguments': {'uri': %s}}", uri);
    for (int i = 0; i < 3000; i++) {
        st = qmp_status(d, "query-migrate");
        if (!strcmp(st, "completed") || !strcmp(st, "failed")) {
            break;
        }
        g_usleep(10 * 1000);
    }
    return !strcmp(st, "completed");
}

/* Start a destination and load the file; returns its run state. */
static WDev *migrate_from(const char *devopts, const char *path,
                          const WDev *src, const char **state)
{
    WDev *d = wdev_start(devopts, WQ_NOMAP, "-incoming defer");
    g_autofree char *uri = g_strdup_printf("exec:cat %s", path);

    qtest_qmp_assert_success(d->qts, "{'execute': 'migrate-incoming', "
                             "'arguments': {'uri': %s}}", uri);
    for (int i = 0; i < 3000; i++) {
        *state = qmp_status(d, "query-status");
        if (strcmp(*state, "inmigrate")) {
            break;
        }
        g_usleep(10 * 1000);
    }
    /* The BARs are where the source had them (PCI config migrated). */
    d->bar0 = src->bar0;
    d->bar2 = src->bar2;
    d->bar4 = src->bar4;
    d->rb = src->rb;
    d->rs = src->rs;
    d->rt = src->rt;
    d->seq = src->seq;
    return d;
}

static void test_migration(void)
{
    WDev *d = wdev_start("", 0, NULL);
    g_autofree char *state = g_build_filename(d->dir, "migration.state", NULL);
    g_autofree char *err = NULL;
    g_autofree char *args = NULL;
    const char *st;
    int64_t src_clock, dst_clock;
    uint32_t before;
    WDev *e;
    int status;

    /*
     * Source: window at 3 MiB, aperture page 9 -> RAM, PEEK_ADDR there,
     * APT_SEGMENT 3 / APT_PAGE 9 selected, PEEK_FAULT set.
     */
    wdev_command(d, true);
    ram_wr(d, WQ_RAM, 0x12345678);
    window(d, 3 * MiB);
    win_wr(d, 0x10, 0xabcd0003);
    apt_set(d, 3, 9, WQ_RAM);
    peek(d, 4 * GiB + 0x1000);          /* unmapped: sets PEEK_FAULT */
    wr(d, WDDMSEG_REG_PEEK_ADDR_LO, 0x9000);
    /* Copy engine: IRQ_MASK, a 4 KiB ring, one FENCE run. */
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR);
    ring_enable(d, WQ_RING, 0x1000);
    d->seq = 0x76;
    c_fence(d, WDDMSEG_FENCE_IRQ);
    run(d);
    /*
     * Scanout: enabled at 50 Hz (segment 1, offset 0x20000, 64x32), three
     * vblanks, then a commit of offset 0x40000 left pending.
     */
    wr(d, WDDMSEG_REG_SCANOUT_SEGMENT, 1);
    wr64(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, 0x20000);
    wr(d, WDDMSEG_REG_SCANOUT_WIDTH, 64);
    wr(d, WDDMSEG_REG_SCANOUT_HEIGHT, 32);
    wr(d, WDDMSEG_REG_SCANOUT_PITCH, 256);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, WDDMSEG_SCANOUT_FMT_XRGB8888);
    wr(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 50000);
    wr(d, WDDMSEG_REG_SCANOUT_CTRL, WDDMSEG_SCANOUT_CTRL_ENABLE);
    /* 1.10: a 32x16 primary at (4,2), active and pending */
    wr(d, WDDMSEG_REG_PLANE_X, 4);
    wr(d, WDDMSEG_REG_PLANE_Y, 2);
    wr(d, WDDMSEG_REG_PLANE_SIZE, WDDMSEG_CURSOR_SIZE(32, 16));
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    src_clock = qtest_clock_step(d->qts, 3 * P50);
    wr(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, 0x40000);
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    check_true(migrate_to(d, state), "the source migrates to a file");
    wdev_quit(d);

    e = migrate_from("", state, d, &st);
    check_true(strcmp(st, "inmigrate") != 0, "the destination loads the state");
    check_eq(rd64(e, WDDMSEG_REG_WINDOW_BASE_LO), 0x300000,
             "WINDOW_BASE migrates");
    check_eq(win_rd(e, 0x10), 0xabcd0003,
             "BAR4 shows VRAM at the migrated window base");
    check_eq(rd(e, WDDMSEG_REG_APT_SEGMENT), 3, "APT_SEGMENT migrates");
    check_eq(rd(e, WDDMSEG_REG_APT_PAGE), 9, "APT_PAGE migrates");
    check_eq(rd64(e, WDDMSEG_REG_APT_ADDR_LO), WQ_RAM,
             "aperture page table entries migrate");
    check_eq(rd(e, WDDMSEG_REG_STATUS), WDDMSEG_STATUS_PEEK_FAULT,
             "STATUS migrates");
    check_eq(rd64(e, WDDMSEG_REG_PEEK_ADDR_LO), 4 * GiB + 0x9000,
             "PEEK_ADDR migrates");
    check_eq(rd(e, WDDMSEG_REG_PEEK_DATA), 0x12345678,
             "PEEK through the migrated aperture entry reads guest RAM");
    check_eq(rd64(e, WDDMSEG_REG_LAST_SEQNO_LO), 0x77, "LAST_SEQNO migrates");
    check_eq(rd(e, WDDMSEG_REG_RING_HEAD), 0x20, "RING_HEAD migrates");
    check_eq(rd(e, WDDMSEG_REG_IRQ_STATUS),
             WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_VBLANK,
             "IRQ_STATUS (FENCE, VBLANK) migrates");
    check_eq(rd(e, WDDMSEG_REG_IRQ_MASK), WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR,
             "IRQ_MASK migrates");
    check_eq(rd(e, WDDMSEG_REG_RING_STATUS),
             WDDMSEG_RING_STATUS_ENABLED | WDDMSEG_RING_STATUS_IDLE,
             "the ring migrates enabled and idle");
    check_eq(rd(e, WDDMSEG_REG_RING_SIZE), 0x1000, "RING_SIZE migrates");
    check_eq(rd64(e, WDDMSEG_REG_RING_BASE_LO), WQ_RING, "RING_BASE migrates");
    c_fence(e, WDDMSEG_FENCE_IRQ);
    run(e);
    check_eq(rd64(e, WDDMSEG_REG_LAST_SEQNO_LO), 0x78,
             "the migrated ring runs a new FENCE");
    check_eq(ram_rdq(e, WQ_WB), 0x78, "... which writes its seqno back");
    check_eq(rd(e, WDDMSEG_REG_SCANOUT_STATUS),
             WDDMSEG_SCANOUT_STATUS_ENABLED | WDDMSEG_SCANOUT_STATUS_PENDING,
             "the scanout migrates enabled, with its pending commit");
    check_eq(rd(e, WDDMSEG_REG_VBLANK_COUNT), 3, "VBLANK_COUNT migrates");
    check_true(rd(e, WDDMSEG_REG_PLANE_X) == 4 &&
               rd(e, WDDMSEG_REG_PLANE_Y) == 2 &&
               rd(e, WDDMSEG_REG_PLANE_SIZE) == WDDMSEG_CURSOR_SIZE(32, 16),
               "the primary's rectangle migrates (display-plane)");
    check_eq(rd64(e, WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO), 0x20000,
             "the active scanout offset migrates");
    check_eq(rd(e, WDDMSEG_REG_SCANOUT_OFFSET_LO), 0x40000,
             "the pending scanout offset migrates");
    /*
     * qtest's virtual clock is not migrated (a real one is): step the
     * destination to the source's clock, then to the next vblank. The
     * destination's clock is read by a 1 ns step: qtest refuses a step
     * that does not advance the clock.
     */
    dst_clock = qtest_clock_step(e->qts, 1);
    qtest_clock_step(e->qts, src_clock - dst_clock + P50 - 1);
    before = rd(e, WDDMSEG_REG_VBLANK_COUNT);
    qtest_clock_step(e->qts, 1);
    check_eq(before, 3, "the migrated vblank timer: no vblank 1 ns early");
    check_eq(rd(e, WDDMSEG_REG_VBLANK_COUNT), 4,
             "the migrated vblank timer fires one period after the last one");
    check_eq(rd(e, WDDMSEG_REG_SCANOUT_STATUS), WDDMSEG_SCANOUT_STATUS_ENABLED,
             "... and latches the pending commit");
    check_eq(rd64(e, WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO), 0x40000,
             "... whose offset is active now");
    wdev_stop(e);

    /* A destination whose aperture page tables differ refuses the state. */
    args = g_strdup_printf("-device wddmseg,addr=0x4,aperture-size=128M "
                           "-incoming 'exec:cat %s'", state);
    status = wq_spawn_full(args, false, 30, &err);
    if (status != 1 || !strstr(err, "aperture page tables of another size")) {
        g_test_message("exit %d: %s", status, err);
    }
    check_true(status > 0 &&
               strstr(err, "aperture page tables of another size"),
               "a destination with other aperture page tables refuses the state");
    wdev_stop(d);
}

/* ---- encrypted paging across migration ----------------------------------- */

/*
 * The key migrates: a 16 MiB ENCRYPT out of a protected segment is stopped
 * halfway (x-batch-bytes=4K: 1 KiB a batch), migrated, resumed
 * on the destination (so the last words of the command, mode, nonce and
 * stream offset, migrated too), and decrypted there. A device that did
 * not come from the source (its own key) cannot decrypt that ciphertext.
 */
#define CM_DEV ",x-batch-bytes=4K,layout=0:0|0:0:64M:64M:0x484|" \
               "64M:-:64M:64M:0x50000"
#define SEG2 (64 * MiB)
#define CM_SIZE (16 * MiB)
#define CM_NONCE 0x5eed5eed12345678ULL
#define CM_PATTERN 0x5eed1234ULL

static uint64_t plain(uint64_t off)
{
    switch (off) {
    case 0:
        return 0x0123456789abcdefULL;
    case 8:
        return 0xfedcba9876543210ULL;
    case 8 * MiB:
        return 0x1111222233334444ULL;
    case CM_SIZE - 8:
        return 0x5555666677778888ULL;
    }
    return CM_PATTERN << 32 | CM_PATTERN;
}

/* Segment 2 offset off, through the BAR4 window. */
static uint64_t seg2_rdq(WDev *d, uint64_t off)
{
    uint64_t base = (SEG2 + off) & ~(MiB - 1);

    window(d, base);
    return qpci_io_readq(d->dev, d->bar4, SEG2 + off - base);
}

static void seg2_wrq(WDev *d, uint64_t off, uint64_t v)
{
    uint64_t base = (SEG2 + off) & ~(MiB - 1);

    window(d, base);
    qpci_io_writeq(d->dev, d->bar4, SEG2 + off - base, v);
}

static void test_crypt_migration(void)
{
    WDev *d = wdev_start(CM_DEV, 0, NULL);
    g_autofree char *state = g_build_filename(d->dir, "crypt.state", NULL);
    g_autofree uint64_t *list = g_new(uint64_t, CM_SIZE / 4096);
    static const uint64_t specials[] = { 0, 8, 8 * MiB, CM_SIZE - 8 };
    static const uint64_t probes[] = { 0, 8, 4 * MiB, 8 * MiB, CM_SIZE - 8 };
    uint8_t ct_page[4096];
    uint64_t ct0 = 0;
    const char *st;
    bool ok;
    WDev *e;

    /* Source: 16 MiB of plaintext in segment 2, then an ENCRYPT. */
    wdev_command(d, true);
    ring_enable(d, WQ_RING, 0x1000);
    for (size_t i = 0; i < CM_SIZE / 4096; i++) {
        list[i] = WQ_LONG + i * 4096;
    }
    write_list(d, WQ_LONGLIST, list, CM_SIZE / 4096);
    c_fill(d, CM_SIZE, CM_PATTERN, seg_loc(2, 0));
    run(d);
    for (size_t i = 0; i < G_N_ELEMENTS(specials); i++) {
        seg2_wrq(d, specials[i], plain(specials[i]));
    }
    c_crypt(d, CM_SIZE, seg_loc(2, 0), list_loc(WQ_LONGLIST, 0),
            WDDMSEG_CRYPT_ENCRYPT, CM_NONCE, 0);
    c_fence(d, 0);
    doorbell(d);
    /* Stop as soon as the first ciphertext is there. */
    for (int i = 0; i < 100000 && !ct0; i++) {
        ct0 = ram_rdq(d, WQ_LONG);
    }
    vm_stop(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), 0, "the source runs the ENCRYPT");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0x30,
             "the source stops halfway through a 16 MiB ENCRYPT (RING_HEAD "
             "at it)");
    check_true(ct0 && ram_rdq(d, WQ_LONG) != plain(0),
               "... its first word is ciphertext");
    check_eq(ram_rdq(d, WQ_LONG + CM_SIZE - 8), 0,
             "... its last word is not written yet");
    check_true(migrate_to(d, state), "the stopped source migrates to a file");
    wdev_quit(d);

    /* Destination: resume, then decrypt elsewhere in segment 2. */
    e = migrate_from(CM_DEV, state, d, &st);
    check_true(!strcmp(st, "paused"),
               "the destination loads the state, paused like the source (%s)",
               st);
    vm_cont(e);
    wait_engine(e);
    check_eq(rd(e, WDDMSEG_REG_RING_HEAD), e->rt,
             "the ENCRYPT resumes on the destination and completes");
    check_eq(rd(e, WDDMSEG_REG_FAULT_CODE), 0, "... without a fault");
    check_eq(rd64(e, WDDMSEG_REG_LAST_SEQNO_LO), 1,
             "... and the FENCE after it ran");
    check_true(ram_rdq(e, WQ_LONG + CM_SIZE - 8) != 0 &&
               ram_rdq(e, WQ_LONG + CM_SIZE - 8) != plain(CM_SIZE - 8),
               "... its last word is ciphertext (mode, nonce and stream offset "
               "migrated)");
    qtest_memread(e->qts, WQ_LONG, ct_page, sizeof(ct_page));
    c_crypt(e, CM_SIZE, list_loc(WQ_LONGLIST, 0), seg_loc(2, 32 * MiB),
            WDDMSEG_CRYPT_DECRYPT, CM_NONCE, 0);
    run(e);
    check_eq(rd(e, WDDMSEG_REG_FAULT_CODE), 0,
             "DECRYPT on the destination runs");
    for (size_t i = 0; i < G_N_ELEMENTS(probes); i++) {
        check_eq(seg2_rdq(e, 32 * MiB + probes[i]), plain(probes[i]),
                 "DECRYPT on the destination gives the plaintext back (the key "
                 "migrated): word at 0x%" PRIx64, probes[i]);
    }
    wdev_stop(e);

    /* Another device, with its own key: the first page does not decrypt. */
    e = wdev_start(CM_DEV, 0, NULL);
    wdev_command(e, true);
    ring_enable(e, WQ_RING, 0x1000);
    qtest_memwrite(e->qts, WQ_LONG, ct_page, sizeof(ct_page));
    write_list(e, WQ_LONGLIST, list, 1);
    c_crypt(e, 0x1000, list_loc(WQ_LONGLIST, 0), seg_loc(2, 0),
            WDDMSEG_CRYPT_DECRYPT, CM_NONCE, 0);
    ok = run(e) & WDDMSEG_RING_STATUS_IDLE;
    check_true(ok && rd(e, WDDMSEG_REG_FAULT_CODE) == 0,
               "another device runs the DECRYPT");
    check_true(seg2_rdq(e, 0) != plain(0) && seg2_rdq(e, 8) != plain(8),
               "another device (its own key) does not decrypt that ciphertext");
    wdev_stop(e);
    wdev_stop(d);
}

/*
 * The cursor, the gamma LUT and the frame CRC migrate (subsection
 * wddmseg/display-ext): the pending registers read back the same, and the
 * first CRC after the migration, over the same VRAM and the same active
 * configuration, equals the source's.
 */
static void test_display_ext_migration(void)
{
    WDev *d = wdev_start("", 0, NULL);
    g_autofree char *state = g_build_filename(d->dir, "display.state", NULL);
    int64_t src_clock, dst_clock;
    uint32_t crc;
    const char *st;
    WDev *e;

    wdev_command(d, true);
    for (int i = 0; i < 64 * 32; i++) {
        vram_wr(d, 0x20000 + i * 4, i * 0x01030507u);
    }
    for (int i = 0; i < 4; i++) {
        vram_wr(d, 0x60000 + (i / 2) * 8 + (i % 2) * 4, 0x80402010u * (i + 1));
    }
    wr(d, WDDMSEG_REG_SCANOUT_SEGMENT, 1);
    wr64(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, 0x20000);
    wr(d, WDDMSEG_REG_SCANOUT_WIDTH, 64);
    wr(d, WDDMSEG_REG_SCANOUT_HEIGHT, 32);
    wr(d, WDDMSEG_REG_SCANOUT_PITCH, 256);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, WDDMSEG_SCANOUT_FMT_XRGB8888);
    wr(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 50000);
    wr(d, WDDMSEG_REG_SCANOUT_CTRL, WDDMSEG_SCANOUT_CTRL_ENABLE);
    wr(d, WDDMSEG_REG_CURSOR_SEGMENT, 1);
    wr64(d, WDDMSEG_REG_CURSOR_OFFSET_LO, 0x60000);
    wr(d, WDDMSEG_REG_CURSOR_SIZE, WDDMSEG_CURSOR_SIZE(2, 2));
    wr(d, WDDMSEG_REG_CURSOR_PITCH, 8);
    wr(d, WDDMSEG_REG_CURSOR_X, 5);
    wr(d, WDDMSEG_REG_CURSOR_Y, (uint32_t)-1);
    wr(d, WDDMSEG_REG_CURSOR_CTRL, WDDMSEG_CURSOR_CTRL_ENABLE);
    wr(d, WDDMSEG_REG_GAMMA_INDEX, 0);
    for (int i = 0; i < 256; i++) {
        wr(d, WDDMSEG_REG_GAMMA_DATA, (255 - i) * 0x010101u);
    }
    wr(d, WDDMSEG_REG_GAMMA_CTRL, WDDMSEG_GAMMA_CTRL_ENABLE);
    wr(d, WDDMSEG_REG_GAMMA_INDEX, 17);
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    wr(d, WDDMSEG_REG_CRC_CTRL, WDDMSEG_CRC_CTRL_ENABLE);
    src_clock = qtest_clock_step(d->qts, 2 * P50);
    crc = rd(d, WDDMSEG_REG_CRC_VALUE);
    check_true(rd(d, WDDMSEG_REG_CRC_FRAME) == 2,
               "source: a CRC at the second vblank (0x%08x)", crc);
    check_true(migrate_to(d, state), "the source migrates to a file");
    wdev_quit(d);

    e = migrate_from("", state, d, &st);
    check_true(strcmp(st, "inmigrate") != 0, "the destination loads the state");
    check_true(rd(e, WDDMSEG_REG_CURSOR_CTRL) == WDDMSEG_CURSOR_CTRL_ENABLE &&
               rd64(e, WDDMSEG_REG_CURSOR_OFFSET_LO) == 0x60000 &&
               rd(e, WDDMSEG_REG_CURSOR_X) == 5 &&
               rd(e, WDDMSEG_REG_CURSOR_Y) == (uint32_t)-1 &&
               rd(e, WDDMSEG_REG_CURSOR_SIZE) == WDDMSEG_CURSOR_SIZE(2, 2),
               "the cursor registers migrate");
    check_true(rd(e, WDDMSEG_REG_GAMMA_CTRL) == WDDMSEG_GAMMA_CTRL_ENABLE &&
               rd(e, WDDMSEG_REG_GAMMA_INDEX) == 17 &&
               rd(e, WDDMSEG_REG_GAMMA_DATA) == 238 * 0x010101u,
               "GAMMA_CTRL, GAMMA_INDEX and the LUT migrate");
    check_true(rd(e, WDDMSEG_REG_CRC_CTRL) == WDDMSEG_CRC_CTRL_ENABLE &&
               rd(e, WDDMSEG_REG_CRC_VALUE) == crc &&
               rd(e, WDDMSEG_REG_CRC_FRAME) == 2,
               "CRC_CTRL, CRC_VALUE and CRC_FRAME migrate");
    dst_clock = qtest_clock_step(e->qts, 1);    /* see test_migration() */
    qtest_clock_step(e->qts, src_clock - dst_clock + P50);
    check_true(rd(e, WDDMSEG_REG_CRC_FRAME) == 3 &&
               rd(e, WDDMSEG_REG_CRC_VALUE) == crc,
               "the next vblank's CRC (cursor, LUT, same VRAM) is the "
               "source's");
    wdev_stop(e);
}

/* ---- GPU MMU contexts across migration (device 1.9) ---------------------- */

#define MM_Q0 0x300000ULL       /* context 0's queue */
#define MM_Q2 0x310000ULL       /* context 2's queue */

static uint32_t mm_ctx(WDev *d, unsigned int i, uint32_t reg)
{
    return rd(d, WDDMSEG_CTX_REG(i, reg));
}

static void mm_ctx_setup(WDev *d, unsigned int i, uint64_t root, uint64_t q)
{
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_ROOT_LO), root);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_ROOT_HI), root >> 32);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_QUEUE_BASE_LO), q);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_QUEUE_BASE_HI), q >> 32);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_QUEUE_SIZE), 0x1000);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_CTRL), WDDMSEG_CTX_CTRL_ENABLE);
}

/* Poll (bounded) until context i is idle or faulted. */
static uint32_t mm_wait(WDev *d, unsigned int i)
{
    uint32_t st = 0;

    for (int k = 0; k < 20000; k++) {
        st = mm_ctx(d, i, WDDMSEG_CTX_STATUS);
        if (st & (WDDMSEG_CTX_STATUS_IDLE | WDDMSEG_CTX_STATUS_FAULTED)) {
            break;
        }
        g_usleep(1000);
    }
    return st;
}

/*
 * The hardware contexts travel in the subsection wddmseg/mmu: a bound,
 * enabled context with a fence value, and a faulted one with its fault,
 * arrive as they left; the first one runs again on the destination.
 */
static void test_mmu_migration(void)
{
    WDev *d = wdev_start("", 0, NULL);
    g_autofree char *state = g_build_filename(d->dir, "mmu.state", NULL);
    const uint32_t info = WDDMSEG_MMU_INFO(WDDMSEG_MMU_FAULT_NO_ROOT,
                                           WDDMSEG_MMU_ACCESS_READ, 2, 2);
    const uint32_t ok = WDDMSEG_CTX_STATUS_ENABLED | WDDMSEG_CTX_STATUS_IDLE;
    const uint32_t faulted =
        WDDMSEG_CTX_STATUS_ENABLED | WDDMSEG_CTX_STATUS_FAULTED;
    const char *st;
    WDev *e;

    wdev_command(d, true);
    mm_ctx_setup(d, 0, 64 * MiB, MM_Q0);
    ram_wrq(d, MM_Q0, WDDMSEG_CMD_HDR(WDDMSEG_CQ_FENCE,
                                      WDDMSEG_CQ_FENCE_QWORDS));
    ram_wrq(d, MM_Q0 + 8, 0x1234);
    ram_wrq(d, MM_Q0 + 16, 0);
    wr(d, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_QUEUE_TAIL), 0x18);
    check_eq(mm_wait(d, 0), ok, "source: context 0 ran its FENCE");
    mm_ctx_setup(d, 2, 0, MM_Q2);
    ram_wrq(d, MM_Q2, WDDMSEG_CMD_HDR(WDDMSEG_CQ_COPY,
                                      WDDMSEG_CQ_COPY_QWORDS));
    ram_wrq(d, MM_Q2 + 8, 4);
    ram_wrq(d, MM_Q2 + 16, 0x1000);
    ram_wrq(d, MM_Q2 + 24, 0x2000);
    wr(d, WDDMSEG_CTX_REG(2, WDDMSEG_CTX_QUEUE_TAIL), 0x20);
    check_eq(mm_wait(d, 2), faulted, "source: context 2 (no root) faulted");
    vm_stop(d);
    check_true(migrate_to(d, state), "the source migrates to a file");
    wdev_quit(d);

    e = migrate_from("", state, d, &st);
    check_true(!strcmp(st, "paused"), "the destination loads it (%s)", st);
    check_eq(rd64(e, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_ROOT_LO)), 64 * MiB,
             "destination: context 0's root");
    check_eq(rd64(e, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_QUEUE_BASE_LO)), MM_Q0,
             "destination: context 0's QUEUE_BASE");
    check_eq(mm_ctx(e, 0, WDDMSEG_CTX_QUEUE_SIZE), 0x1000,
             "destination: context 0's QUEUE_SIZE");
    check_eq(mm_ctx(e, 0, WDDMSEG_CTX_QUEUE_HEAD), 0x18,
             "destination: context 0's QUEUE_HEAD");
    check_eq(mm_ctx(e, 0, WDDMSEG_CTX_STATUS), ok,
             "destination: context 0 enabled and idle");
    check_eq(rd64(e, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_FENCE_LO)), 0x1234,
             "destination: context 0's fence value");
    check_eq(mm_ctx(e, 2, WDDMSEG_CTX_STATUS), faulted,
             "destination: context 2 still faulted");
    check_eq(mm_ctx(e, 2, WDDMSEG_CTX_FAULT_INFO), info,
             "destination: context 2's FAULT_INFO (NO_ROOT, read)");
    check_eq(rd64(e, WDDMSEG_CTX_REG(2, WDDMSEG_CTX_FAULT_VA_LO)), 0x1000,
             "destination: context 2's FAULT_VA");
    check_eq(rd(e, WDDMSEG_REG_MMU_FAULT_CTX), BIT(2),
             "destination: MMU_FAULT_CTX bit 2");
    check_eq(rd(e, WDDMSEG_REG_MMU_FAULT_INFO), info,
             "destination: MMU_FAULT_INFO");
    check_eq(rd64(e, WDDMSEG_REG_MMU_FAULT_VA_LO), 0x1000,
             "destination: MMU_FAULT_VA");
    vm_cont(e);
    ram_wrq(e, MM_Q0 + 0x18, WDDMSEG_CMD_HDR(WDDMSEG_CQ_FENCE,
                                             WDDMSEG_CQ_FENCE_QWORDS));
    ram_wrq(e, MM_Q0 + 0x20, 0x5678);
    ram_wrq(e, MM_Q0 + 0x28, 0);
    wr(e, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_QUEUE_TAIL), 0x30);
    check_eq(mm_wait(e, 0), ok, "destination: context 0 runs on");
    check_eq(rd64(e, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_FENCE_LO)), 0x5678,
             "destination: context 0's next FENCE");
    wdev_stop(e);
    wdev_stop(d);
}

int main(int argc, char **argv)
{
    wq_init(&argc, &argv);
    wq_add("system/reset", test_reset);
    wq_add("system/migration", test_migration);
    wq_add("system/crypt-migration", test_crypt_migration);
    wq_add("system/display-ext-migration", test_display_ext_migration);
    wq_add("system/mmu-migration", test_mmu_migration);
    return wq_run();
}
