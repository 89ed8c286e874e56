#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tracecmd-loop.sh: the guest check tracecmd_record run TRACECMD_LOOP times
# (default 50) in one boot per architecture of ARCHES (default
# "x86_64 i386"), on our ring buffer or (STOCK=1) the stock one.
# `make tracecmd-loop` runs it.
#
# For each arch: the tree, the kernel (build-kernel.sh; x86_64 is the
# normal flavour), the initramfs, then one boot with
# "rbtest.tracecmd_loop=N trace_event=" (ftrace's startup tests skipped:
# they take minutes under TCG and are not what is looked at here).  The
# guest prints one line per run (verdict; per CPU the report's function,
# sched_switch and openat events and lost-event lines, and the stats
# trace-cmd record printed: entries/overrun/dropped/read) and sends a
# failed run's files as evidence; check-log.py --guest-only unpacks them
# into build/tracecmd-loop-KIND/ARCH/evidence/tracecmd_loop/run-K/.
#
# TRACECMD_NOWAIT=1 runs the check without its wait for trace-cmd's
# recorders (rbtest.tracecmd_nowait=1, see tc_wait_recorders in
# guest/tracecmd.sh), into build/tracecmd-loop-KIND-nowait/.
#
# TRACECMD_RACE=1 runs the check tracecmd_race instead (trace-cmd record of
# `true`, N times: trace-cmd's race, see guest/tracecmd.sh), into
# build/tracecmd-loop-KIND-race/.
#
# Output: build/tracecmd-loop-KIND/ARCH/{console.log,guest.ktap,runs.txt},
# and one line per arch "ARCH: F of N runs failed".  Exit status 1 when
# any run failed or a boot did not finish.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

n=${TRACECMD_LOOP:-50}
[[ $n =~ ^[1-9][0-9]*$ ]] || die "TRACECMD_LOOP=$n is not a positive number"
if [ "${STOCK:-}" = 1 ]; then
	kind=stock patch=$BUILD/stock-selftest.patch
else
	kind=ours patch=$BUILD/ring-buffer.patch
fi
out=$BUILD/tracecmd-loop-$kind
extra=
if [ "${TRACECMD_RACE:-}" = 1 ]; then
	out+=-race
	extra=rbtest.tracecmd_race=$n
elif [ "${TRACECMD_NOWAIT:-}" = 1 ]; then
	out+=-nowait
	extra=rbtest.tracecmd_nowait=1
fi
mkdir -p "$out"

exec 9> "$BUILD/.lock-$kind"
if ! flock -n 9; then
	msg "another run on '$kind' holds $BUILD/.lock-$kind; waiting"
	flock 9
fi

bash "$VM_DIR/prepare-tree.sh"
bash "$VM_DIR/mkpatch.sh" "$kind" "$patch"
bash "$VM_DIR/apply-tree.sh" "$kind" "$patch"

status=0
summary=()
for arch in ${ARCHES:-x86_64 i386}; do
	case $arch in
	x86_64) flavour=normal ;;
	i386) flavour=i386 ;;
	*) die "tracecmd-loop: ARCHES has '$arch' (x86_64 or i386 only)" ;;
	esac
	flavour_setup "$flavour"
	obj=$BUILD/obj-$kind$K_OBJ_SUFFIX
	bash "$VM_DIR/build-kernel.sh" "$kind" "$flavour"
	bash "$VM_DIR/mkinitramfs.sh" "$out/initramfs-$arch.cpio" "$arch"
	dir=$out/$arch
	rm -rf "$dir/evidence"
	# A run takes 10 to 30 s under TCG; the boot a few minutes.
	tmo=$((600 + 60 * n))
	set +e
	GUEST_ARCH=$arch TIMEOUT=$tmo APPEND="rbtest.tracecmd_loop=$n $extra trace_event= ${APPEND:-}" \
		bash "$VM_DIR/run-qemu.sh" test "$obj/$K_IMAGE" "$out/initramfs-$arch.cpio" "$dir"
	rc=$?
	python3 "$VM_DIR/check-log.py" --guest-only --name "tracecmd-loop-$arch" \
		--console "$dir/console.log" --guest "$dir/guest.ktap" \
		--config "$obj/.config" --qemu-rc "$rc" --timeout "$tmo" > "$dir/check.txt"
	crc=$?
	set -e
	grep -E '^# tracecmd_(loop|race): run ' "$dir/guest.ktap" | tr -d '\r' |
		sed -E 's/^# tracecmd_(loop|race): //' > "$dir/runs.txt" || true
	nrun=$(wc -l < "$dir/runs.txt")
	nfail=$(grep -cE '^run [0-9]+ (FAILED|LOST)' "$dir/runs.txt" || true)
	grep -E '^(not ok|# tracecmd-loop)' "$dir/check.txt" || true
	line="$arch ($kind${extra:+, $extra}): $nfail of $nrun runs failed (asked for $n)"
	[ "$nrun" -eq "$n" ] && [ "$nfail" -eq 0 ] && [ $crc -eq 0 ] || status=1
	[ "$nfail" -eq 0 ] || line+="; evidence in $dir/evidence/tracecmd_loop/"
	summary+=("$line")
	msg "$line"
done
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
exit $status
