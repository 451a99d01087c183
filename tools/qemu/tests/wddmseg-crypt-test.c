/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: encrypted paging (TRANSFER_ENCRYPTED, version 1.4):
 * round trips, nonces, stream offsets, page list offsets that split the
 * key stream's words, long commands over several batches, every
 * fault, and the key across a system reset. (The key across a migration
 * is in wddmseg-system-test.c.)
 *
 * 4 MiB of VRAM: segment 1 CPU-visible VRAM [0, 1 MiB), 2 VprSupported |
 * EncryptedPagingSupported [1 MiB, 3 MiB), 3 VprSupported only [3 MiB, 4
 * MiB), 4 an aperture. The key is random, so the checks compare round
 * trips with the plaintext, and ciphertexts with the plaintext and each
 * other, never with fixed ciphertext. x-batch-bytes=1M: an encrypted
 * transfer moves 256 KiB per batch (WDDMSEG_CRYPT_COST 4).
 */

#include "qemu/osdep.h"

#include "wddmseg-qtest.h"

#define CRYPT_DEV ",vis-size=1M,invis-size=3M,x-batch-bytes=1M," \
                  "layout=0:0|0:0:1M:1M:0x484|1M:-:2M:2M:0x50000|" \
                  "3M:-:1M:1M:0x10000|0x100000000:-:16M:16M:0x11"

#define N1 0x0123456789abcdefULL        /* nonces */
#define N2 0x0123456789abcdeeULL
#define N3 0xfedcba9876543210ULL
#define N4 0x1111222233334444ULL
#define ENC WDDMSEG_CRYPT_ENCRYPT
#define DEC WDDMSEG_CRYPT_DECRYPT

/* Ciphertext pages. */
static const uint64_t CA[] = { WQ_SYS + 0x8000, WQ_SYS + 0x6000 };  /* N1 */
static const uint64_t CB[] = { WQ_SYS + 0x9000, WQ_SYS + 0xc000 };  /* N2 */
static const uint64_t CC[] = { WQ_SYS + 0x10000, WQ_SYS + 0x14000,
                               WQ_SYS + 0x12000 };          /* at 0x5fc */
static const uint64_t CD[] = { WQ_SYS + 0x18000, WQ_SYS + 0x1a000 };
static const uint64_t CE[] = { WQ_SYS + 0x1c000, WQ_SYS + 0x1e000 };

static const unsigned int sample[] = {
    0, 1, 2, 63, 64, 255, 256, 510, 511, 512, 513, 700, 767, 768, 1022, 1023
};

/* The plaintext: 8 KiB at segment 2 offset 0, word j is ptw(j). */
static uint64_t ptw(unsigned int j)
{
    return (j + 1) * 0x9e3779b97f4a7c15ULL;
}

/* Plaintext words js at segment 2 offset off (BAR4 at segment 2's start). */
static void check_pt(WDev *d, uint64_t off, const unsigned int *js, size_t n,
                     const char *what)
{
    for (size_t i = 0; i < n; i++) {
        check_eq(win_rdq(d, off + 8 * js[i]), ptw(js[i]),
                 "%s: word %u is the plaintext", what, js[i]);
    }
}
#define CHECK_PT(d, off, what, ...) do {                                    \
        static const unsigned int js_[] = { __VA_ARGS__ };                  \
        check_pt((d), (off), js_, G_N_ELEMENTS(js_), (what));               \
    } while (0)

static WDev *crypt_start(unsigned int flags)
{
    WDev *d = wdev_start(CRYPT_DEV, flags, NULL);
    uint64_t pt[1024];

    wdev_command(d, true);
    window(d, MiB);
    for (unsigned int j = 0; j < 1024; j++) {
        pt[j] = cpu_to_le64(ptw(j));
    }
    qtest_memwrite(d->qts, d->bar4.addr, pt, sizeof(pt));
    qtest_memset(d->qts, WQ_SYS, 0x5a, 0x40000);
    write_list(d, WQ_LIST, CA, 2);
    write_list(d, WQ_LIST + 0x1000, CB, 2);
    write_list(d, WQ_LIST + 0x2000, CC, 3);
    write_list(d, WQ_LIST + 0x3000, CD, 2);
    write_list(d, WQ_LIST + 0x5000, CE, 2);
    ring_enable(d, WQ_RING, 64 << 10);
    return d;
}

static void test_round_trips(void)
{
    WDev *d = crypt_start(0);
    uint64_t ca[G_N_ELEMENTS(sample)];
    g_autofree uint64_t *list = g_new(uint64_t, 256);

    check_eq(rd(d, WDDMSEG_REG_SEG_COUNT), 4,
             "layout with protected segments: SEG_COUNT = 4");
    check_eq(seg_rd(d, 1, WDDMSEG_SEG_FLAGS),
             DXGK_SEGFLAG_VPR_SUPPORTED |
             DXGK_SEGFLAG_ENCRYPTED_PAGING_SUPPORTED,
             "segment 2: VprSupported | EncryptedPagingSupported");
    check_eq(seg_rd(d, 2, WDDMSEG_SEG_FLAGS), DXGK_SEGFLAG_VPR_SUPPORTED,
             "segment 3: VprSupported only");
    check_eq(peek(d, MiB + 0x1ff8), (uint32_t)ptw(1023),
             "the plaintext is in segment 2 (PEEK of its last word)");

    /* 1. ENCRYPT segment 2 -> page list. */
    c_crypt(d, 0x2000, seg_loc(2, 0), list_loc(WQ_LIST, 0), ENC, N1, 0);
    c_fence(d, 0);
    run(d);
    check_idle(d, "ENCRYPT 8 KiB of segment 2 into a page list");
    check_eq(rd64(d, WDDMSEG_REG_LAST_SEQNO_LO), d->seq,
             "ENCRYPT: the FENCE after it ran");
    for (size_t i = 0; i < G_N_ELEMENTS(sample); i++) {
        uint64_t a = pl_addr(CA, 0, 8 * sample[i]);

        ca[i] = ram_rdq(d, a);
        check_ne(ca[i], ptw(sample[i]),
                 "ENCRYPT: ciphertext word %u (at 0x%" PRIx64
                 ") is not the plaintext", sample[i], a);
    }
    check_eq(ram_rd(d, WQ_SYS + 0x7000), 0x5a5a5a5a,
             "ENCRYPT: a page not in the list untouched");
    CHECK_PT(d, 0, "ENCRYPT leaves the plaintext in VRAM", 0, 1023);

    /* 2. DECRYPT back, same nonce and stream offset, elsewhere. */
    c_crypt(d, 0x2000, list_loc(WQ_LIST, 0), seg_loc(2, 0x10000), DEC, N1, 0);
    run(d);
    check_idle(d, "DECRYPT the page list into segment 2");
    check_pt(d, 0x10000, sample, G_N_ELEMENTS(sample),
             "DECRYPT with the nonce and stream offset of the ENCRYPT");
    check_eq(win_rdq(d, 0x12000), 0, "DECRYPT: VRAM after the range untouched");

    /* 3. Another nonce, a wrong nonce, a piece at a stream offset. */
    c_crypt(d, 0x2000, seg_loc(2, 0), list_loc(WQ_LIST + 0x1000, 0), ENC, N2,
            0);
    run(d);
    check_idle(d, "ENCRYPT the same plaintext with another nonce");
    for (size_t i = 0; i < G_N_ELEMENTS(sample); i++) {
        check_ne(ram_rdq(d, pl_addr(CB, 0, 8 * sample[i])), ca[i],
                 "another nonce: ciphertext word %u differs from the first "
                 "ciphertext's", sample[i]);
    }
    c_crypt(d, 0x2000, list_loc(WQ_LIST, 0), seg_loc(2, 0x20000), DEC, N2, 0);
    run(d);
    check_idle(d, "DECRYPT with a wrong nonce");
    {
        static const unsigned int js[] = { 0, 1, 511, 512, 1023 };

        for (size_t i = 0; i < G_N_ELEMENTS(js); i++) {
            check_ne(win_rdq(d, 0x20000 + 8 * js[i]), ptw(js[i]),
                     "wrong nonce: word %u is not the plaintext", js[i]);
        }
    }
    c_crypt(d, 0x1000, list_loc(WQ_LIST, 0x1000), seg_loc(2, 0x30000), DEC, N1,
            0x1000);
    c_crypt(d, 0x1000, list_loc(WQ_LIST, 0x1000), seg_loc(2, 0x40000), DEC, N1,
            0);
    run(d);
    check_idle(d, "DECRYPT the second page alone");
    {
        static const unsigned int js[] = { 0, 1, 255, 510, 511 };

        for (size_t i = 0; i < G_N_ELEMENTS(js); i++) {
            check_eq(win_rdq(d, 0x30000 + 8 * js[i]), ptw(512 + js[i]),
                     "second page alone at stream offset 0x1000: word %u is "
                     "the plaintext", 512 + js[i]);
            check_ne(win_rdq(d, 0x40000 + 8 * js[i]), ptw(512 + js[i]),
                     "second page alone at stream offset 0: word %u is not "
                     "the plaintext", 512 + js[i]);
        }
    }
    /*
     * A page list range that starts mid-word in its page (byte 0x5fc):
     * the pieces end mid-word, the stream still follows the command's
     * bytes.
     */
    c_crypt(d, 0x2000, seg_loc(2, 0), list_loc(WQ_LIST + 0x2000, 0x5fc), ENC,
            N3, 0);
    c_crypt(d, 0x2000, list_loc(WQ_LIST + 0x2000, 0x5fc), seg_loc(2, 0x50000),
            DEC, N3, 0);
    c_crypt(d, 0x1000, list_loc(WQ_LIST + 0x2000, 0xdfc), seg_loc(2, 0x60800),
            DEC, N3, 0x800);
    run(d);
    check_idle(d, "ENCRYPT and DECRYPT at page list offset 0x5fc");
    CHECK_PT(d, 0x50000, "round trip at page list offset 0x5fc",
             0, 1, 320, 321, 322, 511, 512, 831, 832, 1022, 1023);
    CHECK_PT(d, 0x60000, "a piece of it alone at stream offset 0x800",
             256, 257, 500, 767);
    check_eq(win_rdq(d, 0x607f8), 0, "... VRAM before that piece untouched");
    check_eq(win_rdq(d, 0x61800), 0, "... VRAM after that piece untouched");
    /*
     * The same ciphertext moved to page list offset 0 (plain TRANSFER) and
     * decrypted there: pieces now split it elsewhere, the plaintext still
     * comes back (words 320 and 832 were cut by pieces of the ENCRYPT).
     */
    c_transfer(d, 0x2000, list_loc(WQ_LIST + 0x2000, 0x5fc),
               list_loc(WQ_LIST + 0x5000, 0));
    c_crypt(d, 0x2000, list_loc(WQ_LIST + 0x5000, 0), seg_loc(2, 0x80000), DEC,
            N3, 0);
    run(d);
    check_idle(d, "DECRYPT at page list offset 0 what was encrypted at 0x5fc");
    CHECK_PT(d, 0x80000, "encrypted at page list offset 0x5fc, decrypted at "
             "offset 0", 0, 319, 320, 321, 511, 512, 831, 832, 833, 1023);
    check_eq(ram_rd(d, CC[0] + 0x5f8), 0x5a5a5a5a,
             "offset 0x5fc: the bytes before it untouched");
    check_eq(ram_rd(d, CC[2] + 0x5fc), 0x5a5a5a5a,
             "offset 0x5fc: the bytes after it untouched");

    /*
     * A 1 MiB round trip through contiguous pages: 64 KiB pieces (the
     * bounce buffer), 256 KiB a batch, so the command resumes
     * three times.
     */
    qpci_io_writeq(d->dev, d->bar4, MiB - 8, 0x1a57c0de1a57c0deULL);
    for (int i = 0; i < 256; i++) {
        list[i] = WQ_LONG + i * 4096ULL;
    }
    write_list(d, WQ_LONGLIST, list, 256);
    c_crypt(d, MiB, seg_loc(2, 0), list_loc(WQ_LONGLIST, 0), ENC, N4, MiB);
    c_crypt(d, MiB, list_loc(WQ_LONGLIST, 0), seg_loc(2, MiB), DEC, N4, MiB);
    c_fence(d, 0);
    run(d);
    check_idle(d, "1 MiB ENCRYPT and DECRYPT at stream offset 1 MiB");
    check_eq(rd64(d, WDDMSEG_REG_LAST_SEQNO_LO), d->seq,
             "1 MiB round trip: the FENCE after it ran");
    check_ne(ram_rdq(d, WQ_LONG), ptw(0), "1 MiB ENCRYPT: the first word is "
             "ciphertext");
    check_ne(ram_rdq(d, WQ_LONG + MiB - 8), 0x1a57c0de1a57c0deULL,
             "1 MiB ENCRYPT: the last word is ciphertext");
    window(d, 2 * MiB);
    CHECK_PT(d, 0, "1 MiB round trip", 0, 1, 1022, 1023);
    CHECK_PT(d, 0x10000, "1 MiB round trip, 64 KiB in", 0, 1, 1023);
    check_eq(win_rdq(d, MiB - 8), 0x1a57c0de1a57c0deULL,
             "1 MiB round trip: the last word");
    wdev_stop(d);
}

/*
 * The wrong kind of location or segment is a protection fault, a bad
 * mode, size or stream offset a bad packet.
 */
static void test_faults(void)
{
    WDev *d = crypt_start(WQ_LOG);
    const uint64_t unassigned = 0x7000000000ULL;
    const uint32_t P = WDDMSEG_FAULT_PROTECTION;
    const uint32_t B = WDDMSEG_FAULT_BAD_PACKET;
    const uint32_t R = WDDMSEG_FAULT_OUT_OF_RANGE;

    qpci_io_writeq(d->dev, d->bar2, 0x1000, 0x0123012301230123ULL);
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(3, 0), list_loc(WQ_LIST, 0), ENC, N1, 0);
    fault_end(d, P, "ENCRYPT from a VprSupported segment without "
              "EncryptedPagingSupported");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(1, 0), list_loc(WQ_LIST, 0), ENC, N1, 0);
    fault_end(d, P, "ENCRYPT from a segment without VprSupported");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(2, 0), seg_loc(1, 0x1000), ENC, N1, 0);
    fault_end(d, P, "ENCRYPT from VRAM to VRAM");
    check_eq(qpci_io_readq(d->dev, d->bar2, 0x1000), 0x0123012301230123ULL,
             "... which wrote nothing");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(2, 0), seg_loc(4, 0), ENC, N1, 0);
    fault_end(d, P, "ENCRYPT into an aperture segment");
    fault_begin(d);
    c_crypt(d, 0x1000, list_loc(WQ_LIST, 0), list_loc(WQ_LIST + 0x1000, 0),
            ENC, N1, 0);
    fault_end(d, P, "ENCRYPT from a page list");
    fault_begin(d);
    c_crypt(d, 0x1000, list_loc(WQ_LIST, 0), seg_loc(1, 0x1000), DEC, N1, 0);
    fault_end(d, P, "DECRYPT into a segment without VprSupported");
    check_eq(qpci_io_readq(d->dev, d->bar2, 0x1000), 0x0123012301230123ULL,
             "... which wrote nothing");
    fault_begin(d);
    c_crypt(d, 0x1000, list_loc(WQ_LIST, 0), seg_loc(3, 0), DEC, N1, 0);
    fault_end(d, P, "DECRYPT into a VprSupported segment without "
              "EncryptedPagingSupported");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(2, 0), seg_loc(2, 0x70000), DEC, N1, 0);
    fault_end(d, P, "DECRYPT from VRAM to VRAM");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(4, 0), seg_loc(2, 0x70000), DEC, N1, 0);
    fault_end(d, P, "DECRYPT from an aperture segment");
    check_eq(win_rdq(d, 0x70000), 0, "... none of them wrote segment 2");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(2, 0), list_loc(WQ_LIST, 0), 0, N1, 0);
    fault_end(d, B, "mode 0");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(2, 0), list_loc(WQ_LIST, 0), ENC | DEC, N1, 0);
    fault_end(d, B, "mode ENCRYPT | DECRYPT");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(2, 0), list_loc(WQ_LIST, 0), ENC | 4, N1, 0);
    fault_end(d, B, "mode ENCRYPT | bit 2");
    fault_begin(d);
    c_crypt(d, 0x1000, list_loc(WQ_LIST, 0), seg_loc(2, 0x70000),
            DEC | BIT_ULL(63), N1, 0);
    fault_end(d, B, "mode DECRYPT | bit 63");
    fault_begin(d);
    c_crypt(d, 12, seg_loc(2, 0), list_loc(WQ_LIST, 0), ENC, N1, 0);
    fault_end(d, B, "size 12 (not a multiple of 8)");
    fault_begin(d);
    c_crypt(d, 0x1000, seg_loc(2, 0), list_loc(WQ_LIST, 0), ENC, N1, 4);
    fault_end(d, B, "stream offset 4 (not a multiple of 8)");
    fault_begin(d);
    c_crypt(d, 0x2000, seg_loc(2, 0), list_loc(WQ_LIST, 0), ENC, N1,
            -0x1000ULL);
    fault_end(d, R, "stream offset + size overflows");
    fault_begin(d);
    c_crypt(d, 0x2000, seg_loc(2, 2 * MiB - 0x1000), list_loc(WQ_LIST, 0),
            ENC, N1, 0);
    fault_end(d, R, "ENCRYPT past the end of segment 2");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER_ENCRYPTED, 10), 0x1000, 2, 0, 0, 0,
         WQ_LIST, 0, ENC, N1);
    fault_end(d, B, "TRANSFER_ENCRYPTED of 10 qwords");
    fault_begin(d);
    write_list(d, WQ_LIST + 0x4000, &unassigned, 1);
    c_crypt(d, 0x1000, list_loc(WQ_LIST + 0x4000, 0), seg_loc(2, 0x70000),
            DEC, N1, 0);
    fault_end(d, WDDMSEG_FAULT_DMA, "DECRYPT from a page in unassigned memory");
    check_eq(ram_rd(d, CA[0]), 0x5a5a5a5a,
             "no faulting ENCRYPT wrote the page list");
    wdev_quit(d);
    check_eq(wdev_log_count(d, "copy engine fault 7 .*: ENCRYPT: the source "
                            "segment lacks VprSupported or "
                            "EncryptedPagingSupported"), 2,
             "a protection fault logs why (ENCRYPT from a segment that is "
             "not protected)");
    check_eq(wdev_log_count(d, "copy engine fault 7 .*: DECRYPT: the source "
                            "is not a page list"), 2,
             "a protection fault logs why (DECRYPT from VRAM or an aperture)");
    wdev_stop(d);
}

/*
 * The key survives a system reset: encrypt before, decrypt after into VRAM
 * that never held the plaintext.
 */
static void test_key_across_reset(void)
{
    WDev *d = crypt_start(0);

    c_crypt(d, 0x2000, seg_loc(2, 0), list_loc(WQ_LIST + 0x3000, 0), ENC, N4,
            0x2000);
    run(d);
    check_idle(d, "ENCRYPT before the system reset");
    check_ne(ram_rdq(d, CD[0]), ptw(0),
             "before the reset: the first word is ciphertext");
    wdev_system_reset(d);
    check_eq(qpci_config_readl(d->dev, PCI_COMMAND), 0x00100000,
             "the system reset happened (PCI command register cleared)");
    wdev_map(d);
    wdev_command(d, true);
    check_eq(rd(d, WDDMSEG_REG_RING_CTRL), 0,
             "after the reset: the ring is disabled");
    ring_enable(d, WQ_RING, 64 << 10);
    window(d, MiB);
    check_eq(win_rdq(d, 0x70000), 0,
             "segment 2 at 0x70000 never held the plaintext");
    c_crypt(d, 0x2000, list_loc(WQ_LIST + 0x3000, 0), seg_loc(2, 0x70000), DEC,
            N4, 0x2000);
    run(d);
    check_idle(d, "DECRYPT after the system reset");
    CHECK_PT(d, 0x70000, "DECRYPT after the system reset (the key survived)",
             0, 1, 511, 512, 1022, 1023);
    wdev_stop(d);
}

int main(int argc, char **argv)
{
    wq_init(&argc, &argv);
    wq_add("crypt/round-trips", test_round_trips);
    wq_add("crypt/faults", test_faults);
    wq_add("crypt/key-across-reset", test_key_across_reset);
    return wq_run();
}
