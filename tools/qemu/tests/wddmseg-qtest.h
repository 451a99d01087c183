/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: what the test programs share.
 *
 * Each test function starts its own QEMU (q35, the qtest accelerator, one
 * wddmseg device at 00:04.0) through libqtest, finds the device with
 * libqos's PCI bus and maps its BARs with qpci_iomap(). Register offsets,
 * bits and command encodings come from wddmseg_hw.h, the header the
 * device model and the Linux driver share.
 *
 * Every check is a check_*() macro: it prints one nested TAP result
 * ("# ok N - what" or "# not ok N - what: got ..., want ...") and asserts
 * with g_assert_cmphex()/g_assert_true(). Assertions are non-fatal
 * (g_test_set_nonfatal_assertions()), so a failed check marks its test
 * case failed and the rest still run, as the shell checks did. tools/
 * check.sh counts the nested lines; glib's own "ok N /x86_64/wddmseg/..."
 * line of a test case counts only when it fails.
 */
#ifndef WDDMSEG_QTEST_H
#define WDDMSEG_QTEST_H

#include "qemu/bitops.h"
#include "hw/pci/pci_regs.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"

#include "wddmseg_hw.h"

#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

/* Where the device sits on bus 0 (-device wddmseg,addr=0x4). */
#define WQ_SLOT 4
/* INTx pin A of slot 4 on q35 (PIRQE) is GSI 20. */
#define WQ_GSI 20

/*
 * Guest RAM the checks use (no firmware runs under the qtest accelerator,
 * so all of RAM above 1 MiB is theirs).
 */
#define WQ_RAM          0x100000ULL     /* aperture checks, migration */
#define WQ_RING         0x200000ULL     /* rings (up to 64 KiB) */
#define WQ_WB           0x210000ULL     /* fence writeback slot */
#define WQ_LIST         0x220000ULL     /* page lists, 4 KiB apart */
#define WQ_MSI_ADDR     0x230000ULL     /* where MSI-X vector 0 writes */
#define WQ_LONGLIST     0x240000ULL     /* a page list of up to 4096 pages */
#define WQ_SYS          0x400000ULL     /* system pages, 256 KiB */
#define WQ_PHYS         0x500000ULL     /* contiguous system memory */
#define WQ_LONG         0x1000000ULL    /* 16 MiB for long transfers */

/* ---- checks -------------------------------------------------------------- */

void wq_report(bool ok, const char *detail, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
char *wq_detail(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
unsigned int wq_checks(void);
unsigned int wq_failed(void);

/* check_eq(got, want, "what", ...): got == want (64-bit). */
#define check_eq(got, want, ...) do {                                       \
        uint64_t got_ = (got), want_ = (want);                              \
        g_autofree char *d_ = got_ == want_ ? NULL :                        \
            wq_detail("got 0x%" PRIx64 ", want 0x%" PRIx64, got_, want_);   \
        wq_report(got_ == want_, d_, __VA_ARGS__);                          \
        g_assert_cmphex(got_, ==, want_);                                   \
    } while (0)

/* check_ne(got, unwanted, "what", ...): got != unwanted. */
#define check_ne(got, bad, ...) do {                                        \
        uint64_t got_ = (got), bad_ = (bad);                                \
        g_autofree char *d_ = got_ != bad_ ? NULL :                         \
            wq_detail("got 0x%" PRIx64 ", which it must not be", got_);     \
        wq_report(got_ != bad_, d_, __VA_ARGS__);                           \
        g_assert_cmphex(got_, !=, bad_);                                    \
    } while (0)

/* check_true(cond, "what", ...) */
#define check_true(cond, ...) do {                                          \
        bool ok_ = (cond);                                                  \
        wq_report(ok_, ok_ ? NULL : "false", __VA_ARGS__);                  \
        g_assert_true(ok_);                                                 \
    } while (0)

/* The main() of every test program, around g_test_run(). */
void wq_init(int *argc, char ***argv);
int wq_run(void);
/*
 * qtest_add_func() / qtest_add_data_func() of /wddmseg/<name>, and the
 * name is what the test's checks are prefixed with.
 */
void wq_add(const char *name, void (*fn)(void));
void wq_add_data(const char *name, const void *data,
                 void (*fn)(const void *));

/* ---- one QEMU with one device -------------------------------------------- */

typedef struct WDev {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar0, bar1, bar2, bar4;
    uint64_t bar2_size;
    char *dir;          /* temporary files of this QEMU */
    char *log;          /* -D: guest errors (WQ_LOG) */
    char *err;          /* QEMU's stderr (WQ_STDERR) */
    /* the copy-engine ring as the checks drive it */
    uint64_t rb;        /* base */
    uint32_t rs;        /* size */
    uint32_t rt;        /* software tail */
    uint64_t seq;       /* last seqno a wq_fence() wrote */
} WDev;

enum {
    WQ_LOG = 1,         /* -d guest_errors -D dir/guest.log */
    WQ_STDERR = 2,      /* QEMU's stderr into dir/stderr */
    WQ_NOMAP = 4,       /* leave the BARs alone */
};

/*
 * Start QEMU with "-device wddmseg,addr=0x4<devopts>" (devopts starts
 * with ',' or is ""), plus extra arguments (may be NULL); find the
 * device, map BAR0, BAR2 and BAR4 and enable memory decoding (bus
 * mastering off) unless WQ_NOMAP.
 */
WDev *wdev_start(const char *devopts, unsigned int flags, const char *extra);
/* Same, with the QEMU options spelled out (-device included). */
WDev *wdev_start_args(const char *args, unsigned int flags);
void wdev_stop(WDev *d);
/* Quit QEMU only (its logs are complete then); wdev_stop() still frees. */
void wdev_quit(WDev *d);
/* Map BAR0, BAR2 and BAR4 (again: after a reset, at the same addresses). */
void wdev_map(WDev *d);
/* Map BAR1 (MSI-X table and PBA). */
void wdev_map_msix(WDev *d);
/* PCI command register: memory decoding, and bus mastering if master. */
void wdev_command(WDev *d, bool master);
/* Lines of the guest error log / captured stderr that match regex. */
unsigned int wdev_log_count(WDev *d, const char *regex);
unsigned int wdev_err_count(WDev *d, const char *regex);
/*
 * A few qtest round trips: time for the engine's thread to run what it
 * may run, before a check that something did not run.
 */
void wdev_settle(WDev *d);

/* BAR0 registers. */
uint32_t rd(WDev *d, uint32_t reg);
void wr(WDev *d, uint32_t reg, uint32_t val);
/* A _LO/_HI pair: two 32-bit accesses, LO first. */
uint64_t rd64(WDev *d, uint32_t reg);
void wr64(WDev *d, uint32_t reg, uint64_t val);
/* A segment table register of table entry i (segment id i + 1). */
uint32_t seg_rd(WDev *d, unsigned int i, uint32_t reg);
uint64_t seg_rd64(WDev *d, unsigned int i, uint32_t reg);

/* BAR2 / BAR4 accesses. */
uint32_t vram_rd(WDev *d, uint64_t off);
void vram_wr(WDev *d, uint64_t off, uint32_t val);
uint32_t win_rd(WDev *d, uint64_t off);
uint64_t win_rdq(WDev *d, uint64_t off);
void win_wr(WDev *d, uint64_t off, uint32_t val);
void window(WDev *d, uint64_t base);

/* Aperture page tables, PEEK, STATUS. */
void apt_select(WDev *d, uint32_t seg, uint32_t page);
void apt_set(WDev *d, uint32_t seg, uint32_t page, uint64_t addr);
uint64_t apt_get(WDev *d, uint32_t seg, uint32_t page);
uint32_t peek(WDev *d, uint64_t gpu_addr);
void clear_status(WDev *d);

/* Guest RAM. */
uint32_t ram_rd(WDev *d, uint64_t addr);
uint64_t ram_rdq(WDev *d, uint64_t addr);
void ram_wr(WDev *d, uint64_t addr, uint32_t val);
void ram_wrq(WDev *d, uint64_t addr, uint64_t val);
/* A page list of n entries at addr. */
void write_list(WDev *d, uint64_t addr, const uint64_t *pages, size_t n);
/* System address of byte k of a page list location at byte offset off. */
uint64_t pl_addr(const uint64_t *pages, uint64_t off, uint64_t k);

/* ---- the copy engine ----------------------------------------------------- */

/* A command location: a segment (id >= 1, offset) or a page list. */
typedef struct WLoc {
    uint64_t w[3];
} WLoc;
static inline WLoc seg_loc(uint64_t id, uint64_t off)
{
    return (WLoc){ { id, off, 0 } };
}
static inline WLoc list_loc(uint64_t list, uint64_t off)
{
    return (WLoc){ { 0, list, off } };
}

/* Reset the ring, program base and size, enable it. */
void ring_enable(WDev *d, uint64_t base, uint32_t size);
/* RING_CTRL.RESET | ENABLE in one write: head = tail = 0. */
void ring_reset(WDev *d);
/* Write one command of n qwords at the software tail. */
void emit(WDev *d, const uint64_t *w, unsigned int n);
#define EMIT(d, ...) do {                                                   \
        const uint64_t w_[] = { __VA_ARGS__ };                              \
        emit((d), w_, G_N_ELEMENTS(w_));                                    \
    } while (0)
static inline uint64_t hdr(uint64_t op, uint64_t qwords)
{
    return WDDMSEG_CMD_HDR(op, qwords);
}
/* A NOP of n qwords (only its header is written). */
void c_nop(WDev *d, unsigned int n);
void c_transfer(WDev *d, uint64_t size, WLoc src, WLoc dst);
void c_fill(WDev *d, uint64_t size, uint64_t pattern, WLoc dst);
void c_discard(WDev *d, uint64_t size, WLoc loc);
void c_crypt(WDev *d, uint64_t size, WLoc src, WLoc dst, uint64_t mode,
             uint64_t nonce, uint64_t stream);
void c_phys(WDev *d, uint64_t op, uint64_t size, uint64_t gpu, uint64_t dma);
void c_aperture(WDev *d, uint64_t op, uint64_t seg, uint64_t first,
                uint64_t count, uint64_t list);
/* A FENCE with the next seqno, written back at WQ_WB. */
void c_fence(WDev *d, uint64_t flags);
/* Ring the doorbell with the software tail. */
void doorbell(WDev *d);
/*
 * Doorbell, then poll RING_STATUS (bounded, 20 s) until the engine is
 * idle or faulted, or (VM stopped, ring disabled, hung) cannot move.
 * Returns RING_STATUS.
 */
uint32_t run(WDev *d);
/* Poll until the engine is idle or faulted, without a doorbell. */
uint32_t wait_engine(WDev *d);
/* The three checks of an engine that ran everything up to the tail. */
void check_idle(WDev *d, const char *what);

/* Doorbell and a few round trips, for an engine that must not move. */
void run_settle(WDev *d);

/*
 * Every fault check: fault_begin() resets the ring and queues a FENCE at
 * 0; the caller emits the bad command at 0x20; fault_end() queues a FENCE
 * after it, runs the ring and checks the six things a fault leaves (the
 * code, FAULT_HEAD and RING_HEAD at the command, FAULTED, IRQ_STATUS.ERROR,
 * nothing after the command ran).
 */
void fault_begin(WDev *d);
void fault_end(WDev *d, uint32_t code, const char *what);

/* A system reset through q35's reset control register (0xcf9). */
void wdev_system_reset(WDev *d);

/* VM run state over QMP. */
void vm_stop(WDev *d);
void vm_cont(WDev *d);

/* ---- QEMU that must not start -------------------------------------------- */

/*
 * Run QEMU with the common options and args (split like a shell
 * would), QMP on stdio asked to quit: returns the exit status (-1 if it
 * had to be killed after timeout_s) and its stderr in *err.
 */
int wq_spawn(const char *args, int timeout_s, char **err);
/*
 * QEMU started with args refuses to start: exit status 1 and a message
 * matching regex on stderr (what it printed goes to the test log if not).
 */
bool wq_refused(const char *args, const char *regex);
/* Same; without quit_qmp, no QMP: QEMU must exit by itself. */
int wq_spawn_full(const char *args, bool quit_qmp, int timeout_s, char **err);

/* Shell-quoted -device option for a layout string with '|' in it. */
char *wq_quote(const char *s);

#endif
