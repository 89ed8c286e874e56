#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rb-checks: the in-guest checks of the ring buffer through tracefs
# (busybox ash).  Installed as /bin/rb-checks in the initramfs.
#
#   rb-checks test [CHECK...]
#                    run the checks (default: all); KTAP ("# Subtest: guest") on fd 3,
#                    progress on stdout (the console).  The last line on
#                    fd 3 is "# guest: done"; the host treats its absence as
#                    a missing result.
#   rb-checks demo   trace a short workload with the function tracer and
#                    sched/syscall events and print what the buffer holds.
#
# Every check works in its own instance (instances/rb-*) so that it sees only
# its own events: the ring buffer benchmark writes into the top-level buffer
# all the time.  A check fails by returning non-zero with the reason in DIAG.

T=/sys/kernel/tracing
NCPU=$(ls -d $T/per_cpu/cpu* | wc -l)
# The last CPU: writes pinned there run on a CPU other than the shell's
# usual one when there are two.
LASTCPU=$((NCPU - 1))
TMP=/tmp/rb
mkdir -p $TMP

say() { echo "rb-checks: $*"; }

# ktap LINE: one line on the KTAP channel (fd 3) and on the console.
ktap() {
	echo "$*" >&3
	echo "$*"
}

# fail REASON: set the diagnostic and fail the check.
fail() {
	DIAG="$*"
	return 1
}

# inst NAME: create a fresh instance and set I to its directory.
inst() {
	I=$T/instances/rb-$1
	[ -d "$I" ] && drop "$1"
	mkdir "$I" || { DIAG="mkdir $I failed"; return 1; }
}

# drop NAME: stop and remove an instance.
drop() {
	local d=$T/instances/rb-$1
	echo nop > "$d/current_tracer" 2>/dev/null
	echo 0 > "$d/events/enable" 2>/dev/null
	echo 0 > "$d/snapshot" 2>/dev/null
	rmdir "$d"
}

# stat_of FILE FIELD: a number from a per_cpu/cpuN/stats file.
stat_of() {
	sed -n "s/^$2: *//p" "$1" | head -n 1
}

# markers DIR PREFIX COUNT [CPU]: write PREFIX-1 .. PREFIX-COUNT into
# DIR/trace_marker, from CPU when given.
markers() {
	local script="i=1; while [ \$i -le $3 ]; do echo $2-\$i > $1/trace_marker 2>/dev/null; i=\$((i + 1)); done"
	if [ -n "$4" ]; then
		taskset -c "$4" sh -c "$script"
	else
		sh -c "$script"
	fi
}

# workload: a little of everything the kernel does for a shell.
workload() {
	ls -R /sys/kernel/tracing/events/sched > /dev/null
	cat /proc/version /proc/meminfo > /dev/null
	for i in 1 2 3 4 5; do
		echo $i > $TMP/w.$i
		cat $TMP/w.$i > /dev/null
		sleep 0.02
	done
	rm -f $TMP/w.*
}

# ts_monotonic FILE: every time stamp in a trace listing is >= the previous.
ts_monotonic() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = substr($i, 1, length($i) - 1) + 0
			if (n++ && t < last) { print "time went back at: " $0; exit 1 }
			last = t; break } }' "$1"
}

# ---------------------------------------------------------------------------
# The checks.

# The built-in ring_buffer_benchmark reports every round into the top-level
# buffer.  Wait for two rounds (one per read mode: events and pages) and make
# sure no round reported an error.
check_benchmark() {
	local waited=0 wait=${BENCH_WAIT:-300}
	while :; do
		cat $T/trace > $TMP/bench
		if grep -q '(by events)' $TMP/bench && grep -q '(by pages)' $TMP/bench; then
			break
		fi
		[ $waited -ge $wait ] && { fail "fewer than two benchmark rounds after ${wait}s"; return 1; }
		sleep 5
		waited=$((waited + 5))
	done
	# Show each round's read mode and speed: the text after the time stamp.
	grep -E 'ns per entry|Read: ' $TMP/bench | awk '{ for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { $1 = ""; sub(/^.*[0-9]+\.[0-9]+: /, "");
			print "# benchmark: " $0; break } }' >&3
	rounds=$(grep -c 'Time: ' $TMP/bench)
	[ "$rounds" -ge 2 ] || fail "only $rounds benchmark rounds" || return 1
	if grep -qE 'ERROR|TIME IS ZERO|overflowed' $TMP/bench; then
		fail "benchmark reported: $(grep -m1 -E 'ERROR|TIME IS ZERO|overflowed' $TMP/bench)"
		return 1
	fi
}

# The function tracer over a workload gives real function entries, in time
# order.
check_function_tracer() {
	inst ft || return 1
	echo function > $I/current_tracer || fail "cannot select the function tracer" || return 1
	# Every kernel function is traced (slow under TCG): a small workload
	# that ends with a read.  The buffer keeps the newest events.
	ls / > /dev/null
	cat /proc/version > /dev/null
	# Stop, read, and only then switch back to nop.
	echo 0 > $I/tracing_on
	cat $I/trace > $TMP/ft
	drop ft
	n=$(grep -cE '^ +.+-[0-9]+ +\[[0-9]{3}\] [^ ]+ +[0-9]+\.[0-9]+: [A-Za-z_][A-Za-z0-9_.]* <-' $TMP/ft)
	if [ "$n" -lt 500 ]; then
		grep -v '^#' $TMP/ft | head -n 5 | sed 's/^/# function_tracer: /' >&3
		fail "only $n function trace lines in $(wc -l < $TMP/ft)"
		return 1
	fi
	grep -qE ': (vfs_read|ksys_read|vfs_write|ksys_write) <-' $TMP/ft ||
		fail "no vfs_read/ksys_read/vfs_write/ksys_write in the trace" || return 1
	DIAG=$(ts_monotonic $TMP/ft) || return 1
	echo "# function_tracer: $n lines" >&3
}

# sched and syscall events with their formatted fields.
check_events() {
	inst ev || return 1
	for e in sched/sched_switch sched/sched_wakeup syscalls/sys_enter_openat \
		syscalls/sys_exit_openat; do
		echo 1 > $I/events/$e/enable || fail "cannot enable $e" || return 1
	done
	workload
	echo 0 > $I/events/enable
	cat $I/trace > $TMP/ev
	drop ev
	grep -q 'sched_switch: prev_comm=.* next_comm=' $TMP/ev || fail "no sched_switch event" || return 1
	grep -q 'sched_wakeup: comm=' $TMP/ev || fail "no sched_wakeup event" || return 1
	grep -q 'sys_openat(dfd: ' $TMP/ev || fail "no sys_enter_openat event" || return 1
	grep -q 'sys_openat -> ' $TMP/ev || fail "no sys_exit_openat event" || return 1
	DIAG=$(ts_monotonic $TMP/ev) || return 1
	echo "# events: $(grep -c ': sched_switch: ' $TMP/ev) sched_switch, $(grep -c 'sys_openat(' $TMP/ev) openat" >&3
}

# trace_pipe hands out every event once, in order, and consumes it.
check_trace_pipe() {
	inst tp || return 1
	markers $I rbtp 50
	timeout 3 cat $I/trace_pipe > $TMP/tp
	got=$(grep -o 'rbtp-[0-9]*' $TMP/tp | tr '\n' ' ')
	want=$(seq 1 50 | sed 's/^/rbtp-/' | tr '\n' ' ')
	left=$(grep -c 'rbtp-' $I/trace)
	drop tp
	[ "$got" = "$want" ] || fail "trace_pipe gave '$(echo $got | cut -c1-120)...'" || return 1
	[ "$left" -eq 0 ] || fail "$left events still in trace after trace_pipe read them" || return 1
}

# raw_pages FILE SIZE: check FILE holds whole sub-buffers of SIZE bytes whose
# header commit field is sane; print the number of sub-buffers.
raw_pages() {
	local bytes=$(wc -c < "$1") k=0 commit
	[ "$bytes" -gt 0 ] || { echo "no data from trace_pipe_raw"; return 1; }
	[ $((bytes % $2)) -eq 0 ] || { echo "$bytes bytes is not a whole number of $2-byte sub-buffers"; return 1; }
	while [ $((k * $2)) -lt "$bytes" ]; do
		# Header: u64 time stamp, then the commit word (low 20 bits: length).
		commit=$(od -A n -t u8 -j $((k * $2 + 8)) -N 8 "$1" | tr -d ' ')
		commit=$((commit & 0xfffff))
		if [ "$commit" -le 0 ] || [ "$commit" -gt $(($2 - 16)) ]; then
			echo "sub-buffer $k: commit $commit out of range"
			return 1
		fi
		k=$((k + 1))
	done
	echo "$k"
}

# trace_pipe_raw hands out whole sub-buffers in the ABI layout.
check_trace_pipe_raw() {
	inst raw || return 1
	markers $I rbraw 300 0
	timeout 3 dd if=$I/per_cpu/cpu0/trace_pipe_raw of=$TMP/raw bs=4096 2>/dev/null
	drop raw
	pages=$(raw_pages $TMP/raw 4096) || fail "$pages" || return 1
	n=$(strings $TMP/raw | grep -o 'rbraw-[0-9]*' | sort -u | wc -l)
	[ "$n" -eq 300 ] || fail "found $n of 300 markers in $pages raw sub-buffers" || return 1
	echo "# trace_pipe_raw: 300 markers in $pages sub-buffers" >&3
}

# snapshot swaps the live buffer with the spare one.
check_snapshot() {
	inst snap || return 1
	echo rbsnap-before > $I/trace_marker
	echo 1 > $I/snapshot || fail "cannot take a snapshot" || return 1
	echo rbsnap-after > $I/trace_marker
	grep -q rbsnap-before $I/snapshot || fail "snapshot lacks the event from before" || return 1
	grep -q rbsnap-after $I/snapshot && { fail "snapshot has the event from after"; return 1; }
	grep -q rbsnap-after $I/trace || fail "trace lacks the event from after" || return 1
	grep -q rbsnap-before $I/trace && { fail "trace still has the event from before"; return 1; }
	echo 0 > $I/snapshot || fail "cannot free the snapshot" || return 1
	drop snap || fail "rmdir of the instance failed"
}

# Instances are separate buffers.
check_instances() {
	inst A || return 1
	A=$I
	inst B || return 1
	B=$I
	for f in trace trace_pipe trace_marker buffer_size_kb per_cpu/cpu0/stats \
		per_cpu/cpu0/trace_pipe_raw; do
		[ -e $A/$f ] || fail "instance lacks $f" || return 1
	done
	echo rbinst-A > $A/trace_marker
	echo rbinst-B > $B/trace_marker
	grep -q rbinst-A $A/trace || fail "A lost its event" || return 1
	grep -q rbinst-B $A/trace && { fail "B's event in A"; return 1; }
	grep -q rbinst-B $B/trace || fail "B lost its event" || return 1
	grep -q rbinst-A $B/trace && { fail "A's event in B"; return 1; }
	grep -q rbinst- $T/trace && { fail "instance event in the top-level buffer"; return 1; }
	drop A && drop B || fail "rmdir of an instance failed" || return 1
	[ -e $A ] && { fail "$A still there after rmdir"; return 1; }
	return 0
}

# buffer_size_kb changes while events are being written.
check_resize() {
	inst rs || return 1
	echo 1 > $I/events/sched/sched_switch/enable
	touch $TMP/rs.run
	# A write that races a resize may fail (EBADF): that is allowed.
	(i=0; while [ -e $TMP/rs.run ]; do echo rbrs-$i > $I/trace_marker; i=$((i + 1)); done) 2>/dev/null &
	writer=$!
	# The size reads back as whole sub-buffers of data (4 KiB less the
	# sub-buffer header each): at least what was asked, less than one
	# sub-buffer more.
	for kb in 64 1024 16 512 128; do
		echo $kb > $I/buffer_size_kb || { rm $TMP/rs.run; fail "resize to $kb KiB failed"; return 1; }
		got=$(cat $I/buffer_size_kb)
		cpu0=$(cat $I/per_cpu/cpu0/buffer_size_kb)
		if [ "$got" -lt "$kb" ] || [ "$got" -gt $((kb + 4)) ] || [ "$cpu0" != "$got" ]; then
			rm $TMP/rs.run
			fail "asked $kb KiB, buffer_size_kb says $got, cpu0 says $cpu0"
			return 1
		fi
		sleep 0.2
	done
	rm $TMP/rs.run
	wait $writer
	total=$(cat $I/buffer_total_size_kb)
	[ "$total" -eq $((got * NCPU)) ] || fail "buffer_total_size_kb $total, want $got x $NCPU" || return 1
	echo rbrs-final > $I/trace_marker
	echo 0 > $I/events/enable
	cat $I/trace > $TMP/rs
	drop rs
	grep -q rbrs-final $TMP/rs || fail "no event after the last resize" || return 1
	n=$(grep -c 'rbrs-' $TMP/rs)
	[ "$n" -ge 2 ] || fail "only $n marker events survived" || return 1
	DIAG=$(ts_monotonic $TMP/rs) || return 1
}

# overwrite=1 (flight recorder): the newest events replace the oldest.
check_overwrite_on() {
	inst ow1 || return 1
	echo 8 > $I/buffer_size_kb
	echo 1 > $I/options/overwrite
	markers $I rbow 1000 0
	cat $I/trace > $TMP/ow1
	over=$(stat_of $I/per_cpu/cpu0/stats overrun)
	ent=$(stat_of $I/per_cpu/cpu0/stats entries)
	drop ow1
	grep -qw 'rbow-1000' $TMP/ow1 || fail "newest event missing" || return 1
	grep -qw 'rbow-1' $TMP/ow1 && { fail "oldest event not overwritten"; return 1; }
	[ "$over" -gt 0 ] || fail "overrun is $over" || return 1
	[ $((over + ent)) -eq 1000 ] || fail "overrun $over + entries $ent != 1000 written" || return 1
	echo "# overwrite_on: $ent kept, $over overwritten" >&3
}

# overwrite=0 (producer/consumer): a full buffer drops the new events.
check_overwrite_off() {
	inst ow0 || return 1
	echo 8 > $I/buffer_size_kb
	echo 0 > $I/options/overwrite
	markers $I rbow 1000 0
	cat $I/trace > $TMP/ow0
	drop_n=$(stat_of $I/per_cpu/cpu0/stats "dropped events")
	over=$(stat_of $I/per_cpu/cpu0/stats overrun)
	ent=$(stat_of $I/per_cpu/cpu0/stats entries)
	drop ow0
	grep -qw 'rbow-1' $TMP/ow0 || fail "oldest event lost" || return 1
	grep -qw 'rbow-1000' $TMP/ow0 && { fail "newest event present in a full buffer"; return 1; }
	[ "$drop_n" -gt 0 ] || fail "dropped events is $drop_n" || return 1
	[ "$over" -eq 0 ] || fail "overrun is $over in producer/consumer mode" || return 1
	[ $((drop_n + ent)) -eq 1000 ] || fail "dropped $drop_n + entries $ent != 1000 written" || return 1
	echo "# overwrite_off: $ent kept, $drop_n dropped" >&3
}

# buffer_subbuf_size_kb changes the sub-buffer size seen by trace_pipe_raw.
check_subbuf_size() {
	inst sb || return 1
	def=$(cat $I/buffer_subbuf_size_kb)
	[ "$def" = 4 ] || fail "default sub-buffer size $def KiB, want 4" || return 1
	for kb in 8 64; do
		echo $kb > $I/buffer_subbuf_size_kb || fail "cannot set $kb KiB" || return 1
		got=$(cat $I/buffer_subbuf_size_kb)
		[ "$got" = $kb ] || fail "set $kb KiB, reads back $got" || return 1
	done
	echo 8 > $I/buffer_subbuf_size_kb
	markers $I rbsb 300 0
	timeout 3 dd if=$I/per_cpu/cpu0/trace_pipe_raw of=$TMP/sb bs=8192 2>/dev/null
	pages=$(raw_pages $TMP/sb 8192) || { drop sb; fail "8 KiB: $pages"; return 1; }
	n=$(strings $TMP/sb | grep -o 'rbsb-[0-9]*' | sort -u | wc -l)
	[ "$n" -eq 300 ] || { drop sb; fail "found $n of 300 markers in 8 KiB sub-buffers"; return 1; }
	echo 4 > $I/buffer_subbuf_size_kb
	markers $I rbsb4 10
	grep -q 'rbsb4-10' $I/trace || { drop sb; fail "no events after going back to 4 KiB"; return 1; }
	drop sb
	echo "# subbuf_size: 300 markers in $pages 8 KiB sub-buffers" >&3
}

# Per-CPU counters: committed = entries + read + overrun, on the right CPU.
check_per_cpu_stats() {
	inst st || return 1
	S=$I/per_cpu/cpu$LASTCPU/stats
	markers $I rbst 100 $LASTCPU
	e=$(stat_of $S entries) o=$(stat_of $S overrun) r=$(stat_of $S "read events")
	d=$(stat_of $S "dropped events") c=$(stat_of $S "commit overrun") b=$(stat_of $S bytes)
	old=$(stat_of $S "oldest event ts") now=$(stat_of $S "now ts")
	if [ "$e/$o/$r/$d/$c" != "100/0/0/0/0" ]; then
		drop st
		fail "after 100 writes: entries/overrun/read/dropped/commit_overrun = $e/$o/$r/$d/$c"
		return 1
	fi
	[ "$b" -gt 0 ] || { drop st; fail "bytes is $b"; return 1; }
	# ash has no floats: compare the seconds.microseconds as strings of digits.
	if [ "$(echo "$old $now" | awk '{ print ($1 <= $2) }')" != 1 ]; then
		drop st
		fail "oldest event ts $old after now ts $now"
		return 1
	fi
	if [ "$NCPU" -gt 1 ]; then
		other=$(stat_of $I/per_cpu/cpu0/stats entries)
		[ "$other" -eq 0 ] || { drop st; fail "cpu0 has $other entries, all went to cpu$LASTCPU"; return 1; }
	fi
	timeout 3 cat $I/per_cpu/cpu$LASTCPU/trace_pipe > $TMP/st
	e=$(stat_of $S entries) r=$(stat_of $S "read events")
	drop st
	[ "$(grep -c rbst- $TMP/st)" -eq 100 ] || fail "trace_pipe gave $(grep -c rbst- $TMP/st) of 100" || return 1
	[ "$e/$r" = "0/100" ] || fail "after reading all: entries/read = $e/$r, want 0/100" || return 1
}

# marker_cpu FILE PREFIX: "COUNT CPUS ORDER" of the PREFIX-N markers in a
# trace listing: how many, the CPU columns they carry (sorted, unique, e.g.
# "000" or "000,001"), and "ok" when N runs 1, 2, 3, ... in order.
marker_cpu() {
	awk -v p="$2-" '{ for (i = 1; i <= NF; i++) if (index($i, p) == 1) {
			n++; if (substr($i, length(p) + 1) + 0 != n) bad = 1
			for (j = 1; j <= NF; j++) if ($j ~ /^\[[0-9]+\]$/) cpu[substr($j, 2, length($j) - 2)] = 1
			break } }
		END { s = ""; for (c in cpu) s = s (s == "" ? "" : ",") c
			printf "%d %s %s\n", n, (s == "" ? "-" : s), (bad ? "bad" : "ok") }' "$1" |
		awk '{ k = split($2, a, ","); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			s = a[1]; for (i = 2; i <= k; i++) s = s "," a[i]; print $1, s, $3 }'
}

# cpu_lines FILE CPU: the event lines of CPU (e.g. 001) in a trace listing.
cpu_lines() {
	grep -cE "^ +.+-[0-9]+ +\[$2\] " "$1"
}

# CPU 1 goes offline while an instance traces and comes back: its events
# written before stay readable while it is away, both CPUs trace after it
# returned, the per-CPU counters add up to what the buffer lists, and the
# CPU's own buffer_size_kb is the one it had before.
check_cpu_hotplug() {
	local on=/sys/devices/system/cpu/cpu1/online kb want got c
	[ "$NCPU" -ge 2 ] || fail "one CPU only: boot with SMP=2 or more" || return 1
	[ -w $on ] || fail "no writable $on (CONFIG_HOTPLUG_CPU?)" || return 1
	[ "$(cat $on)" = 1 ] || fail "cpu1 is offline before the check" || return 1
	inst hp || return 1
	# A size of its own for CPU 1, to see that it survives.
	echo 200 > $I/per_cpu/cpu1/buffer_size_kb || fail "cannot resize cpu1" || return 1
	want=$(cat $I/per_cpu/cpu1/buffer_size_kb)
	kb=$(cat $I/per_cpu/cpu0/buffer_size_kb)
	[ "$want" != "$kb" ] || { drop hp; fail "cpu1 size $want = cpu0 size"; return 1; }
	echo 1 > $I/events/sched/sched_switch/enable
	markers $I rbhpa 20 0
	markers $I rbhpb 20 1
	# A writer on no CPU in particular goes on across both transitions,
	# paced, so that how fast the shell runs does not decide whether it
	# wraps CPU 1's 200 KiB before the check reads what CPU 1 wrote.
	touch $TMP/hp.run
	(while [ -e $TMP/hp.run ]; do echo rbhp-any > $I/trace_marker; sleep 0.01; done) 2>/dev/null &
	writer=$!
	sleep 0.2
	if ! echo 0 > $on || [ "$(cat $on)" != 0 ]; then
		rm $TMP/hp.run; wait $writer; drop hp
		fail "cpu1 did not go offline"
		return 1
	fi
	# It really is offline: nothing can be pinned there.
	if taskset -c 1 true 2>/dev/null; then
		echo 1 > $on; rm $TMP/hp.run; wait $writer; drop hp
		fail "a task ran on cpu1 while it was offline"
		return 1
	fi
	markers $I rbhpc 20 0
	cat $I/trace > $TMP/hp-off
	if ! echo 1 > $on || [ "$(cat $on)" != 1 ]; then
		rm $TMP/hp.run; wait $writer; drop hp
		fail "cpu1 did not come back online"
		return 1
	fi
	sleep 0.2
	markers $I rbhpd 20 1
	markers $I rbhpe 20 0
	rm $TMP/hp.run
	wait $writer
	echo 0 > $I/tracing_on
	cat $I/trace > $TMP/hp
	got=$(cat $I/per_cpu/cpu1/buffer_size_kb)
	for c in 0 1; do
		cat $I/per_cpu/cpu$c/stats > $TMP/hp-st$c
	done
	drop hp
	[ "$got" = "$want" ] || fail "cpu1 buffer_size_kb $want before, $got after" || return 1
	# While offline: what cpu1 wrote before is still listed.
	set -- $(marker_cpu $TMP/hp-off rbhpb)
	[ "$1 $2 $3" = "20 001 ok" ] || fail "cpu1 offline: its markers read as '$*', want '20 001 ok'" || return 1
	for want in "rbhpa 000" "rbhpb 001" "rbhpc 000" "rbhpd 001" "rbhpe 000"; do
		set -- $want
		got=$(marker_cpu $TMP/hp "$1")
		[ "$got" = "20 $2 ok" ] || fail "$1 markers: '$got', want '20 $2 ok'" || return 1
	done
	for c in 0 1; do
		e=$(stat_of $TMP/hp-st$c entries) o=$(stat_of $TMP/hp-st$c overrun)
		d=$(stat_of $TMP/hp-st$c "dropped events") co=$(stat_of $TMP/hp-st$c "commit overrun")
		n=$(cpu_lines $TMP/hp 00$c)
		[ "$o/$d/$co" = 0/0/0 ] || fail "cpu$c overrun/dropped/commit_overrun = $o/$d/$co" || return 1
		[ "$e" = "$n" ] || fail "cpu$c stats: $e entries, trace lists $n events" || return 1
	done
	echo "# cpu_hotplug: cpu0 $(cpu_lines $TMP/hp 000) events, cpu1 $(cpu_lines $TMP/hp 001), $(grep -c rbhp-any $TMP/hp) from the unpinned writer" >&3
}

# benchmark last: its rounds go on while the other checks run.
# Checks shipped in other files (guest/tracecmd.sh, guest/ftracetest.sh,
# packed into /lib/rb-checks.d/ by initramfs-clients.sh): each defines
# check_NAME functions and adds NAME to EARLY_CHECKS (run before the
# benchmark) or LATE_CHECKS (after it: they use the top-level buffer);
# a check_NAME in neither list runs only when named (rbtest.checks=NAME).
EARLY_CHECKS= LATE_CHECKS=
for rb_extra in /lib/rb-checks.d/*.sh; do
	[ -f "$rb_extra" ] && . "$rb_extra"
done
CHECKS="function_tracer events trace_pipe trace_pipe_raw snapshot instances
	resize overwrite_on overwrite_off subbuf_size per_cpu_stats cpu_hotplug
	$EARLY_CHECKS
	benchmark $LATE_CHECKS"

# send_evidence NAME FILE...: the files (those that exist) on the KTAP
# channel as one gzipped tar of the directory NAME, in base64, each line
# "# evidence NAME DATA", then "# evidence NAME end".  The host
# (check-log.py) unpacks it into BOOT/evidence/NAME/ and leaves these lines
# out of what it prints.
send_evidence() {
	local se_name=$1 se_d=$TMP/evidence/$1 se_f
	shift
	rm -rf "$se_d"
	mkdir -p "$se_d"
	for se_f in "$@"; do
		[ -e "$se_f" ] && cp "$se_f" "$se_d/"
	done
	tar -C $TMP/evidence -cf - "$se_name" | gzip -c | base64 |
		sed "s|^|# evidence $se_name |" >&3
	echo "# evidence $se_name end" >&3
	say "evidence of $se_name: $(ls "$se_d" | tr '\n' ' ')"
	rm -rf "$se_d"
}

# run_tests [CHECK...]: run the checks (all of CHECKS by default) as KTAP.
# A check that fails with files named in EVIDENCE has them sent to the host
# (send_evidence), and its failure line ends with where they are.
# The counters have long names: the checks share the shell's variables.
run_tests() {
	local rt_list=${*:-$CHECKS} rt_num=0 rt_total=0 rt_pass=0 rt_fail=0 rt_c rt_t0
	for rt_c in $rt_list; do rt_total=$((rt_total + 1)); done
	ktap "KTAP version 1"
	ktap "# Subtest: guest"
	ktap "# guest: $(uname -r), $NCPU CPUs"
	ktap "1..$rt_total"
	for rt_c in $rt_list; do
		rt_num=$((rt_num + 1))
		DIAG= EVIDENCE=
		rt_t0=$(cut -d' ' -f1 /proc/uptime)
		say "[$rt_c] start"
		if check_$rt_c; then
			ktap "ok $rt_num $rt_c"
			rt_pass=$((rt_pass + 1))
		else
			if [ -n "$EVIDENCE" ]; then
				send_evidence $rt_c $EVIDENCE
				DIAG="$DIAG (evidence: BOOT/evidence/$rt_c/)"
			fi
			ktap "not ok $rt_num $rt_c # $DIAG"
			rt_fail=$((rt_fail + 1))
		fi
		say "[$rt_c] done in $(awk -v a="$rt_t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')s"
	done
	ktap "# guest: $rt_pass passed, $rt_fail failed"
	ktap "# guest: done"
}

# ---------------------------------------------------------------------------
# demo: what `make run` shows.
run_demo() {
	echo
	echo "=== The ring buffer at work: function tracer + sched/syscall events ==="
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo function > $T/current_tracer
	for e in sched/sched_switch sched/sched_wakeup syscalls/sys_enter_openat \
		syscalls/sys_exit_openat; do
		echo 1 > $T/events/$e/enable
	done
	echo 1 > $T/tracing_on
	workload
	echo 0 > $T/tracing_on
	# Read everything before switching back to nop: a tracer switch empties
	# the buffer.
	cat $T/trace > $TMP/demo
	for s in $T/per_cpu/cpu*/stats; do
		echo "=== ${s#$T/} ==="
		cat $s
	done > $TMP/demo-stats
	echo nop > $T/current_tracer
	echo 0 > $T/events/enable
	echo
	echo "=== head -n 40 trace ($(grep -vc '^#' $TMP/demo) lines in all) ==="
	head -n 40 $TMP/demo
	echo
	echo "=== some events from trace ==="
	grep -m 12 -E 'sched_switch:|sched_wakeup:|sys_openat' $TMP/demo
	echo
	cat $TMP/demo-stats
	echo
	echo "=== buffer_size_kb: $(cat $T/buffer_size_kb), buffer_total_size_kb: $(cat $T/buffer_total_size_kb), buffer_subbuf_size_kb: $(cat $T/buffer_subbuf_size_kb) ==="
	echo
	echo "=== boot self-test ==="
	dmesg | grep -E 'ring_buffer_selftest: [0-9]+ passed' || echo "(no ring_buffer_selftest summary in the kernel log)"
	echo 1 > $T/tracing_on
}

case ${1:-test} in
test) shift; run_tests "$@" ;;
demo) run_demo ;;
*) echo "usage: rb-checks test|demo" >&2; exit 2 ;;
esac
