#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-qemu.sh MODE IMAGE INITRAMFS [OUTDIR]: boot the test kernel in QEMU.
#
# The machine is chosen by GUEST_ARCH (default x86_64):
#   x86_64, i386  qemu-system-x86_64 / qemu-system-i386 (PC): the
#                 console on the first 8250 UART, the guest's KTAP on the
#                 second; ACPI power-off
#   arm64         qemu-system-aarch64 -M virt -cpu max (PL011 console, the
#                 guest's KTAP on a virtio console, hvc0); PSCI power-off
#
#   MODE=test   no terminal I/O: the console goes to OUTDIR/console.log and
#               the guest's KTAP (second serial port) to OUTDIR/guest.ktap.
#               A progress line with the last console line every 30 s.
#               Exit status: QEMU's, or 124 on timeout.
#   MODE=persist  as test, but the guest runs rb-persist (one boot of
#               persist.sh's pairs) and ftrace's startup tests are skipped.
#   MODE=bench  as test, but the guest runs rb-bench (make bench, see
#               bench.sh) and ftrace's startup tests are skipped.
#   MODE=run    the console on the terminal (and in OUTDIR/console.log); the
#               guest traces a workload, shows the buffer and powers off.
#   MODE=shell  an interactive busybox shell on the terminal (Ctrl-A X quits
#               QEMU, `exit` powers off).
#
# Environment:
#   GUEST_ARCH  x86_64 (default), i386 or arm64, as above
#   QEMU_ACCEL  default "tcg,thread=single" (KVM does not work on our
#               machines; multi-threaded TCG oopses in ftrace text patching)
#   SMP         number of guest CPUs, default 2
#   MEM         guest memory, default 1G (i386: 768M, below its 896 MiB of
#               low memory: the kernel has no HIGHMEM)
#   QEMU_OPTS   more QEMU options, split at spaces (bench.sh: -icount ...)
#   TIMEOUT     seconds before a test boot is killed, default 900
#   APPEND      extra kernel command line
#   KASLR=1     x86_64: let the kernel randomise its address (the kernels
#               have RANDOMIZE_BASE; every boot passes nokaslr otherwise)
#   STARTUP_TESTS=1|0  ftrace's own startup tests: run them (default in
#               test mode) or skip them (default otherwise)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:?usage: run-qemu.sh test|bench|persist|run|shell IMAGE INITRAMFS [OUTDIR]}
kernel=${2:?missing kernel image}
initrd=${3:?missing initramfs}
out=${4:-$BUILD/boot}
garch=${GUEST_ARCH:-x86_64}
mem=1G
[ "$garch" = i386 ] && mem=768M
# The machine, its console and where the guest's KTAP goes.  ktap_dev is
# the QEMU options that make the KTAP device, its chardev path left as @.
case $garch in
x86_64 | i386)
	need_pkgs "$(qemu_pkg "$garch")"
	machine=(qemu-system-"$garch")
	console=ttyS0 ktap=ttyS1
	ktap_dev=(-serial file:@)
	;;
arm64)
	need_pkgs "$(qemu_pkg "$garch")"
	# pauth-impdef: QEMU's own pointer-authentication hash instead of the
	# architected QARMA, which costs a lot of TCG time on every call.
	machine=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
	console=ttyAMA0 ktap=hvc0
	ktap_dev=(-device virtio-serial-device -chardev file,id=ktap,path=@
		-device virtconsole,chardev=ktap)
	;;
*) die "unknown GUEST_ARCH '$garch' (x86_64, i386 or arm64)" ;;
esac

accel=${QEMU_ACCEL:-tcg,thread=single}
smp=${SMP:-2}
timeout_s=${TIMEOUT:-900}
mkdir -p "$out"
# No "quiet": the host reads the startup tests' lines from the console.
cmdline="console=$console,115200 rbtest.mode=$mode panic=-1"
[ "$ktap" = ttyS1 ] || cmdline+=" rbtest.ktap=$ktap"
# make run: only warnings and worse on the console during the boot, so the
# demo is not buried under thousands of startup-test lines (dmesg has them).
[ "$mode" = run ] && cmdline+=" loglevel=5"
# The x86_64 kernels are built with KASLR for persist.sh's KASLR pair; every
# other boot keeps the kernel where it is without it.
[ "$garch" = x86_64 ] && [ "${KASLR:-0}" != 1 ] && cmdline+=" nokaslr"
# An empty trace_event= makes ftrace skip its own startup tests (they take
# a minute or more under TCG); our boot self-test and the benchmark still
# run.  Test boots run them unless STARTUP_TESTS=0; the others only with
# STARTUP_TESTS=1.
startup=${STARTUP_TESTS:-0}
[ "$mode" = test ] && startup=${STARTUP_TESTS:-1}
if [ "$startup" != 1 ]; then
	cmdline+=" trace_event="
fi
cmdline+=" ${APPEND:-}"
# shellcheck disable=SC2206 # QEMU_OPTS is a list of words
qemu=("${machine[@]}" -accel "$accel" ${QEMU_OPTS:-} -smp "$smp" -m "${MEM:-$mem}"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-no-reboot -display none -nodefaults)
[ "$garch" = arm64 ] || qemu+=(-vga none)
msg "qemu: ${qemu[*]}"

case $mode in
test | bench | persist)
	rm -f "$out/console.log" "$out/guest.ktap"
	stage_start "boot $(basename "$out") (timeout ${timeout_s}s)"
	t0=$(date +%s)
	timeout -k 10 "$timeout_s" "${qemu[@]}" -monitor none \
		-serial "file:$out/console.log" "${ktap_dev[@]/@/$out/guest.ktap}" \
		</dev/null &
	pid=$!
	# Progress: the last console line every 30 s while QEMU runs.
	while kill -0 "$pid" 2>/dev/null; do
		for _ in $(seq 30); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 1
		done
		kill -0 "$pid" 2>/dev/null || break
		last=$(tail -n 1 "$out/console.log" 2>/dev/null | tr -d '\r' | cut -c1-100)
		printf '    ... %ds: %s\n' "$(($(date +%s) - t0))" "$last"
	done
	set +e
	wait "$pid"
	rc=$?
	set -e
	stage_end "$([ $rc -eq 0 ] && echo done || echo "ended with status $rc")"
	exit $rc
	;;
run)
	msg "booting (ftrace startup tests skipped; STARTUP_TESTS=1 runs them)"
	# tee keeps a copy; -serial stdio wants a terminal-less stdin too.
	timeout -k 10 "$timeout_s" "${qemu[@]}" -monitor none -serial stdio \
		</dev/null | tee "$out/console.log"
	exit "${PIPESTATUS[0]}"
	;;
shell)
	exec "${qemu[@]}" -serial mon:stdio
	;;
*) die "unknown mode '$mode'" ;;
esac
