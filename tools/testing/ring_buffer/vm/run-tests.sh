#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh: everything `make test` runs (stage 1 niced in the
# background, in two chains, next to stages 2 to 5, since a boot keeps only
# one core busy; PARALLEL_USER=0 runs it first, in the foreground):
#   0. the installs: install-deps.sh test, every package any later stage
#      needs and the other arches' .debs, before anything runs in parallel;
#      then (as root, in the background) install-race.sh, two installs at
#      once that must both succeed, one waiting for the other,
#   1. the harness chain: the user-space harness (make -C
#      tools/testing/ring_buffer test, then test32: the same as a 32-bit
#      program), then (ours only) the differential against stock 6.12
#      (make diff-sample, a new seed base each run), the interleaving
#      matrix's seeded sample (make matrix-sample), then the quick subset
#      of the mutation tests of
#      ring_buffer.c (make mutants, under 10 minutes; make mutants-all runs
#      every mutant), one result per mutant;
#      the model chain (ours only): the litmus tests of the barrier pairs
#      under herd7 and LKMM (make litmus; herd7 from HERD7=, HERDTOOLS= or
#      PATH; SKIPPED, not passed, when there is no herd7), one result per
#      test, then the Spin model of the protocol (make model-drift: the
#      model's citations against ring_buffer.c and the check's own test,
#      then model and model-mutants), one result per check, per property
#      and per mutant,
#   2. the patch: made, then applied to a pristine tree with git am and
#      patch -p1 --dry-run,
#   3. for each kernel: configure and build, boot in QEMU, then check-log.py
#      on the console and the guest's KTAP; for the debug and arm64
#      kernels then persist.sh, the two-boot persistent-buffer checks
#      (PERSIST=0 leaves them out).  The kernels are those of the
#      architectures in ARCHES (default "x86_64 arm64 i386"): for x86_64 the
#      flavours in FLAVOURS (default "normal debug"; see lib.sh), for arm64 and i386 one
#      kernel each (boot-arm64, boot-i386; see flavour_setup in lib.sh, which
#      also says which boots run ftrace's own startup tests: arm64 and normal).
#   4. (ours only) review.sh: checkpatch --strict, sparse and kernel-doc on
#      our patch, one result per check; it runs after the builds (sparse
#      needs the first x86_64 kernel's objects) while the last boot goes on.
#   5. (ours only) cross-link.sh arm, riscv64: kernel/trace/ and the
#      kernel's own lib/ built W=1 for those arches, no warning in our
#      files, no libgcc helper our objects need that the kernel lacks.
# Every stage goes on even when an earlier one failed (except that a patch
# that does not apply stops the kernel stages: they would test something we
# do not ship).  At the end: every result as KTAP and one line
# "N passed, M failed" (", K skipped" added when a stage was skipped: a
# skipped stage is neither); the exit status is 1 when M > 0.
#
# STOCK=1 tests the stock ring buffer with our self-test (build/src-stock).
# Results and logs: build/test-KIND/ (results.txt, boot-FLAVOUR/console.log,
# boot-FLAVOUR/guest.ktap, initramfs-ARCH.cpio).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ "${STOCK:-}" = 1 ]; then
	kind=stock patch=$BUILD/stock-selftest.patch
else
	kind=ours patch=$BUILD/ring-buffer.patch
fi
out=$BUILD/test-$kind
results=$out/results.txt
mkdir -p "$out"
: > "$results"
T0=$(date +%s)
# The run's deadline, TEST_BUDGET seconds (default 4,800; CI allows 5,400):
# no user-space stage and no boot runs past it, so a stage that stalls is
# stopped and reported failed, and the summary is printed before CI's
# limit.  stage_limit [SECS]: the timeout a stage gets now, at most SECS
# (default STAGE_LIMIT, 4,200), at least 30.
DEADLINE=$((T0 + ${TEST_BUDGET:-4800}))
stage_limit() {
	local lim=${1:-${STAGE_LIMIT:-4200}} left=$((DEADLINE - $(date +%s)))

	[ "$left" -lt "$lim" ] && lim=$left
	[ "$lim" -lt 30 ] && lim=30
	echo "$lim"
}

# One user at a time per kind: the trees and object directories are shared.
exec 9> "$BUILD/.lock-$kind"
if ! flock -n 9; then
	msg "another make test/run on '$kind' holds $BUILD/.lock-$kind; waiting"
	flock 9
fi

# record ok|fail|skip NAME [DIAG]: one result.  A skip counts as neither
# passed nor failed.
record() {
	local verdict=ok
	case $1 in
	ok) ;;
	skip) verdict=skip ;;
	*) verdict="not ok" ;;
	esac
	printf '%s\t%s\t%s\n' "$verdict" "$2" "${3:-}" >> "$results"
	if [ "$verdict" = skip ]; then
		printf 'SKIPPED - %s # %s\n' "$2" "${3:-}"
	else
		printf '%s - %s%s\n' "$verdict" "$2" "${3:+ # $3}"
	fi
}

# record_ktap LOG WHAT [RC]: every KTAP result line of LOG becomes a result
# of ours ("1..0 # SKIP why": one skipped result; "ok N name # SKIP why":
# that result skipped); none at all is a failure, and so are results short
# of the plans ("1..N") the log announced: a command that died half-way.
# RC, the exit status of the command that wrote LOG: non-zero is one more
# failure, whatever the log holds (a command killed, timed out or crashed
# before it printed its "not ok" lines must not pass).
record_ktap() {
	local log=$1 what=$2 rc=${3:-0} line verdict nres=0 plan=0

	while IFS= read -r line; do
		case "$line" in
		"1..0 # SKIP "*)
			record skip "$what" "${line#1..0 # SKIP }"
			nres=$((nres + 1))
			plan=$((plan + 1))
			continue ;;
		1..[0-9]*)
			[[ $line =~ ^1\.\.([0-9]+)$ ]] && plan=$((plan + BASH_REMATCH[1]))
			continue ;;
		"ok "*" # SKIP "*) verdict=skip ;;
		"ok "*) verdict=ok ;;
		"not ok "*) verdict=fail ;;
		*) continue ;;
		esac
		line=${line#not ok }
		line=${line#ok }
		line=${line#* }
		if [ "$verdict" = skip ]; then
			record skip "${line%% # *}" "${line#* # SKIP }"
		else
			record "$verdict" "${line%% # *}" "$([[ $line == *' # '* ]] && echo "${line#* # }")"
		fi
		nres=$((nres + 1))
	done < "$log"
	[ "$nres" -gt 0 ] || record fail "$what" "no results; see $log"
	if [ "$nres" -lt "$plan" ]; then
		record fail "$what" "$nres results of the $plan planned; see $log"
	fi
	case $rc in
	0) ;;
	124 | 137) record fail "$what" "stopped after its time limit (exit $rc); see $log" ;;
	*) record fail "$what" "its command failed (exit $rc); see $log" ;;
	esac
}

# --- 0. installs ----------------------------------------------------------------
# Every package any stage below needs, and the other architectures' .debs,
# in one step before anything runs in parallel (install-deps.sh; a stage's
# own need_pkgs then finds nothing missing).  Then, as root, the check that
# two installs at once wait for each other instead of racing on apt's locks
# (install-race.sh: two install-deps.sh runs, each with an apt-get update).
stage_start "install (install-deps.sh test)"
if bash "$VM_DIR/install-deps.sh" test; then
	record ok "install: the packages and .debs of make test"
	stage_end
else
	record fail "install: the packages and .debs of make test" "install-deps.sh test failed: apt's message above"
	stage_end FAILED
fi
# The race check runs in the background: everything is installed by now, so
# no other stage calls apt, and its apt-get updates (minutes, when a list
# of the archive keeps failing and is retried) need not hold up the builds.
race_pid=
if [ "$(id -u)" -ne 0 ]; then
	msg "not root: install-race.sh (two installs at once) not run"
else
	bash "$VM_DIR/install-race.sh" > "$out/install-race.log" 2>&1 &
	race_pid=$!
	msg "install-race.sh runs in the background: $out/install-race.log"
fi
# race_result: wait for install-race.sh and record its result.
race_result() {
	local what="install: two installs at once both succeed, one after the other"
	local rc=0

	[ -n "$race_pid" ] || return 0
	wait "$race_pid" || rc=$?
	echo
	echo "==> install-race.sh ($out/install-race.log):"
	cat "$out/install-race.log"
	if [ $rc = 0 ]; then
		record ok "$what" "$(tail -n 1 "$out/install-race.log" | sed 's/^==> //')"
	else
		record fail "$what" "$(tail -n 1 "$out/install-race.log" | sed 's/^==> //')"
	fi
}

# The kernels to build and boot, in this order.
boots=()
for a in ${ARCHES:-x86_64 arm64 i386}; do
	case $a in
	x86_64) for f in $TEST_FLAVOURS; do boots+=("$f"); done ;;
	arm64 | i386) boots+=("$a") ;;
	*) die "unknown arch '$a' in ARCHES (x86_64, arm64, i386)" ;;
	esac
done

# harness_ktap TITLE TARGET NAME: make -C tools/testing/ring_buffer TARGET
# as one stage, its output in $out/TARGET.log, one result per KTAP line
# under NAME.
# A stage that runs past STAGE_LIMIT seconds (default 4200) or the run's
# deadline is stopped: each has watchdogs of its own, this is the backstop
# that keeps make test inside CI's time (the harness took 2,700 s and more on a machine loaded
# by another mutation run, herd7's first build as much).
harness_ktap() {
	local log=$out/$2.log rc=0

	stage_start "$1 (make -C tools/testing/ring_buffer $2)"
	timeout --kill-after=60 "$(stage_limit)" \
		make -s -C "$REPO/tools/testing/ring_buffer" "$2" > "$log" 2>&1 || rc=$?
	if [ $rc = 0 ]; then
		stage_end
	else
		stage_end FAILED
	fi
	record_ktap "$log" "$3" "$rc"
}

# --- 1. user-space stages, in the background ---------------------------------------
# The harness, the Spin model and the litmus tests need no kernel: they run
# niced next to the kernel pipeline below, whose boots keep only one of the
# two cores busy (single-threaded TCG), in two chains, so that both cores
# work on them once the kernels are done: the harness chain (harness,
# 32-bit harness, mutants) and the model chain (litmus, model).  Each
# chain's output goes to its log, printed whole at the end; their results
# come first.
user_harness_stages() {
	# --- 1. user-space harness ------------------------------------------------------
	if [ -f "$REPO/tools/testing/ring_buffer/Makefile" ]; then
		stage_start "user-space harness (make -C tools/testing/ring_buffer test)"
		if timeout --kill-after=60 "$(stage_limit)" \
			make -C "$REPO/tools/testing/ring_buffer" test; then
			record ok "user-space harness"
			stage_end
		else
			record fail "user-space harness" "make -C tools/testing/ring_buffer test failed"
			stage_end FAILED
		fi
		# The same harness as a 32-bit program (i386; under qemu-i386 where
		# the kernel runs no 32-bit binaries).
		stage_start "user-space harness, 32-bit (make -C tools/testing/ring_buffer test32)"
		if timeout --kill-after=60 "$(stage_limit)" \
			make -C "$REPO/tools/testing/ring_buffer" test32; then
			record ok "user-space harness (32-bit)"
			stage_end
		else
			record fail "user-space harness (32-bit)" "make -C tools/testing/ring_buffer test32 failed"
			stage_end FAILED
		fi
		# The differential against stock 6.12: a few hundred seeded runs
		# of the whole single-context API, from a seed base that changes
		# every run (printed), one result per batch.  Ours only: it
		# builds both files itself.
		if [ "$kind" = ours ]; then
			harness_ktap "differential against stock 6.12" diff-sample diff
		fi
		# The interleaving matrix: a seeded sample of its pairs' points
		# (the seed printed; MATRIX_SEED= repeats it), about 7 minutes.
		harness_ktap "interleaving matrix, seeded sample" matrix-sample matrix
	else
		msg "no tools/testing/ring_buffer/Makefile: no user-space harness to run"
	fi

	# --- 1d. mutation testing: the quick subset, one result per mutant --------------
	# Mutants of our ring_buffer.c: STOCK=1 has nothing to mutate.  Its
	# ordering mutants run herd7: wait until the model chain has built it.
	if [ "$kind" = ours ] && [ -f "$REPO/tools/testing/ring_buffer/mutants/run.py" ]; then
		while [ ! -e "$out/.litmus-done" ] && kill -0 "$model_chain" 2> /dev/null; do
			sleep 5
		done
		harness_ktap "mutation testing, quick subset" mutants mutants
	fi
}

user_model_stages() {
	# --- 1c. litmus tests of the barrier pairs: one result per test ---------------------
	# herd7 with the kernel's memory model; HERDTOOLS (from .ci/run) builds it
	# once under ~/.cache/herdtools7/.  Ours only, like the model.
	if [ "$kind" = ours ] && [ -f "$REPO/tools/testing/ring_buffer/litmus/run.sh" ]; then
		# A relative HERDTOOLS is taken from the top of the repository.
		if [ -n "${HERDTOOLS:-}" ] && [ -f "$HERDTOOLS" ]; then
			HERDTOOLS=$(cd "$(dirname "$HERDTOOLS")" && pwd)/$(basename "$HERDTOOLS")
			export HERDTOOLS
		fi
		harness_ktap "litmus tests" litmus litmus
	fi
	touch "$out/.litmus-done"

	# --- 1b. the Spin model: citations against the code, one result per property,
	# one per mutant.  It models our protocol: STOCK=1 has nothing to check against it.
	if [ "$kind" = ours ] && [ -f "$REPO/tools/testing/ring_buffer/model/check.sh" ]; then
		for target in model-drift model model-mutants; do
			harness_ktap "Spin model" "$target" "Spin $target"
		done
	fi
}

# --- 2. the patch ---------------------------------------------------------------
patch_ok=1
bash "$VM_DIR/prepare-tree.sh"
: > "$results.user1"
: > "$results.user2"
rm -f "$out/.litmus-done"
if [ "${PARALLEL_USER:-1}" = 1 ]; then
	(renice -n 10 -p "$BASHPID" > /dev/null || true
	 results=$results.user2
	 user_model_stages) > "$out/userspace-model.log" 2>&1 &
	model_chain=$!
	(renice -n 10 -p "$BASHPID" > /dev/null || true
	 results=$results.user1
	 user_harness_stages) > "$out/userspace.log" 2>&1 &
	harness_chain=$!
	msg "user-space stages run in the background: $out/userspace.log, $out/userspace-model.log"
else
	model_chain= harness_chain=
	(results=$results.user2; user_model_stages) 2>&1 | tee "$out/userspace-model.log"
	(results=$results.user1; user_harness_stages) 2>&1 | tee "$out/userspace.log"
fi
stage_start "make the $kind patch"
if bash "$VM_DIR/mkpatch.sh" "$kind" "$patch"; then
	record ok "patch: $(basename "$patch") made"
	stage_end
else
	record fail "patch: $(basename "$patch") made" "mkpatch.sh failed"
	stage_end FAILED
	patch_ok=0
fi
if [ $patch_ok = 1 ]; then
	if bash "$VM_DIR/apply-tree.sh" "$kind" "$patch"; then
		record ok "patch: applies to pristine 6.12 (git am, patch -p1)"
	else
		record fail "patch: applies to pristine 6.12 (git am, patch -p1)"
		patch_ok=0
	fi
fi

# --- 3. kernels -----------------------------------------------------------------
# boot_check FLAVOUR OBJ: boot one kernel and judge it (results appended).
boot_check() {
	local flavour=$1 obj=$2 name=boot-$1 tmo rc arch
	arch=$(flavour_arch "$flavour")
	flavour_setup "$flavour"
	# The debug kernel (KASAN, lockdep) is several times slower under TCG.
	case $flavour in
	debug) tmo=$(stage_limit "${TIMEOUT_DEBUG:-1200}") ;;
	*) tmo=$(stage_limit "${TIMEOUT:-900}") ;;
	esac
	local nostartup=() append=${APPEND:-}
	[ "$K_STARTUP" = 1 ] || nostartup=(--no-startup)
	# APPEND's own rbtest.checks= comes later on the command line and wins.
	[ -n "$K_CHECKS" ] && append="rbtest.checks=$K_CHECKS $append"
	set +e
	APPEND=$append STARTUP_TESTS=$K_STARTUP GUEST_ARCH=$arch TIMEOUT=$tmo \
		bash "$VM_DIR/run-qemu.sh" test "$obj/$K_IMAGE" \
		"$(initrd_of "$arch")" "$out/$name"
	rc=$?
	set -e
	stage_start "check $name"
	if python3 "$VM_DIR/check-log.py" --name "$name" "${nostartup[@]}" \
		--console "$out/$name/console.log" --guest "$out/$name/guest.ktap" \
		--config "$obj/.config" --qemu-rc "$rc" --timeout "$tmo" \
		--results "$results.$name"; then
		stage_end
	else
		stage_end FAILED
	fi
	# check-log.py writes its results with the boot name in front.
	cat "$results.$name" >> "$results"
	rm -f "$results.$name"
	# The two-boot persistent-buffer checks (persist.sh), once per arch
	# (K_PERSIST: the x86_64 debug kernel and arm64).
	if [ "$K_PERSIST" = 1 ] && [ "${PERSIST:-1}" = 1 ]; then
		: > "$results.$name.persist"
		PERSIST_RESULTS=$results.$name.persist PERSIST_OUT=$out/persist-$flavour \
			INITRD=$(initrd_of "$arch") bash "$VM_DIR/persist.sh" "$flavour" || true
		[ -s "$results.$name.persist" ] ||
			printf 'not ok\t%s: persist\tpersist.sh stopped before its results\n' \
				"$name" >> "$results.$name.persist"
		cat "$results.$name.persist" >> "$results"
		rm -f "$results.$name.persist"
	fi
}

# One initramfs per arch: initramfs.cpio (x86_64), initramfs-ARCH.cpio.
initrd_of() {
	[ "$1" = x86_64 ] && echo "$out/initramfs.cpio" || echo "$out/initramfs-$1.cpio"
}
# QEMU (single-threaded TCG) keeps one core busy, a build wants two: boot
# each kernel in the background while the next one builds.  One boot at a
# time; PARALLEL_BOOT=0 runs everything in sequence.
boot_pid= initrds=
for flavour in "${boots[@]}"; do
	name=boot-$flavour
	flavour_setup "$flavour"
	obj=$BUILD/obj-$kind$K_OBJ_SUFFIX
	arch=$(flavour_arch "$flavour")
	case " $initrds " in
	*" $arch "*) ;;
	*)	if ! bash "$VM_DIR/mkinitramfs.sh" "$(initrd_of "$arch")" "$arch"; then
			record fail "$name" "no initramfs for $arch"
			continue
		fi
		initrds+=" $arch" ;;
	esac
	if [ $patch_ok = 0 ]; then
		record fail "$name" "not run: the patch does not apply"
		continue
	fi
	if ! bash "$VM_DIR/build-kernel.sh" "$kind" "$flavour"; then
		record fail "$name: build" "see $obj/build.log"
		continue
	fi
	record ok "$name: build"
	[ -n "$boot_pid" ] && { wait "$boot_pid" || true; }
	if [ "${PARALLEL_BOOT:-1}" = 1 ]; then
		boot_check "$flavour" "$obj" &
		boot_pid=$!
	else
		boot_check "$flavour" "$obj"
	fi
done

# --- 4. review: checkpatch, sparse, kernel-doc --------------------------------------
# Our patch only: the stock one is the reference, not ours to review.  We
# hold build/.lock-ours, which review.sh would otherwise take.  Its sparse
# run uses the objects of the first x86_64 kernel (build/obj-ours-debug by
# default).
if [ "$kind" = ours ] && [[ " ${ARCHES:-x86_64} " != *" x86_64 "* ]]; then
	msg "ARCHES has no x86_64: review.sh (sparse on an x86_64 object directory) not run"
elif [ "$kind" = ours ]; then
	stage_start "review: checkpatch, sparse, kernel-doc (review.sh)"
	nbefore=$(wc -l < "$results")
	# sparse runs in the object directory of the first x86_64 kernel built.
	review_obj=$BUILD/obj-$kind
	for f in $TEST_FLAVOURS; do
		flavour_setup "$f"
		review_obj=$BUILD/obj-$kind$K_OBJ_SUFFIX
		break
	done
	if RB_LOCK_HELD=1 REVIEW_RESULTS=$results REVIEW_OBJ=$review_obj \
		bash "$VM_DIR/review.sh"; then
		stage_end
	else
		stage_end FAILED
		# A review.sh that stopped before its results still fails.
		grep -q '^not ok.*review: ' <(tail -n +"$((nbefore + 1))" "$results") ||
			record fail "review" "review.sh failed before reporting a failure"
	fi
else
	msg "STOCK=1: review.sh reviews our patch only; not run"
fi

# --- 5. compile-and-link checks for arm and riscv64 ---------------------------------
# Our patch only: W=1, no warning in our files, no libgcc helper missing
# (cross-link.sh); while the last boot runs, like the review.
if [ "${CROSS:-1}" = 0 ]; then
	msg "CROSS=0: the arm/riscv64 link checks are left out (make cross runs them)"
elif [ "$kind" = ours ]; then
	for arch in arm riscv64; do
		if [ $patch_ok = 0 ]; then
			record fail "cross: $arch W=1 compile, libgcc check" "not run: the patch does not apply"
		elif bash "$VM_DIR/cross-link.sh" "$arch" ours; then
			record ok "cross: $arch W=1 compile, libgcc check"
		else
			record fail "cross: $arch W=1 compile, libgcc check" "see build/obj-ours-cross-$arch/build.log"
		fi
	done
else
	msg "STOCK=1: the arm/riscv64 link checks build our patch only; not run"
fi
[ -n "$boot_pid" ] && { wait "$boot_pid" || true; }
race_result
if [ -n "$harness_chain" ]; then
	wait "$harness_chain" || true
	wait "$model_chain" || true
	for log in userspace.log userspace-model.log; do
		echo
		echo "==> user-space stages ($out/$log):"
		cat "$out/$log"
	done
fi
# The user-space results first, as when the stages ran in sequence.
cat "$results.user1" "$results.user2" "$results" > "$results.all"
mv "$results.all" "$results"
rm -f "$results.user1" "$results.user2" "$out/.litmus-done"

# --- summary -----------------------------------------------------------------------
npass=$(grep -c '^ok' "$results" || true)
nfail=$(grep -c '^not ok' "$results" || true)
nskip=$(grep -c '^skip' "$results" || true)
echo
echo "KTAP version 1"
echo "1..$((npass + nfail + nskip))"
awk -F'\t' '$1 == "skip" { printf "ok %d %s # SKIP %s\n", NR, $2, $3; next }
	{ printf "%s %d %s%s\n", $1, NR, $2, ($3 != "" ? " # " $3 : "") }' "$results"
msg "make test ($kind) took $(($(date +%s) - T0))s; results in $results"
if [ "$nskip" -gt 0 ]; then
	echo "$npass passed, $nfail failed, $nskip skipped"
else
	echo "$npass passed, $nfail failed"
fi
[ "$nfail" -eq 0 ]
