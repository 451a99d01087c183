# SPDX-License-Identifier: GPL-2.0-only
#
# The devices of the QEMU that tools/qemu/build.sh builds: configured with
# --without-default-devices, QEMU's Kconfig enables only what is listed
# here and what these entries select (a "default y" or an "imply" counts
# for nothing then). build.sh copies this file into the QEMU tree as
# configs/devices/x86_64-softmmu/wddmseg.mak (--with-devices-x86_64=wddmseg).
#
# What the machines select comes with them: the ICH9 LPC bridge (S3,
# -global ICH9-LPC.disable_s3=0), ICH9 SMBus and AHCI, the i8042, the RTC,
# the PIT, the PICs, the IOAPIC, the ISA serial ports (-serial), fw_cfg
# with DMA (-kernel), on pc also PIIX3, PIIX4 PM and the PIIX IDE.

# -machine q35: every VM of tools/vm/run-vm.sh, and the C qtests
# (tools/qemu/tests/wddmseg-qtest.c, WQ_COMMON).
CONFIG_Q35=y
# The pc machine (i440FX), QEMU's default machine for x86_64: kunit.py
# (tools/debug/kunit.sh: make check-debug, make kunit KUNIT=py) runs QEMU
# without -machine.
CONFIG_I440FX=y

# The device model (tools/qemu/qemu-tree.sh puts it into hw/display/):
# every test.
CONFIG_WDDMSEG=y
# -device isa-debug-exit: every VM of tools/vm/run-vm.sh (the guest's
# power-off status).
CONFIG_ISA_DEBUG=y
# -device intel-iommu: tools/vm/iommu-check.sh (make check's vIOMMU stage).
CONFIG_VTD=y
# -device bochs-display: the control of tools/vm/kms-check.sh (make
# check's kms stage) and the comparison of tools/bench.sh.
CONFIG_BOCHS_DISPLAY=y
# -drive if=virtio (virtio-blk-pci): the swap disk of
# tools/vm/pm-hibernate.sh (make check, make check-debug).
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_BLK=y

# Devices that q35 and pc create by themselves when they are built in,
# kept so that every guest sees the same machine as with Kconfig's default
# devices (the same `info qtree`): the HPET (q35, pc), vmport and
# vmmouse (q35, pc), the ISA floppy controller (pc: kunit.py).
CONFIG_HPET=y
CONFIG_VMPORT=y
CONFIG_VMMOUSE=y
CONFIG_FDC_ISA=y
