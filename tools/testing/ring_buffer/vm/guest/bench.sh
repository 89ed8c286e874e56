#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rb-bench: the in-guest half of `make bench` (busybox ash).  Installed as
# /bin/rb-bench, with /bin/rb-sysloop (guest/sysloop.c), by vm/bench.sh;
# /init runs it for rbtest.mode=bench.  Results go to fd 3 (the second
# serial port, a file on the host), progress to the console.
#
# The kernel command line says what to measure:
#   rbtest.bench=rbbench   the built-in ring_buffer_benchmark: wait until it
#                          finished rbtest.rounds rounds (default 7), then
#                          copy its lines from the top-level trace buffer
#   rbtest.bench=syscall   rb-sysloop (rbtest.loops getppid calls, default
#                          20000) on the last CPU: a warm-up, then
#                          rbtest.runs times (default 3) with the function
#                          tracer off, then on.  Lines on fd 3:
#                            sysloop off|on RUN CALLS NS NS_PER_CALL
#                            events RUN E0 E1
#                          E1: events written during the run with the tracer
#                          on, E0: the same for a run of 0 calls (the exec)

T=/sys/kernel/tracing
what= rounds=7 loops=20000 runs=3
for word in $(cat /proc/cmdline); do
	case $word in
	rbtest.bench=*) what=${word#rbtest.bench=} ;;
	rbtest.rounds=*) rounds=${word#rbtest.rounds=} ;;
	rbtest.loops=*) loops=${word#rbtest.loops=} ;;
	rbtest.runs=*) runs=${word#rbtest.runs=} ;;
	esac
done
say() { echo "rb-bench: $*"; }
out() { echo "$*" >&3; say "$*"; }
cpu=$(($(ls -d $T/per_cpu/cpu* | wc -l) - 1))

# events: events written into the top-level buffer since the last reset
# (entries + overrun + read, all CPUs).
events() {
	cat $T/per_cpu/cpu*/stats | awk '/^(entries|overrun|read):/ { n += $2 }
		END { print n + 0 }'
}

case $what in
rbbench)
	# The benchmark prints "Sleeping for 10 secs" after every round's
	# report; a round takes 10 s plus the read, then 10 s of sleep.
	waited=0 limit=$((rounds * 30 + 60))
	while :; do
		n=$(grep -c 'Sleeping for' $T/trace)
		[ "$n" -ge "$rounds" ] && break
		if [ $waited -ge $limit ]; then
			out "error: only $n benchmark rounds after ${waited}s"
			break
		fi
		[ $((waited % 30)) = 0 ] && say "$n of $rounds benchmark rounds after ${waited}s"
		sleep 5
		waited=$((waited + 5))
	done
	# The report lines, without the task/CPU/time stamp columns.
	grep -E 'ring_buffer_producer|ring_buffer_producer_thread' $T/trace |
		sed 's/^.*: ring_buffer_producer[a-z_]*: /rbbench: /' >&3
	;;
syscall)
	# The benchmark's kthreads would take CPU time from the workload:
	# bench.sh boots with its initcall blacklisted.
	ps | grep -q '[r]b_producer' && out "error: ring_buffer_benchmark is running"
	echo nop > $T/current_tracer
	taskset -c $cpu rb-sysloop "$loops" > /dev/null
	r=1
	while [ $r -le "$runs" ]; do
		out "sysloop off $r $(taskset -c $cpu rb-sysloop "$loops")"
		echo function > $T/current_tracer
		# Events of the exec and of reading the stats alone (0 calls),
		# then of the whole run.
		echo > $T/trace
		taskset -c $cpu rb-sysloop 0 > /dev/null
		e0=$(events)
		echo > $T/trace
		res=$(taskset -c $cpu rb-sysloop "$loops")
		e1=$(events)
		echo nop > $T/current_tracer
		out "sysloop on $r $res"
		out "events $r $e0 $e1"
		r=$((r + 1))
	done
	;;
*)
	out "error: no rbtest.bench=rbbench|syscall on the kernel command line"
	;;
esac
say "done"
