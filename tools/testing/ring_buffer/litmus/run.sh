#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: every litmus test in this directory through herd7 with the
# Linux-kernel memory model (LKMM, tools/memory-model/ of the 6.12 tree),
# one KTAP line per file, then "N passed, M failed".
#
# Each file names its expected verdict in its header comment, on a line
# "Expect: Never" or "Expect: Sometimes", and its name agrees with it:
#   NAME.litmus            the code's shape: Never (the bad outcome cannot
#                          happen)
#   NAME+MUT.litmus        a mutant of NAME (a barrier or acquire/release
#                          removed or weakened, two accesses swapped):
#                          Sometimes
#   NAME+MUT-redundant.litmus  a mutant that stays Never: the barrier it
#                          removes is not needed for this ordering (the
#                          header says what else provides it)
#   NAME-defect.litmus     the code's shape of a known defect: Sometimes
#   NAME-allowed.litmus    an outcome the design accepts (the header says
#                          why): Sometimes
# A file passes when herd7's verdict is the expected one and, when that is
# Never, LKMM flags no data race.  Also checked: every NAME.litmus has a
# mutant that comes out Sometimes, every file the barrier table of
# Documentation/trace/ring-buffer.txt names exists, and every test that is
# not a mutant is named there or in this directory's README.
#
# herd7, in this order:
#   HERD7=PATH            that binary (it must find its own library, or
#                         HERD7_LIB=DIR names it: herd7 -I DIR)
#   HERDTOOLS=TARBALL     herdtools7-*.tar.xz, built once under
#                         ~/.cache/herdtools7/ (HERD_DIR=) (dune, OCaml from Debian; as root
#                         the packages are installed when missing; about 3
#                         minutes on 2 cores)
#   herd7 on PATH
#   one built before from a tarball under $HERD_DIR
# With none of them the stage is skipped ("1..0 # SKIP", exit 0): it says
# why and how to get herd7.  A HERD7 or HERDTOOLS that does not work fails.  LKMM=DIR names a tools/memory-model directory;
# by default the one of build/linux-6.12-pristine (KERNEL_TREE=) or, when
# that tree is not unpacked, the one of /usr/src/linux-source-6.12.tar.xz,
# extracted to build/lkmm/.
#
# Usage: run.sh [FILE.litmus...]   (default: every *.litmus here)
set -euo pipefail
shopt -s nullglob

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
BUILD=${BUILD:-$REPO/build}
# herd7 built from a tarball is a tool, not output of this tree: like
# ccache it is kept per user, so that a fresh clone does not build it again.
HERD_DIR=${HERD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/herdtools7}
PRISTINE=${KERNEL_TREE:-$BUILD/linux-6.12-pristine}
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
DOC=$REPO/Documentation/trace/ring-buffer.txt
# One herd7 run: the largest test takes a few seconds.
HERD_TIMEOUT=${HERD_TIMEOUT:-600}

msg() {
	printf '==> %s\n' "$*" >&2
}

# fail_early WHY: what was asked for cannot run: one failed result.
fail_early() {
	echo "KTAP version 1"
	echo "1..1"
	echo "not ok 1 litmus # $1"
	echo "0 passed, 1 failed"
	exit 1
}

# skip WHY: no herd7; say why and how to get one, pass nothing.
skip() {
	local how="get herd7 with 'opam install herdtools7' (then herd7 on PATH or HERD7=),"
	how="$how or build it from source: HERDTOOLS=path/to/herdtools7-7.57.tar.xz"
	how="$how (github.com/herd/herdtools7, tag 7.57; built once under ~/.cache/herdtools7/ (HERD_DIR=))"
	echo "KTAP version 1"
	echo "1..0 # SKIP $1; $how"
	msg "litmus: SKIPPED: $1"
	msg "$how"
	echo "0 passed, 0 failed, litmus SKIPPED"
	exit 0
}

# need_pkgs PKG...: install the missing Debian packages through the
# pipeline's one installer (one apt at a time on the machine; as another
# user it prints the command for root).  Its output goes to stderr: the
# callers' stdout is a result (build_herd's path, lkmm_dir's directory).
need_pkgs() {
	bash "$REPO/tools/testing/ring_buffer/vm/install-deps.sh" --pkgs "$@" >&2
}

# build_herd TARBALL: build herd7 from a herdtools7 source tarball once;
# prints the path of a wrapper that runs it with its library.  Kept under
# $HERD_DIR/NAME/ (~/.cache/herdtools7/NAME/): bin/herd.exe, share/herdtools7/ (its library,
# where the binary looks by itself too), herd7 (the wrapper) and .built
# (the tarball's sha256: a different tarball is built again).  The source
# tree and dune's objects (600 MB) are removed after the build.
build_herd() {
	local tb=$1 name dir src sum t0 log
	tb=$(cd "$(dirname "$tb")" && pwd)/$(basename "$tb")
	name=$(basename "$tb")
	name=${name%.tar.*}
	dir=$HERD_DIR/$name
	src=$dir/src
	sum=$(sha256sum "$tb" | cut -d' ' -f1)
	mkdir -p "$HERD_DIR"
	exec 8> "$HERD_DIR/.lock"
	flock 8
	if [ "$(cat "$dir/.built" 2>/dev/null)" = "$sum" ] && [ -x "$dir/herd7" ]; then
		msg "herd7: $dir (built before from $(basename "$tb"))"
		echo "$dir/herd7"
		return 0
	fi
	bash "$REPO/tools/testing/ring_buffer/vm/install-deps.sh" litmus >&2 || return 1
	rm -rf "$dir"
	mkdir -p "$src"
	log=$HERD_DIR/$name.log
	msg "building herd7 from $(basename "$tb") in $dir (log: $log; about 3 minutes on 2 cores)"
	t0=$(date +%s)
	if ! (
		set -e
		tar -xJf "$tb" -C "$src" --strip-components=1
		cd "$src"
		# Not our repository's commit as herd7's revision (defs.sh asks git).
		GIT_DIR=/nonexistent sh ./version-gen.sh "$dir"
		dune build --profile release herd/herd.exe
		install -D -m 755 _build/default/herd/herd.exe "$dir/bin/herd.exe"
		mkdir -p "$dir/share"
		cp -r herd/libdir "$dir/share/herdtools7"
	) > "$log" 2>&1; then
		msg "ERROR: herd7 build failed; last lines of $log:"
		tail -n 20 "$log" >&2
		return 1
	fi
	rm -rf "$src"
	cat > "$dir/herd7" <<-EOF
	#!/bin/sh
	exec "$dir/bin/herd.exe" -I "$dir/share/herdtools7" "\$@"
	EOF
	chmod +x "$dir/herd7"
	echo "$sum" > "$dir/.built"
	msg "herd7 built in $(($(date +%s) - t0)) s"
	echo "$dir/herd7"
}

# The memory model's files: linux-kernel.{cfg,cat,bell,def} and lock.cat.
lkmm_dir() {
	if [ -n "${LKMM:-}" ]; then
		echo "$LKMM"
	elif [ -f "$PRISTINE/tools/memory-model/linux-kernel.cfg" ]; then
		echo "$PRISTINE/tools/memory-model"
	else
		local d=$BUILD/lkmm
		if [ ! -f "$d/tools/memory-model/linux-kernel.cfg" ]; then
			if [ ! -f "$TARBALL" ]; then
				need_pkgs linux-source-6.12 >&2 || return 1
			fi
			rm -rf "$d"
			mkdir -p "$d"
			tar -xJf "$TARBALL" -C "$d" --strip-components=1 \
				linux-source-6.12/tools/memory-model || return 1
		fi
		echo "$d/tools/memory-model"
	fi
}

# ------------------------------------------------------------------- herd7
herd=() herd_from=
if [ -n "${HERD7:-}" ]; then
	# Asked for and missing: a failure, not a skip.
	command -v "$HERD7" >/dev/null 2>&1 || fail_early "HERD7=$HERD7 is not an executable"
	herd=("$HERD7") herd_from="HERD7=$HERD7"
	[ -z "${HERD7_LIB:-}" ] || herd+=(-I "$HERD7_LIB")
elif [ -n "${HERDTOOLS:-}" ]; then
	[ -f "$HERDTOOLS" ] || fail_early "HERDTOOLS=$HERDTOOLS does not exist"
	h=$(build_herd "$HERDTOOLS") ||
		fail_early "building herd7 from $HERDTOOLS failed, see $HERD_DIR/"
	herd=("$h") herd_from=$h
elif command -v herd7 >/dev/null 2>&1; then
	herd=(herd7) herd_from=$(command -v herd7)
elif h=$(ls "$HERD_DIR"/*/.built 2>/dev/null | head -n 1) && [ -x "${h%/.built}/herd7" ]; then
	# Built from a tarball before, by this user (HERDTOOLS= another time).
	herd=("${h%/.built}/herd7") herd_from="${h%/.built}/herd7 (built before)"
else
	skip "no herd7: neither HERD7= nor HERDTOOLS= given, no herd7 on PATH nor in $HERD_DIR"
fi

if ! lkmm=$(lkmm_dir) || [ ! -f "$lkmm/linux-kernel.cfg" ]; then
	fail_early "no tools/memory-model with linux-kernel.cfg (LKMM=, $PRISTINE, $TARBALL)"
fi
msg "herd7: $herd_from ($("${herd[@]}" -version 2>/dev/null | head -n 1 || true)); LKMM: $lkmm"

# ------------------------------------------------------------------- tests
if [ $# -gt 0 ]; then
	files=("$@")
else
	files=("$HERE"/*.litmus)
fi
# expect NAME: the verdict the name asks for.
expect() {
	case $1 in
	*+*-redundant) echo Never ;;
	*+* | *-defect | *-allowed) echo Sometimes ;;
	*) echo Never ;;
	esac
}
bases=()
for f in "${files[@]}"; do
	b=$(basename "$f" .litmus)
	case $b in *+* | *-defect | *-allowed) ;; *) bases+=("$b") ;; esac
done
# One line per file, one per base's mutant check, one for the table.
ntests=$((${#files[@]} + ${#bases[@]} + ($# == 0 ? 1 : 0)))

echo "KTAP version 1"
echo "1..$ntests"
n=0 nfail=0 T0=$(date +%s)
result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2${3:+ # $3}"
		nfail=$((nfail + 1))
	fi
}

declare -A verdict=()
for f in "${files[@]}"; do
	f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
	b=$(basename "$f" .litmus)
	want=$(sed -n 's/^[[:space:]]*\**[[:space:]]*Expect:[[:space:]]*\([A-Za-z]*\).*/\1/p' "$f" | head -n 1)
	byname=$(expect "$b")
	if [ -z "$want" ]; then
		result fail "litmus: $b" "no 'Expect: Never|Sometimes' line in its header"
		continue
	elif [ "$want" != "$byname" ]; then
		result fail "litmus: $b" "header expects $want, the name says $byname"
		continue
	fi
	t0=$(date +%s.%N)
	set +e
	out=$(cd "$lkmm" && timeout "$HERD_TIMEOUT" "${herd[@]}" -conf linux-kernel.cfg "$f" 2>&1)
	rc=$?
	set -e
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	got=$(awk '$1 == "Observation" { print $3; exit }' <<< "$out")
	states=$(awk '$1 == "States" { print $2; exit }' <<< "$out")
	race=
	grep -q '^Flag data-race' <<< "$out" && race="LKMM flags a data race; "
	verdict[$b]=$got
	if [ $rc -ne 0 ] || [ -z "$got" ]; then
		result fail "litmus: $b" "herd7 failed (exit $rc): $(tr '\n' ' ' <<< "$out" | cut -c1-200)"
	elif [ "$got" != "$want" ]; then
		result fail "litmus: $b: $got" "expected $want; $race$states states"
	elif [ "$want" = Never ] && [ -n "$race" ]; then
		result fail "litmus: $b: $got" "LKMM flags a data race"
	else
		result ok "litmus: $b: $got as expected ($race$states states, $secs s)"
	fi
done

# Every base has a mutant that LKMM says Sometimes to.
for b in "${bases[@]}"; do
	ms=() bad=
	for m in "$HERE/$b"+*.litmus; do
		m=$(basename "$m" .litmus)
		case $m in *-redundant) continue ;; esac
		ms+=("$m")
		if [ -z "${verdict[$m]+set}" ]; then
			got=$(cd "$lkmm" && timeout "$HERD_TIMEOUT" "${herd[@]}" -conf linux-kernel.cfg \
				"$HERE/$m.litmus" 2>&1 | awk '$1 == "Observation" { print $3; exit }')
			verdict[$m]=$got
		fi
		[ "${verdict[$m]}" = Sometimes ] || bad="$bad $m:${verdict[$m]:-error}"
	done
	if [ ${#ms[@]} -eq 0 ]; then
		result fail "litmus: $b has a mutant" "no $b+*.litmus other than -redundant ones"
	elif [ -n "$bad" ]; then
		result fail "litmus: $b has a mutant" "not Sometimes:$bad"
	else
		result ok "litmus: $b has a mutant (${ms[*]}: Sometimes)"
	fi
done

# The barrier table names only files that exist; every test but the
# mutants is named there or in the README of this directory.
if [ $# -eq 0 ]; then
	bad=
	named=$(grep -o '[A-Za-z0-9_.+-]*\.litmus' "$DOC" | sort -u || true)
	listed=$(grep -o '[A-Za-z0-9_.+-]*\.litmus' "$HERE/README" 2>/dev/null | sort -u || true)
	for t in $named; do
		[ -f "$HERE/$t" ] || bad="$bad $t:in-the-table-but-missing"
	done
	for f in "$HERE"/*.litmus; do
		t=$(basename "$f")
		case $t in *+*) continue ;; esac
		grep -qxF "$t" <<< "$(printf '%s\n%s' "$named" "$listed")" || bad="$bad $t:named-nowhere"
	done
	if [ -z "$bad" ]; then
		result ok "litmus: the barrier table and README name every test, and only tests that exist"
	else
		result fail "litmus: the barrier table and README name every test" "${bad# }"
	fi
fi

msg "litmus: $n checks, $nfail failed, $(($(date +%s) - T0)) s"
echo "$((n - nfail)) passed, $nfail failed"
[ "$nfail" -eq 0 ]
