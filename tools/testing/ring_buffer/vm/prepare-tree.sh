#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh: make the pristine 6.12 tree and its git history.
#
#   build/linux-6.12-pristine/  the Debian linux-source-6.12 tarball, unpacked
#                               once and never modified afterwards
#                               (KERNEL_TREE=/path uses your own tree instead)
#   build/patch-work/           a throwaway git repository whose first commit
#                               (tag "pristine") is exactly that tree; the
#                               patch is made and applied against it
#
# Safe to run again: each step is skipped when its result is already there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TARBALL=/usr/src/linux-source-6.12.tar.xz

# check_612 DIR: make sure DIR holds a Linux 6.12.y source tree.
check_612() {
	local mk=$1/Makefile v p
	[ -f "$mk" ] || die "$1 is not a kernel tree (no Makefile)"
	v=$(sed -n 's/^VERSION = //p' "$mk")
	p=$(sed -n 's/^PATCHLEVEL = //p' "$mk")
	[ "$v.$p" = 6.12 ] || die "$1 is Linux $v.$p, not 6.12.y"
}

need_pkgs "${KERNEL_BUILD_PKGS[@]}"

# --- 1. the pristine tree ---------------------------------------------------
if [ -n "${KERNEL_TREE:-}" ]; then
	check_612 "$PRISTINE"
	msg "using your kernel tree $PRISTINE (KERNEL_TREE)"
elif [ ! -f "$PRISTINE/.unpacked" ]; then
	stage_start "unpack $TARBALL"
	[ -f "$TARBALL" ] || die "$TARBALL missing (package linux-source-6.12)"
	tmp=$BUILD/.unpack.$$
	rm -rf "$tmp" "$PRISTINE"
	mkdir -p "$tmp"
	tar -xf "$TARBALL" -C "$tmp"
	# The tarball holds one directory, linux-source-6.12/.
	mv "$tmp"/linux-source-6.12 "$PRISTINE"
	rmdir "$tmp"
	check_612 "$PRISTINE"
	touch "$PRISTINE/.unpacked"
	stage_end
fi

# --- 2. the pristine tree as a git commit -----------------------------------
# The stamp records which tree the repository was made from, so that changing
# KERNEL_TREE rebuilds it.
stamp="$PRISTINE $(sed -n 's/^SUBLEVEL = //p' "$PRISTINE/Makefile")"
if [ "$(cat "$PATCH_WORK/.source" 2>/dev/null)" != "$stamp" ]; then
	stage_start "import pristine tree into $PATCH_WORK"
	rm -rf "$PATCH_WORK"
	git init -q "$PATCH_WORK"
	g() { git -C "$PATCH_WORK" "$@"; }
	g config user.name "ring buffer pipeline"
	g config user.email "pipeline@localhost"
	g config gc.auto 0
	# Read the files straight from the pristine tree (no copy); -f adds files
	# that the kernel's own .gitignore would skip: we want every file.
	git --git-dir="$PATCH_WORK/.git" --work-tree="$PRISTINE" \
		add -A -f -- . ':!.unpacked'
	g commit -q -m "Linux $(sed -n 's/^SUBLEVEL = //p' "$PRISTINE/Makefile" |
		sed 's/^/6.12./') (pristine)"
	g tag pristine
	echo "$stamp" > "$PATCH_WORK/.source"
	stage_end
fi
