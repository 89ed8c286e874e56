#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-race.sh [WHAT...]: the check that two installs at once cannot race
# on apt.  It starts `install-deps.sh --update WHAT...` (default: test) twice
# at the same moment: each of them runs apt-get update at least (the step
# that failed with "Could not get lock /var/lib/apt/lists/lock" when two
# stages ran apt at once), and on a machine that lacks packages the first
# also adds the architectures, installs and downloads while the second
# waits.  It passes when
#   - both exit with status 0,
#   - their times holding the lock do not overlap (each prints when it took
#     and released it), and
#   - both had started before the first one released the lock: they really
#     ran at the same time, and one waited for the other.
# Root only (apt-get update).  Logs: build/install-race/a.log, b.log.  The
# last line printed says what was measured; run-tests.sh records it as the
# result "install: two installs at once ...".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || die "install-race.sh runs apt-get update: run it as root"
[ $# -gt 0 ] || set -- test
out=$BUILD/install-race
mkdir -p "$out"
stage_start "install-race: install-deps.sh --update $* twice at once"

now() { date +%s.%N; }
s_a=$(now)
bash "$VM_DIR/install-deps.sh" --update "$@" > "$out/a.log" 2>&1 &
pid_a=$!
s_b=$(now)
bash "$VM_DIR/install-deps.sh" --update "$@" > "$out/b.log" 2>&1 &
pid_b=$!
rc_a=0 rc_b=0
wait $pid_a || rc_a=$?
wait $pid_b || rc_b=$?
for x in a b; do
	sed "s/^/[$x] /" "$out/$x.log"
done

# taken/released RUN: the times from the run's log.
taken() { sed -n 's/.*: lock .* taken at \([0-9.]*\)$/\1/p' "$out/$1.log" | tail -n 1; }
released() { sed -n 's/.*: lock .* released at \([0-9.]*\)$/\1/p' "$out/$1.log" | tail -n 1; }
fail() {
	stage_end FAILED
	printf '==> %s\n' "$*"
	exit 1
}
[ $rc_a = 0 ] && [ $rc_b = 0 ] ||
	fail "exit status $rc_a and $rc_b; see $out/a.log, $out/b.log"
t_a=$(taken a) r_a=$(released a) t_b=$(taken b) r_b=$(released b)
[ -n "$t_a" ] && [ -n "$r_a" ] && [ -n "$t_b" ] && [ -n "$r_b" ] ||
	fail "a run did not report taking and releasing the lock; see $out/a.log, $out/b.log"
# Every comparison in one awk: the times have nanoseconds.
verdict=$(awk -v sa="$s_a" -v sb="$s_b" -v ta="$t_a" -v ra="$r_a" -v tb="$t_b" -v rb="$r_b" 'BEGIN {
	t0 = (sa < sb) ? sa : sb
	first_release = (ra < rb) ? ra : rb
	last_start = (sa > sb) ? sa : sb
	times = sprintf("lock held %.1f-%.1f s and %.1f-%.1f s after the start", ta - t0, ra - t0, tb - t0, rb - t0)
	if (!(ra <= tb || rb <= ta))
		print "overlap: " times
	else if (!(last_start < first_release))
		print "not concurrent (the second started after the first released the lock): " times
	else
		print "ok: both succeeded, " times
}')
case $verdict in
ok:*) ;;
*) fail "$verdict" ;;
esac
stage_end
printf '==> %s\n' "${verdict#ok: }"
