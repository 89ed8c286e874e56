#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rb-persist: the guest's side of the two-boot persistent-buffer checks
# (vm/persist.sh on the host; busybox ash).  Installed as /bin/rb-persist;
# /init runs it for rbtest.mode=persist with fd 3 on the second serial port.
#
# Both boots of a pair have the same kernel, initramfs and command line; the
# command line maps the instance boot_map onto a fixed physical range
# (trace_instance=boot_map^traceoff@ADDR:SIZE, memmap=SIZE$ADDR).  What this
# boot does comes from QEMU's fw_cfg (-fw_cfg name=opt/rbpersist,string=...):
#   write:RUNID[:function]  boot 1: print what boot_map holds (as read:
#                 below), put boot_map on the tai clock, turn its tracing
#                 on, write the markers rbp-RUNID-1 .. rbp-RUNID-$N (the
#                 first half on CPU 0, the second on the last CPU; after
#                 marker $STEP the wall clock, which tai follows, is set
#                 5 s back: a clock step back), enable sched_switch
#                 for a moment and, with ":function", trace a few
#                 functions (set_ftrace_filter) from before the markers to
#                 the end; then the guest powers off with boot_map still on
#   read:RUNID    boot 2: print what boot_map holds, then check that it
#                 records again after a reset
# The guest judges nothing: it prints sections "=== NAME" followed by the
# file's content on fd 3, and "=== end" last; the host (persist-check.py)
# decides.

T=/sys/kernel/tracing
I=$T/instances/boot_map
FW=/sys/firmware/qemu_fw_cfg/by_name/opt/rbpersist/raw
NCPU=$(ls -d $T/per_cpu/cpu* | wc -l)
LASTCPU=$((NCPU - 1))
# The markers: 1 .. N/2 on CPU 0, the rest on the last CPU.
N=600
# The clock steps back after this marker (on CPU 0).
STEP=75
# The functions the ":function" boot traces (set_ftrace_filter).
FUNCS="vfs_read vfs_write"

say() { echo "rb-persist: $*"; }

# section NAME [FILE]: "=== NAME" and FILE's content (or stdin) on fd 3.
section() {
	echo "=== $1" >&3
	if [ -n "$2" ]; then
		cat "$2" >&3 2>&1 || echo "(cat $2 failed)" >&3
	fi
}

how=$(cat $FW 2>/dev/null)
say "fw_cfg opt/rbpersist: '${how:-<none>}'"
section "how"
echo "$how" >&3
# The kernel's text address: the host compares the two boots' (KASLR).
section "text"
grep -m1 ' _text$' /proc/kallsyms >&3
if [ ! -d $I ]; then
	say "no $I: was trace_instance= on the command line taken?"
	section "no instance"
	section "end"
	exit 0
fi
section "tracing_on at boot" $I/tracing_on

IFS=: read -r phase run extra <<EOF
$how
EOF
case $phase in
write)
	# What boot_map holds before this boot writes (on the host's fresh,
	# zeroed RAM file: nothing; persist_zeroed).
	section "trace" $I/trace
	section "last_boot_info" $I/last_boot_info
	for c in $(seq 0 $LASTCPU); do
		section "buffer_meta cpu$c" $I/per_cpu/cpu$c/buffer_meta
	done
	# A clock change resets the buffer: before anything is written.
	echo tai > $I/trace_clock
	if [ "$extra" = function ]; then
		# First: a tracer change resets the buffer.  The tracer stays on
		# until the power-off, recording only these functions.
		echo "$FUNCS" > $I/set_ftrace_filter
		echo function > $I/current_tracer
	fi
	echo 1 > $I/tracing_on
	if [ "$extra" = function ]; then
		cat /proc/version > /tmp/v
		cat /tmp/v > /dev/null
	fi
	# trace.c hides events stamped before the buffer's last reset (the
	# clock change): the step back must stay after it, so it comes 6 s
	# later and goes 5 s back, below the stamps already written.
	sleep 6
	half=$((N / 2))
	# One shell per CPU, the markers written in order from that CPU.
	taskset -c 0 sh -c "i=1; while [ \$i -le $half ]; do
		echo rbp-$run-\$i > $I/trace_marker
		[ \$i -ne $STEP ] || date -s @\$((\$(date +%s) - 5)) > /dev/null
		i=\$((i + 1)); done"
	taskset -c $LASTCPU sh -c "i=$((half + 1)); while [ \$i -le $N ]; do
		echo rbp-$run-\$i > $I/trace_marker; i=\$((i + 1)); done"
	# One event, briefly: a few context switches on both CPUs.
	echo 1 > $I/events/sched/sched_switch/enable
	taskset -c 0 sleep 0.1
	taskset -c $LASTCPU sleep 0.1
	echo 0 > $I/events/sched/sched_switch/enable
	section "trace after writing" $I/trace
	section "written $N"
	say "wrote $N markers (run $run), powering off with boot_map on"
	;;
read)
	section "trace" $I/trace
	section "last_boot_info" $I/last_boot_info
	for c in $(seq 0 $LASTCPU); do
		section "buffer_meta cpu$c" $I/per_cpu/cpu$c/buffer_meta
	done
	# It records again after a reset.
	echo > $I/trace
	echo 1 > $I/tracing_on
	echo rbp-$run-again > $I/trace_marker
	section "trace after reset" $I/trace
	section "last_boot_info after reset" $I/last_boot_info
	say "printed boot_map (run $run)"
	;;
*)
	say "unknown fw_cfg value '$how'"
	;;
esac
section "end"
