#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh [--update] WHAT...: install the Debian packages WHAT needs,
# and fetch the other architectures' packages its initramfs unpacks, in one
# step.  Every apt and dpkg call of the pipeline that installs or fetches is
# made here, by one process at a time on the machine (the lock below).
#
#   WHAT  test       everything `make test` runs, as ARCHES, FLAVOURS, CROSS
#                    and STOCK=1 narrow it (run-tests.sh calls this first,
#                    before anything runs in parallel)
#         run        `make run` and `make shell`: kernel, QEMU, initramfs
#         kernel     `make kernel`, `make patch`: the kernel build
#         review     `make review`
#         cross      `make cross`: the arm and riscv64 compilers
#         bench      `make bench`
#         harness, harness32, clang, valgrind, model, litmus
#                    the user-space harness's targets (tools/testing/
#                    ring_buffer/Makefile: test, test32, tsan and fuzz, bench,
#                    model, litmus: herd7 from HERDTOOLS=)
#         --pkgs PKG...         those packages (need_pkgs in lib.sh)
#         --debs ARCH PKG...    those packages of ARCH, fetched into
#                               build/debs/ARCH (foreign_deb_extract)
#   --update  run apt-get update even when nothing is missing
#             (install-race.sh uses it to make both of its runs use apt)
#   --dry-run print what is missing and stop
#
# When everything is there it does nothing (and needs neither root nor the
# network).  Otherwise, holding the lock:
#   1. dpkg --add-architecture for a foreign arch dpkg does not know yet,
#   2. apt-get update,
#   3. apt-get install -y of the missing packages,
#   4. apt-get download of the missing foreign .debs (into a scratch
#      directory, moved into build/debs/ARCH when complete).
# A failed step fails the script with apt's own message (nothing of apt's
# output is hidden).  As another user than root, when packages or an
# architecture are missing, it prints the commands to run as root and fails.
#
# The lock: flock(1) on RB_APT_LOCK (default /var/lock/ring-buffer-apt.lock,
# one for the machine, so that two checkouts running make test at once wait
# for each other too), waiting up to RB_APT_LOCK_WAIT seconds (1800).  It is
# held by the flock process, not inherited by apt, dpkg or what a package's
# scripts start (flock -o).  apt's own locks guard against apt run by
# anything else: the dpkg lock is waited for (DPkg::Lock::Timeout=600),
# but in Debian 12's apt (2.6) the lists lock that apt-get update takes and
# the archives lock are not: an apt-get that fails on "Could not get lock"
# is run again every 5 s for up to 600 s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LOCK=${RB_APT_LOCK:-/var/lock/ring-buffer-apt.lock}
[ -w "$(dirname "$LOCK")" ] || [ -w "$LOCK" ] || LOCK=$BUILD/.lock-apt
WAIT=${RB_APT_LOCK_WAIT:-1800}
APT_WAIT=600

locked=0
if [ "${1:-}" = --under-lock ]; then
	locked=1
	shift
fi
update=0 dry=0
case ${1:-} in
--update) update=1; shift ;;
--dry-run) dry=1; shift ;;
esac
[ $# -gt 0 ] || die "usage: install-deps.sh [--update|--dry-run] test|run|kernel|review|cross|bench|harness|harness32|clang|valgrind|model... | --pkgs PKG... | --debs ARCH PKG..."
args=("$@")

pkgs=() # host packages wanted
debs=() # ARCH:PKG fetched into build/debs/ARCH
add_debs() {
	local a=$1 p
	shift
	for p in "$@"; do debs+=("$a:$p"); done
}
# want_initramfs ARCH: what mkinitramfs.sh ARCH uses.
want_initramfs() {
	# shellcheck disable=SC2207
	pkgs+=("${VM_PKGS[@]}" $(initramfs_pkgs "$1"))
	[ "$1" = x86_64 ] || add_debs "$1" "${FOREIGN_PKGS[@]}"
}
want() {
	local a f
	case $1 in
	kernel) pkgs+=("${KERNEL_BUILD_PKGS[@]}") ;;
	run | shell) want kernel; want_initramfs x86_64; pkgs+=("$(qemu_pkg x86_64)") ;;
	review) want kernel; pkgs+=("${REVIEW_PKGS[@]}") ;;
	cross) want kernel; pkgs+=("${CROSS_PKGS[@]}") ;;
	# gdb: the watchdogs of rbtest and mutants/run.py print a hung case's stacks
	harness) pkgs+=(gcc libc6-dev gdb) ;;
	harness32) pkgs+=(gcc-i686-linux-gnu qemu-user) ;;
	clang) pkgs+=(clang libclang-rt-14-dev) ;;
	valgrind) pkgs+=(valgrind) ;;
	model) pkgs+=(spin gcc ccache) ;;
	litmus) pkgs+=(ocaml-nox ocaml-dune menhir libmenhir-ocaml-dev libzarith-ocaml-dev ocaml-findlib) ;;
	bench) want harness; want valgrind; want run ;;
	test)
		want harness; want harness32; want kernel
		[ "${STOCK:-}" = 1 ] || want model
		# herd7 is built from HERDTOOLS= (litmus/run.sh) with OCaml.
		[ "${STOCK:-}" = 1 ] || [ -z "${HERDTOOLS:-}" ] || want litmus
		for a in ${ARCHES:-x86_64 arm64 i386}; do
			case $a in
			x86_64) for f in $TEST_FLAVOURS; do
					flavour_setup "$f"
					pkgs+=("${K_PKGS[@]}")
				done ;;
			arm64 | i386) flavour_setup "$a"; pkgs+=("${K_PKGS[@]}") ;;
			*) die "unknown arch '$a' in ARCHES (x86_64, arm64, i386)" ;;
			esac
			want_initramfs "$a"
			pkgs+=("$(qemu_pkg "$a")")
		done
		if [ "${STOCK:-}" != 1 ]; then
			[[ " ${ARCHES:-x86_64} " != *" x86_64 "* ]] || want review
			[ "${CROSS:-1}" = 0 ] || want cross
		fi ;;
	*) die "install-deps.sh: unknown WHAT '$1'" ;;
	esac
}
set -- "${args[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	--pkgs) shift; pkgs+=("$@"); break ;;
	--debs) [ $# -ge 3 ] || die "usage: install-deps.sh --debs ARCH PKG..."
		a=$2; shift 2; add_debs "$a" "$@"; break ;;
	*) want "$1"; shift ;;
	esac
done

# What is missing: packages, foreign architectures, .debs.
plan() {
	local d a p known
	# shellcheck disable=SC2207,SC2046
	miss_pkgs=($(pkgs_missing $(printf '%s\n' "${pkgs[@]}" | sort -u)))
	miss_arches=() miss_debs=()
	known=" $(dpkg --print-architecture) $(dpkg --print-foreign-architectures | tr '\n' ' ') "
	for d in $(printf '%s\n' "${debs[@]}" | sort -u); do
		a=${d%%:*} p=${d#*:}
		[[ $known == *" $a "* ]] || [[ " ${miss_arches[*]} " == *" $a "* ]] ||
			miss_arches+=("$a")
		ls "$BUILD/debs/$a/${p}_"*"_$a.deb" >/dev/null 2>&1 || miss_debs+=("$d")
	done
}
plan
if [ $dry = 1 ]; then
	echo "packages: ${miss_pkgs[*]}"
	echo "architectures: ${miss_arches[*]}"
	echo "foreign .debs: ${miss_debs[*]}"
	exit 0
fi
if [ ${#miss_pkgs[@]} -eq 0 ] && [ ${#miss_arches[@]} -eq 0 ] &&
	[ ${#miss_debs[@]} -eq 0 ] && [ $update = 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ] && { [ ${#miss_pkgs[@]} -gt 0 ] ||
	[ ${#miss_arches[@]} -gt 0 ] || [ $update = 1 ]; }; then
	cmds=
	for a in "${miss_arches[@]}"; do cmds+="dpkg --add-architecture $a && "; done
	cmds+="apt-get update"
	[ ${#miss_pkgs[@]} -eq 0 ] || cmds+=" && apt-get install -y ${miss_pkgs[*]}"
	die "needs root to install: ${miss_pkgs[*]}${miss_arches[*]:+ (and the dpkg architectures ${miss_arches[*]})}; run as root:
    $cmds
or, as root, \`make deps\` (everything make test and make run need)"
fi

# Take the lock: run this script again under flock, which holds it.
if [ $locked = 0 ]; then
	mkdir -p "$BUILD"
	if ! flock -n "$LOCK" true 2>/dev/null; then
		msg "install-deps.sh: waiting for $LOCK (another install is running)"
	fi
	opts=(--under-lock)
	[ $update = 0 ] || opts+=(--update)
	rc=0
	flock -o -w "$WAIT" -E 75 "$LOCK" bash "$VM_DIR/install-deps.sh" "${opts[@]}" "${args[@]}" || rc=$?
	[ $rc -ne 75 ] || die "install-deps.sh: $LOCK still held after ${WAIT}s"
	exit $rc
fi

# apt_get ARG...: apt-get, run again while another apt holds a lock that
# DPkg::Lock::Timeout does not wait for (lists, archives), and up to
# APT_TRIES times, 30 s apart, when the archive answered with what a mirror
# in the middle of a sync gives ("File has unexpected size", "Hash Sum
# mismatch") or not at all.  Its messages go to our stderr unchanged.
APT_TRIES=${RB_APT_TRIES:-4}
APT_TRANSIENT='Mirror sync in progress|File has unexpected size|Hash Sum mismatch|Temporary failure resolving|Connection timed out|Failed to fetch'
apt_get() {
	local t0 err rc try=1
	t0=$(date +%s)
	err=$(mktemp)
	while :; do
		rc=0
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=$APT_WAIT \
			-o Acquire::Retries=3 -q "$@" 2> "$err" || rc=$?
		cat "$err" >&2
		if [ $rc -ne 0 ] && grep -q 'Could not get lock' "$err" &&
			[ $(($(date +%s) - t0)) -lt $APT_WAIT ]; then
			msg "another apt holds a lock: apt-get $* again in 5 s"
			sleep 5
			continue
		fi
		if [ $rc -ne 0 ] && [ $try -lt "$APT_TRIES" ] &&
			grep -Eq "$APT_TRANSIENT" "$err"; then
			msg "the archive failed (try $try of $APT_TRIES): apt-get $* again in 30 s"
			try=$((try + 1))
			sleep 30
			continue
		fi
		# Lists that still fail after the tries are left as they were
		# (apt says which); a package they would have listed fails the
		# install below with apt's own message.
		if [ $rc -ne 0 ] && [ "$1" = update ] &&
			grep -q 'Some index files failed to download' "$err"; then
			msg "apt-get update: some lists failed $APT_TRIES times (above); going on with what apt has"
			rc=0
		fi
		rm -f "$err"
		return $rc
	done
}

# Under the lock: what another install may have done meanwhile is not
# done again.
plan
msg "install-deps.sh ${args[*]}: lock $LOCK taken at $(date +%s.%N)"
on_exit() {
	local rc=$?
	[ $rc = 0 ] || stage_end "FAILED (status $rc)"
	msg "install-deps.sh: lock $LOCK released at $(date +%s.%N)"
}
trap on_exit EXIT
what=$(echo "${miss_pkgs[*]} ${miss_debs[*]}" | xargs)
stage_start "install ${what:-nothing missing, apt-get update only}${miss_arches[*]:+ (dpkg --add-architecture ${miss_arches[*]})}"
for a in "${miss_arches[@]}"; do
	dpkg --add-architecture "$a"
done
if [ "$(id -u)" -eq 0 ] && { [ $update = 1 ] || [ ${#miss_pkgs[@]} -gt 0 ] ||
	[ ${#miss_arches[@]} -gt 0 ]; }; then
	apt_get update
fi
[ ${#miss_pkgs[@]} -eq 0 ] || apt_get install -y "${miss_pkgs[@]}"
# The .debs of each arch, with one apt-get download.
for a in $(printf '%s\n' "${miss_debs[@]}" | sed 's/:.*//' | sort -u); do
	dl=$BUILD/debs/$a/.download.$$
	rm -rf "$dl"
	mkdir -p "$dl"
	names=()
	for d in "${miss_debs[@]}"; do
		[ "${d%%:*}" = "$a" ] && names+=("${d#*:}:$a")
	done
	# As root, apt would drop to the _apt user, who cannot write here.
	(cd "$dl" && apt_get -o APT::Sandbox::User="$(id -un)" download "${names[@]}") ||
		{ rc=$?; rm -rf "$dl"; exit $rc; }
	mv "$dl"/*.deb "$BUILD/debs/$a/"
	rmdir "$dl"
done
stage_end
