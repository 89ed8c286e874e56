# SPDX-License-Identifier: GPL-2.0
# map.sh: guest checks of the user-space mapping of a CPU's ring buffer
# (mmap of per_cpu/cpuN/trace_pipe_raw, TRACE_MMAP_IOCTL_GET_READER).
# Sourced by rb-checks (guest/checks.sh) from /lib/rb-checks.d/; uses its
# functions and variables (fail, inst, drop, T, TMP, LASTCPU).
# initramfs-map.sh builds the two programs they run, static, for the
# guest's arch:
#
#   /bin/rb-map              our reader (guest/rb-map.c), in an instance:
#     map_read               1000 markers written on one CPU, each read once
#                            and in order through the mapping, some of them
#                            appended to the sub-buffer the reader holds,
#                            half written while it reads; the meta page's
#                            sizes and counters checked all along
#     map_read_8k            the same with 8 KiB sub-buffers
#     map_resize             buffer_size_kb (all CPUs, the mapped one) and
#                            buffer_subbuf_size_kb fail with EBUSY while
#                            mapped, succeed after munmap
#     map_unmapped           after munmap, read() of trace_pipe_raw gives
#                            the markers written since
#     map_trace_pipe         a `cat per_cpu/cpuN/trace_pipe` on the same CPU
#                            while the mapped reader reads: no crash, no
#                            kernel warning, counters add up
#   /opt/map_test/map_test   6.12's tools/testing/selftests/ring-buffer/
#                            map_test.c, on the top-level buffer:
#     map_test_<test>        one check per test of it, run alone
#                            (map_test -r FIXTURE.VARIANT.TEST); a SKIP fails
#     map_test_all           all of it in one run: as many tests as listed
#                            here, every one passing
#
# Every map check also fails when the kernel log gained a warning, BUG,
# Oops, UBSAN or lockdep report while it ran.
#
# map_test maps the top-level buffer and counts the events in it, but the
# ring buffer benchmark writes into that buffer with trace_printk all the
# time.  Its checks therefore run after the benchmark check (LATE_CHECKS),
# with options/trace_printk cleared, which makes trace_printk() write
# nothing; afterwards they set trace_printk, tracing_on (map_test leaves it
# off) and buffer_subbuf_size_kb (map_test leaves 8) back.  Our own checks
# work in instances (instances/rb-map*), where only they write.

MAP_N=1000
MAP_SPLAT='WARNING:|BUG:|Oops|UBSAN:|possible circular locking|inconsistent lock state|possible recursive locking|general protection'
MT_BIN=/opt/map_test/map_test
MT_TESTS="map.subbuf_size_4k.meta_page_check map.subbuf_size_4k.data_mmap
	map.subbuf_size_8k.meta_page_check map.subbuf_size_8k.data_mmap
	snapshot.excludes_map snapshot.excluded_by_map"

# map_splats: how many kernel log lines report a warning or worse.
map_splats() {
	dmesg | grep -cE "$MAP_SPLAT"
}

# map_splat_check COUNT: fail when the kernel log has more such lines now.
map_splat_check() {
	[ "$(map_splats)" -le "$1" ] ||
		fail "kernel log: $(dmesg | grep -E "$MAP_SPLAT" | tail -n 1)"
}

# map_run NAME ARGS...: rb-map ARGS; its notes ("# ...") go to the KTAP,
# the reason of a failure to DIAG.
map_run() {
	local name=$1 out=$TMP/$1.out rc splats
	shift
	[ -x /bin/rb-map ] || fail "no /bin/rb-map in the initramfs" || return 1
	splats=$(map_splats)
	rb-map "$@" > "$out" 2>&1
	rc=$?
	grep '^# ' "$out" | sed "s/^# /# $name: /" >&3
	if [ $rc -ne 0 ]; then
		DIAG=$(sed -n 's/^rb-map: FAIL: //p' "$out" | head -n 1)
		[ -n "$DIAG" ] || DIAG="rb-map $1 exited with status $rc: $(tail -n 1 "$out")"
		return 1
	fi
	map_splat_check "$splats"
}

# map_inst NAME [SUBBUF_KB]: a fresh instance rb-NAME of 256 KiB per CPU.
map_inst() {
	inst "$1" || return 1
	if [ -n "$2" ]; then
		echo "$2" > $I/buffer_subbuf_size_kb ||
			fail "cannot set buffer_subbuf_size_kb to $2" || return 1
	fi
	echo 256 > $I/buffer_size_kb || fail "cannot set buffer_size_kb" || return 1
}

check_map_read() {
	map_inst map || return 1
	map_run map_read read $I $LASTCPU $MAP_N
	MAP_RC=$?
	drop map
	return $MAP_RC
}

check_map_read_8k() {
	map_inst map8 8 || return 1
	map_run map_read_8k read $I $LASTCPU $MAP_N
	MAP_RC=$?
	drop map8
	return $MAP_RC
}

check_map_resize() {
	map_inst maprs || return 1
	map_run map_resize resize $I $LASTCPU
	MAP_RC=$?
	drop maprs
	return $MAP_RC
}

check_map_unmapped() {
	map_inst mapun || return 1
	map_run map_unmapped unmapped $I $LASTCPU 300
	MAP_RC=$?
	drop mapun
	return $MAP_RC
}

# The consuming trace_pipe reader runs pinned to the same CPU as the
# mapped reader and the writer; it is stopped (by its pid) once the mapped
# reader found every event read.
check_map_trace_pipe() {
	local cat_pid n
	map_inst maptp || return 1
	taskset -c $LASTCPU cat $I/per_cpu/cpu$LASTCPU/trace_pipe > $TMP/maptp.pipe &
	cat_pid=$!
	sleep 0.2
	map_run map_trace_pipe concurrent $I $LASTCPU 2000
	MAP_RC=$?
	kill $cat_pid 2>/dev/null
	wait $cat_pid 2>/dev/null
	n=$(grep -c 'rbmap-' $TMP/maptp.pipe)
	# Both readers may see an event: the mapped one reads in place.
	echo "# map_trace_pipe: trace_pipe gave $n of the markers" >&3
	drop maptp || { [ $MAP_RC -ne 0 ] || fail "rmdir of the instance failed"; return 1; }
	return $MAP_RC
}

# mt_run [TEST]: map_test (only TEST, when given) on a quiet top-level
# buffer; its output in $TMP/mt.out, its status in MT_RC.
mt_run() {
	local splats
	[ -x $MT_BIN ] || { MT_RC=127; fail "no $MT_BIN in the initramfs"; return 1; }
	splats=$(map_splats)
	echo 0 > $T/options/trace_printk || fail "cannot clear options/trace_printk" || return 1
	(cd /tmp && $MT_BIN ${1:+-r $1}) > $TMP/mt.out 2>&1
	MT_RC=$?
	echo 1 > $T/options/trace_printk
	echo 4 > $T/buffer_subbuf_size_kb
	echo 1 > $T/tracing_on
	map_splat_check "$splats"
}

# mt_judge TEST: the result of map_test -r TEST: one plan, one plain ok.
mt_judge() {
	local res
	grep -E '^(not ok|ok) |^# (Totals|PASSED|FAILED)|^# +(RUN|OK|FAIL|SKIP) |^# .*(Expected|Skipping)' \
		$TMP/mt.out | sed "s|^|# map_test $1: |" >&3
	grep -qx '1\.\.1' $TMP/mt.out ||
		fail "map_test -r $1 ran no test: $(tail -n 1 $TMP/mt.out)" || return 1
	res=$(grep -E '^(not ok|ok) ' $TMP/mt.out)
	case $res in
	"ok 1 $1") ;;
	*"# SKIP"*) fail "SKIP: ${res#*# SKIP}"; return 1 ;;
	*) fail "${res:-no result} (exit status $MT_RC)"; return 1 ;;
	esac
	[ "$MT_RC" -eq 0 ] || fail "map_test exited with status $MT_RC" || return 1
}

for mt_t in $MT_TESTS; do
	mt_name=map_test_$(echo "$mt_t" | tr '.' '_')
	eval "check_$mt_name() { mt_run $mt_t || return 1; mt_judge $mt_t; }"
	LATE_CHECKS="$LATE_CHECKS $mt_name"
done

check_map_test_all() {
	local want=0 totals t
	for t in $MT_TESTS; do want=$((want + 1)); done
	mt_run || return 1
	grep -E '^(not ok|ok) |^# Totals' $TMP/mt.out | sed 's|^|# map_test: |' >&3
	grep -qx "1\.\.$want" $TMP/mt.out ||
		fail "map_test has $(sed -n 's/^1\.\.//p' $TMP/mt.out | head -n 1) tests, $want listed here" || return 1
	totals=$(grep '^# Totals: ' $TMP/mt.out)
	[ "$totals" = "# Totals: pass:$want fail:0 xfail:0 xpass:0 skip:0 error:0" ] ||
		fail "map_test: ${totals:-no totals line} (exit status $MT_RC)" || return 1
	[ "$MT_RC" -eq 0 ] || fail "map_test exited with status $MT_RC" || return 1
}

EARLY_CHECKS="$EARLY_CHECKS map_read map_read_8k map_resize map_unmapped map_trace_pipe"
LATE_CHECKS="$LATE_CHECKS map_test_all"
