#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cold-test.sh [REV]: run CI's command (.ci/run, that is `make test`) on a
# machine that has never seen the repository, and time it: a fresh Debian
# 12 root in a chroot, with only what a new machine of ours has (gcc,
# make, git, perl, python3), a fresh clone of REV (default HEAD), an empty
# ccache, nothing of make test's own packages installed.
#
#   build/cold/base/    debootstrap's bookworm root, made once (needs root,
#                       installs debootstrap when missing)
#   build/cold/run/     a copy of it for this run, with the clone in
#                       /root/rb and the herdtools7 tarball next to it as
#                       CI has it (../shared/vendor/); removed at the start
#                       of the next run
#   build/cold/REV.log  the whole output, and a last line with the seconds
#
# Nothing else should run meanwhile: the figure goes into the README.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "cold-test.sh needs root (debootstrap, chroot, mounts)"
rev=$(git -C "$REPO" rev-parse --short "${1:-HEAD}")
cold=$BUILD/cold
base=$cold/base
run=$cold/run
log=$cold/$rev.log
mkdir -p "$cold"

if [ ! -f "$base/.done" ]; then
	need_pkgs debootstrap
	stage_start "debootstrap bookworm into $base"
	rm -rf "$base"
	debootstrap --variant=minbase \
		--include=make,git,gcc,g++,perl,python3,ca-certificates,xz-utils \
		bookworm "$base" http://deb.debian.org/debian
	# The archives this machine uses (updates and security included).
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		cp /etc/apt/sources.list.d/debian.sources "$base/etc/apt/sources.list.d/"
		rm -f "$base/etc/apt/sources.list"
	fi
	touch "$base/.done"
	stage_end
fi

mounts=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--))
		do umount -l "${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT

stage_start "fresh root and clone of $rev"
for m in proc sys dev/pts dev; do
	mountpoint -q "$run/$m" 2>/dev/null && umount -l "$run/$m"
done
rm -rf "$run"
cp -a "$base" "$run"
git clone -q "$REPO" "$run/root/rb"
git -C "$run/root/rb" checkout -q "$rev"
vendor=$(cd "$REPO/.." && pwd)/shared/vendor/herdtools7-7.57.tar.xz
if [ -f "$vendor" ]; then
	mkdir -p "$run/root/shared/vendor"
	cp "$vendor" "$run/root/shared/vendor/"
fi
cp /etc/resolv.conf "$run/etc/resolv.conf"
for m in dev dev/pts proc sys; do
	mount --bind "/$m" "$run/$m"
	mounts+=("$run/$m")
done
stage_end

stage_start "cold .ci/run (make test) at $rev in the chroot"
t0=$(date +%s)
set +e
chroot "$run" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	TERM=dumb LANG=C.UTF-8 bash -c 'cd /root/rb && .ci/run' 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
secs=$(($(date +%s) - t0))
echo "cold make test at $rev: exit $rc in ${secs}s" | tee -a "$log"
stage_end "$([ "$rc" = 0 ] && echo done || echo FAILED)"
exit "$rc"
