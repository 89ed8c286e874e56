#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# review.sh: the checks a kernel maintainer's tools run on our patch, as KTAP
# on stdout; exit status 1 when any of them fails.
#
#   checkpatch   scripts/checkpatch.pl --strict on build/ring-buffer.patch
#                (made first, as `make patch` does): 0 errors, 0 warnings.
#                Its "total:" line is printed.
#   sparse       make C=2 kernel/trace/ring_buffer.o,
#                kernel/trace/ring_buffer_range.o and
#                kernel/trace/ring_buffer_selftest.o in REVIEW_OBJ (default
#                build/obj-ours, our normal x86_64 kernel; make test passes
#                the debug one's, build/obj-ours-debug), built from
#                build/src-ours: no warning or error that names one of our
#                files.  Warnings in other kernel files are listed, not counted.
#   kernel-doc   scripts/kernel-doc -Wall -none on ring_buffer.c,
#                ring_buffer_range.c, ring_buffer_internal.h, ring_buffer.h
#                and ring_buffer_selftest.c: no output at all.
#   kdoc sections  kdoc-sections.py: every EXPORT_SYMBOL_GPL'd function of
#                ring_buffer.c and ring_buffer_range.c has kernel-doc with
#                "Context:", and "Return:" exactly when it returns a value.
#   message      msg-names.py: every function and file the commit message
#                (patches/ours.msg) names exists in build/src-ours.
#   doc citations  doc-citations.py: every function
#                Documentation/trace/ring-buffer.txt cites exists in our
#                files or in build/src-ours, every litmus test it names
#                exists, it has no source line numbers, and every section,
#                step and barrier pair our comments cite is in it.
#
# The tools come from the pristine 6.12 tree (build/linux-6.12-pristine, or
# KERNEL_TREE), sparse from Debian's package (installed when missing).
# Logs: build/review/.
#
# Environment:
#   REVIEW_RESULTS=FILE  also append "ok|not ok<TAB>review: NAME<TAB>DIAG"
#                lines to FILE (run-tests.sh collects them this way).
#   RB_LOCK_HELD=1  the caller already holds build/.lock-ours (run-tests.sh
#                does); otherwise we take it before touching build/src-ours
#                and build/obj-ours, as every other user of them does.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_pkgs "${REVIEW_PKGS[@]}"
log=$BUILD/review
mkdir -p "$log"
patch=$BUILD/ring-buffer.patch
src=$BUILD/src-ours
obj=${REVIEW_OBJ:-$BUILD/obj-ours}
# Our files, as paths inside the kernel tree.
OURS=(kernel/trace/ring_buffer.c kernel/trace/ring_buffer_range.c
	kernel/trace/ring_buffer_map.c kernel/trace/ring_buffer_internal.h include/linux/ring_buffer.h
	kernel/trace/ring_buffer_selftest.c)
# The objects sparse checks.
OBJS=(kernel/trace/ring_buffer.o kernel/trace/ring_buffer_range.o
	kernel/trace/ring_buffer_map.o
	kernel/trace/ring_buffer_selftest.o)
# checkpatch, sparse per object, kernel-doc per file, kdoc sections, message,
# doc citations
NTESTS=$((1 + ${#OBJS[@]} + ${#OURS[@]} + 1 + 1 + 1))

num=0 nfail=0
# result ok|fail NAME [DIAG]: one KTAP result line (and one in REVIEW_RESULTS).
result() {
	local verdict=ok
	num=$((num + 1))
	if [ "$1" != ok ]; then
		verdict="not ok"
		nfail=$((nfail + 1))
	fi
	printf '%s %d %s%s\n' "$verdict" "$num" "$2" "${3:+ # $3}"
	if [ -n "${REVIEW_RESULTS:-}" ]; then
		printf '%s\treview: %s\t%s\n' "$verdict" "$2" "${3:-}" >> "$REVIEW_RESULTS"
	fi
}

# comment FILE [MAX]: print FILE's lines as KTAP diagnostics ("# ..."),
# at most MAX of them (default 40).
comment() {
	local max=${2:-40}
	sed -n "1,${max}s/^/# /p" "$1"
	local n
	n=$(wc -l < "$1")
	[ "$n" -le "$max" ] || echo "# ... $((n - max)) more lines in ${1#"$REPO"/}"
}

# Progress goes to stderr, the KTAP document to stdout.
echo "KTAP version 1"
echo "1..$NTESTS"

# --- checkpatch -------------------------------------------------------------------
# The patch as `make patch` makes it.
bash "$VM_DIR/prepare-tree.sh" >&2
bash "$VM_DIR/mkpatch.sh" ours "$patch" >&2
# checkpatch finds its data files (spelling.txt, ...) from the tree it runs in.
(cd "$PRISTINE" && perl scripts/checkpatch.pl --strict --color=never \
	"$patch") > "$log/checkpatch.txt" 2>&1 || true
total=$(grep -m1 '^total: ' "$log/checkpatch.txt" || true)
if [ -z "$total" ]; then
	comment "$log/checkpatch.txt"
	result fail "checkpatch --strict" "no 'total:' line from checkpatch.pl"
else
	echo "# checkpatch: $total"
	errs=$(sed -n 's/^total: \([0-9]*\) errors.*/\1/p' <<<"$total")
	warns=$(sed -n 's/^total: [0-9]* errors, \([0-9]*\) warnings.*/\1/p' <<<"$total")
	if [ "$errs" = 0 ] && [ "$warns" = 0 ]; then
		result ok "checkpatch --strict"
	else
		grep -E -A3 '^(ERROR|WARNING):' "$log/checkpatch.txt" |
			sed 's/^/# /' | head -n 60
		result fail "checkpatch --strict" "$errs errors, $warns warnings"
	fi
fi

# --- sparse -----------------------------------------------------------------------
# build/src-ours must hold exactly what the patch holds, and build/obj-ours
# must be configured (make kernel / make test do both).
sparse_one() {
	local o=$1 out=$log/sparse-${1##*/}.txt
	# The same make variables as build-kernel.sh, so that the object's
	# command line does not change and nothing else gets rebuilt; C=2 runs
	# sparse even when the object is up to date.
	(
		export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
		export KBUILD_BUILD_TIMESTAMP="2024-11-17"
		export KBUILD_BUILD_USER=rb KBUILD_BUILD_HOST=vm
		make -C "$src" O="$obj" ARCH=x86_64 "CC=ccache gcc" \
			"HOSTCC=ccache gcc" C=2 -j1 "$o"
	) > "$out" 2>&1 || {
		comment "$out"
		result fail "sparse $o" "make C=2 $o failed"
		return
	}
	# kbuild prints "  CHECK   path/file.c" when it runs sparse.
	if ! grep -q "^  CHECK .*${o%.o}\.c" "$out"; then
		comment "$out"
		result fail "sparse $o" "sparse did not run (no CHECK line)"
		return
	fi
	local ours_re
	ours_re="($(IFS='|'; echo "${OURS[*]}" | sed 's/\./\\./g')):[0-9]+(:[0-9]+)?: (warning|error)"
	local bad others
	bad=$(grep -E "$ours_re" "$out" || true)
	others=$(grep -E ': (warning|error):' "$out" | grep -Ev "$ours_re" || true)
	[ -z "$others" ] || {
		echo "# sparse $o: $(wc -l <<<"$others") warnings in files not ours (not counted):"
		sed 's/^/#   /' <<<"$others" | head -n 10
	}
	if [ -n "$bad" ]; then
		sed 's/^/# /' <<<"$bad"
		result fail "sparse $o" "$(wc -l <<<"$bad") warnings in our files"
	else
		result ok "sparse $o"
	fi
}

sparse_all() {
	local f stale=0
	for f in "${OURS[@]}"; do
		cmp -s "$REPO/$f" "$src/$f" || stale=1
	done
	if [ $stale = 1 ]; then
		echo "# build/src-ours is not the patch: applying it (apply-tree.sh)"
		bash "$VM_DIR/apply-tree.sh" ours "$patch" >&2
	fi
	for f in "${OBJS[@]}"; do
		sparse_one "$f"
	done
}

if [ ! -f "$obj/.config" ] || [ ! -e "$src/.git" ]; then
	for o in "${OBJS[@]}"; do
		result fail "sparse $o" "${obj#$REPO/} is not configured: run make kernel first"
	done
elif [ "${RB_LOCK_HELD:-}" = 1 ]; then
	sparse_all
else
	# One user at a time of build/src-ours and build/obj-ours (run-tests.sh).
	exec 9> "$BUILD/.lock-ours"
	if ! flock -n 9; then
		msg "another make test/run on 'ours' holds $BUILD/.lock-ours; waiting" >&2
		flock 9
	fi
	sparse_all
	exec 9>&-
fi

# --- kernel-doc -------------------------------------------------------------------
for f in "${OURS[@]}"; do
	out=$log/kernel-doc-${f##*/}.txt
	rc=0
	perl "$PRISTINE/scripts/kernel-doc" -Wall -none "$REPO/$f" > "$out" 2>&1 || rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$out" ]; then
		result ok "kernel-doc -Wall $f"
	else
		comment "$out"
		result fail "kernel-doc -Wall $f" "$(wc -l < "$out") lines of warnings, status $rc"
	fi
done

# --- Context: and Return: of the exported functions ---------------------------------
out=$log/kdoc-sections.txt
if python3 "$VM_DIR/kdoc-sections.py" "$REPO/kernel/trace/ring_buffer.c" \
	"$REPO/kernel/trace/ring_buffer_range.c" \
	"$REPO/kernel/trace/ring_buffer_map.c" > "$out" 2>&1; then
	echo "# $(tail -n 1 "$out")"
	result ok "kernel-doc Context:/Return: of exported functions"
else
	comment "$out"
	result fail "kernel-doc Context:/Return: of exported functions" "$(tail -n 1 "$out")"
fi

# --- the commit message names only what exists -------------------------------------
out=$log/msg-names.txt
if python3 "$VM_DIR/msg-names.py" "$REPO/patches/ours.msg" "$src" > "$out" 2>&1; then
	echo "# $(tail -n 1 "$out")"
	result ok "commit message: every function and file it names exists"
else
	comment "$out"
	result fail "commit message: every function and file it names exists" "$(tail -n 1 "$out")"
fi

# --- the design document cites what exists, and comments cite what it has ----------
out=$log/doc-citations.txt
if python3 "$VM_DIR/doc-citations.py" "$REPO" "$src" > "$out" 2>&1; then
	echo "# $(tail -n 1 "$out")"
	result ok "design document: cited functions, litmus tests, sections and pairs exist"
else
	comment "$out"
	result fail "design document: cited functions, litmus tests, sections and pairs exist" "$(tail -n 1 "$out")"
fi

[ "$num" -eq "$NTESTS" ] || die "review.sh ran $num checks, planned $NTESTS"
echo "# review: $((num - nfail)) passed, $nfail failed"
[ "$nfail" -eq 0 ]
