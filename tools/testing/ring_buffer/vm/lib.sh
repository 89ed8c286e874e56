# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ring buffer VM pipeline.  Sourced, never run.
#
# Every script under tools/testing/ring_buffer/vm/ sources this file to get:
#   - the common paths (REPO, BUILD, PRISTINE, ...),
#   - stage_start/stage_end: one progress line when a stage starts and one
#     when it ends, with the elapsed seconds,
#   - die: a clear error and a non-zero exit,
#   - need_pkgs, foreign_deb_extract: the Debian packages a script uses,
#     installed (or fetched) by install-deps.sh when missing, so that every
#     apt call of the pipeline goes through that one script and its lock,
#   - the package lists install-deps.sh installs by what needs them.

# The repository root is three levels above this directory.
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../../../.." && pwd)
BUILD=${BUILD:-$REPO/build}
# The pristine 6.12 tree.  Other tools (the user-space harness) rely on this
# exact path for the stock ring_buffer.c.  KERNEL_TREE= overrides it.
PRISTINE=${KERNEL_TREE:-$BUILD/linux-6.12-pristine}
# The throwaway git repository holding the pristine tree as a commit.
PATCH_WORK=$BUILD/patch-work

# Time origin for elapsed-seconds reporting.
_STAGE_T0=()
_STAGE_NAME=()

msg() {
	printf '==> %s\n' "$*"
}

die() {
	printf '==> ERROR: %s\n' "$*" >&2
	exit 1
}

# stage_start NAME: print a start line and remember when the stage began.
stage_start() {
	_STAGE_NAME+=("$1")
	_STAGE_T0+=("$(date +%s)")
	printf '==> [%s] start\n' "$1"
}

# stage_end [STATUS]: close the innermost open stage.
stage_end() {
	local status=${1:-done}
	local n=$((${#_STAGE_NAME[@]} - 1))
	local name=${_STAGE_NAME[$n]} t0=${_STAGE_T0[$n]}
	unset "_STAGE_NAME[$n]" "_STAGE_T0[$n]"
	printf '==> [%s] %s in %ss\n' "$name" "$status" "$(($(date +%s) - t0))"
}

# need_pkgs PKG...: make sure the Debian packages are installed.  The
# missing ones are installed by install-deps.sh --pkgs (as root, under the
# machine-wide apt lock; as another user it prints the command to run and
# fails).  A failed install stops the caller (set -e) with apt's message.
need_pkgs() {
	local missing
	missing=$(pkgs_missing "$@")
	[ -z "$missing" ] && return 0
	# shellcheck disable=SC2086
	bash "$VM_DIR/install-deps.sh" --pkgs $missing
}

# pkgs_missing PKG...: print those of the packages not installed.
pkgs_missing() {
	local p
	for p in "$@"; do
		# dpkg-query prints "install ok installed" for a present package.
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

# The packages the kernel build needs.
KERNEL_BUILD_PKGS=(linux-source-6.12 build-essential flex bison bc libelf-dev
	libssl-dev ccache git xz-utils cpio kmod)
# The packages the guest image and the boot need.
VM_PKGS=(qemu-system-x86 busybox-static cpio python3)
# review.sh's (make review).
REVIEW_PKGS=(sparse perl python3)
# cross-link.sh's compilers (arm, riscv64).
CROSS_PKGS=(gcc-arm-linux-gnueabihf gcc-riscv64-linux-gnu)
# The packages of another arch unpacked into its initramfs (busybox by
# mkinitramfs.sh, the rest by initramfs-clients.sh): fetched, not installed.
FOREIGN_PKGS=(busybox-static trace-cmd libtraceevent1 libtraceevent1-plugin
	libtracefs1 libzstd1 libc6)

# initramfs_pkgs ARCH: the host packages the initramfs of ARCH needs beyond
# VM_PKGS: trace-cmd for x86_64 (initramfs-clients.sh), the compiler and
# static C library that build its mapping checks (initramfs-map.sh).
initramfs_pkgs() {
	case $1 in
	x86_64) echo trace-cmd libtraceevent1-plugin gcc libc6-dev ;;
	arm64) echo gcc-aarch64-linux-gnu libc6-dev-arm64-cross ;;
	i386) echo gcc-i686-linux-gnu libc6-dev-i386-cross ;;
	*) die "unknown arch '$1' (x86_64, arm64 or i386)" ;;
	esac
}

# qemu_pkg ARCH: the package of the QEMU that boots ARCH (run-qemu.sh).
qemu_pkg() {
	case $1 in
	x86_64 | i386) echo qemu-system-x86 ;;
	arm64) echo qemu-system-arm ;;
	*) die "unknown arch '$1' (x86_64, arm64 or i386)" ;;
	esac
}

# The kernels make test can build and boot.  A boot is named by its flavour:
# normal and debug are x86_64 kernels, arm64 and i386 one kernel each.
# make test's x86_64 flavours: FLAVOURS, by default "normal debug".  The
# normal kernel is make run's: the one users build first, booted with
# ftrace's startup tests and the speed-dependent checks at full speed.  The
# debug kernel runs every guest check under KASAN and lockdep; the i386 and
# arm64 kernels are built without them, and arm64 runs ftrace's startup
# tests too (flavour_setup: K_STARTUP).  FLAVOURS=debug leaves make run's
# kernel out.
TEST_FLAVOURS=${FLAVOURS:-normal debug}
# flavour_setup FLAVOUR sets, for that kernel:
#   K_ARCH       the kernel's ARCH= (x86_64, arm64, i386)
#   K_CROSS      CROSS_COMPILE= ("" for a native build)
#   K_TARGET     the make target of the boot image, K_IMAGE its path under O=
#   K_FRAGS      the config fragments, in merge order (a later one wins)
#   K_OBJ_SUFFIX the object directory is build/obj-KIND$K_OBJ_SUFFIX
#   K_PKGS       Debian packages the build needs beyond KERNEL_BUILD_PKGS
#   K_STARTUP    1: make test's boot runs ftrace's own startup tests: once
#                per make test, on arm64 (the weakly ordered arch), and on
#                the normal x86_64 kernel when FLAVOURS has it; they add a
#                minute or more to a boot (several under KASAN) and test
#                nothing of ours that the guest checks do not
#   K_PERSIST    1: make test runs persist.sh's two-boot checks on it (once
#                per arch: the x86_64 debug kernel, with KASAN watching the
#                validator of the previous boot's range, and arm64)
#   K_CHECKS     the guest checks make test's boot runs (rbtest.checks=),
#                empty for all of them.  The normal x86_64 kernel runs those
#                whose outcome depends on speed (event rates, a reader racing
#                writers); the debug kernel runs every check, the same
#                assertions with KASAN and lockdep watching.
flavour_setup() {
	local c=$VM_DIR/config
	K_CROSS='' K_TARGET=bzImage K_IMAGE=arch/x86/boot/bzImage K_PKGS=()
	K_STARTUP=1 K_PERSIST=0 K_CHECKS=
	case $1 in
	normal) K_ARCH=x86_64 K_OBJ_SUFFIX=''
		K_CHECKS=function_tracer,cpu_hotplug,tracecmd_record,tracecmd_vs_trace,benchmark
		K_FRAGS=("$c/base.config" "$c/x86.config" "$c/persist.config") ;;
	debug) K_ARCH=x86_64 K_OBJ_SUFFIX=-debug K_STARTUP=0 K_PERSIST=1
		K_FRAGS=("$c/base.config" "$c/x86.config" "$c/persist.config" "$c/debug.config") ;;
	i386) K_ARCH=i386 K_OBJ_SUFFIX=-i386 K_STARTUP=0
		K_FRAGS=("$c/base.config" "$c/x86.config" "$c/i386.config") ;;
	arm64) K_ARCH=arm64 K_OBJ_SUFFIX=-arm64 K_CROSS=aarch64-linux-gnu- K_PERSIST=1
		K_TARGET=Image K_IMAGE=arch/arm64/boot/Image
		K_FRAGS=("$c/base.config" "$c/arm64.config")
		K_PKGS=(gcc-aarch64-linux-gnu) ;;
	*) die "unknown flavour '$1' (normal, debug, arm64 or i386)" ;;
	esac
}

# The architecture a flavour's kernel runs on (the initramfs is per arch).
flavour_arch() {
	case $1 in
	normal | debug) echo x86_64 ;;
	*) echo "$1" ;;
	esac
}

# foreign_deb_extract ARCH PKG DIR: unpack Debian's PKG for ARCH (another
# architecture than the host's) into DIR, without installing it (dpkg-deb
# -x of build/debs/ARCH/PKG_*_ARCH.deb).  When that .deb is not there yet,
# install-deps.sh --debs fetches it (adding the architecture to dpkg first
# when it is not known yet; that needs root, like need_pkgs).
foreign_deb_extract() {
	local arch=$1 pkg=$2 dir=$3 debs=$BUILD/debs/$1 deb
	deb=$(ls "$debs/${pkg}_"*"_$arch.deb" 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		bash "$VM_DIR/install-deps.sh" --debs "$arch" "$pkg"
		deb=$(ls "$debs/${pkg}_"*"_$arch.deb" 2>/dev/null | head -n 1 || true)
		[ -n "$deb" ] || die "no $debs/${pkg}_*_$arch.deb after install-deps.sh"
	fi
	mkdir -p "$dir"
	dpkg-deb -x "$deb" "$dir"
}
