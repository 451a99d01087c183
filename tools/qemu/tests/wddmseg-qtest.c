/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: the helpers the test programs share (wddmseg-qtest.h).
 */

#include "qemu/osdep.h"

#include <signal.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <sys/wait.h>

#include "wddmseg-qtest.h"

/* ---- checks -------------------------------------------------------------- */

static unsigned int n_checks, n_failed;
static const char *current;     /* the running test, below /wddmseg/ */

typedef struct WqCase {
    char *name;
    void (*fn)(void);
    void (*data_fn)(const void *);
    const void *data;
} WqCase;

static void wq_case_run(const void *opaque)
{
    const WqCase *c = opaque;

    current = c->name;
    if (c->fn) {
        c->fn();
    } else {
        c->data_fn(c->data);
    }
    current = NULL;
}

static void wq_case_free(void *opaque)
{
    WqCase *c = opaque;

    g_free(c->name);
    g_free(c);
}

static void wq_add_case(const char *name, void (*fn)(void),
                        void (*data_fn)(const void *), const void *data)
{
    WqCase *c = g_new0(WqCase, 1);
    g_autofree char *path = g_strdup_printf("/wddmseg/%s", name);

    c->name = g_strdup(name);
    c->fn = fn;
    c->data_fn = data_fn;
    c->data = data;
    qtest_add_data_func_full(path, c, wq_case_run, wq_case_free);
}

void wq_add(const char *name, void (*fn)(void))
{
    wq_add_case(name, fn, NULL, NULL);
}

void wq_add_data(const char *name, const void *data,
                 void (*fn)(const void *))
{
    wq_add_case(name, NULL, fn, data);
}

char *wq_detail(const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return s;
}

/*
 * One nested TAP line per check, prefixed with the test case's path
 * below /<arch>/wddmseg/.
 */
void wq_report(bool ok, const char *detail, const char *fmt, ...)
{
    const char *name = current ? current : "";
    g_autofree char *what = NULL;
    va_list ap;

    va_start(ap, fmt);
    what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    n_checks++;
    if (ok) {
        g_test_message("ok %u - %s: %s", n_checks, name, what);
    } else {
        n_failed++;
        g_test_message("not ok %u - %s: %s (%s)", n_checks, name, what,
                       detail ? detail : "failed");
    }
}

unsigned int wq_checks(void)
{
    return n_checks;
}

unsigned int wq_failed(void)
{
    return n_failed;
}

void wq_init(int *argc, char ***argv)
{
    g_test_init(argc, argv, NULL);
    g_test_set_nonfatal_assertions();
}

int wq_run(void)
{
    int ret = g_test_run();

    g_test_message("%s: %u checks, %u failed", g_get_prgname(), n_checks,
                   n_failed);
    return ret;
}

/* ---- one QEMU with one device -------------------------------------------- */

#define WQ_COMMON "-machine q35 -nodefaults " \
                  "-L /usr/share/seabios -L /usr/share/qemu "

WDev *wdev_start_args(const char *args, unsigned int flags)
{
    WDev *d = g_new0(WDev, 1);
    g_autoptr(GString) cmd = g_string_new(WQ_COMMON);
    g_autoptr(GError) gerr = NULL;
    int saved = -1;

    d->dir = g_dir_make_tmp("wddmseg-qtest-XXXXXX", &gerr);
    g_assert_no_error(gerr);
    if (flags & WQ_LOG) {
        d->log = g_build_filename(d->dir, "guest.log", NULL);
        g_string_append_printf(cmd, "-d guest_errors -D %s ", d->log);
    }
    g_string_append(cmd, args);
    if (flags & WQ_STDERR) {
        int fd;

        /* QEMU inherits our stderr when libqtest starts it. */
        d->err = g_build_filename(d->dir, "stderr", NULL);
        fd = open(d->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        g_assert(fd >= 0);
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        g_assert(saved >= 0);
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
    d->qts = qtest_init(cmd->str);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    d->bus = qpci_new_pc(d->qts, NULL);
    d->dev = qpci_device_find(d->bus, QPCI_DEVFN(WQ_SLOT, 0));
    g_assert(d->dev);
    if (!(flags & WQ_NOMAP)) {
        wdev_map(d);
    }
    return d;
}

WDev *wdev_start(const char *devopts, unsigned int flags, const char *extra)
{
    g_autofree char *dev = g_strdup_printf("wddmseg,addr=0x%x%s", WQ_SLOT,
                                           devopts);
    g_autofree char *q = g_shell_quote(dev);
    g_autofree char *args = g_strdup_printf("-device %s %s", q,
                                            extra ? extra : "");

    return wdev_start_args(args, flags);
}

static void rm_dir(const char *path)
{
    GDir *dir = g_dir_open(path, 0, NULL);
    const char *name;

    if (!dir) {
        return;
    }
    while ((name = g_dir_read_name(dir))) {
        g_autofree char *f = g_build_filename(path, name, NULL);

        g_remove(f);
    }
    g_dir_close(dir);
    g_rmdir(path);
}

void wdev_quit(WDev *d)
{
    if (d->qts) {
        qtest_quit(d->qts);
        d->qts = NULL;
    }
}

void wdev_stop(WDev *d)
{
    wdev_quit(d);
    g_free(d->dev);
    qpci_free_pc(d->bus);
    rm_dir(d->dir);
    g_free(d->dir);
    g_free(d->log);
    g_free(d->err);
    g_free(d);
}

/*
 * qpci_iomap() hands out addresses from 0xe0000000 in call order, so the
 * BARs land at the same addresses on every start (and after a reset).
 */
void wdev_map(WDev *d)
{
    d->bus->mmio_alloc_ptr = 0xe0000000;
    d->bar0 = qpci_iomap(d->dev, WDDMSEG_BAR_MMIO, NULL);
    d->bar2 = qpci_iomap(d->dev, WDDMSEG_BAR_VRAM, &d->bar2_size);
    d->bar4 = qpci_iomap(d->dev, WDDMSEG_BAR_WINDOW, NULL);
    wdev_command(d, false);
}

void wdev_map_msix(WDev *d)
{
    d->bar1 = qpci_iomap(d->dev, WDDMSEG_MSIX_BAR, NULL);
}

void wdev_command(WDev *d, bool master)
{
    qpci_config_writew(d->dev, PCI_COMMAND, PCI_COMMAND_MEMORY |
                       (master ? PCI_COMMAND_MASTER : 0));
}

static unsigned int count_lines(const char *path, const char *regex)
{
    g_autofree char *text = NULL;
    g_autoptr(GRegex) re = g_regex_new(regex, G_REGEX_MULTILINE, 0, NULL);
    g_auto(GStrv) lines = NULL;
    unsigned int n = 0;

    g_assert(re);
    if (!path || !g_file_get_contents(path, &text, NULL, NULL)) {
        return 0;
    }
    /* One match per line at most. */
    lines = g_strsplit(text, "\n", -1);
    for (char **p = lines; *p; p++) {
        n += g_regex_match(re, *p, 0, NULL);
    }
    return n;
}

unsigned int wdev_log_count(WDev *d, const char *regex)
{
    return count_lines(d->log, regex);
}

unsigned int wdev_err_count(WDev *d, const char *regex)
{
    return count_lines(d->err, regex);
}

void wdev_settle(WDev *d)
{
    for (int i = 0; i < 8; i++) {
        qtest_readl(d->qts, d->bar0.addr + WDDMSEG_REG_ID);
    }
}

uint32_t rd(WDev *d, uint32_t reg)
{
    return qpci_io_readl(d->dev, d->bar0, reg);
}

void wr(WDev *d, uint32_t reg, uint32_t val)
{
    qpci_io_writel(d->dev, d->bar0, reg, val);
}

uint64_t rd64(WDev *d, uint32_t reg)
{
    uint64_t lo = rd(d, reg);

    return lo | (uint64_t)rd(d, reg + 4) << 32;
}

void wr64(WDev *d, uint32_t reg, uint64_t val)
{
    wr(d, reg, val);
    wr(d, reg + 4, val >> 32);
}

uint32_t seg_rd(WDev *d, unsigned int i, uint32_t reg)
{
    return rd(d, WDDMSEG_SEG_TABLE + i * WDDMSEG_SEG_STRIDE + reg);
}

uint64_t seg_rd64(WDev *d, unsigned int i, uint32_t reg)
{
    return rd64(d, WDDMSEG_SEG_TABLE + i * WDDMSEG_SEG_STRIDE + reg);
}

uint32_t vram_rd(WDev *d, uint64_t off)
{
    return qpci_io_readl(d->dev, d->bar2, off);
}

void vram_wr(WDev *d, uint64_t off, uint32_t val)
{
    qpci_io_writel(d->dev, d->bar2, off, val);
}

uint32_t win_rd(WDev *d, uint64_t off)
{
    return qpci_io_readl(d->dev, d->bar4, off);
}

uint64_t win_rdq(WDev *d, uint64_t off)
{
    return qpci_io_readq(d->dev, d->bar4, off);
}

void win_wr(WDev *d, uint64_t off, uint32_t val)
{
    qpci_io_writel(d->dev, d->bar4, off, val);
}

void window(WDev *d, uint64_t base)
{
    wr64(d, WDDMSEG_REG_WINDOW_BASE_LO, base);
}

void apt_select(WDev *d, uint32_t seg, uint32_t page)
{
    wr(d, WDDMSEG_REG_APT_SEGMENT, seg);
    wr(d, WDDMSEG_REG_APT_PAGE, page);
}

void apt_set(WDev *d, uint32_t seg, uint32_t page, uint64_t addr)
{
    apt_select(d, seg, page);
    wr64(d, WDDMSEG_REG_APT_ADDR_LO, addr);
}

uint64_t apt_get(WDev *d, uint32_t seg, uint32_t page)
{
    apt_select(d, seg, page);
    return rd64(d, WDDMSEG_REG_APT_ADDR_LO);
}

uint32_t peek(WDev *d, uint64_t gpu_addr)
{
    wr64(d, WDDMSEG_REG_PEEK_ADDR_LO, gpu_addr);
    return rd(d, WDDMSEG_REG_PEEK_DATA);
}

void clear_status(WDev *d)
{
    wr(d, WDDMSEG_REG_STATUS, 0xffffffff);
}

uint32_t ram_rd(WDev *d, uint64_t addr)
{
    return qtest_readl(d->qts, addr);
}

uint64_t ram_rdq(WDev *d, uint64_t addr)
{
    return qtest_readq(d->qts, addr);
}

void ram_wr(WDev *d, uint64_t addr, uint32_t val)
{
    qtest_writel(d->qts, addr, val);
}

void ram_wrq(WDev *d, uint64_t addr, uint64_t val)
{
    qtest_writeq(d->qts, addr, val);
}

void write_list(WDev *d, uint64_t addr, const uint64_t *pages, size_t n)
{
    g_autofree uint64_t *le = g_new(uint64_t, n);

    for (size_t i = 0; i < n; i++) {
        le[i] = cpu_to_le64(pages[i]);
    }
    qtest_memwrite(d->qts, addr, le, n * sizeof(*le));
}

uint64_t pl_addr(const uint64_t *pages, uint64_t off, uint64_t k)
{
    off += k;
    return pages[off >> WDDMSEG_HW_PAGE_SHIFT] + (off & 0xfff);
}

/* ---- the copy engine ----------------------------------------------------- */

void ring_enable(WDev *d, uint64_t base, uint32_t size)
{
    d->rb = base;
    d->rs = size;
    d->rt = 0;
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_RESET);
    wr64(d, WDDMSEG_REG_RING_BASE_LO, base);
    wr(d, WDDMSEG_REG_RING_SIZE, size);
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_ENABLE);
}

void ring_reset(WDev *d)
{
    d->rt = 0;
    wr(d, WDDMSEG_REG_RING_CTRL,
       WDDMSEG_RING_CTRL_RESET | WDDMSEG_RING_CTRL_ENABLE);
}

void emit(WDev *d, const uint64_t *w, unsigned int n)
{
    /* The checks never let a command straddle the ring end by accident. */
    g_assert(d->rt + 8 * n <= d->rs);
    for (unsigned int i = 0; i < n; i++) {
        qtest_writeq(d->qts, d->rb + d->rt, w[i]);
        d->rt += 8;
    }
    d->rt %= d->rs;
}

void c_nop(WDev *d, unsigned int n)
{
    g_assert(d->rt + 8 * n <= d->rs);
    qtest_writeq(d->qts, d->rb + d->rt, hdr(WDDMSEG_OP_NOP, n));
    d->rt = (d->rt + 8 * n) % d->rs;
}

void c_transfer(WDev *d, uint64_t size, WLoc s, WLoc t)
{
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER, WDDMSEG_TRANSFER_QWORDS), size,
         s.w[0], s.w[1], s.w[2], t.w[0], t.w[1], t.w[2]);
}

void c_fill(WDev *d, uint64_t size, uint64_t pattern, WLoc t)
{
    EMIT(d, hdr(WDDMSEG_OP_FILL, WDDMSEG_FILL_QWORDS), size, pattern,
         t.w[0], t.w[1], t.w[2]);
}

void c_discard(WDev *d, uint64_t size, WLoc l)
{
    EMIT(d, hdr(WDDMSEG_OP_DISCARD, WDDMSEG_DISCARD_QWORDS), size,
         l.w[0], l.w[1], l.w[2]);
}

void c_crypt(WDev *d, uint64_t size, WLoc s, WLoc t, uint64_t mode,
             uint64_t nonce, uint64_t stream)
{
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER_ENCRYPTED,
                WDDMSEG_TRANSFER_ENCRYPTED_QWORDS), size,
         s.w[0], s.w[1], s.w[2], t.w[0], t.w[1], t.w[2], mode, nonce, stream);
}

void c_phys(WDev *d, uint64_t op, uint64_t size, uint64_t gpu, uint64_t dma)
{
    EMIT(d, hdr(op, WDDMSEG_PHYSICAL_QWORDS), size, gpu, dma);
}

void c_aperture(WDev *d, uint64_t op, uint64_t seg, uint64_t first,
                uint64_t count, uint64_t list)
{
    EMIT(d, hdr(op, WDDMSEG_APERTURE_QWORDS), seg, first, count, list);
}

void c_fence(WDev *d, uint64_t flags)
{
    d->seq++;
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), d->seq, WQ_WB,
         flags);
}

void doorbell(WDev *d)
{
    wr(d, WDDMSEG_REG_RING_TAIL, d->rt);
}

uint32_t wait_engine(WDev *d)
{
    gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
    uint32_t st;

    do {
        st = rd(d, WDDMSEG_REG_RING_STATUS);
        if (st & (WDDMSEG_RING_STATUS_IDLE | WDDMSEG_RING_STATUS_FAULTED)) {
            break;
        }
    } while (g_get_monotonic_time() < end);
    /* Let a fault's interrupt and log land before the checks read them. */
    wdev_settle(d);
    return st;
}

uint32_t run(WDev *d)
{
    doorbell(d);
    return wait_engine(d);
}

void check_idle(WDev *d, const char *what)
{
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS),
             WDDMSEG_RING_STATUS_ENABLED | WDDMSEG_RING_STATUS_IDLE,
             "%s: RING_STATUS ENABLED|IDLE", what);
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), d->rt,
             "%s: RING_HEAD reached the tail (0x%x)", what, d->rt);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), 0, "%s: no fault", what);
}

void run_settle(WDev *d)
{
    doorbell(d);
    wdev_settle(d);
}

void fault_begin(WDev *d)
{
    ring_reset(d);
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
    c_fence(d, 0);
}

void fault_end(WDev *d, uint32_t code, const char *what)
{
    const uint32_t head = 0x20;
    uint64_t good = d->seq;

    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0xbad, WQ_WB, 0);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), code,
             "fault %s: FAULT_CODE %u", what, code);
    check_eq(rd(d, WDDMSEG_REG_FAULT_HEAD), head,
             "fault %s: FAULT_HEAD 0x%x", what, head);
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), head,
             "fault %s: RING_HEAD stays at the command", what);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS),
             WDDMSEG_RING_STATUS_ENABLED | WDDMSEG_RING_STATUS_FAULTED,
             "fault %s: RING_STATUS ENABLED|FAULTED", what);
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_ERROR,
             "fault %s: IRQ_STATUS.ERROR", what);
    check_eq(rd64(d, WDDMSEG_REG_LAST_SEQNO_LO), good,
             "fault %s: nothing after the command ran", what);
}

/*
 * QEMU performs a requested reset when its main loop runs again: poll
 * (bounded) until the PCI command register reads 0.
 */
void wdev_system_reset(WDev *d)
{
    qtest_outb(d->qts, 0xcf9, 0x6);
    for (int i = 0; i < 1000; i++) {
        if (!qpci_config_readw(d->dev, PCI_COMMAND)) {
            break;
        }
        g_usleep(1000);
    }
}

void vm_stop(WDev *d)
{
    qtest_qmp_assert_success(d->qts, "{'execute': 'stop'}");
}

void vm_cont(WDev *d)
{
    qtest_qmp_assert_success(d->qts, "{'execute': 'cont'}");
}

/* ---- QEMU that must not start -------------------------------------------- */

int wq_spawn(const char *args, int timeout_s, char **err)
{
    return wq_spawn_full(args, true, timeout_s, err);
}

bool wq_refused(const char *args, const char *regex)
{
    g_autofree char *err = NULL;
    int status = wq_spawn(args, 30, &err);
    bool said = g_regex_match_simple(regex, err, 0, 0);

    if (status != 1 || !said) {
        g_test_message("exit %d: %s", status, err);
    }
    return status == 1 && said;
}

int wq_spawn_full(const char *args, bool quit_qmp, int timeout_s, char **err)
{
    static const char quit[] = "{\"execute\": \"qmp_capabilities\"}\n"
                               "{\"execute\": \"quit\"}\n";
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_autoptr(GError) gerr = NULL;
    g_autoptr(GString) out = g_string_new("");
    g_auto(GStrv) user = NULL;
    g_auto(GStrv) common = NULL;
    gint64 end = g_get_monotonic_time() + timeout_s * G_USEC_PER_SEC;
    int in_fd, err_fd, status = 0;
    GPid pid;

    g_assert(g_shell_parse_argv(quit_qmp ?
                                WQ_COMMON "-accel qtest -display none "
                                "-qmp stdio" :
                                WQ_COMMON "-accel qtest -display none",
                                NULL, &common, NULL));
    g_assert(g_shell_parse_argv(args, NULL, &user, &gerr));
    g_ptr_array_add(argv, (char *)g_getenv("QTEST_QEMU_BINARY"));
    for (char **p = common; *p; p++) {
        g_ptr_array_add(argv, *p);
    }
    for (char **p = user; *p; p++) {
        g_ptr_array_add(argv, *p);
    }
    g_ptr_array_add(argv, NULL);
    g_assert(argv->pdata[0]);
    g_assert(g_spawn_async_with_pipes(NULL, (char **)argv->pdata, NULL,
                                      G_SPAWN_DO_NOT_REAP_CHILD |
                                      G_SPAWN_STDOUT_TO_DEV_NULL,
                                      NULL, NULL, &pid, &in_fd, NULL,
                                      &err_fd, &gerr));
    /*
     * If it starts after all, QMP asks it to quit (exit status 0). If it
     * exited already, the write fails with EPIPE: SIGPIPE must not end
     * the test program instead (it did, now and then, exit status 141).
     */
    signal(SIGPIPE, SIG_IGN);
    if (quit_qmp && write(in_fd, quit, strlen(quit)) < 0) {
        /* It already exited: fine. */
    }
    close(in_fd);
    for (;;) {
        struct pollfd pfd = { .fd = err_fd, .events = POLLIN };
        gint64 left = (end - g_get_monotonic_time()) / 1000;
        char buf[4096];
        ssize_t n;

        if (left <= 0 || poll(&pfd, 1, left) <= 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            status = -1;
            break;
        }
        n = read(err_fd, buf, sizeof(buf));
        if (n > 0) {
            g_string_append_len(out, buf, n);
            continue;
        }
        waitpid(pid, &status, 0);
        status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        break;
    }
    close(err_fd);
    g_spawn_close_pid(pid);
    *err = g_string_free(g_steal_pointer(&out), false);
    return status;
}

char *wq_quote(const char *s)
{
    return g_shell_quote(s);
}
