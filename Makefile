# SPDX-License-Identifier: GPL-2.0
#
# Build, boot and test our ring buffer on Linux 6.12 (see README.md).
#
#   make run            build the kernel, boot it in QEMU, trace a workload
#                       and show the buffer at work, power off
#   make shell          the same kernel with an interactive busybox shell
#   make test           every test: user-space harness, patch check, x86_64
#                       debug, arm64 and i386 kernel boots; ends
#                       with "N passed, M failed"
#   make patch          write build/ring-buffer.patch (git format-patch)
#   make review         checkpatch --strict, sparse and kernel-doc on our patch
#                       (KTAP; also part of make test)
#   make litmus         the barrier pairs of Documentation/trace/ring-buffer.txt
#                       as litmus tests under herd7 and the kernel's memory
#                       model (KTAP; also part of make test)
#   make bench          ours next to stock, one table: the user-space benchmark
#                       and, under QEMU (ratios only), the kernel's
#                       ring_buffer_benchmark and the function tracer's overhead
#   make kernel         build the kernel only
#   make tracecmd-loop  the guest check tracecmd_record TRACECMD_LOOP times
#                       (default 50) in one boot on each of ARCHES (default
#                       "x86_64 i386"); counts failures, keeps their evidence
#   make cross          our patch built W=1 for arm and riscv64 (kernel/trace/,
#                       lib/), no warning in our files, no libgcc helper the
#                       kernel lacks (also part of make test)
#   make deps           (as root) install every Debian package make test and
#                       make run need, fetch the other arches' .debs; the
#                       other targets do it themselves when run as root
#   make clean          remove build/ (everything generated)
#
# Variables (on the command line or in the environment):
#   STOCK=1             the stock 6.12 ring buffer + our self-test instead of ours
#   QEMU_ACCEL=...      QEMU accelerator (default tcg,thread=single)
#   SMP=N               guest CPUs (default 2)
#   KERNEL_TREE=DIR     your own unpacked 6.12.y tree instead of Debian's tarball
#   JOBS=N              make -j for the kernel build (default 2)
#   FLAVOURS=...        which x86_64 kernels `make test` boots (default
#                       "normal debug": make run's kernel, then the debug one)
#   ARCHES="x86_64 arm64 i386"  which architectures `make test` boots
#   CROSS=0             make test leaves out the arm/riscv64 link checks
#   PERSIST=0           make test leaves out the two-boot persistent-buffer
#                       checks (vm/persist.sh FLAVOUR runs them alone)
#   HERD7=PATH          herd7 for make litmus/test (else herd7 on PATH)
#   HERDTOOLS=TARBALL   herdtools7-*.tar.xz: herd7 built from it once under
#                       ~/.cache/herdtools7/ (.ci/run passes the vendored one);
#                       with no herd7 at all the litmus stage is SKIPPED
#   VERBOSE=1           show every line of the kernel build
#   LOOPS=N             make bench: getppid calls per syscall run (500000)
#   TRACECMD_LOOP=N     make tracecmd-loop: runs per boot (default 50);
#                       TRACECMD_NOWAIT=1 without the wait for the recorders,
#                       TRACECMD_RACE=1 the check tracecmd_race instead
#   ICOUNT=...          make bench: -icount of the syscall boots
#                       (default shift=2,sleep=off; ICOUNT= for none)
#
# All output goes under build/.  The scripts live in
# tools/testing/ring_buffer/vm/.

SHELL := /bin/bash
VM := tools/testing/ring_buffer/vm
BUILD := build

ifeq ($(STOCK),1)
KIND := stock
KPATCH := $(BUILD)/stock-selftest.patch
OBJ := $(BUILD)/obj-stock
else
KIND := ours
KPATCH := $(BUILD)/ring-buffer.patch
OBJ := $(BUILD)/obj-ours
endif
INITRD := $(BUILD)/initramfs.cpio

# Hand the knobs to the scripts (JOBS also to the harness's make -j and --jobs).
JOBS ?= 2
export STOCK QEMU_ACCEL SMP KERNEL_TREE JOBS FLAVOURS ARCHES VERBOSE TIMEOUT TIMEOUT_DEBUG STARTUP_TESTS LOOPS CROSS PERSIST HERD7 TRACECMD_LOOP TRACECMD_NOWAIT TRACECMD_RACE

.PHONY: help all deps deps-run patch tree kernel cross initramfs run shell test review litmus bench tracecmd-loop clean

all: help

help:
	@sed -n '3,57p' Makefile | sed 's/^# \{0,1\}//'

# One install step (vm/install-deps.sh): every apt call waits for the others.
deps:
	@bash $(VM)/install-deps.sh test run

deps-run:
	@bash $(VM)/install-deps.sh run

# `make patch` always writes our patch, whatever STOCK says.
patch:
	@bash $(VM)/prepare-tree.sh
	@bash $(VM)/mkpatch.sh ours $(BUILD)/ring-buffer.patch

# The tree we build: pristine + exactly the patch (git am).
tree:
	@bash $(VM)/prepare-tree.sh
	@bash $(VM)/mkpatch.sh $(KIND) $(KPATCH)
	@bash $(VM)/apply-tree.sh $(KIND) $(KPATCH)

kernel: tree
	@bash $(VM)/build-kernel.sh $(KIND) normal

cross:
	@bash $(VM)/prepare-tree.sh
	@bash $(VM)/mkpatch.sh ours $(BUILD)/ring-buffer.patch
	@bash $(VM)/apply-tree.sh ours $(BUILD)/ring-buffer.patch
	@bash $(VM)/cross-link.sh arm ours
	@bash $(VM)/cross-link.sh riscv64 ours

initramfs:
	@bash $(VM)/mkinitramfs.sh $(INITRD)

run: deps-run kernel initramfs
	@bash $(VM)/run-qemu.sh run $(OBJ)/arch/x86/boot/bzImage $(INITRD) $(BUILD)/run

shell: deps-run kernel initramfs
	@bash $(VM)/run-qemu.sh shell $(OBJ)/arch/x86/boot/bzImage $(INITRD) $(BUILD)/shell

# A relative HERDTOOLS is taken from here, the top of the repository.
test:
	@$(if $(HERDTOOLS),HERDTOOLS=$(abspath $(HERDTOOLS))) bash $(VM)/run-tests.sh

litmus:
	@$(MAKE) --no-print-directory -C tools/testing/ring_buffer litmus \
		$(if $(HERDTOOLS),HERDTOOLS=$(abspath $(HERDTOOLS)))

# Needs build/obj-ours configured (make kernel) for sparse.
review:
	@bash $(VM)/review.sh

# Builds build/obj-ours and build/obj-stock (make test's normal kernels).
bench:
	@bash $(VM)/bench.sh

tracecmd-loop:
	@bash $(VM)/tracecmd-loop.sh

clean:
	rm -rf $(BUILD)
