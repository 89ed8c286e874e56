#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT [ARCH]: build the guest's initramfs (an uncompressed
# newc cpio, so the kernel needs no decompressor) for ARCH: x86_64 (the
# default), arm64 or i386.
#
# Contents: the static busybox from Debian's busybox-static with a symlink per
# applet, /init (guest/init) and the in-guest checks (guest/checks.sh,
# guest/persist.sh), the
# real clients (initramfs-clients.sh) and the mapping checks with the
# programs they run (initramfs-map.sh).  For
# x86_64 it is the installed package's /bin/busybox; for another arch the
# same package of that arch, fetched with apt-get download and unpacked
# (busybox-static of two arches cannot be installed side by side).
# What /init does is chosen on the kernel command line: rbtest.mode=test|run|
# shell (see guest/init).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: mkinitramfs.sh OUT [ARCH]}
arch=${2:-x86_64}
need_pkgs busybox-static cpio
# Debian's name of the arch.
case $arch in
x86_64) deb_arch=amd64 ;;
arm64 | i386) deb_arch=$arch ;;
*) die "unknown arch '$arch' (x86_64, arm64 or i386)" ;;
esac

stage_start "initramfs $(basename "$out")"
root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,root}
# busybox-static installs /bin/busybox; make sure it really is static.
bb=/bin/busybox
if [ "$arch" != x86_64 ]; then
	foreign_deb_extract "$deb_arch" busybox-static "$BUILD/foreign/$arch"
	bb=$BUILD/foreign/$arch/bin/busybox
	# The applet list comes from the host's busybox (an arm64 binary does
	# not run here): it must be the same source version (a binNMU suffix
	# "+bN" may differ between arches).
	v=$(dpkg-deb -f "$(ls "$BUILD/debs/$deb_arch/"busybox-static_*"_$deb_arch.deb" | head -n 1)" Version)
	vh=$(dpkg-query -W -f='${Version}' busybox-static)
	[ "${v%+b*}" = "${vh%+b*}" ] ||
		die "busybox-static:$deb_arch is $v, the installed busybox-static $vh: remove $BUILD/debs/$deb_arch and apt-get update"
fi
file_out=$(LC_ALL=C readelf -d "$bb" 2>/dev/null || true)
if grep -q NEEDED <<<"$file_out"; then
	die "$bb is dynamically linked: install busybox-static"
fi
LC_ALL=C readelf -h "$bb" | grep -q "Machine:.*$(case $arch in
	x86_64) echo X86-64 ;; arm64) echo AArch64 ;; i386) echo 80386 ;; esac)" ||
	die "$bb is not an $arch binary"
cp "$bb" "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
install -m 755 "$VM_DIR/guest/init" "$root/init"
install -m 755 "$VM_DIR/guest/checks.sh" "$root/bin/rb-checks"
install -m 755 "$VM_DIR/guest/persist.sh" "$root/bin/rb-persist"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
# Real ftrace clients (trace-cmd, ftracetest) and the checks that use them,
# when initramfs-clients.sh is there (see that file; it reads $arch).
if [ -f "$VM_DIR/initramfs-clients.sh" ]; then
	. "$VM_DIR/initramfs-clients.sh"
fi
# The checks of the user-space mapping of trace_pipe_raw, with map_test and
# rb-map built for this arch (see that file).
if [ -f "$VM_DIR/initramfs-map.sh" ]; then
	. "$VM_DIR/initramfs-map.sh"
fi
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
stage_end
