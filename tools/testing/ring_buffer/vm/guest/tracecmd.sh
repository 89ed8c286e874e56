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

check_tracecmd_record() {
	local rep=$TMP/tc-rec.txt nfn nother nsw nenter nexit
	command -v trace-cmd > /dev/null || fail "no trace-cmd in the initramfs" || return 1
	# The workload runs as trace-cmd's child: recording starts before
	# it and stops after it.
	(cd $TMP && trace-cmd record -B rb-tc -p function -l 'vfs_*' $TC_EVENTS \
		-o $TMP/tc-rec.dat sh -c '. /lib/rb-checks.d/tracecmd.sh; TMP=/tmp/rb; tc_workload') \
		> $TMP/tc-rec.log 2>&1 ||
		fail "trace-cmd record failed: $(tail -n 2 $TMP/tc-rec.log | tr '\n' ' ')" || return 1
	trace-cmd report -i $TMP/tc-rec.dat > $rep 2> $TMP/tc-rec.err ||
		fail "trace-cmd report failed: $(head -n 2 $TMP/tc-rec.err | tr '\n' ' ')" || return 1
	tc_decode_errors $rep $TMP/tc-rec.err || return 1
	trace-cmd report --check-events -i $TMP/tc-rec.dat > $TMP/tc-rec.chk 2>&1 ||
		fail "trace-cmd report --check-events: $(tail -n 1 $TMP/tc-rec.chk)" || return 1
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
	awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { n[$(i + 1)]++; break } }
		END { for (e in n) printf "%s %d  ", e, n[e]; print "" }' $rep |
		sed 's/^/# tracecmd_record: events: /' >&3
	[ "$nenter" -eq $TC_FILES ] && [ "$nexit" -eq $TC_FILES ] || {
		grep ' sys_e' $rep | head -n 4 | sed 's/^/# tracecmd_record: /' >&3
		fail "head opened $TC_FILES files; report has $nenter sys_enter_openat, $nexit sys_exit_openat from head"
		return 1
	}
	DIAG=$(tc_per_cpu_monotonic $rep) || return 1
	echo "# tracecmd_record: $(grep -c ': ' $rep) events: $nfn vfs_* functions, $nsw sched_switch, $nenter/$nexit openat from head" >&3
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
