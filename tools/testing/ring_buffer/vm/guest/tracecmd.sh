# SPDX-License-Identifier: GPL-2.0
# tracecmd.sh: guest checks with trace-cmd, a real client of the ring buffer
# (it reads whole sub-buffers through trace_pipe_raw and decodes them with
# libtraceevent).  Sourced by rb-checks (guest/checks.sh) from
# /lib/rb-checks.d/; uses its helpers (fail, ts_monotonic, T, TMP).
#
#   tracecmd_record    trace-cmd record of the function tracer filtered to
#                      vfs_*, sched_switch and the openat syscall events over
#                      a known workload (`head` opening 20 files), then
#                      trace-cmd report: no decoding error, only vfs_*
#                      functions, vfs_open/vfs_read present, sched_switch
#                      present, exactly 20 openat entries and exits from
#                      `head`, time stamps non-decreasing on every CPU.
#   tracecmd_vs_trace  the same tracing set up through tracefs in an
#                      instance and stopped; its `trace` file is read first
#                      (that does not consume), then trace-cmd extract +
#                      report: both must list the same events (CPU, time
#                      stamp, function or event name), at least one of each
#                      kind.
# Both trace into their own instance (-B): the benchmark writes into the
# top-level buffer.

TC_FILES=20
TC_EVENTS="-e sched:sched_switch -e syscalls:sys_enter_openat -e syscalls:sys_exit_openat"

# tc_workload: `head` opens TC_FILES files, a few reads and writes more.
# busybox's sh runs applets in a forked copy of itself (comm "sh"); called
# by a path, "head" is exec()ed and its events carry the comm "head".
tc_workload() {
	local i=1 files=
	mkdir -p $TMP/tcbin
	ln -sf /bin/busybox $TMP/tcbin/head
	while [ $i -le $TC_FILES ]; do
		echo "file $i" > $TMP/tc.$i
		files="$files $TMP/tc.$i"
		i=$((i + 1))
	done
	$TMP/tcbin/head -q -c 2 $files > /dev/null
	cat /proc/version > /dev/null
	rm -f $TMP/tc.*
}

# tc_decode_errors REPORT ERRFILE: fail when trace-cmd report printed a
# decoding problem (libtraceevent marks events it cannot parse).
tc_decode_errors() {
	local bad
	bad=$(grep -m 3 -iE 'FAILED TO PARSE|\[UNKNOWN|unknown event|bad (op|event)|could not|error' "$1" "$2")
	[ -z "$bad" ] || fail "trace-cmd report: $(echo $bad | cut -c1-200)"
}

# tc_per_cpu_monotonic REPORT: time stamps never go back on one CPU.
tc_per_cpu_monotonic() {
	awk '{ cpu = ""; for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) { cpu = $i; break }
		if (cpu == "") next
		for (; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = substr($i, 1, length($i) - 1) + 0
			if ((cpu in last) && t < last[cpu]) {
				print "time went back on CPU " cpu ": " $0; exit 1 }
			last[cpu] = t; break } }' "$1"
}

# tc_stats INSTANCE: the instance's per-CPU stats, one line per CPU
# ("cpuN entries: 3 overrun: 0 ...").
tc_stats() {
	local f
	for f in $T/instances/$1/per_cpu/cpu*/stats; do
		[ -f "$f" ] || continue
		echo "$(basename "$(dirname "$f")") $(tr '\n' ' ' < "$f")"
	done
}

# tc_wait_recorders: wait until trace-cmd record's recorders can take the
# stop signal.  trace-cmd record (3.1.6) forks one recorder per CPU, then
# enables tracing and runs its command at once.  A recorder that gets the
# stop signal (sent when the command has exited) before it has entered its
# read loop exits without reading its CPU's buffer, or is killed by it
# before it has installed its handler: every event of that CPU is missing
# from the file although the ring buffer holds them.  In its read loop a
# recorder blocks in select() on its trace_pipe_raw, in splice() or in a
# nanosleep() between reads, and in none of them before; /proc/PID/syscall
# names the system call a sleeping task is in (wchan is no help: on i386
# it names whatever the stack walk guesses).  Wait (up to 10 s) until
# every other child of trace-cmd, at least one per CPU, has been seen in
# one of those calls once.  Prints what it saw; fails when they never got
# there.
tc_wait_recorders() {
	local tries=0 p line w n=0 busy=0 seen=" " calls
	# select, pselect6 (and time64), splice, nanosleep, clock_nanosleep
	# (and time64), by architecture.
	case $(uname -m) in
	x86_64) calls=" 23 270 275 35 230 " ;;
	i?86) calls=" 82 142 308 413 313 162 267 407 " ;;
	aarch64) calls=" 72 76 101 115 " ;;
	*) echo "not ready: no system call numbers for $(uname -m)"; return 1 ;;
	esac
	while [ $tries -lt 200 ]; do
		n=0 busy=0
		for p in $(tc_pids_between $PPID $$); do
			read -r line 2> /dev/null < $p/stat || continue
			set -- $line
			[ "$4" = "$PPID" ] || continue
			n=$((n + 1))
			case $seen in *" $1 "*) continue ;; esac
			w=
			read -r w 2> /dev/null < $p/syscall
			case $calls in
			*" ${w%% *} "*) seen="$seen$1 " ;;
			*) busy=$((busy + 1)) ;;
			esac
		done
		if [ $n -ge $NCPU ] && [ $busy -eq 0 ]; then
			echo "ready: $n recorders in their read loop after $tries polls"
			return 0
		fi
		tries=$((tries + 1))
		usleep 50000
	done
	echo "not ready: $n recorders, $busy of them never seen in their read loop after $tries polls"
	return 1
}

# tc_pids_between A B: /proc/PID for the pids after A and before B (trace-cmd
# forks its recorders just before its command), or every process when the
# pids wrapped around in between.
tc_pids_between() {
	local p=$(($1 + 1))
	if [ "$2" -lt "$1" ]; then
		ls -d /proc/[0-9]*
		return
	fi
	while [ $p -lt $2 ]; do
		[ -d /proc/$p ] && echo /proc/$p
		p=$((p + 1))
	done
}

# tc_record_workload: what trace-cmd record runs: the wait for the
# recorders (left out with RB_TRACECMD_NOWAIT=1, to show what it prevents),
# the instance's stats at that point, then the workload.
tc_record_workload() {
	if [ -n "${RB_TRACECMD_NOWAIT:-}" ]; then
		echo "not waited for (RB_TRACECMD_NOWAIT)" > $TMP/tc-ready
	else
		tc_wait_recorders > $TMP/tc-ready
	fi
	tc_stats rb-tc > $TMP/tc-stats-before
	tc_workload
}

TC_REC_FILES="tc-ready tc-rec.log tc-rec.err tc-rec.txt tc-rec.chk tc-rec.stat tc-rec.dat tc-stats-before tc-stats-after"

check_tracecmd_record() {
	local rep=$TMP/tc-rec.txt nfn nother nsw nenter nexit f
	EVIDENCE=
	for f in $TC_REC_FILES; do
		rm -f $TMP/$f
		EVIDENCE="$EVIDENCE $TMP/$f"
	done
	command -v trace-cmd > /dev/null || fail "no trace-cmd in the initramfs" || return 1
	# The workload runs as trace-cmd's child, once the recorders are
	# ready (tc_wait_recorders): recording starts before it and stops
	# after it.  trace-cmd removes the instance it made.
	(cd $TMP && trace-cmd record -B rb-tc -p function -l 'vfs_*' $TC_EVENTS \
		-o $TMP/tc-rec.dat sh -c ". /lib/rb-checks.d/tracecmd.sh; T=$T; TMP=$TMP; NCPU=$NCPU; tc_record_workload") \
		> $TMP/tc-rec.log 2>&1 ||
		fail "trace-cmd record failed: $(tail -n 2 $TMP/tc-rec.log | tr '\n' ' ')" || return 1
	grep -q '^ready' $TMP/tc-ready 2> /dev/null || [ -n "${RB_TRACECMD_NOWAIT:-}" ] ||
		fail "trace-cmd record's recorders: $(cat $TMP/tc-ready 2> /dev/null)" || return 1
	tc_stats rb-tc > $TMP/tc-stats-after
	[ -s $TMP/tc-stats-after ] ||
		echo "no instance rb-tc after trace-cmd record: its stats at the end are in tc-rec.log" > $TMP/tc-stats-after
	trace-cmd report -i $TMP/tc-rec.dat > $rep 2> $TMP/tc-rec.err ||
		fail "trace-cmd report failed: $(head -n 2 $TMP/tc-rec.err | tr '\n' ' ')" || return 1
	tc_decode_errors $rep $TMP/tc-rec.err || return 1
	trace-cmd report --check-events -i $TMP/tc-rec.dat > $TMP/tc-rec.chk 2>&1 ||
		fail "trace-cmd report --check-events: $(tail -n 1 $TMP/tc-rec.chk)" || return 1
	# The per-CPU stats trace-cmd record saved in the file (taken when
	# it had stopped tracing, before it read the rest).
	trace-cmd report --stat -i $TMP/tc-rec.dat > $TMP/tc-rec.stat 2>&1 ||
		fail "trace-cmd report --stat failed: $(tail -n 1 $TMP/tc-rec.stat)" || return 1
	# Every event the ring buffer held when trace-cmd stopped tracing, and
	# every one it had already handed over, must be in the file: per CPU,
	# the report has at least the saved stats' "entries" and "read
	# events" (each is a lower bound: the two are read at different
	# times while the recorders drain the buffer).
	DIAG=$(tc_stats_vs_report $rep $TMP/tc-rec.stat) || return 1
	# Function entries: "function: NAME <-- PARENT" (libtraceevent's
	# function plugin) or "function: NAME" without it.
	nfn=$(grep -c ' function: ' $rep)
	nother=$(grep ' function: ' $rep | grep -vc ' function: *vfs_')
	[ "$nfn" -gt 0 ] || fail "no function events in the report" || return 1
	[ "$nother" -eq 0 ] || fail "$nother function events outside the vfs_* filter" || return 1
	grep -qE ' function: *vfs_open( |$)' $rep || fail "no vfs_open in the report" || return 1
	grep -qE ' function: *vfs_read( |$)' $rep || fail "no vfs_read in the report" || return 1
	nsw=$(grep -c ' sched_switch: ' $rep)
	[ "$nsw" -gt 0 ] || fail "no sched_switch in the report" || return 1
	nenter=$(grep -E '(^| )head-[0-9]+ +\[' $rep | grep -c ' sys_enter_openat: ')
	nexit=$(grep -E '(^| )head-[0-9]+ +\[' $rep | grep -c ' sys_exit_openat: ')
	# What the report holds, per event name, for the reader of the KTAP.
	[ -n "${TC_QUIET:-}" ] ||
	awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { n[$(i + 1)]++; break } }
		END { for (e in n) printf "%s %d  ", e, n[e]; print "" }' $rep |
		sed 's/^/# tracecmd_record: events: /' >&3
	[ "$nenter" -eq $TC_FILES ] && [ "$nexit" -eq $TC_FILES ] || {
		[ -n "${TC_QUIET:-}" ] ||
		grep ' sys_e' $rep | head -n 4 | sed 's/^/# tracecmd_record: /' >&3
		fail "head opened $TC_FILES files; report has $nenter sys_enter_openat, $nexit sys_exit_openat from head"
		return 1
	}
	DIAG=$(tc_per_cpu_monotonic $rep) || return 1
	[ -n "${TC_QUIET:-}" ] ||
	echo "# tracecmd_record: $(grep -c ': ' $rep) events: $nfn vfs_* functions, $nsw sched_switch, $nenter/$nexit openat from head" >&3
}

# tc_stats_vs_report REPORT STAT: per CPU, the report's events against the
# stats trace-cmd saved (trace-cmd report --stat); prints the first CPU
# with fewer events than "entries" or "read events" and fails.
tc_stats_vs_report() {
	awk '
	FNR == 1 { file++ }
	file == 1 {
		for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) { n[substr($i, 2, length($i) - 2) + 0]++; break }
		next
	}
	/^CPU: [0-9]+$/ { c = $2 + 0; seen[c] = 1 }
	/^entries: / { e[c] = $2 } /^read events: / { r[c] = $3 }
	END {
		for (c in seen) {
			want = e[c] > r[c] ? e[c] : r[c]
			if (n[c] + 0 < want + 0) {
				printf "cpu%d: the report has %d events, the stats trace-cmd saved say %d in the buffer and %d read when tracing stopped\n", c, n[c], e[c], r[c]
				exit 1
			}
		}
	}' "$1" "$2"
}

# tc_summary: one line on what the last tracecmd_record run saw, per CPU:
# the report's function, sched_switch and openat (enter + exit) events and
# its lost-event lines, then the stats trace-cmd record saved when it
# stopped tracing (entries/overrun/dropped/read, trace-cmd report --stat).
tc_summary() {
	local rep=$TMP/tc-rec.txt
	[ -f $rep ] || { echo "no report"; return; }
	awk '
	FNR == 1 { file++ }
	file == 1 {
		if ($0 ~ /DROPPED|LOST/) { c = $0; sub(/.*CPU:? */, "", c); sub(/[^0-9].*/, "", c); lost[c]++; cpus[c] = 1; next }
		for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		if (i >= NF) next
		c = substr($i, 2, length($i) - 2) + 0; cpus[c] = 1
		for (; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		w = $(i + 1)
		if (w == "function:") fn[c]++
		else if (w == "sched_switch:") sw[c]++
		else if (w ~ /^sys_e[a-z]*_openat:$/) op[c]++
		all[c]++
		next
	}
	/^CPU: [0-9]+$/ { c = $2 + 0; cpus[c] = 1; next }
	/^entries: / { e[c] = $2 } /^overrun: / { o[c] = $2 }
	/^dropped events: / { d[c] = $3 } /^read events: / { r[c] = $3 }
	END {
		for (c = 0; c < 64; c++) if (c in cpus)
			printf "cpu%d all %d fn %d sw %d openat %d lost %d e/o/d/r %s/%s/%s/%s; ", c,
				all[c], fn[c], sw[c], op[c], lost[c], e[c], o[c], d[c], r[c]
		print ""
	}' $rep $TMP/tc-rec.stat
}

# tracecmd_loop: tracecmd_record RB_TRACECMD_LOOP times (default 50) in one
# boot (rbtest.tracecmd_loop=N; not in the default list).  One line per
# run with its verdict and tc_summary; a failed run's files go to the host
# as evidence tracecmd_loop/run-K, and the first passing run's as
# tracecmd_loop/passed-K, to compare with.  Fails when any run failed.
check_tracecmd_loop() {
	local n=${RB_TRACECMD_LOOP:-50} i=1 nfail=0 first= v TC_QUIET=1 sample=
	while [ $i -le $n ]; do
		DIAG=
		if check_tracecmd_record; then
			v=ok
			[ -n "$sample" ] || send_evidence tracecmd_loop/passed-$i $EVIDENCE
			sample=$i
		else
			v="FAILED ($DIAG)"
			nfail=$((nfail + 1))
			[ -n "$first" ] || first="run $i: $DIAG"
			send_evidence tracecmd_loop/run-$i $EVIDENCE
		fi
		echo "# tracecmd_loop: run $i $v: $(tc_summary) $(cat $TMP/tc-ready 2> /dev/null)" >&3
		say "tracecmd_loop: run $i $v"
		i=$((i + 1))
	done
	EVIDENCE=
	echo "# tracecmd_loop: $nfail of $n runs failed${RB_TRACECMD_NOWAIT:+ (recorders not waited for)}" >&3
	[ $nfail -eq 0 ] ||
		fail "$nfail of $n tracecmd_record runs failed, first $first (evidence: BOOT/evidence/tracecmd_loop/)"
}

# tracecmd_race: trace-cmd record of sched_switch and openat around a
# command that exits at once (`true`), RB_TRACECMD_LOOP times (default 50;
# rbtest.tracecmd_race=N), in an instance made beforehand and held open
# (one of its files on fd 7) so that it outlives trace-cmd, which removes
# it even so (the removal fails: busy).  Not in the default list: it shows trace-cmd 3.1.6's
# race (see tc_wait_recorders) on whichever ring buffer, stock or ours.  A
# run loses a CPU when its report has fewer events on it than the stats
# trace-cmd saved; the events the instance still holds on each CPU after
# trace-cmd exited are printed too (measured: none, also on the CPU lost:
# trace-cmd empties the buffers on its way out).  Fails when any run lost
# a CPU.
check_tracecmd_race() {
	local n=${RB_TRACECMD_LOOP:-50} i=1 nlost=0 d=$T/instances/rb-tcr v c left
	command -v trace-cmd > /dev/null || fail "no trace-cmd in the initramfs" || return 1
	while [ $i -le $n ]; do
		[ -d $d ] && rmdir $d
		mkdir $d || fail "mkdir $d failed" || return 1
		exec 7< $d/per_cpu/cpu0/stats
		(cd $TMP && trace-cmd record -B rb-tcr -e sched:sched_switch \
			-e syscalls:sys_enter_openat -o $TMP/tcr.dat true) > $TMP/tcr.log 2>&1
		left=
		for c in $d/per_cpu/cpu*; do
			[ -f $c/trace ] && left="$left ${c##*/} $(grep -vc '^#' $c/trace)"
		done
		exec 7<&-
		trace-cmd report --stat -i $TMP/tcr.dat > $TMP/tcr.stat 2>&1
		trace-cmd report -i $TMP/tcr.dat > $TMP/tcr.txt 2> /dev/null
		if v=$(tc_stats_vs_report $TMP/tcr.txt $TMP/tcr.stat); then
			v=ok
		else
			nlost=$((nlost + 1))
			v="LOST $v"
		fi
		echo "# tracecmd_race: run $i $v; left in the instance:$left" >&3
		[ -d $d ] && echo 0 > $d/events/enable && rmdir $d
		i=$((i + 1))
	done
	echo "# tracecmd_race: $nlost of $n runs lost a CPU" >&3
	[ $nlost -eq 0 ] || fail "$nlost of $n trace-cmd record runs of 'true' lost a CPU's events"
}

# tc_keys: "CPU TIME NAME" for each event line of a kernel `trace` file
# (KERNEL=1) or of a trace-cmd report (KERNEL=0), time stamps to the
# microsecond, sorted.  NAME is the function's name for function entries,
# the event's name otherwise (the kernel prints syscall events as
# "sys_openat(...)" and "sys_openat -> ret").
tc_keys() {
	awk -v kernel="$1" '
	/^#/ { next }
	{
		cpu = ""
		for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) { cpu = $i; break }
		if (cpu == "") next
		for (; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		if (i >= NF) next
		split(substr($i, 1, length($i) - 1), t, ".")
		ts = t[1] "." substr(t[2] "000000", 1, 6)
		w = $(i + 1)
		if (kernel) {
			if (w ~ /^sys_[a-z0-9_]+[(]/) { sub(/[(].*/, "", w); name = "sys_enter_" substr(w, 5) }
			else if (w ~ /:$/) name = substr(w, 1, length(w) - 1)
			else if ($(i + 2) == "->") name = "sys_exit_" substr(w, 5)
			else name = "fn:" w
		} else {
			if (w == "function:") name = "fn:" $(i + 2)
			else name = substr(w, 1, length(w) - 1)
		}
		print cpu, ts, name
	}' "$2" | sort
}

check_tracecmd_vs_trace() {
	local d=$T/instances/rb-tcv n_k n_r n_other e
	command -v trace-cmd > /dev/null || fail "no trace-cmd in the initramfs" || return 1
	# Set the instance up through tracefs and stop it with its own
	# tracing_on, so nothing is added between the two reads.
	[ -d $d ] && rmdir $d
	mkdir $d || fail "mkdir $d failed" || return 1
	echo 'vfs_*' > $d/set_ftrace_filter || fail "cannot set the vfs_* filter" || return 1
	echo function > $d/current_tracer || fail "cannot select the function tracer" || return 1
	for e in sched/sched_switch syscalls/sys_enter_openat syscalls/sys_exit_openat; do
		echo 1 > $d/events/$e/enable || fail "cannot enable $e" || return 1
	done
	tc_workload
	echo 0 > $d/tracing_on
	# The kernel's view first: reading `trace` consumes nothing.
	cat $d/trace > $TMP/tcv-kernel.txt
	(cd $TMP && trace-cmd extract -B rb-tcv -o $TMP/tcv.dat) > $TMP/tcv.log 2>&1 ||
		fail "trace-cmd extract failed: $(tail -n 2 $TMP/tcv.log | tr '\n' ' ')" || return 1
	trace-cmd report -i $TMP/tcv.dat > $TMP/tcv-report.txt 2> $TMP/tcv.err ||
		fail "trace-cmd report failed: $(head -n 2 $TMP/tcv.err | tr '\n' ' ')" || return 1
	# trace-cmd extract may have torn the instance down already.
	[ -e $d/current_tracer ] && echo nop > $d/current_tracer
	[ -e $d/events/enable ] && echo 0 > $d/events/enable
	rmdir $d 2>/dev/null
	# trace-cmd extract also takes the top-level buffer (the benchmark's
	# lines, events left by the startup tests that libtraceevent may not
	# parse); report prefixes the instance's lines with "rb-tcv:".
	# (Without a second buffer in the file there is no prefix.)
	grep -E '^ *rb-tcv: ' $TMP/tcv-report.txt > $TMP/tcv-inst.txt ||
		cp $TMP/tcv-report.txt $TMP/tcv-inst.txt
	tc_decode_errors $TMP/tcv-inst.txt $TMP/tcv.err || return 1
	tc_keys 1 $TMP/tcv-kernel.txt > $TMP/tcv-k.keys
	tc_keys 0 $TMP/tcv-inst.txt > $TMP/tcv-r.keys
	n_k=$(wc -l < $TMP/tcv-k.keys)
	n_r=$(wc -l < $TMP/tcv-r.keys)
	n_other=$(($(tc_keys 0 $TMP/tcv-report.txt | wc -l) - n_r))
	for e in 'fn:vfs_' ' sched_switch$' ' sys_enter_openat$' ' sys_exit_openat$'; do
		grep -q "$e" $TMP/tcv-k.keys || fail "no '$e' event in the kernel's trace" || return 1
	done
	if ! cmp -s $TMP/tcv-k.keys $TMP/tcv-r.keys; then
		diff $TMP/tcv-k.keys $TMP/tcv-r.keys | head -n 10 | sed 's/^/# tracecmd_vs_trace: /' >&3
		# The lines around the first difference, in both listings.
		e=$(diff $TMP/tcv-k.keys $TMP/tcv-r.keys | grep -m 1 -E '^[-+]\[' | cut -d' ' -f2)
		grep -m 2 -F -e "$e" $TMP/tcv-kernel.txt | sed 's/^/# tracecmd_vs_trace: trace: /' >&3
		grep -m 2 -F -e "$e" $TMP/tcv-report.txt | sed 's/^/# tracecmd_vs_trace: report: /' >&3
		# Per CPU: how many events only one side has, and when.
		diff $TMP/tcv-k.keys $TMP/tcv-r.keys | awk '/^[-+]\[/ {
			k = (substr($1, 1, 1) == "-" ? "only in trace" : "only in trace-cmd report") " on CPU " substr($1, 2)
			n[k]++; if (!(k in lo)) lo[k] = $2; hi[k] = $2 }
			END { for (k in n) printf "# tracecmd_vs_trace: %d events %s, %s .. %s\n", n[k], k, lo[k], hi[k] }' >&3
		fail "trace has $n_k events, trace-cmd report $n_r; they differ (first differences above)"
		return 1
	fi
	echo "# tracecmd_vs_trace: the same $n_k events in trace and in trace-cmd report ($n_other other events in the file left out)" >&3
}

EARLY_CHECKS="$EARLY_CHECKS tracecmd_record tracecmd_vs_trace"
