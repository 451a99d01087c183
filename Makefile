# SPDX-License-Identifier: GPL-2.0-only
#
# wddmseg: top-level entry points.
#
#   make run     build everything, boot the VM, load the driver, show the
#                decoded segment table
#   make check   build everything and run every test (host and VM); ends
#                with "N passed, N failed"
#   make check-debug
#                the debug-kernel tier: build a KASAN/lockdep/kmemleak/KUnit
#                kernel with the driver in-tree, run the KUnit suites, the
#                kselftests and a kmemleak scan under it (tools/debug/)
#   make bench   allocation and eviction rates of wddmseg next to Debian's
#                bochs driver, in one VM boot (tools/bench.sh)
#
# Both install their Debian build dependencies first (tools/vm/deps.sh).

REPO := $(CURDIR)
BUILD := $(REPO)/build
KABI ?= $(shell tools/vm/kabi.sh 2>/dev/null)
KDIR ?= /usr/src/linux-headers-$(KABI)
DRVDIR := $(REPO)/drivers/gpu/drm/wddmseg

.PHONY: all deps module module-w1 qemu lib tests tools guest run check clean

all: qemu guest

deps:
	@bash tools/vm/deps.sh

module: deps
	$(MAKE) -C $(KDIR) M=$(DRVDIR) CONFIG_DRM_WDDMSEG=m modules

# Build with W=1 into a log so warnings can be counted by the checks.
module-w1: deps
	$(MAKE) -C $(KDIR) M=$(DRVDIR) clean >/dev/null
	$(MAKE) -C $(KDIR) M=$(DRVDIR) CONFIG_DRM_WDDMSEG=m W=1 modules

qemu: deps
	bash tools/qemu/build.sh $(BUILD)

# libwddmseg (static, shared, pkg-config) once for the tools and the
# kselftests, which link it statically. Not in build/tools or
# build/selftests: tools/vm/initramfs.sh copies every executable there.
LIBWDDMSEG := $(BUILD)/libwddmseg

lib: deps
	$(MAKE) -C tools/lib/wddmseg OUTPUT=$(LIBWDDMSEG)

tools: lib
	$(MAKE) -C tools/wddmseg OUTPUT=$(BUILD)/tools \
		LIBWDDMSEG_OUTPUT=$(LIBWDDMSEG)

tests: lib
	bash tools/lint/linux-source.sh $(BUILD)
	$(MAKE) -C tools/testing/selftests/drivers/gpu/wddmseg \
		OUTPUT=$(BUILD)/selftests \
		KSFT_INC=$(BUILD)/linux-src/tools/testing/selftests \
		LIBWDDMSEG_OUTPUT=$(LIBWDDMSEG)

guest: module tests tools
	bash tools/vm/kernel.sh
	bash tools/vm/initramfs.sh

run: qemu guest
	bash tools/demo.sh

check:
	bash tools/check.sh

.PHONY: check-debug
check-debug:
	bash tools/debug/check-debug.sh

.PHONY: bench
bench: deps
	bash tools/bench.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(DRVDIR) clean
	rm -rf $(BUILD)
