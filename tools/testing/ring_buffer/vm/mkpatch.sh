#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkpatch.sh KIND OUT: write the git format-patch of our change to OUT.
#
#   KIND=ours   our ring buffer: include/linux/ring_buffer.h,
#               kernel/trace/ring_buffer.c, kernel/trace/ring_buffer_range.c
#               (persistent buffers), kernel/trace/ring_buffer_internal.h
#               (what those two share), kernel/trace/ring_buffer_selftest.c,
#               Documentation/trace/ring-buffer.txt, and
#               Documentation/trace/ring-buffer-design.rst in place of
#               6.12's, which describes the code this patch removes (each
#               when it exists in the repository) plus every
#               patches/*.diff: selftest-hooks.diff
#               first, then the others in name order (ring-buffer-range.diff
#               builds ring_buffer_range.o).
#   KIND=stock  the test-only patch for the stock ring buffer: our
#               kernel/trace/ring_buffer_selftest.c + patches/selftest-hooks.diff.
#
# The patch is made by committing into build/patch-work (the pristine tree as
# a git commit, see prepare-tree.sh) through a temporary index, so no tree is
# checked out, and then running git format-patch on that commit.
#
# The commit message is patches/<KIND>.msg when that file exists (first line
# the subject, then a blank line and the body), a generic one otherwise.  The
# author comes from this repository's git user, and so does a Signed-off-by
# line, appended unless the message already ends with that very line (a
# different git user gets their own Signed-off-by after the message's).
#
# Developer-only: RB_SELFTEST_SRC=/path/file.c takes the self-test from that
# file instead of the repository's (to bring the pipeline up before the real
# self-test existed, and to check that a failing self-test fails make test).
# Never use it for a patch you ship.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: mkpatch.sh ours|stock OUT}
out=${2:?usage: mkpatch.sh ours|stock OUT}

# --- which files go in ------------------------------------------------------
# files: "repo-relative source path|kernel path" pairs.
files=()
selftest=kernel/trace/ring_buffer_selftest.c
if [ -n "${RB_SELFTEST_SRC:-}" ]; then
	msg "WARNING: RB_SELFTEST_SRC: the self-test is $RB_SELFTEST_SRC, not the repository's"
	files+=("$(realpath "$RB_SELFTEST_SRC")|$selftest")
elif [ -f "$REPO/$selftest" ]; then
	files+=("$REPO/$selftest|$selftest")
fi
case $kind in
ours)
	for f in include/linux/ring_buffer.h kernel/trace/ring_buffer.c \
		kernel/trace/ring_buffer_range.c \
		kernel/trace/ring_buffer_map.c \
		kernel/trace/ring_buffer_internal.h \
		Documentation/trace/ring-buffer.txt \
		Documentation/trace/ring-buffer-design.rst; do
		[ -f "$REPO/$f" ] && files+=("$REPO/$f|$f")
	done
	# selftest-hooks.diff first (the others may build on it), then the
	# rest in name order.
	# Without the self-test file, its hooks would break the build: leave
	# them out, and the boot check reports the missing self-test instead.
	diffs=()
	if [ ${#files[@]} -gt 0 ] && [ "${files[0]#*|}" = "$selftest" ]; then
		[ -f "$REPO/patches/selftest-hooks.diff" ] &&
			diffs+=("$REPO/patches/selftest-hooks.diff")
	else
		msg "WARNING: no $selftest: leaving out patches/selftest-hooks.diff"
	fi
	for d in "$REPO"/patches/*.diff; do
		[ -f "$d" ] && [ "${d##*/}" != selftest-hooks.diff ] && diffs+=("$d")
	done
	subject="ring-buffer: Replace the ring buffer with a new implementation"
	body="Replace kernel/trace/ring_buffer.c with a new implementation of the
ring buffer API in include/linux/ring_buffer.h, add a KTAP boot self-test
(RING_BUFFER_STARTUP_TEST) and its documentation.

The Kconfig options RING_BUFFER_RECORD_RECURSION and
RING_BUFFER_VALIDATE_TIME_DELTAS are removed: only the old implementation
used them."
	;;
stock)
	diffs=("$REPO/patches/selftest-hooks.diff")
	subject="ring-buffer: Add a KTAP boot self-test"
	body="Build kernel/trace/ring_buffer_selftest.c with RING_BUFFER_STARTUP_TEST.
It exercises the ring buffer API at boot and reports the results in KTAP
format on the kernel log.  Test-only patch for the stock ring buffer."
	;;
*) die "unknown patch kind '$kind' (ours or stock)" ;;
esac
if [ -f "$REPO/patches/$kind.msg" ]; then
	subject=$(head -n1 "$REPO/patches/$kind.msg")
	body=$(tail -n +3 "$REPO/patches/$kind.msg")
fi
[ ${#files[@]} -gt 0 ] || [ ${#diffs[@]} -gt 0 ] || die "nothing to put in the $kind patch"

# --- build the commit in a temporary index -----------------------------------
name=$(git -C "$REPO" config user.name || echo "Ring Buffer Developers")
email=$(git -C "$REPO" config user.email || echo "ring-buffer@localhost")
export GIT_AUTHOR_NAME=$name GIT_COMMITTER_NAME=$name
export GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_EMAIL=$email
# A fixed date (the repository's last commit) keeps the patch reproducible.
date=$(git -C "$REPO" log -1 --format=%cI 2>/dev/null || echo 2026-01-01T00:00:00Z)
export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date

g() { git --git-dir="$PATCH_WORK/.git" "$@"; }
export GIT_INDEX_FILE=$BUILD/.patch-index.$kind.$$
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
g read-tree pristine
for pair in "${files[@]}"; do
	src=${pair%%|*} dst=${pair#*|}
	blob=$(g hash-object -w -- "$src")
	g update-index --add --cacheinfo "100644,$blob,$dst"
done
for d in "${diffs[@]}"; do
	[ -f "$d" ] || die "missing $d"
	g apply --cached -- "$d" || die "$d does not apply to the pristine tree"
done
tree=$(g write-tree)
[ "$tree" != "$(g rev-parse 'pristine^{tree}')" ] || die "the $kind patch is empty"
sob="Signed-off-by: $name <$email>"
if [ "$(printf '%s\n' "$body" | tail -n 1)" = "$sob" ]; then
	message=$(printf '%s\n\n%s\n' "$subject" "$body")
elif printf '%s\n' "$body" | tail -n 1 | grep -q '^Signed-off-by: '; then
	# The message ends with someone else's sign-off: add ours below it.
	message=$(printf '%s\n\n%s\n%s\n' "$subject" "$body" "$sob")
else
	message=$(printf '%s\n\n%s\n\n%s\n' "$subject" "$body" "$sob")
fi
commit=$(printf '%s\n' "$message" | g commit-tree "$tree" -p pristine)

# --- format it ----------------------------------------------------------------
mkdir -p "$(dirname "$out")"
g format-patch -1 --stdout --stat=80 "$commit" > "$out.tmp"
# Replace OUT only when it changed, so make sees no change otherwise.
if cmp -s "$out.tmp" "$out"; then
	rm -f "$out.tmp"
else
	mv "$out.tmp" "$out"
fi
msg "wrote $out ($(grep -c '^diff --git' "$out") files, commit ${commit:0:12})"
