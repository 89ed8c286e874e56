# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ring buffer VM pipeline.  Sourced, never run.
#
# Every script under tools/testing/ring_buffer/vm/ sources this file to get:
#   - the common paths (REPO, BUILD, PRISTINE, ...),
#   - stage_start/stage_end: one progress line when a stage starts and one
#     when it ends, with the elapsed seconds,
#   - die: a clear error and a non-zero exit,
#   - need_pkgs: install missing Debian packages (or print the command).

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

# need_pkgs PKG...: make sure the Debian packages are installed.
# As root, install the missing ones with apt-get; otherwise print the exact
# command to run and fail.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		# dpkg-query prints "install ok installed" for a present package.
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages: ${missing[*]}; run as root:
    apt-get update && apt-get install -y ${missing[*]}"
	fi
	stage_start "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -q
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}"
	stage_end
}

# The packages the kernel build needs.
KERNEL_BUILD_PKGS=(linux-source-6.12 build-essential flex bison bc libelf-dev
	libssl-dev ccache git xz-utils cpio kmod)
# The packages the guest image and the boot need.
VM_PKGS=(qemu-system-x86 busybox-static cpio python3)
