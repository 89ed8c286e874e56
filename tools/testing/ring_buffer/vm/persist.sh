#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# persist.sh FLAVOUR [CHECK...]: the two-boot checks of the persistent
# ("range") buffer on an x86_64 kernel (FLAVOUR normal or debug) or the
# arm64 one (FLAVOUR arm64), one KTAP result per check:
#   persist_keep          boot 1 writes markers and an event into the
#                         instance boot_map, boot 2 on the same RAM shows
#                         them (and its meta lines, last_boot_info,
#                         buffer_meta) and records again after a reset
#   persist_zeroed        a boot on zeroed RAM: nothing from a previous boot
#   persist_corrupt_meta  CPU 0's meta overwritten with random bytes between
#                         the boots: CPU 0 starts empty, no crash, records
#   persist_corrupt_data  ours: 64 bytes zeroed after the header of the
#                         sub-buffer holding CPU 0's marker N/4 (the middle
#                         of its markers): that sub-buffer's markers are
#                         lost, every other one comes back, and the trace
#                         shows "CPU:0 [LOST EVENTS]" where they were.
#                         Stock 6.12 (which drops the CPU for one bad
#                         sub-buffer): the sub-buffer holding CPU 0's first
#                         markers overwritten with random bytes, judged as
#                         corrupt_meta
#   persist_kaslr         a pair with KASLR on and the function tracer in
#                         boot 1: boot 2 names the functions (text delta)
# Default: all five (arm64: all but persist_kaslr, its kernel has no
# KASLR).  persist-check.py judges each one (see there).
#
# Run it on its own (after the kernel is built, e.g. `STOCK=1 make test` or
# build-kernel.sh):
#   bash tools/testing/ring_buffer/vm/persist.sh normal
#   STOCK=1 bash tools/testing/ring_buffer/vm/persist.sh debug persist_keep
# run-tests.sh runs it after each x86_64 boot.
#
# How: QEMU keeps the guest's RAM in a file (memory-backend-file, share=on),
# so a second QEMU on the same file finds what the first left there.  The
# command line (the same on both boots of a pair) reserves a physical range
# and maps boot_map onto it:
#   x86_64: memmap=16M$ADDR trace_instance=boot_map^traceoff@ADDR:16M
#   arm64:  reserve_mem=16M:4096:trace trace_instance=boot_map^traceoff@trace
# (memblock places the arm64 range at the same address on every boot of the
# same kernel and command line).  The host takes the range's physical
# address from boot 1's "Tracing: mapped boot instance boot_map at physical
# memory ADDR" line; its offset in the RAM file is ADDR less where the
# machine's RAM starts (0 on pc, 0x40000000 on virt).  The
# guest learns whether it is boot 1 or 2 from fw_cfg (opt/rbpersist: see
# guest/persist.sh).  Boot 1 runs on a fresh (sparse, all-zero) file and
# prints what boot_map holds before it writes: that is the zeroed check.
# Its range is saved after it, so keep, corrupt_meta and corrupt_data share
# it: before each of the latter two, the saved range is written back and
# then corrupted.  The KASLR pair runs on another fresh file; when both of
# its boots got the same KASLR offset, boot 2 is repeated once (on boot 1's
# range).  Six boots in all.
#
# Environment: STOCK=1 (the stock ring buffer), SMP (default 2), INITRD
# (default build/test-KIND/initramfs.cpio, made when missing: after a change
# to guest/persist.sh, remake it with mkinitramfs.sh), PERSIST_OUT
# (default build/test-KIND/persist-FLAVOUR), PERSIST_RESULTS (a results
# file to append "ok|not ok<TAB>name<TAB>diag" lines to, as run-tests.sh's),
# TIMEOUT / TIMEOUT_DEBUG (per boot, default 300 / 900 s).
# Exit status 1 when a check failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: persist.sh normal|debug [CHECK...]}
shift
checks=("$@")
flavour_setup "$flavour"
if [ ${#checks[@]} -eq 0 ]; then
	checks=(persist_keep persist_zeroed persist_corrupt_meta persist_corrupt_data)
	[ "$K_ARCH" != x86_64 ] || checks+=(persist_kaslr)
fi
case $K_ARCH in
x86_64 | arm64) ;;
*) die "persist.sh runs the x86_64 (normal, debug) and arm64 kernels only" ;;
esac
if [ "${STOCK:-}" = 1 ]; then kind=stock; else kind=ours; fi
obj=$BUILD/obj-$kind$K_OBJ_SUFFIX
image=$obj/$K_IMAGE
[ -f "$image" ] || die "no $image: build the $flavour kernel first"
out=${PERSIST_OUT:-$BUILD/test-$kind/persist-$flavour}
if [ "$K_ARCH" = x86_64 ]; then
	initrd=${INITRD:-$BUILD/test-$kind/initramfs.cpio}
else
	initrd=${INITRD:-$BUILD/test-$kind/initramfs-$K_ARCH.cpio}
fi
[ -f "$initrd" ] || bash "$VM_DIR/mkinitramfs.sh" "$initrd" "$K_ARCH"
case $flavour in
debug) tmo=${TIMEOUT_DEBUG:-900} ;;
*) tmo=${TIMEOUT:-300} ;;
esac
check=$VM_DIR/persist-check.py
mkdir -p "$out"

# --- the range, and where the corruption goes: every offset is here ---------
SIZE=$((16 << 20))
RAM=1G
PAGE=4096
case $K_ARCH in
x86_64)
	ADDR=0x30000000 # physical, 768 MiB: above the kernel, below the initrd
	RAM_BASE=0
	append="memmap=$((SIZE >> 20))M\$$ADDR trace_instance=boot_map^traceoff@$ADDR:$((SIZE >> 20))M"
	;;
arm64)
	RAM_BASE=$((0x40000000))
	append="reserve_mem=$((SIZE >> 20))M:4096:trace trace_instance=boot_map^traceoff@trace"
	;;
esac
# The meta corruption: LEN random bytes at OFF from the range's start, the
# first page of CPU 0's meta.  Ours: one page of global header at 0, then
# CPU 0's part (its meta first) at PAGE_SIZE.  Stock 6.12: CPU 0's meta at
# 0 (struct ring_buffer_meta, then its buffers[] array).
if [ "$kind" = ours ]; then META_OFF=$PAGE; else META_OFF=0; fi
META_LEN=$PAGE
# The data corruption needs no offset: the sub-buffer (page) of the range
# that holds a given marker, found by its text in the RAM file.
ram=$out/ram

# range_off BOOT: the range's offset in the RAM file, from the address
# boot BOOT's console gives; empty when it gives none.
range_off() {
	local a
	a=$(sed -n 's/.*Tracing: mapped boot instance boot_map at physical memory \(0x[0-9a-f]*\) .*/\1/p' \
		"$out/$1/console.log" | head -n 1)
	[ -z "$a" ] || echo $((a - RAM_BASE))
}

# record ok|fail NAME DIAG: one result, as run-tests.sh's.
nfail=0
record() {
	local verdict=ok
	[ "$1" = ok ] || { verdict="not ok"; nfail=$((nfail + 1)); }
	[ -z "${PERSIST_RESULTS:-}" ] ||
		printf '%s\t%s\t%s\n' "$verdict" "$2" "${3:-}" >> "$PERSIST_RESULTS"
	printf '%s - %s%s\n' "$verdict" "$2" "${3:+ # $3}"
}

# boot NAME HOW [KASLR]: one boot on $ram, the guest told HOW (fw_cfg);
# console, guest output and QEMU's status under $out/NAME.
boot() {
	local d=$out/$1 rc t0
	mkdir -p "$d"
	t0=$(date +%s)
	set +e
	KASLR=${3:-0} GUEST_ARCH=$K_ARCH TIMEOUT=$tmo APPEND="$append" \
	QEMU_OPTS="-object memory-backend-file,id=ram0,size=$RAM,mem-path=$ram,share=on -machine memory-backend=ram0 -fw_cfg name=opt/rbpersist,string=$2" \
		bash "$VM_DIR/run-qemu.sh" persist "$image" "$initrd" "$d" > "$d/qemu.out" 2>&1
	rc=$?
	set -e
	echo "$rc" > "$d/rc"
	msg "persist $flavour: boot $1 ($2) ended with $rc in $(($(date +%s) - t0))s"
}

fresh_ram() {
	rm -f "$ram"
	truncate -s "$RAM" "$ram"
}

# judge CHECK CASE ARGS...: run persist-check.py and record its verdict.
judge() {
	local name=$1 v
	shift
	v=$(python3 "$check" judge "$@" 2>&1) || true
	case $v in
	"ok"$'\t'*) record ok "boot-$flavour: $name" "${v#ok$'\t'}" ;;
	"not ok"$'\t'*) record fail "boot-$flavour: $name" "${v#not ok$'\t'}" ;;
	*) record fail "boot-$flavour: $name" "persist-check.py: $(echo "$v" | tail -n 1)" ;;
	esac
}

want() {
	[[ " ${checks[*]} " == *" $1 "* ]]
}

run_id() {
	od -An -N4 -tx4 /dev/urandom | tr -d ' '
}

T0=$(date +%s)
stage_start "persist checks on $kind $flavour: ${checks[*]}"

# --- one boot 1 (zeroed), then keep, corrupt_meta, corrupt_data -----------------
if want persist_keep || want persist_zeroed || want persist_corrupt_meta ||
	want persist_corrupt_data; then
	run=$(run_id)
	fresh_ram
	boot w "write:$run"
	# Boot 1 ran on a fresh file: before writing, the guest printed what
	# boot_map held on zeroed RAM.
	if want persist_zeroed; then
		judge persist_zeroed zeroed --run "$run" --boot2 "$out/w"
	fi
	OFF=$(range_off w)
	[ -n "$OFF" ] || die "boot w mapped no boot_map (see $out/w/console.log)"
	python3 "$check" save "$ram" "$OFF" "$SIZE" "$out/range-w.bin"
	if want persist_keep; then
		boot keep "read:$run"
		judge persist_keep keep --run "$run" --boot1 "$out/w" --boot2 "$out/keep"
	fi
	if want persist_corrupt_meta; then
		python3 "$check" restore "$ram" "$OFF" "$out/range-w.bin"
		python3 "$check" corrupt "$ram" "$((OFF + META_OFF))" "$META_LEN"
		boot corrupt_meta "read:$run"
		judge persist_corrupt_meta corrupt_meta --run "$run" --boot1 "$out/w" \
			--boot2 "$out/corrupt_meta"
	fi
	if want persist_corrupt_data; then
		python3 "$check" restore "$ram" "$OFF" "$out/range-w.bin"
		# The guest writes 1 .. N/2 on CPU 0 (N in guest/persist.sh).
		damaged=150
		if [ "$kind" = ours ]; then
			how=(zero-in-page "$ram" "$OFF" "$SIZE" "rbp-$run-$damaged"$'\n' 16 64)
			verdict=(salvage --damaged "$damaged")
		else
			how=(corrupt-page "$ram" "$OFF" "$SIZE" "rbp-$run-1"$'\n')
			verdict=(corrupt_data)
		fi
		if page=$(python3 "$check" "${how[@]}" 2>&1); then
			msg "persist $flavour: damaged the sub-buffer at range offset $page"
			boot corrupt_data "read:$run"
			judge persist_corrupt_data "${verdict[@]}" --run "$run" --boot1 "$out/w" \
				--boot2 "$out/corrupt_data"
		else
			record fail "boot-$flavour: persist_corrupt_data" \
				"boot 1's marker is not in the range: $page"
		fi
	fi
	rm -f "$out/range-w.bin"
fi

# --- a KASLR pair with the function tracer -----------------------------------------
if want persist_kaslr; then
	run=$(run_id)
	fresh_ram
	boot kaslr-w "write:$run:function" 1
	OFF=$(range_off kaslr-w)
	[ -n "$OFF" ] || die "boot kaslr-w mapped no boot_map (see $out/kaslr-w/console.log)"
	python3 "$check" save "$ram" "$OFF" "$SIZE" "$out/range-k.bin"
	boot kaslr "read:$run" 1
	retried=()
	text() { sed -n '/^=== text/{n;p}' "$out/$1/guest.ktap" | awk '{ print $1 }'; }
	if [ -n "$(text kaslr)" ] && [ "$(text kaslr)" = "$(text kaslr-w)" ]; then
		msg "persist $flavour: both boots got the same KASLR offset; boot 2 again"
		python3 "$check" restore "$ram" "$OFF" "$out/range-k.bin"
		boot kaslr "read:$run" 1
		retried=(--retried)
	fi
	judge persist_kaslr kaslr --run "$run" --boot1 "$out/kaslr-w" --boot2 "$out/kaslr" \
		"${retried[@]}"
	rm -f "$out/range-k.bin"
fi
rm -f "$ram"
stage_end "$([ $nfail -eq 0 ] && echo "done" || echo "$nfail failed")"
msg "persist checks on $kind $flavour took $(($(date +%s) - T0))s; logs in $out"
[ $nfail -eq 0 ]
