#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: everything `make bench` runs, ours next to stock, then one table:
#   1. the user-space table: make -C tools/testing/ring_buffer bench;
#   2. both kernels of make test's normal flavour, built when out of date:
#      build/obj-stock (STOCK=1) and build/obj-ours;
#   3. four QEMU boots (run-qemu.sh bench), stock then ours, with the same
#      settings for both kernels; the guest side is guest/bench.sh:
#      - syscall: rb-sysloop (guest/sysloop.c: LOOPS getppid calls,
#        default 500000) 3 times with the function tracer off, then on; the
#        median ns per call of each, of on - off and of on / off.  These
#        boots add -icount $ICOUNT (default shift=2,sleep=off): the guest's
#        clock counts executed instructions (4 ns each), so the result does
#        not depend on the load of the host.  ICOUNT= turns it off.
#      - rbbench: the built-in ring_buffer_benchmark, 7 rounds: the first
#        is a warm-up (it starts during the boot), then 3 read by pages and
#        3 by events, alternating; the median "ns per entry" of each mode.
#        Plain TCG (wall-clock time): under -icount the consumer's CPU often
#        gets no turn during a round ("Read: 0"), which makes it erratic.
#      Both boots skip the startup tests, which would compete for the CPU:
#      ftrace's (trace_event=, as make run does) and the ring buffer's
#      (initcall_blacklist=rbt_init,test_ringbuffer); the syscall boot also
#      skips the benchmark (ring_buffer_benchmark_init).
#
# Under QEMU's TCG the guest's times are those of an emulated CPU sharing
# one host thread (or counted instructions): only the ratios ours/stock
# mean anything.  The exit status is 1 when a measurement is missing or the
# benchmark reported an error.  Everything goes to build/bench/: table.txt,
# userspace.txt, and boot-WHAT-KIND/{console.log,guest.ktap} (guest.ktap:
# the guest's results).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
mkdir -p "$out"
rm -f "$out/errors.txt"
T0=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
bad=()
# Every package it needs, in one step (install-deps.sh).
bash "$VM_DIR/install-deps.sh" bench

# --- 1. user-space table ------------------------------------------------------------
stage_start "user-space benchmark (make -C tools/testing/ring_buffer bench)"
if make -C "$REPO/tools/testing/ring_buffer" JOBS="${JOBS:-2}" bench |
	tee "$out/userspace.txt"; then
	stage_end
else
	bad+=("user-space benchmark failed")
	stage_end FAILED
fi

# --- 2. kernels ------------------------------------------------------------------------
# The trees and object directories are make test's: hold its lock while
# building, then boot copies of the images.
bash "$VM_DIR/prepare-tree.sh"
for kind in stock ours; do
	patch=$BUILD/$([ $kind = ours ] && echo ring-buffer || echo stock-selftest).patch
	exec 9> "$BUILD/.lock-$kind"
	if ! flock -n 9; then
		msg "another make test/run on '$kind' holds $BUILD/.lock-$kind; waiting"
		flock 9
	fi
	# What goes into our kernel is the working tree's ring buffer, now.
	if [ $kind = ours ]; then
		rev=$(git -C "$REPO" log -1 --format=%h -- kernel/trace/ring_buffer.c \
			kernel/trace/ring_buffer_range.c kernel/trace/ring_buffer_map.c \
			kernel/trace/ring_buffer_internal.h)
		git -C "$REPO" diff --quiet HEAD -- kernel/trace/ring_buffer.c \
			kernel/trace/ring_buffer_range.c kernel/trace/ring_buffer_map.c \
			kernel/trace/ring_buffer_internal.h \
			include/linux/ring_buffer.h || rev="$rev + uncommitted changes"
	fi
	bash "$VM_DIR/mkpatch.sh" $kind "$patch"
	bash "$VM_DIR/apply-tree.sh" $kind "$patch"
	bash "$VM_DIR/build-kernel.sh" $kind normal
	cp "$BUILD/obj-$kind/arch/x86/boot/bzImage" "$out/bzImage-$kind"
	exec 9>&-
done

# --- 3. guest image: make test's initramfs + rb-bench and rb-sysloop ------------------------
bash "$VM_DIR/mkinitramfs.sh" "$out/initramfs-base.cpio"
stage_start "initramfs initramfs.cpio (+ rb-bench, rb-sysloop)"
rm -rf "$out/root"
mkdir -p "$out/root/bin"
gcc -static -O2 -Wall -o "$out/root/bin/rb-sysloop" "$VM_DIR/guest/sysloop.c"
install -m 755 "$VM_DIR/guest/bench.sh" "$out/root/bin/rb-bench"
# The kernel unpacks concatenated cpio archives one after the other.
(cd "$out/root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --owner=0:0 --quiet) | cat "$out/initramfs-base.cpio" - > "$out/initramfs.cpio"
stage_end

# --- 4. boots -------------------------------------------------------------------------
skip=rbt_init,test_ringbuffer
for what in syscall rbbench; do
	case $what in
	syscall) append="initcall_blacklist=$skip,ring_buffer_benchmark_init rbtest.loops=${LOOPS:-500000}"
		opts=${ICOUNT-shift=2,sleep=off}
		opts=${opts:+-icount $opts} ;;
	rbbench) append="initcall_blacklist=$skip rbtest.rounds=7" opts= ;;
	esac
	for kind in stock ours; do
		APPEND="rbtest.bench=$what $append" QEMU_OPTS=$opts TIMEOUT=${TIMEOUT:-600} \
			bash "$VM_DIR/run-qemu.sh" bench "$out/bzImage-$kind" \
			"$out/initramfs.cpio" "$out/boot-$what-$kind" ||
			bad+=("boot-$what-$kind: QEMU ended with status $?")
	done
done

# --- 5. the table -----------------------------------------------------------------------
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"
		else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# rbbench KIND MODE: median ns per entry of the rounds read by MODE (the
# first "ns per entry" of each round, after the warm-up round).
rbbench() {
	awk -v m="$2" '/^rbbench: Read:/ { mode = $0 ~ /by events/ ? "events" : "pages"; got = 0 }
		/^rbbench: [0-9]+ ns per entry/ && !got { ns = $2; got = 1 }
		/^rbbench: Sleeping/ { if (++r > 1 && mode == m && got) print ns; mode = "" }' \
		"$out/boot-rbbench-$1/guest.ktap" 2>/dev/null | median
}
# syscall KIND EXPR: median over the runs of EXPR (off, on: ns per call;
# ev: function events per call).
syscall() {
	awk -v e="$2" '$1 == "sysloop" { v[$2, $3] = $6; calls[$3] = $4 }
		$1 == "sysloop" && $3 > n { n = $3 }
		$1 == "events" && calls[$2] > 0 { ev[$2] = ($4 - $3) / calls[$2] }
		END { for (r = 1; r <= n; r++) {
			off = v["off", r]; on = v["on", r]
			if (off == "" || on == "") continue
			if (e == "off") print off; else if (e == "on") print on
			else if (e == "diff") print on - off; else if (e == "slow") printf "%.2f\n", on / off
			else printf "%.2f\n", ev[r] } }' "$out/boot-syscall-$1/guest.ktap" 2>/dev/null | median
}
row() {
	awk -v w="$1" -v n="$2" -v o="$3" -v s="$4" -v u="$5" 'BEGIN {
		r = (s + 0 > 0 && o != "-") ? sprintf("%.2f", o / s) : "-"
		printf "| %-11s | %-38s | %10s | %10s | %10s | %-12s |\n", w, n, o, s, r, u }'
}
for kind in stock ours; do
	f=$out/boot-rbbench-$kind/guest.ktap
	grep -qE 'ERROR|TIME IS ZERO|overflowed' "$f" 2>/dev/null &&
		bad+=("ring_buffer_benchmark ($kind): $(grep -m1 -E 'ERROR|TIME IS ZERO|overflowed' "$f")")
	grep -h '^error' "$f" "$out/boot-syscall-$kind/guest.ktap" 2>/dev/null |
		while read -r l; do echo "$kind guest: $l"; done >> "$out/errors.txt" || true
done
{
	echo "Ring buffer benchmark: ours (kernel/trace/ring_buffer.c at $rev) / stock 6.12"
	printf '| %-11s | %-38s | %10s | %10s | %10s | %-12s |\n' where measure ours stock ours/stock unit
	echo "|-------------|----------------------------------------|------------|------------|------------|--------------|"
	# The user-space rows, as bench.sh printed them.
	awk -F'|' '/^\| / && NF >= 6 && $2 !~ /measure|---/ { for (i = 2; i <= 6; i++) gsub(/^ +| +$/, "", $i)
		printf "%s|%s|%s|%s\n", $2, $3, $4, $6 }' "$out/userspace.txt" 2>/dev/null |
		while IFS='|' read -r n o s u; do row "user space" "$n" "$o" "$s" "$u"; done
	sys="QEMU TCG"
	[ -n "${ICOUNT-shift=2,sleep=off}" ] && sys="QEMU icount"
	for m in events pages; do
		row "QEMU TCG" "ring_buffer_benchmark, read by $m" \
			"$(rbbench ours $m)" "$(rbbench stock $m)" "ns/entry"
	done
	row "$sys" "getppid, function tracer off" "$(syscall ours off)" "$(syscall stock off)" "ns/call"
	row "$sys" "getppid, function tracer on" "$(syscall ours on)" "$(syscall stock on)" "ns/call"
	row "$sys" "tracing overhead (on - off)" "$(syscall ours diff)" "$(syscall stock diff)" "ns/call"
	row "$sys" "slowdown with tracer (on / off)" "$(syscall ours slow)" "$(syscall stock slow)" "x"
	row "$sys" "function events per getppid" "$(syscall ours ev)" "$(syscall stock ev)" "events/call"
	echo
	echo "ratio = ours/stock: below 1 is better for ns, instructions and the overhead,"
	echo "above 1 for rates.  User space: instructions from callgrind (deterministic),"
	echo "rates from this shared machine."
	echo "QEMU: software emulation (-accel ${QEMU_ACCEL:-tcg,thread=single} -smp ${SMP:-2}), the same for"
	echo "both kernels: its times are not those of real hardware, only the RATIOS mean"
	echo "something.  TCG rows: wall-clock time, shared with the host's other work"
	echo "(load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end)."
	[ "$sys" = "QEMU icount" ] && echo "icount rows: -icount ${ICOUNT-shift=2,sleep=off}, time = guest instructions x 2^shift ns."
	echo "Medians of 3: benchmark rounds after a warm-up round, syscall runs of"
	echo "${LOOPS:-500000} calls.  Tracer off: no ring buffer involved (a control)."
} > "$out/table.txt"
# A missing measurement fails the run.
grep -q ' - |' "$out/table.txt" && bad+=("some measurements are missing (see $out/boot-*)")
[ -s "$out/errors.txt" ] && bad+=("$(cat "$out/errors.txt")")
echo
cat "$out/table.txt"
for b in "${bad[@]}"; do msg "ERROR: $b"; done
msg "make bench took $(($(date +%s) - T0))s; logs in $out"
[ ${#bad[@]} -eq 0 ]
