# SPDX-License-Identifier: GPL-2.0
# ftracetest.sh: the ring-buffer and instance cases of the kernel's own
# ftracetest (tools/testing/selftests/ftrace of the 6.12 tree, packed into
# /opt/ftrace by initramfs-clients.sh), run under busybox.  Sourced by
# rb-checks (guest/checks.sh) from /lib/rb-checks.d/; uses its helpers.
#
# One guest check per test case, named ftracetest_CASE: it runs
#   ftracetest -K -k -l LOGDIR CASE.tc
# and passes only when every KTAP result of the case (cases flagged
# "instance" run twice: top level and in an instance) is a plain "ok".
# A SKIP (UNSUPPORTED/UNTESTED) fails the check with the reason the case
# logged ("Required ... is not ..."), so a skip is never a pass; an XFAIL,
# UNRESOLVED or a missing result fails as well.
#
# They use the top-level buffer, so rb-checks runs them after the benchmark
# (LATE_CHECKS).

FT_DIR=/opt/ftrace
FT_CASES="00basic/ringbuffer_size 00basic/ringbuffer_subbuf_size
	00basic/snapshot 00basic/snapshot1 00basic/trace_pipe 00basic/trace_marker
	00basic/mount_options 00basic/test_ownership
	instances/instance instances/instance-event"

# ft_run CASE NAME: run one case; DIAG says what went wrong.
ft_run() {
	local tc=$FT_DIR/test.d/$1.tc out=$TMP/ft-$2.out logs=$TMP/ft-$2.logs
	local plan nres nok why
	[ -f "$tc" ] || fail "no $tc in the initramfs" || return 1
	rm -rf "$logs"
	(cd $FT_DIR && ./ftracetest -K -k -l "$logs" "$tc") > "$out" 2>&1
	# Every KTAP line of the case goes to the guest's KTAP as a comment.
	grep -E '^(not ok|ok) |^# Totals' "$out" | sed "s|^|# ftracetest $1: |" >&3
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | head -n 1)
	nres=$(grep -cE '^(not ok|ok) ' "$out")
	nok=$(grep -E '^ok ' "$out" | grep -vc '#')
	[ -n "$plan" ] && [ "$plan" -gt 0 ] ||
		fail "ftracetest printed no plan: $(tail -n 2 "$out" | tr '\n' ' ')" || return 1
	[ "$nres" -eq "$plan" ] || fail "plan 1..$plan but $nres results" || return 1
	[ "$nok" -eq "$nres" ] && return 0
	# Not all plain ok: say which and why, from the kept logs.
	if grep -qE '^ok .*# *SKIP' "$out"; then
		why=$(cat "$logs"/*-log.* 2>/dev/null | grep -m 1 -E '^Required ')
		# Without a "Required" line: which exit_* the case called.
		[ -n "$why" ] || why=$(cat "$logs"/*-log.* 2>/dev/null |
			grep -m 1 -oE 'exit_(unsupported|untested)' | sed 's/^/the case called /')
		fail "SKIP: ${why:-ftracetest logged no reason}"
	else
		fail "$(grep -vE '^ok [0-9]+ [^#]*$' "$out" | grep -m 1 -E '^(not ok|ok) ')"
	fi
	# The end of the failing case's log, for the reader of the KTAP.
	cat "$logs"/*-log.* 2>/dev/null | tail -n 15 | sed "s|^|# ftracetest $1 log: |" >&3
	return 1
}

# One check function per case: ftracetest_ringbuffer_size, ...
for ft_case in $FT_CASES; do
	ft_name=ftracetest_$(echo "${ft_case#*/}" | tr -- '-' '_')
	eval "check_$ft_name() { ft_run $ft_case $ft_name; }"
	LATE_CHECKS="$LATE_CHECKS $ft_name"
done
