#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apply-tree.sh KIND PATCH: make build/src-KIND = pristine tree + exactly PATCH.
#
# What we test is what we ship, so the tree is made from the patch file itself:
#   1. build/am-KIND (a git worktree of build/patch-work) is reset to the
#      pristine commit and PATCH is applied with `git am`: this is the check
#      that the patch applies to a pristine tree, and its result is the tree
#      we build.  `patch -p1 --dry-run` against build/linux-6.12-pristine is
#      checked too.
#   2. build/src-KIND (another worktree) is moved to that commit.  git rewrites
#      only the files that differ, so untouched files keep their timestamps
#      and make rebuilds only what the patch really changed.
#
# The first run checks out two full trees (about 1.5 GB each).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: apply-tree.sh KIND PATCH}
patch=$(realpath "${2:?usage: apply-tree.sh KIND PATCH}")
am=$BUILD/am-$kind
src=$BUILD/src-$kind
g() { git --git-dir="$PATCH_WORK/.git" "$@"; }

# add_worktree DIR: create DIR as a detached worktree at the pristine commit.
add_worktree() {
	if [ ! -e "$1/.git" ]; then
		rm -rf "$1"
		g worktree prune
		stage_start "check out $(basename "$1")"
		g worktree add -q --detach "$1" pristine
		stage_end
	fi
}
add_worktree "$am"
add_worktree "$src"

stage_start "apply $(basename "$patch") (git am, patch -p1 --dry-run)"
# 1. git am on a pristine checkout.  checkout -f throws away what the last
# run applied; clean removes files the last patch added.
ga() { git -C "$am" "$@"; }
ga am --abort >/dev/null 2>&1 || true
ga checkout -q -f --detach pristine
ga clean -q -f -d
if ! ga am -q --committer-date-is-author-date "$patch"; then
	ga am --abort >/dev/null 2>&1 || true
	die "$patch does not apply to pristine 6.12 with git am"
fi
commit=$(ga rev-parse HEAD)
# patch(1) must accept it as well.
patch -p1 --dry-run --quiet -d "$PRISTINE" < "$patch" >/dev/null ||
	die "$patch does not apply to $PRISTINE with patch -p1"

# 2. Move the build tree to the applied commit.
gs() { git -C "$src" "$@"; }
gs checkout -q -f --detach "$commit"
gs clean -q -f -d
# Nothing may differ from the applied commit (a stray edit would be tested
# but not shipped).
gs diff --quiet "$commit" || die "$src differs from the patch"
stage_end
echo "$commit" > "$BUILD/src-$kind.commit"
