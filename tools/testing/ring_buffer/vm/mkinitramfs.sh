#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT: build the guest's initramfs (an uncompressed newc cpio,
# so the kernel needs no decompressor).
#
# Contents: the static busybox from Debian's busybox-static with a symlink per
# applet, /init (guest/init) and the in-guest checks (guest/checks.sh).
# What /init does is chosen on the kernel command line: rbtest.mode=test|run|
# shell (see guest/init).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: mkinitramfs.sh OUT}
need_pkgs busybox-static cpio

stage_start "initramfs $(basename "$out")"
root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,root}
# busybox-static installs /bin/busybox; make sure it really is static.
bb=/bin/busybox
file_out=$(LC_ALL=C readelf -d "$bb" 2>/dev/null || true)
if grep -q NEEDED <<<"$file_out"; then
	die "$bb is dynamically linked: install busybox-static"
fi
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list); do
	[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
install -m 755 "$VM_DIR/guest/init" "$root/init"
install -m 755 "$VM_DIR/guest/checks.sh" "$root/bin/rb-checks"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
# Real ftrace clients (trace-cmd, ftracetest) and the checks that use them,
# when initramfs-clients.sh is there (see that file).
if [ -f "$VM_DIR/initramfs-clients.sh" ]; then
	. "$VM_DIR/initramfs-clients.sh"
fi
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
stage_end
