# SPDX-License-Identifier: GPL-2.0-only
#
# wddmseg: top-level entry points.
#
#   make run     build everything, boot the VM, load the driver, show the
#                decoded segment table
#   make check   build everything and run every test (host and VM) on
#                every supported kernel; ends with "N passed, N failed"
#   make check-debug
#                the debug-kernel tier: build a KASAN/lockdep/kmemleak/KUnit
#                kernel with the driver in-tree, run the KUnit suites, the
#                kselftests and a kmemleak scan under it (tools/debug/)
#   make install libwddmseg (static, shared, headers, pkg-config file) and
#                the tools into PREFIX (default /usr/local); DESTDIR,
#                BINDIR, LIBDIR, INCLUDEDIR as GNU makefiles take them
#                (also spelled prefix, bindir, libdir, includedir);
#                `make uninstall` removes them again
#   make dkms-install
#                the module through DKMS (tools/dkms/): its source to
#                /usr/src/wddmseg-VERSION, dkms add, and dkms install for
#                every installed kernel with headers; `make dkms-uninstall`
#                removes it from every kernel, `make dkms-source` only
#                writes the source tree (build/dkms/wddmseg-VERSION)
#   make qemu-patch
#                the QEMU device model as a patch series for QEMU 10.0
#                (git format-patch form) in build/qemu-patches/
#   make test T=NAME
#                one kselftest: NAME is FIXTURE.TEST (or FIXTURE.VARIANT.TEST,
#                a FIXTURE, a program); builds what is missing, boots the
#                guest with the devices of tools/vm/valid-layouts.txt, prints
#                its KTAP and "N passed, N failed" (tools/vm/run-test.sh)
#   make kunit S=GLOB
#                the driver's KUnit suites matching GLOB ('wddmseg_mgr*'),
#                in the guest of a kernel with KUnit (7.3; KUNIT=py: through
#                kunit.py, tools/debug/kunit.sh) (tools/vm/run-kunit.sh)
#   make qtest T=PATH
#                one qtest of the device model, e.g. /x86_64/wddmseg/...
#                (tools/qemu/run-qtest.sh)
#   make bench   allocation and eviction rates of wddmseg next to Debian's
#                bochs driver, in one VM boot, then suspend latency and
#                bytes copied, preserved VRAM against evicted VRAM, in
#                another, budgets kept or not under oversubscription in a
#                third (tools/bench.sh, tools/vm/pm-bench.sh,
#                tools/vm/budget-bench.sh)
#
# The kernel is one variable, KABI: a series (7.3, 6.12, 6.1) or an ABI
# (7.3.4-wddmseg, 6.12.117+deb12-amd64). Unset, `make check` runs every
# supported kernel (tools/vm/kabi.sh --all) and everything else the
# primary one, 7.3 (built from Debian's linux-source-7.3;
# tools/vm/kernel-src.sh):
#
#   make run KABI=6.1      make check KABI=6.12      make module KABI=6.1
#
# Per-kernel outputs are in build/ABI/ (tools/vm/kenv.sh). Every target
# installs its Debian build dependencies first (tools/vm/deps.sh).

REPO := $(CURDIR)
BUILD := $(REPO)/build
KABI ?=
export KABI
# KDIR, when given, replaces the kernel's own build tree (Debian's
# /usr/src/linux-headers-ABI, or build/linux-7.3 for the kernel built from
# source; tools/vm/kenv.sh)
KDIR_ARG = $(if $(filter command line environment,$(origin KDIR)),KDIR=$(KDIR))
DRVDIR := $(REPO)/drivers/gpu/drm/wddmseg

# The release: WDDMSEG_DRIVER_VERSION of the driver (MODULE_VERSION), the
# package version of dkms.conf.
VERSION = $(shell bash tools/dkms/source.sh --version)

.PHONY: all deps module module-w1 qemu lib tests tools guest run check clean
.PHONY: install uninstall dkms-source dkms-install dkms-uninstall

all: qemu guest

deps:
	@bash tools/vm/deps.sh

# build/ABI/src/drivers/gpu/drm/wddmseg/wddmseg.ko (tools/vm/module.sh)
module: deps
	$(KDIR_ARG) bash tools/vm/module.sh

# Build with W=1 into a log so warnings can be counted by the checks.
module-w1: deps
	$(KDIR_ARG) bash tools/vm/module.sh --w1

qemu: deps
	bash tools/qemu/build.sh $(BUILD)

# The device model as a git format-patch series for QEMU 10.0 (users who
# build their own QEMU): build/qemu-patches/000N-*.patch
.PHONY: qemu-patch
qemu-patch: deps
	bash tools/qemu/patch.sh $(BUILD)

# libwddmseg (static, shared, pkg-config) once for the tools and the
# kselftests, which link it statically. Not in build/tools or
# build/selftests: tools/vm/initramfs.sh copies every executable there.
LIBWDDMSEG := $(BUILD)/libwddmseg

lib: deps
	$(MAKE) -C tools/lib/wddmseg OUTPUT=$(LIBWDDMSEG)

tools: lib
	$(MAKE) -C tools/wddmseg OUTPUT=$(BUILD)/tools \
		LIBWDDMSEG_OUTPUT=$(LIBWDDMSEG)

# Installation directories, GNU style; the lower-case names work too.
prefix ?= /usr/local
PREFIX ?= $(prefix)
BINDIR ?= $(or $(bindir),$(PREFIX)/bin)
LIBDIR ?= $(or $(libdir),$(PREFIX)/lib)
INCLUDEDIR ?= $(or $(includedir),$(PREFIX)/include)
INSTALL_DIRS = prefix=$(PREFIX) bindir=$(BINDIR) libdir=$(LIBDIR) \
	includedir=$(INCLUDEDIR)

# No deps here: installing needs only what built lib and tools (gcc,
# libdrm-dev, pkg-config), and a packager's DESTDIR run must not apt-get.
install:
	$(MAKE) -C tools/lib/wddmseg OUTPUT=$(LIBWDDMSEG) $(INSTALL_DIRS) install
	$(MAKE) -C tools/wddmseg OUTPUT=$(BUILD)/tools \
		LIBWDDMSEG_OUTPUT=$(LIBWDDMSEG) $(INSTALL_DIRS) install

uninstall:
	$(MAKE) -C tools/wddmseg OUTPUT=$(BUILD)/tools $(INSTALL_DIRS) uninstall
	$(MAKE) -C tools/lib/wddmseg OUTPUT=$(LIBWDDMSEG) $(INSTALL_DIRS) uninstall

# The module through DKMS (README, "Installing the module"). dkms-install and
# dkms-uninstall act on the host's /usr/src, /var/lib/dkms and
# /lib/modules: run them as root.
dkms-source:
	bash tools/dkms/source.sh $(BUILD)/dkms

dkms-install:
	bash tools/dkms/dkms.sh install $(BUILD)/dkms

dkms-uninstall:
	bash tools/dkms/dkms.sh uninstall

# Userspace, the same binaries for every kernel. The kselftests build with
# any kernel's kselftest_harness.h (wddmseg_harness.h); these standalone
# ones (the PM scripts run them) take 6.1's, which deps.sh installs. The
# guests run the ones built in their own series' kernel tree
# (tools/vm/ksft-tree.sh, called by tools/vm/initramfs.sh).
KSFT_TARBALL := /usr/src/linux-source-6.1.tar.xz
tests: lib
	$(MAKE) -C tools/testing/selftests/drivers/gpu/wddmseg \
		OUTPUT=$(BUILD)/selftests KSFT_TARBALL=$(KSFT_TARBALL) \
		LIBWDDMSEG_OUTPUT=$(LIBWDDMSEG)

guest: module tests tools
	bash tools/vm/kernel.sh
	bash tools/vm/initramfs.sh

run: qemu guest
	bash tools/demo.sh

# The kernels on the command line (KABI=...), else every supported one.
check:
	bash tools/check.sh $(if $(filter command line environment,$(origin KABI)),$(KABI))

# One test in one command. T, S: the test; each script's --list (also
# `make test T=--list`) shows the names.
.PHONY: test kunit qtest
test:
	@bash tools/vm/run-test.sh $(if $(T),"$(T)",--help)

kunit:
	@bash tools/vm/run-kunit.sh $(if $(filter py,$(KUNIT)),--kunit-py) $(if $(S),"$(S)",--help)

qtest:
	@bash tools/qemu/run-qtest.sh $(if $(T),"$(T)",--help)

.PHONY: check-debug
check-debug:
	bash tools/debug/check-debug.sh

.PHONY: bench
bench: deps
	bash tools/bench.sh

# Objects of out-of-tree builds made in the driver directory before the
# per-kernel copies (build/ABI/src) existed go too.
clean:
	rm -f $(DRVDIR)/*.o $(DRVDIR)/*.ko $(DRVDIR)/*.mod $(DRVDIR)/*.mod.c \
		$(DRVDIR)/.*.cmd $(DRVDIR)/modules.order $(DRVDIR)/Module.symvers \
		$(DRVDIR)/tests/*.o $(DRVDIR)/tests/.*.cmd
	rm -rf $(BUILD)
